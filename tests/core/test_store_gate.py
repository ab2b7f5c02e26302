"""A host's Chroma calls take turns (core/store/gate.py): never more than the slots at once, a
person's write ahead of reads, reads ahead of background work, first come first served within a
level, nothing waiting for ever, a call inside a call never waiting on itself. And through a real
service over real Chroma: everything a remember does under the person's lock goes first, a
recall's reads do not, background captures come last."""

from __future__ import annotations

import threading
import time
from datetime import datetime, timezone

import pytest

from core import Actor, MemoryIn, Message, Settings, build_service, scope_for
from core.store.gate import BACKGROUND, READING, WRITING, StoreGate, level, writing
from core.store.reads_first import background_writes
from core.testing import HashEmbedder
from tests.kit.topology import chroma_server


def _queue_behind_one_call(gate: StoreGate, arrivals: list[tuple[int, str]], pause: float = 0.02) -> list[str]:
    """Hold the only slot, let `arrivals` queue one after the other, then let go: the order they got in."""
    order: list[str] = []
    release, holding = threading.Event(), threading.Event()

    def holder() -> None:
        with gate.turn(READING):
            holding.set()
            release.wait(5)

    def caller(at: int, name: str) -> None:
        with gate.turn(at):
            order.append(name)

    threads = [threading.Thread(target=holder)]
    threads[0].start()
    assert holding.wait(5)
    for at, name in arrivals:
        t = threading.Thread(target=caller, args=(at, name))
        t.start()
        threads.append(t)
        time.sleep(pause)
    release.set()
    for t in threads:
        t.join(5)
    return order


def test_a_write_goes_first_then_reads_then_background_work_each_in_arrival_order():
    gate = StoreGate(1)
    arrivals = [(READING, "r1"), (BACKGROUND, "b1"), (WRITING, "w1"), (READING, "r2"), (WRITING, "w2"), (BACKGROUND, "b2")]
    assert _queue_behind_one_call(gate, arrivals) == ["w1", "w2", "r1", "r2", "b1", "b2"]
    assert gate.waited == [2, 2, 2]


def test_a_call_that_waited_long_enough_goes_to_the_front():
    gate = StoreGate(1, promote_after_s=0.1)
    # b1 arrives first and has waited past 0.1 s when the slot frees; the writes behind it have not
    order = _queue_behind_one_call(gate, [(BACKGROUND, "b1"), (READING, "r1")], pause=0.15)
    assert order == ["b1", "r1"]
    order = _queue_behind_one_call(StoreGate(1, promote_after_s=10), [(BACKGROUND, "b1"), (READING, "r1")], pause=0.15)
    assert order == ["r1", "b1"]


def test_never_more_calls_at_once_than_slots_and_every_call_gets_in():
    gate, inside, most, done = StoreGate(3), [0], [0], []
    lock = threading.Lock()

    def call(i: int) -> None:
        for _ in range(20):
            with gate.turn(i % 3):
                with lock:
                    inside[0] += 1
                    most[0] = max(most[0], inside[0])
                time.sleep(0.0005)
                with lock:
                    inside[0] -= 1
        done.append(i)

    threads = [threading.Thread(target=call, args=(i,)) for i in range(12)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert sorted(done) == list(range(12)) and most[0] == 3 and inside[0] == 0


def test_a_call_inside_a_call_does_not_wait_for_its_own_slot():
    gate = StoreGate(1)
    with gate.turn(READING):
        with gate.turn(WRITING):  # would wait for ever if it queued behind itself
            pass
    with gate.turn(READING):  # the slot was given back once, not twice
        assert gate._free == 0
    assert gate._free == 1


def test_where_a_call_stands_follows_the_thread():
    assert level(False) == READING and level(True) == WRITING
    with writing():
        assert level(False) == WRITING
        with writing():
            pass
        assert level(False) == WRITING
    assert level(False) == READING
    with background_writes():
        assert level(True) == BACKGROUND
    with pytest.raises(ValueError):
        StoreGate(0)


class _Recorded(StoreGate):
    """Where the calls of the test's own thread stood (the host's repairs read beside it)."""

    def __init__(self, slots: int):
        super().__init__(slots)
        self.levels: list[int] = []
        self.thread = threading.get_ident()

    def turn(self, at: int):
        if threading.get_ident() == self.thread:
            self.levels.append(at)
        return super().turn(at)


@pytest.mark.parametrize("server", [False, True], ids=["embedded", "chroma-server"])
def test_a_services_writes_go_first_and_its_reads_and_background_captures_do_not(tmp_path, server):
    def run(settings: Settings) -> None:
        service = build_service(settings, embedder=HashEmbedder())
        try:
            gate = _Recorded(2)
            service.store.turns = gate
            service.store._cols.clear()  # collections adopted again take the recording gate
            ana = scope_for(Actor("ana"))
            service.remember(ana, MemoryIn(content="Ana grows tomatoes on her balcony"))
            assert gate.levels and set(gate.levels) == {WRITING}  # its reads under the lock too
            gate.levels.clear()
            assert "tomatoes" in service.search(ana, "tomatoes balcony")[0].text
            service.recall(ana, "what does Ana grow?")
            assert gate.levels and set(gate.levels) == {READING}
            gate.levels.clear()
            with background_writes():
                service.store_turns(ana, [])
                service.remember(ana, MemoryIn(content="Ana's balcony faces south"))
            assert gate.levels and set(gate.levels) == {BACKGROUND}
            assert gate._free == 2 and not gate._waiting
        finally:
            service.close()

    if server:
        with chroma_server(tmp_path / "chroma") as url:
            run(Settings(data_dir=tmp_path / "host", chroma_url=url, embedding_model="hash"))
    else:
        run(Settings(data_dir=tmp_path / "data", embedding_model="hash"))


def test_the_setting_sizes_the_gate_zero_turns_it_off_and_unset_it_is_4_embedded_none_on_a_server(tmp_path):
    def slots_of(**given) -> int | None:
        service = build_service(Settings(embedding_model="hash", **given), embedder=HashEmbedder())
        try:
            service.remember(scope_for(Actor("ana")), MemoryIn(content="a note"))
            return service.store.turns.slots if service.store.turns else None
        finally:
            service.close()

    assert slots_of(data_dir=tmp_path / "a", chroma_call_slots=6) == 6
    assert slots_of(data_dir=tmp_path / "b", chroma_call_slots=0) is None
    assert slots_of(data_dir=tmp_path / "c") == 4
    with chroma_server(tmp_path / "chroma") as url:
        assert slots_of(data_dir=tmp_path / "d", chroma_url=url) is None
        assert slots_of(data_dir=tmp_path / "e", chroma_url=url, chroma_call_slots=4) == 4


def test_a_rest_ingest_goes_first_and_the_hooks_captured_turns_last(tmp_path):
    """A client waiting on its ingest: every Chroma call of it, the reads before the lock too; a
    bulk one only its writes; the hook's captured turns, nobody waiting, last."""
    service = build_service(Settings(data_dir=tmp_path / "data", embedding_model="hash"), embedder=HashEmbedder())
    try:
        gate = _Recorded(2)
        service.store.turns = gate
        service.store._cols.clear()
        ana, at = scope_for(Actor("ana")), datetime(2026, 12, 1, tzinfo=timezone.utc)
        service.store_turns(ana, [Message(id="u1", role="user", content="hello", session="s", created_at=at)])
        assert gate.levels and set(gate.levels) == {WRITING}
        gate.levels.clear()
        # a bulk request (an import's batch) reads in turn with everybody; only its writes go first
        many = [Message(id=f"b{i}", role="user", content=f"turn {i}", session="s", created_at=at) for i in range(20)]
        service.store_turns(ana, many)
        assert set(gate.levels) == {READING, WRITING}
        gate.levels.clear()
        with background_writes():
            service.store_turns(ana, [Message(id="u2", role="user", content="again", session="s", created_at=at)])
        assert gate.levels and set(gate.levels) == {BACKGROUND}
    finally:
        service.close()
