"""Client/server Chroma: two Amber hosts share one `chroma run`, and neither serves stale recall."""

from __future__ import annotations

import pytest

from datetime import datetime, timezone

from core import MemoryIn, Message, Role, Settings, Status, build_service
from core.jobs.writes import set_status
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


def test_a_turn_deleted_or_a_memory_retired_on_one_host_is_gone_from_the_others_warm_index(chroma_url, alice):
    """Deletes and job status changes move the stored revision, so a host whose index is warm reads
    back what changed (or rebuilds, for a removed turn) instead of serving what was forgotten."""
    one = build_service(Settings(chroma_url=chroma_url), embedder=HashEmbedder(), clock=FixedClock())
    two = build_service(Settings(chroma_url=chroma_url), embedder=HashEmbedder(), clock=FixedClock())
    lexical = two.recall_config(weights={"mem_lexical": 1.0, "msg_lexical": 1.0, "mem_dense": 0.0, "msg_dense": 0.0})
    try:
        at = datetime(2026, 3, 1, tzinfo=timezone.utc)
        one.store_turns(alice, [Message(id="pin-1", role=Role.user, content="my bank PIN is 4417 zanzibar", created_at=at)])
        fact = one.remember(alice, MemoryIn(content="my locker code is 9981 quokka")).memory
        assert [c.id for c in two.search(alice, "zanzibar", config=lexical)] == ["pin-1"]  # two's indexes are warm now
        assert [c.id for c in two.search(alice, "quokka", config=lexical)] == [fact.id]
        assert one.erase_turns(alice, ["pin-1"]) == 1
        set_status(one, alice, [fact], Status.archived, "archive", at)
        assert two.search(alice, "zanzibar", config=lexical) == []
        assert two.search(alice, "quokka", config=lexical) == []
    finally:
        one.close()
        two.close()


def test_a_host_keeps_its_collections_in_the_database_it_names(chroma_url):
    import chromadb
    from chromadb.config import Settings as ChromaSettings

    from core import Actor, scope_for

    alice = scope_for(Actor("alice-of-the-team"))  # nobody else's test writes this user

    port = int(chroma_url.rsplit(":", 1)[1])
    admin = chromadb.AdminClient(ChromaSettings(chroma_api_impl="chromadb.api.fastapi.FastAPI", chroma_server_host="127.0.0.1",
                                                chroma_server_http_port=port, anonymized_telemetry=False))
    admin.create_database("amber_team")
    team = build_service(Settings(chroma_url=chroma_url, chroma_database="amber_team"), embedder=HashEmbedder(), clock=FixedClock())
    try:
        team.remember(alice, MemoryIn(content="Our standup is at 9:30"))
        assert "amber_team" in team.store.location
    finally:
        team.close()
    in_team = {c.name for c in chromadb.HttpClient(host="127.0.0.1", port=port, database="amber_team").list_collections()}
    in_default = {c.name for c in chromadb.HttpClient(host="127.0.0.1", port=port).list_collections()}
    mine = {n for n in in_team if n.startswith("amber_mem_")}
    assert mine and not mine & in_default  # the team's memories are not in the default database
    again = build_service(Settings(chroma_url=chroma_url, chroma_database="amber_team"), embedder=HashEmbedder(), clock=FixedClock())
    try:
        assert again.search(alice, "standup")[0].text == "Our standup is at 9:30"
    finally:
        again.close()


def test_a_stopped_chroma_server_costs_a_call_its_timeout_not_for_ever(tmp_path):
    """chromadb's client waits for ever: with the server stopped (SIGSTOP, as a hung machine or
    dropped packets leave it), every request and its thread waited until it came back. Now a call
    waits `chroma_timeout_s`, then memory counts as away (StoreUnavailable), and works again after."""
    import shutil
    import signal
    import subprocess
    import sys
    import time
    from pathlib import Path

    from core import Actor, StoreUnavailable, scope_for
    from tests.kit.servers import free_port, stop_process, wait_answering

    port = free_port()
    proc = subprocess.Popen([shutil.which("chroma", path=str(Path(sys.executable).parent)), "run", "--path", str(tmp_path / "c"),
                             "--host", "127.0.0.1", "--port", str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_answering(f"{url}/api/v2/heartbeat", proc, what="chroma run", timeout=30)
        service = build_service(Settings(data_dir=tmp_path / "host", chroma_url=url, embedding_model="hash", chroma_timeout_s=2),
                                embedder=HashEmbedder())
        me = scope_for(Actor("alice"))
        try:
            service.remember(me, MemoryIn(content="The spare key is under the blue pot"))
            proc.send_signal(signal.SIGSTOP)
            started = time.monotonic()
            with pytest.raises(StoreUnavailable):
                service.remember(me, MemoryIn(content="The bike lock code is 4512"))
            assert time.monotonic() - started < 20
            proc.send_signal(signal.SIGCONT)
            assert any("blue pot" in m.content for m in service.list(me).items)
        finally:
            proc.send_signal(signal.SIGCONT)
            service.close()
    finally:
        stop_process(proc)
