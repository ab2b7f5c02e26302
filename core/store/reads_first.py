"""Background writes wait for the recalls in flight.

Embedded Chroma holds the interpreter's lock (the GIL) through every write: add, upsert, update,
delete, count, making and dropping a collection (only get and query let it go; measured: a thread
spinning beside an upsert stalls for the whole upsert, 20-60 ms, and beside a get or a query not at
all). So while Chroma writes, nothing else in the process runs: not the proxy's event loop, not
anybody's recall. A person's first captured exchange is several writes (their turns collection
made, the turns, the registry rows), and eight new people's first captures, stored one after the
other by the capture drainer, held every recall of the next turns for up to ~0.5 s
(bench/README.md, issue 27).

A write nobody is waiting for (the hook's captured turns, access counts) asks `ReadsFirst` before
each Chroma call: while a recall is in flight it waits until none is, at most `MAX_WAIT_S` a call,
so it is late by a moment and never starved. A recall that starts during a write still waits for
that one write, not for a queue of them. What a person is waiting for (a memory saved now, a REST
ingest) writes at once, as before. With Chroma as a server the writes run in its process and the
store does not ask (core/store/chroma.py).

Nothing changes in what is written or in what order: the write is the same call, a moment later.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

MAX_WAIT_S = 0.25

_background: ContextVar[bool] = ContextVar("amber_background_write", default=False)


@contextmanager
def background_writes() -> Iterator[None]:
    """Chroma writes made inside this block (in this thread or in threads it hands work to with its
    context) give way to recalls in flight."""
    token = _background.set(True)
    try:
        yield
    finally:
        _background.reset(token)


def in_background() -> bool:
    """Inside `background_writes()`: nobody waits for this work (core/capture.py embeds it on the background lane)."""
    return _background.get()


class ReadsFirst:
    def __init__(self, max_wait_s: float = MAX_WAIT_S):
        self.max_wait_s = max_wait_s
        self._cond = threading.Condition()
        self._reading = 0
        self.waited = 0  # writes that found a recall in flight and waited (for tests and benches)

    @contextmanager
    def reading(self) -> Iterator[None]:
        """A recall in flight for as long as the block runs."""
        with self._cond:
            self._reading += 1
        try:
            yield
        finally:
            with self._cond:
                self._reading -= 1
                if not self._reading:
                    self._cond.notify_all()

    def before_write(self) -> None:
        """Called before each Chroma write: a background write waits while recalls are in flight."""
        if not _background.get() or not self._reading:
            return
        deadline = time.monotonic() + self.max_wait_s
        with self._cond:
            if self._reading:
                self.waited += 1
            while self._reading:
                left = deadline - time.monotonic()
                if left <= 0:
                    return
                self._cond.wait(left)


# one per process: the interpreter's lock that Chroma's writes hold is one per process
READS_FIRST = ReadsFirst()
