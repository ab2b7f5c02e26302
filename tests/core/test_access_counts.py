"""Recall hits are written in the background, one write carrying every recall of a moment: steady
recall traffic no longer makes a store write per recall (a write that the next recalls wait for)."""

from __future__ import annotations

import threading

from core import Actor, MemoryIn, Settings, build_service, scope_for
from core.access import AccessCounts
from core.testing import FixedClock, HashEmbedder


class Writes:
    """The one method of the write path that AccessCounts uses, recording its calls."""

    def __init__(self):
        self.calls: list[tuple[str, dict[str, int]]] = []
        self.done = threading.Event()

    def record_access(self, scope, hits, now):
        self.calls.append((scope.user_id, dict(hits)))
        self.done.set()


def test_the_hits_of_many_recalls_go_in_one_write_and_wait_writes_them_at_once():
    writes, clock = Writes(), FixedClock()
    counts = AccessCounts(writes, clock, delay_s=600)  # a test that waited for the moment would hang
    alice, bob = scope_for(Actor("alice")), scope_for(Actor("bob"))
    try:
        for _ in range(5):
            counts.count(alice, ["m1", "m2"])
        counts.count(alice, ["m3"])
        counts.count(bob, ["m9"])
        assert writes.calls == []  # still within the moment: nothing written yet
        counts.wait()
        assert sorted(writes.calls) == [("alice", {"m1": 5, "m2": 5, "m3": 1}), ("bob", {"m9": 1})]
        counts.count(alice, ["m1"])
        counts.wait()
        assert writes.calls[-1] == ("alice", {"m1": 1})
    finally:
        counts.close()


def test_the_write_comes_by_itself_after_the_moment():
    writes = Writes()
    counts = AccessCounts(writes, FixedClock(), delay_s=0.05)
    try:
        counts.count(scope_for(Actor("alice")), ["m1"])
        assert writes.done.wait(30)  # nobody waits for it: it is written all the same
        assert writes.calls == [("alice", {"m1": 1})]
    finally:
        counts.close()


def test_closing_writes_what_is_pending():
    writes = Writes()
    counts = AccessCounts(writes, FixedClock(), delay_s=600)
    counts.count(scope_for(Actor("alice")), ["m1", "m1"])
    counts.close()
    assert writes.calls == [("alice", {"m1": 2})]


def test_a_service_counts_recall_hits_on_the_stored_memory(tmp_path):
    svc = build_service(Settings(data_dir=tmp_path / "data"), embedder=HashEmbedder(), clock=FixedClock())
    alice = scope_for(Actor("alice"))
    try:
        mem = svc.remember(alice, MemoryIn(content="My sister lives in Lisbon")).memory
        for _ in range(3):
            assert mem.id in {i.id for i in svc.recall(alice, "sister Lisbon").items}
        svc.flush()
        assert svc.get(alice, mem.id).hit_count == 3
    finally:
        svc.close()
