"""Audit rows of concurrent writers go to Chroma in one upsert (core/store/group_commit.py): each
writer returns only once its own rows are written, an error reaches every writer whose rows it
held, and on a real store every row of sixteen concurrent writers is there afterwards."""

from __future__ import annotations

import threading
import time

import pytest

from core import Actor, MemoryIn, Settings, build_service, scope_for
from core.store.group_commit import GroupCommit
from core.testing import FixedClock, HashEmbedder


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
    gc._flush([(["x", "y"], [{"v": 1}, {"v": 1}], None), (["x"], [{"v": 2}], None)])  # type: ignore[list-item]
    assert got == {"y": {"v": 1}, "x": {"v": 2}}


def test_concurrent_writers_on_a_real_store_keep_every_audit_row(tmp_path):
    svc = build_service(Settings(data_dir=tmp_path / "d"), embedder=HashEmbedder(), clock=FixedClock())
    try:
        people = [scope_for(Actor(f"writer{i}", client="tests")) for i in range(16)]
        for p in people:  # each person's collections exist before the burst
            svc.remember(p, MemoryIn(content="a first memory"))
        before, rows = svc.store._events.writes, {p.user_id: len(svc.events(p)) for p in people}
        barrier = threading.Barrier(len(people))
        errors: list[BaseException] = []

        def write(p) -> None:
            try:
                barrier.wait()
                for n in range(3):
                    svc.remember(p, MemoryIn(content=f"memory number {n} of {p.user_id}"))
            except BaseException as e:  # reported below
                errors.append(e)

        threads = [threading.Thread(target=write, args=(p,)) for p in people]
        for t in threads:
            t.start()
        for t in threads:
            t.join(120)
        assert errors == []
        assert svc.store._events.writes - before <= 16 * 3  # never more upserts than writes
        for p in people:  # each remember left its audit row
            assert len(svc.events(p)) == rows[p.user_id] + 3
    finally:
        svc.close()
