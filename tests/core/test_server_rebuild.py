"""A running Chroma server that keeps failing a collection after its index is set aside
(core/store/index_repair.py `rebuild`).

A server killed while it writes an index can leave files it cannot read, and once it has tried to,
it keeps the failing index in memory: setting the folder aside changes nothing until the server
restarts (bench/README.md, "A Chroma server killed while it writes"; bench/server_kills.py meets it
in real kills). The host that reaches the server's files then makes the collection again from the
records in Chroma's file. These tests stand in for the server's stuck index with a collection
handle whose every call fails as the server's did, on a real `chroma run`: the rest is real."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest

from core import Actor, MemoryIn, Settings, StoreUnavailable, build_service, erase_person, scope_for
from core.scope import memory_collection
from core.store import chroma_file
from core.store.index_repair import STAGED, _index_settings
from core.testing import HashEmbedder
from tests.core.test_index_repair import FACTS
from tests.kit.servers import free_port, stop_process, wait_answering

STUCK = "Error executing plan: Error sending backfill request to compactor: Failed to apply logs to the hnsw segment writer"


class InternalError(Exception):
    pass


class Stuck:
    """A collection handle on which the server fails every call, as it does on an index it holds in
    memory and cannot apply its log to."""

    def __init__(self, real):
        self.id, self.name, self.metadata, self.configuration_json = real.id, real.name, real.metadata, real.configuration_json

    def __getattr__(self, attr):
        def fail(*_, **__):
            raise InternalError(STUCK)
        return fail


def _stuck(handle, persist: Path, col: str) -> None:
    """`col`'s index as the server leaves it: its folder set aside (the host's first step, done here
    as the host does it), the server failing every call on the index it holds in memory."""
    [folder] = [persist / seg for seg, name in chroma_file.vector_collections(persist).items() if name == col]
    shutil.rmtree(folder)
    handle._col = Stuck(handle._col)


def test_a_failure_that_leaves_the_index_whole_on_disk_makes_nothing_again(tmp_path, server):
    """"Failed to apply logs" is also what Chroma says with no file descriptor left: with the index
    on disk and whole, the collection is not made again, and the call's own error stands."""
    service, emb, me, col = _alice_on(tmp_path, server)
    try:
        handle = service.store._collection(col, vectors=True)
        real = handle._col
        handle._col = Stuck(real)
        with pytest.raises(InternalError):
            service.store.query_memories(col, emb.embed_query(FACTS[0]), 3, None)
        assert handle._col.id == real.id
        handle._col = real
        assert sorted(m.content for m in service.list(me, limit=100).items) == sorted(FACTS)
    finally:
        service.close()


def test_a_call_the_server_died_in_sets_that_collections_half_written_index_aside(tmp_path, server):
    """Chroma's server crashes (SIGSEGV) on some indexes a kill left half-written, at every call on
    them (bench/server_kills.py met one: the id map 64 elements behind the hnsw files). The call
    sees the server vanish mid-call; the host then checks that collection's index on disk and sets
    it aside if its files disagree, so the server, once back, reads the collection again."""
    persist = server[1]
    service, emb, me, col = _alice_on(tmp_path, server)
    try:
        handle = service.store._collection(col, vectors=True)
        [folder] = [persist / seg for seg, name in chroma_file.vector_collections(persist).items() if name == col]
        with open(folder / "index_metadata.pickle", "r+b") as f:  # as the kill left it
            f.truncate(100)
        handle._col = Dying(handle._col)
        with pytest.raises(StoreUnavailable):
            service.store.query_memories(col, emb.embed_query(FACTS[0]), 3, None)
        assert not folder.exists() and col in service.store.vectors_to_rebuild()
        # a whole index is left where it is, whatever the server died of
        other = memory_collection(scope_for(Actor("bob")))
        service.remember(scope_for(Actor("bob")), MemoryIn(content="bob keeps bees"))
        bobs = service.store._collection(other, vectors=True)
        [kept] = [persist / seg for seg, name in chroma_file.vector_collections(persist).items() if name == other]
        bobs._col = Dying(bobs._col)
        with pytest.raises(StoreUnavailable):
            service.store.query_memories(other, emb.embed_query("bees"), 3, None)
        assert kept.is_dir() and other not in service.store.vectors_to_rebuild()
    finally:
        service.close()


class Dying(Stuck):
    """A handle on which the server dies in the middle of every call."""

    def __getattr__(self, attr):
        def die(*_, **__):
            raise httpx.RemoteProtocolError("Server disconnected without sending a response.")
        return die


@pytest.fixture()
def server(tmp_path):
    port, persist = free_port(), tmp_path / "chroma"
    config = tmp_path / "chroma.yaml"
    config.write_text(json.dumps({"port": port, "listen_address": "127.0.0.1", "persist_path": str(persist)}))
    proc = subprocess.Popen([shutil.which("chroma", path=str(Path(sys.executable).parent)), "run", str(config)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_answering(f"{url}/api/v2/heartbeat", proc, what="chroma run", timeout=60)
        yield url, persist
    finally:
        stop_process(proc)


def _host(tmp_path: Path, url: str, persist: Path, emb: HashEmbedder):
    return build_service(Settings(data_dir=tmp_path / "host", chroma_url=url, chroma_data_path=persist, embedding_model="hash"),
                         embedder=emb)


def _every_vector_back(service, col: str, emb: HashEmbedder, texts: list[str]) -> None:
    deadline = time.monotonic() + 60
    while service.store.vectors_to_rebuild() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert service.store.vectors_to_rebuild() == []
    for text in texts:  # each memory's own vector finds it: in the index, in a place of its own
        [(found, score)] = service.store.query_memories(col, emb.embed_query(text), 1, None)
        assert found.content == text and score > 0.999


def _alice_on(tmp_path: Path, server: tuple[str, Path], **fields):
    """A host on `server`'s files that remembered FACTS for alice: (host, embedder, alice, her memory collection)."""
    url, persist = server
    emb, me = HashEmbedder(), scope_for(Actor("alice"))
    service = _host(tmp_path, url, persist, emb)
    try:
        for fact in FACTS:
            service.remember(me, MemoryIn(content=fact, **fields))
    except BaseException:
        service.close()
        raise
    return service, emb, me, memory_collection(me)


def test_a_collection_the_server_keeps_failing_is_made_again_from_its_records_and_the_call_answers(tmp_path, server):
    persist = server[1]
    service, emb, me, col = _alice_on(tmp_path, server, tags=["drawer"])
    try:
        handle = service.store._collection(col, vectors=True)
        before = handle._col.id
        _stuck(handle, persist, col)
        # the first call that meets it answers, from the collection made again
        hits = service.store.query_memories(col, emb.embed_query(FACTS[0]), 3, None)
        assert handle._col.id != before and all(m.content in FACTS for m, _ in hits)
        listed = service.list(me, limit=100).items
        assert sorted(m.content for m in listed) == sorted(FACTS) and all(m.tags == ["drawer"] for m in listed)
        assert not list((persist / STAGED).glob("*"))  # nothing left staged
        _every_vector_back(service, col, emb, FACTS)
        service.remember(me, MemoryIn(content="the bicycle pump is in the shed"))
        _every_vector_back(service, col, emb, [*FACTS, "the bicycle pump is in the shed"])
    finally:
        service.close()


def test_a_second_host_finds_the_collection_made_again_by_the_first(tmp_path, server):
    url, persist = server
    emb, me = HashEmbedder(), scope_for(Actor("alice"))
    col = memory_collection(me)
    first, second = _host(tmp_path / "1", url, persist, emb), _host(tmp_path / "2", url, persist, emb)
    try:
        for fact in FACTS[:4]:
            first.remember(me, MemoryIn(content=fact))
        assert len(second.list(me, limit=100).items) == 4  # the second host holds a handle on the collection now
        _stuck(first.store._collection(col, vectors=True), persist, col)
        first.store.query_memories(col, emb.embed_query(FACTS[0]), 3, None)  # made again by the first host
        # the second host's handle names a collection that is gone: it takes the new one and goes on
        second.remember(me, MemoryIn(content=FACTS[4]))
        assert sorted(m.content for m in second.list(me, limit=100).items) == sorted(FACTS[:5])
        _every_vector_back(first, col, emb, FACTS[:5])
    finally:
        first.close()
        second.close()


def _killed_while_making_it_again(service, persist: Path, col: str) -> None:
    """Alice's records staged and her collection dropped, where a kill in `rebuild` falls; the host closed."""
    try:
        real = service.store._collection(col, vectors=True)._col
        recs = {**chroma_file.records(persist, col), "hnsw": _index_settings(real)}
        assert len(recs["ids"]) == len(FACTS)
        service.store.mender._stage(col, recs)
        service.store.mender._write({col})
    finally:
        service.close()
    service.store.client.delete_collection(col)


def test_the_repairs_leave_alone_a_collection_another_thread_is_making_again(tmp_path, server):
    """A `rebuild` under way has staged its records; the repairs' pass (`restore_staged`) waits for
    it to end instead of taking the file for one a crash left behind."""
    persist = server[1]
    service, emb, me, col = _alice_on(tmp_path, server)
    mender = service.store.mender
    try:
        real = service.store._collection(col, vectors=True)._col
        staged = mender._stage(col, {**chroma_file.records(persist, col), "hnsw": _index_settings(real)})
        with mender._listing():  # as `rebuild` holds it from staging to the end
            pass_ = threading.Thread(target=mender.restore_staged)
            pass_.start()
            pass_.join(0.5)
            assert pass_.is_alive() and staged.exists()  # waiting, the file untouched
            staged.unlink()  # the rebuild ends: its file goes
        pass_.join(30)
        assert not pass_.is_alive()
        assert service.store.client.get_collection(col, embedding_function=None).id == real.id  # nothing made again
    finally:
        service.close()


def test_a_person_forgotten_after_such_a_kill_does_not_come_back_from_the_staged_records(tmp_path, server):
    url, persist = server
    service, emb, me, col = _alice_on(tmp_path, server)
    _killed_while_making_it_again(service, persist, col)
    erase_person(Settings(data_dir=tmp_path / "host", chroma_url=url, chroma_data_path=persist, embedding_model="hash"), "alice")
    assert not list((persist / STAGED).glob("*"))
    service = _host(tmp_path, url, persist, emb)
    try:
        assert service.repairs.done.wait(60)
        assert service.list(me, limit=100).items == [] and col not in service.store.vectors_to_rebuild()
    finally:
        service.close()


def test_a_host_killed_in_the_middle_of_making_it_again_loses_nothing(tmp_path, server):
    """Killed after the records were staged and the collection dropped: the next start makes it
    and gives it the staged records, and the repairs their vectors."""
    url, persist = server
    service, emb, me, col = _alice_on(tmp_path, server)
    _killed_while_making_it_again(service, persist, col)
    service = _host(tmp_path, url, persist, emb)
    try:
        assert service.repairs.done.wait(60)
        assert sorted(m.content for m in service.list(me, limit=100).items) == sorted(FACTS)
        assert not list((persist / STAGED).glob("*"))
        _every_vector_back(service, col, emb, FACTS)
    finally:
        service.close()
