"""A host's calls to Chroma take turns, and what a person waits on goes first.

Chroma serves its calls as they come. Under a full mix on a busy Chroma (one core at work, sixteen
clients) a remember, which makes four to seven calls, queued behind every recall's reads at each of
them: 84 ms from one client, 741 ms under the mix (bench/README.md, "A Chroma server whose files the
hosts reach"), while a recall, two or three calls, rose far less. Chroma keeps no priorities, so the
host keeps them: at most `slots` of its calls are in Chroma at once, and when one ends the next to
go in is, in this order,
1. a call made while the thread holds a person's write lock (`writing()`: a remember, a forget, a
   REST ingest; everything a write reads first too) or any write call, unless in the background;
2. everything else (recalls, searches, lists, an index being built);
3. background work (`reads_first.background_writes()`: the hook's captured turns, access counts);
within a level, first come first served. A call that has waited `promote_after_s` goes to the front
of the first level, so nothing waits for ever.

Chroma still does the same work in the same amount: with a few calls in flight it is as busy as with
sixteen, but a write now waits for the calls in Chroma, not for a queue of reads. A thread that
already holds a turn goes straight in (no call inside a call can wait on itself).
"""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

from .reads_first import in_background

WRITING, READING, BACKGROUND = 0, 1, 2

_local = threading.local()


@contextmanager
def writing() -> Iterator[None]:
    """Chroma calls this thread makes inside the block go first (core/write_path.py: a person's write lock)."""
    _local.writing = getattr(_local, "writing", 0) + 1
    try:
        yield
    finally:
        _local.writing -= 1


def level(write_call: bool) -> int:
    """Where a call made now by this thread stands in the queue."""
    if in_background():
        return BACKGROUND
    return WRITING if write_call or getattr(_local, "writing", 0) else READING


class StoreGate:
    def __init__(self, slots: int, promote_after_s: float = 0.25):
        if slots < 1:
            raise ValueError("a store gate needs at least one slot")
        self.slots = slots
        self.promote_after_s = promote_after_s
        self._free = slots
        self._cond = threading.Condition()
        self._waiting: list[list] = []  # [level, arrival number, arrived at, granted]
        self._arrivals = itertools.count()
        self.waited = [0, 0, 0]  # calls that found every slot taken, by level (benches, tests)

    @contextmanager
    def turn(self, at: int) -> Iterator[None]:
        """Hold one slot for the block, taking it in the order the module docstring gives."""
        if getattr(_local, "held", 0):
            yield
            return
        self._take(at)
        _local.held = 1
        try:
            yield
        finally:
            _local.held = 0
            self._give_back()

    def _take(self, at: int) -> None:
        with self._cond:
            if self._free and not self._waiting:
                self._free -= 1
                return
            self.waited[at] += 1
            me = [at, next(self._arrivals), time.monotonic(), False]
            self._waiting.append(me)
            try:
                while not me[3]:
                    self._cond.wait()
            except BaseException:
                if me[3]:  # granted as it was interrupted: pass the slot on
                    self._next()
                else:
                    self._waiting.remove(me)
                raise

    def _give_back(self) -> None:
        with self._cond:
            self._next()

    def _next(self) -> None:
        """A slot is free: grant it to the first in line, or keep it."""
        if not self._waiting:
            self._free += 1
            return
        now = time.monotonic()
        first = min(self._waiting, key=lambda w: (w[0] if now - w[2] < self.promote_after_s else -1, w[1]))
        self._waiting.remove(first)
        first[3] = True
        self._cond.notify_all()
