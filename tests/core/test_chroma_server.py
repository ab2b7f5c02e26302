"""Client/server Chroma: two Amber hosts share one `chroma run`, and neither serves stale recall."""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from core import MemoryIn, Settings, build_service
from core.testing import FixedClock, HashEmbedder

pytestmark = pytest.mark.e2e


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def chroma_url(tmp_path_factory):
    port = _free_port()
    exe = shutil.which("chroma", path=str(Path(sys.executable).parent))
    proc = subprocess.Popen(
        [exe, "run", "--path", str(tmp_path_factory.mktemp("chroma")), "--host", "127.0.0.1", "--port", str(port)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(150):
            try:
                if httpx.get(f"{url}/api/v2/heartbeat", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.2)
        else:
            pytest.fail("chroma run did not start")
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=20)


def test_two_hosts_share_one_chroma_server(chroma_url, alice):
    one = build_service(Settings(chroma_url=chroma_url), embedder=HashEmbedder(), clock=FixedClock())
    two = build_service(Settings(chroma_url=chroma_url), embedder=HashEmbedder(), clock=FixedClock())
    try:
        one.remember(alice, MemoryIn(content="My bike is a green Brompton"))
        assert two.search(alice, "bike")[0].text == "My bike is a green Brompton"  # two builds its index now
        one.remember(alice, MemoryIn(content="My bike was stolen last week, bike gone"))
        # two's lexical index is stale; the revision stored in Chroma tells it to rebuild
        assert any("stolen" in c.text for c in two.search(alice, "bike stolen"))
        victim = one.list(alice, text="Brompton").items[0]
        two.delete(alice, victim.id)
        assert not any("Brompton" in c.text for c in one.search(alice, "Brompton bike"))
    finally:
        one.close()
        two.close()
