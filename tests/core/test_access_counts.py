"""Recall hits are written in the background, one write carrying every recall of a moment: steady
recall traffic no longer makes a store write per recall (a write that the next recalls wait for)."""

from __future__ import annotations

import threading
import time

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


def test_a_person_is_written_once_per_interval_and_the_rest_waits_for_the_next_write():
    """A second host must not double these writes (core/access.py): one write per person per
    `every_s`, whatever the recall traffic; someone else's counts are not held up by it."""
    writes = Writes()
    counts = AccessCounts(writes, FixedClock(), delay_s=0.05, every_s=600)
    alice, bob = scope_for(Actor("alice")), scope_for(Actor("bob"))
    try:
        counts.count(alice, ["m1"])
        assert writes.done.wait(30)
        writes.done.clear()
        counts.count(alice, ["m1", "m2"])
        counts.count(bob, ["m9"])
        assert writes.done.wait(30)
        time.sleep(0.3)  # several moments: alice's second counts stay in memory
        assert writes.calls == [("alice", {"m1": 1}), ("bob", {"m9": 1})]
        counts.wait()  # someone waits: everything pending is written at once
        assert writes.calls[-1] == ("alice", {"m1": 1, "m2": 1})
    finally:
        counts.close()


def test_the_held_counts_are_written_by_themselves_once_the_interval_is_over():
    writes = Writes()
    counts = AccessCounts(writes, FixedClock(), delay_s=0.05, every_s=0.4)
    alice = scope_for(Actor("alice"))
    try:
        counts.count(alice, ["m1"])
        deadline = time.monotonic() + 30
        while not writes.calls and time.monotonic() < deadline:
            time.sleep(0.01)
        first = time.monotonic()
        counts.count(alice, ["m2"])
        while len(writes.calls) < 2 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert writes.calls == [("alice", {"m1": 1}), ("alice", {"m2": 1})]
        assert time.monotonic() - first >= 0.3  # not before the interval (less the first write's own time)
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
