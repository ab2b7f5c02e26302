"""Audit rows of concurrent writers go to Chroma in one upsert (core/store/group_commit.py): each
writer returns only once its own rows are written, an error reaches every writer whose rows it
held, and on a real store every row of sixteen concurrent writers is there afterwards. On a Chroma
server, registry reads of concurrent recalls share a call the same way, each read sent after it was
asked for, so none misses a revision published before it began."""

from __future__ import annotations

import threading
import time

import pytest

from core import Actor, MemoryIn, Settings, build_service, scope_for
from core.store.group_commit import GroupCommit, GroupRead
from core.testing import FixedClock, HashEmbedder
from tests.kit.servers import chroma_server


def _at_once(people, each) -> list[BaseException]:
    """`each(person)` for every person, each in a thread of its own, all let go together; the errors raised."""
    barrier = threading.Barrier(len(people))
    errors: list[BaseException] = []

    def run(p) -> None:
        try:
            barrier.wait()
            each(p)
        except BaseException as e:  # returned to the test
            errors.append(e)

    threads = [threading.Thread(target=run, args=(p,)) for p in people]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    return errors


def test_writers_waiting_behind_a_write_go_out_together_and_each_returns_after_its_rows():
    written: list[list[str]] = []
    first_in = threading.Event()
    release = threading.Event()

    def write(ids, metas):
        if not written:  # the first write is slow: the others queue up behind it
            first_in.set()
            release.wait(10)
        written.append(list(ids))

    gc = GroupCommit(write)
    returned: dict[str, list[list[str]]] = {}

    def put(name: str) -> None:
        gc.put([name], [{"n": name}])
        returned[name] = [list(w) for w in written]  # what was on disk when this writer returned

    first = threading.Thread(target=put, args=("a",))
    first.start()
    assert first_in.wait(10)
    rest = [threading.Thread(target=put, args=(n,)) for n in "bcdef"]
    for t in rest:
        t.start()
    time.sleep(0.2)  # all five are queued behind the first write
    release.set()
    for t in [first, *rest]:
        t.join(10)
    assert written[0] == ["a"] and sorted(written[1]) == list("bcdef") and gc.writes == 2
    for name, seen in returned.items():
        assert any(name in w for w in seen)  # nobody returned before its row was written


def test_an_error_reaches_every_writer_in_that_write_and_the_next_write_goes_on():
    calls = []

    def write(ids, metas):
        calls.append(list(ids))
        if "bad" in ids:
            raise OSError("disk full")

    gc = GroupCommit(write)
    with pytest.raises(OSError, match="disk full"):
        gc.put(["bad"], [{}])
    gc.put(["good"], [{}])
    assert calls == [["bad"], ["good"]]


def test_a_row_written_twice_in_one_write_keeps_its_last_version():
    got = {}
    gc = GroupCommit(lambda ids, metas: got.update(zip(ids, metas)))
    gc._call([(["x", "y"], [{"v": 1}, {"v": 1}]), (["x"], [{"v": 2}])])
    assert got == {"y": {"v": 1}, "x": {"v": 2}}


def test_concurrent_writers_on_a_real_store_keep_every_audit_row(tmp_path):
    svc = build_service(Settings(data_dir=tmp_path / "d"), embedder=HashEmbedder(), clock=FixedClock())
    try:
        people = [scope_for(Actor(f"writer{i}", client="tests")) for i in range(16)]
        for p in people:  # each person's collections exist before the burst
            svc.remember(p, MemoryIn(content="a first memory"))
        before, rows = svc.store._events.writes, {p.user_id: len(svc.events(p)) for p in people}
        def write(p) -> None:
            for n in range(3):
                svc.remember(p, MemoryIn(content=f"memory number {n} of {p.user_id}"))

        assert _at_once(people, write) == []
        assert svc.store._events.writes - before <= 16 * 3  # never more upserts than writes
        for p in people:  # each remember left its audit row
            assert len(svc.events(p)) == rows[p.user_id] + 3
    finally:
        svc.close()


def test_readers_arriving_during_a_read_share_the_next_call_and_each_gets_only_its_own_rows():
    table = {f"k{i}": i for i in range(10)}
    calls: list[list[str]] = []
    first_in, release = threading.Event(), threading.Event()

    def read(keys):
        calls.append(list(keys))
        rows = {k: table[k] for k in keys if k in table}  # as the store held them when the call arrived
        if len(calls) == 1:
            first_in.set()
            release.wait(10)
        return rows

    gr = GroupRead(read)
    got: dict[str, dict] = {}
    first = threading.Thread(target=lambda: got.update(a=gr.get(["k0"])))
    first.start()
    assert first_in.wait(10)
    table["k0"] = "changed while the first read was under way"
    rest = [threading.Thread(target=lambda n=n, keys=keys: got.update({n: gr.get(keys)}))
            for n, keys in [("b", ["k0", "k1"]), ("c", ["k2", "nope"]), ("d", ["k1"])]]
    for t in rest:
        t.start()
    time.sleep(0.2)
    release.set()
    for t in [first, *rest]:
        t.join(10)
    assert calls[0] == ["k0"] and sorted(calls[1]) == ["k0", "k1", "k2", "nope"] and gr.calls == 2
    assert got["a"] == {"k0": 0}
    assert got["b"] == {"k0": "changed while the first read was under way", "k1": 1}  # not the call sent before it asked
    assert got["c"] == {"k2": 2} and got["d"] == {"k1": 1}


def test_a_read_error_reaches_every_reader_of_that_call_and_the_next_read_goes_on():
    def read(keys):
        if "bad" in keys:
            raise ConnectionError("Chroma went away")
        return {k: 1 for k in keys}

    gr = GroupRead(read)
    with pytest.raises(ConnectionError):
        gr.get(["bad", "x"])
    assert gr.get(["x"]) == {"x": 1}


@pytest.mark.e2e
def test_concurrent_recalls_on_a_chroma_server_read_revisions_in_fewer_calls_and_miss_no_write(tmp_path):
    """Sixteen people recall at once on a host over `chroma run` while a second host writes for them:
    every recall that starts after a write returned finds it, and the revision reads share calls."""
    with chroma_server(tmp_path / "chroma") as url:
        reader = build_service(Settings(chroma_url=url), embedder=HashEmbedder(), clock=FixedClock())
        writer = build_service(Settings(chroma_url=url), embedder=HashEmbedder(), clock=FixedClock())
        try:
            people = [scope_for(Actor(f"reader{i}", client="tests")) for i in range(16)]
            for p in people:
                writer.remember(p, MemoryIn(content=f"{p.user_id} keeps bees on the roof"))
                assert reader.search(p, "bees roof")  # the reader's index is warm before the burst
            reads = reader.store._registry_reads
            before = reads.calls
            def burst(p) -> None:
                for n in range(4):
                    writer.remember(p, MemoryIn(content=f"{p.user_id} planted lavender bed {n}"))
                    found = [c.text for c in reader.search(p, f"lavender bed {n}")]
                    assert f"{p.user_id} planted lavender bed {n}" in found, (p.user_id, n, found)

            assert _at_once(people, burst) == []
            assert reads.calls - before < 16 * 4  # fewer registry reads than searches
        finally:
            reader.close()
            writer.close()
