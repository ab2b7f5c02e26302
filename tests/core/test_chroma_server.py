"""Client/server Chroma: two Amber hosts share one `chroma run`, and neither serves stale recall."""

from __future__ import annotations

import pytest

from core import MemoryIn, Settings, build_service
from core.testing import FixedClock, HashEmbedder
from tests.kit.servers import chroma_server

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def chroma_url(tmp_path_factory):
    with chroma_server(tmp_path_factory.mktemp("chroma")) as url:
        yield url


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
