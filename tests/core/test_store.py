"""The store: the lock refuses a second OS process; a changed embedder is a clear error naming `amber reindex`."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from core import EmbedderMismatch, MemoryIn, Settings, StoreLocked, build_service
from core.testing import FixedClock, HashEmbedder


def test_second_process_is_refused_with_directions(service, tmp_path):
    code = textwrap.dedent(
        f"""
        from core import Settings, StoreLocked, build_service
        from core.testing import HashEmbedder
        try:
            build_service(Settings(data_dir={str(tmp_path / 'data')!r}), embedder=HashEmbedder())
        except StoreLocked as e:
            print("LOCKED:", e)
        else:
            print("OPENED")
        """
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert "LOCKED:" in out.stdout, out.stdout + out.stderr
    assert "--url" in out.stdout and "AMBER_SERVER_URL" in out.stdout and "process" in out.stdout


def test_lock_is_released_on_close(tmp_path):
    first = build_service(Settings(data_dir=tmp_path), embedder=HashEmbedder())
    with pytest.raises(StoreLocked):
        build_service(Settings(data_dir=tmp_path), embedder=HashEmbedder())
    first.close()
    build_service(Settings(data_dir=tmp_path), embedder=HashEmbedder()).close()


class Wider(HashEmbedder):
    id = "hash:wider"
    dim = 512


def test_embedder_change_is_detected_and_reindex_fixes_it(tmp_path, alice):
    svc = build_service(Settings(data_dir=tmp_path), embedder=HashEmbedder(), clock=FixedClock())
    svc.remember(alice, MemoryIn(content="I keep bees"))
    svc.close()
    svc = build_service(Settings(data_dir=tmp_path), embedder=Wider(), clock=FixedClock())
    with pytest.raises(EmbedderMismatch) as e:
        svc.search(alice, "bees")
    assert "amber reindex" in str(e.value)
    assert svc.reindex(alice, alice.user_id).users[alice.user_id].memories == 1
    assert svc.search(alice, "bees")[0].text == "I keep bees"
    svc.close()


def test_revision_survives_restart(tmp_path, alice):
    svc = build_service(Settings(data_dir=tmp_path), embedder=HashEmbedder(), clock=FixedClock())
    svc.remember(alice, MemoryIn(content="one"))
    svc.search(alice, "one")
    svc.close()
    svc = build_service(Settings(data_dir=tmp_path), embedder=HashEmbedder(), clock=FixedClock())
    svc.remember(alice, MemoryIn(content="two words"))
    assert {c.text for c in svc.search(alice, "one two words")} >= {"one", "two words"}
    svc.close()
