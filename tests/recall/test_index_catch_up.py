"""A person's recall index is built from the store once, and writes that land while it is being
built are caught up instead of starting the build again: for a person with tens of thousands of
memories the build takes seconds, and under steady writes it used to restart on every read."""

from __future__ import annotations

import threading
import types

from core import MemoryIn
from core.scope import memory_collection, message_collection
from core.model import Message


def slow_first_read(store, name: str):
    """Make the next `name` read pause after reading, until released; returns (started, release)."""
    orig = getattr(store, name)
    started, release, used = threading.Event(), threading.Event(), []

    def paused(*args, **kwargs):
        out = orig(*args, **kwargs)
        if isinstance(out, types.GeneratorType):  # a paged read: read it all before pausing
            out = iter(list(out))
        if not used:
            used.append(1)
            started.set()
            assert release.wait(30)
        return out

    setattr(store, name, paused)
    return started, release


def test_writes_during_a_build_are_caught_up(service, alice, clock):
    kept = service.remember(alice, MemoryIn(content="Alice keeps bees on the roof")).memory
    gone = service.remember(alice, MemoryIn(content="Alice owns a red bicycle")).memory
    col = memory_collection(alice)
    service.search(alice, "bees")  # builds the turns' index too, so only the memory index is built below
    service.recaller.drop_indexes(col)
    started, release = slow_first_read(service.recaller.store, "find_memories")
    reader = threading.Thread(target=lambda: service.list(alice))
    reader.start()
    assert started.wait(30)  # the build has read the store and not finished
    clock.advance(minutes=1)
    new = service.remember(alice, MemoryIn(content="Alice learns the cello")).memory
    service.delete(alice, gone.id)
    release.set()
    reader.join(30)
    builds = service.recaller.rebuilds
    listed = [m.id for m in service.list(alice).items]
    assert listed == [new.id, kept.id]
    hits = {c.id for c in service.search(alice, "cello bicycle bees")}
    assert new.id in hits and gone.id not in hits
    assert service.recaller.rebuilds == builds  # no second build: the writes were caught up


def test_turns_captured_during_a_build_are_caught_up(service, alice, clock):
    def turn(i, text):
        return Message(id=i, role="user", content=text, session="s", created_at=clock.now())

    service.capture(alice, [turn("t1", "We planted tulips in the garden")], commands=False)
    col = message_collection(alice)
    service.recaller.drop_indexes(col)
    started, release = slow_first_read(service.recaller.store, "each_message")
    reader = threading.Thread(target=lambda: service.search(alice, "tulips"))
    reader.start()
    assert started.wait(30)
    clock.advance(minutes=1)
    service.capture(alice, [turn("t2", "The dentist appointment moved to Friday")], commands=False)
    release.set()
    reader.join(30)
    builds = service.recaller.rebuilds
    assert "t2" in {c.id for c in service.search(alice, "dentist appointment Friday")}
    assert service.recaller.rebuilds == builds


def test_a_write_the_build_did_not_see_builds_again(service, alice):
    service.remember(alice, MemoryIn(content="Alice keeps bees"))
    col = memory_collection(alice)
    service.list(alice)
    builds = service.recaller.rebuilds
    service.writes._revisions.bump(col)  # as another host's write moves the shared revision
    service.list(alice)
    assert service.recaller.rebuilds == builds + 1


def test_the_readable_set_is_read_beside_a_write_that_adds_a_memory():
    """`MemIndex.allowed` runs outside the recall lock while a write adds to the index: it read the
    dict as it grew ("dictionary changed size during iteration"), and that recall went without
    memory. Big stores hit it (a review: 159 of 200 writes at 100 000 memories)."""
    import gc
    import sys
    import threading
    import time

    from core.recall.memory_index import MemIndex

    idx = MemIndex(rev=0)
    for i in range(50_000):
        idx.meta[f"m{i}"] = ("default", 0.0)
    errors: list[str] = []
    done = threading.Event()

    class Cycle:  # garbage with a finalizer, as a big process has: a collection runs Python code, and
        def __init__(self) -> None:  # another thread may run then (a copy that allocates per item
            self.me = self  # let the writer in mid-copy; the suite's process showed it)

        def __del__(self) -> None:
            pass

    def recalls() -> None:
        while not done.is_set():
            for _ in range(200):
                Cycle()
            try:
                idx.allowed(("default",), time.time())
            except RuntimeError as e:
                errors.append(str(e))

    switch, threshold = sys.getswitchinterval(), gc.get_threshold()
    sys.setswitchinterval(1e-6)
    gc.set_threshold(100)
    reader = threading.Thread(target=recalls)
    reader.start()
    try:
        for i in range(100):
            idx.meta[f"new{i}"] = ("default", 0.0)  # what a write adds for a new memory
            idx.rev += 1
            time.sleep(0.002)
    finally:
        done.set()
        reader.join()
        sys.setswitchinterval(switch)
        gc.set_threshold(*threshold)
    assert not errors, errors[:1]
    assert len(idx.allowed(("default",), time.time())) == 50_100
