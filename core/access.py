"""Access counts: how often recall injected a memory, and when it last did.

Recall must stay fast, so `AccessCounts` gathers the counts in memory and one background task
writes them, one write per user for all the recalls of the last `FLUSH_AFTER_S` seconds. A write
as soon as a recall asked for one came to a write per recall under steady traffic: a patch of the
~30 memories a recall injects took embedded Chroma ~120 ms here (1 000 memories, 2 cores), and a
recall that came meanwhile waited for it: back to back, recall's median was ~85 ms against ~10 ms
with no write under way. Sealed stores pay a little more per write (each record sealed again, a
larger record), and that was all encryption at rest added to recall (recall itself opens nothing
sealed: its indexes are in memory). Waiting a moment lets one write carry every recall of it
(`last_access_at` is then the time of the write, up to that moment after the recall). The write goes through the write path
(`WritePath.record_access`, core/write_path.py), under the user's lock. The counts are best-effort
bookkeeping: a failed write is logged and recall goes on.

One host also writes a person's counts at most once every `EVERY_S` seconds. With the moment alone,
how many of these writes there were was set by how fast one background thread could make them one
after the other, so a second host sharing the store doubled them (bench/scale_out.py, uniform mix:
0.09-0.12 access writes per operation with one host, 0.17-0.39 with two; each a lock, a read and a
write on the Chroma server every host shares: bench/README.md, "What a second host adds per operation"). Counts
that come in meanwhile wait in memory for the person's next write; `wait` and `close` write
everything at once. The jobs read these counts in days (retention, consolidation).
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor

from .ports import Clock
from .scope import Scope
from .store.reads_first import background_writes
from .write_path import WritePath

log = logging.getLogger("amber.service")

FLUSH_AFTER_S = 2.0  # how long recall hits wait in memory before the write that carries them
EVERY_S = 60.0  # one write of a person's counts per host at most this often


class AccessCounts:
    """Recall hits waiting to be written, and the one background thread that writes them."""

    def __init__(self, writes: WritePath, clock: Clock, delay_s: float = FLUSH_AFTER_S, every_s: float = EVERY_S):
        self._writes = writes
        self._clock = clock
        self._delay = delay_s
        self._every = every_s
        self._pending: dict[str, tuple[Scope, dict[str, int]]] = {}  # user id -> (scope, memory id -> hits)
        self._written: dict[str, float] = {}  # user id -> when their counts were last written (monotonic; the background thread's)
        self._lock = threading.Lock()
        self._due = False  # a flush is queued and has not taken the pending counts yet
        self._waiters = 0  # callers of wait() (and close): the queued flush goes at once
        self._hurry = threading.Event()
        self._background = ThreadPoolExecutor(max_workers=1, thread_name_prefix="amber-bg")

    def count(self, scope: Scope, ids: Sequence[str]) -> None:
        """One recall injected these memories; queue a flush unless one is queued already."""
        with self._lock:
            counts = self._pending.setdefault(scope.user_id, (scope, {}))[1]
            for i in ids:
                counts[i] = counts.get(i, 0) + 1
            if self._due:
                return
            self._due = True
        self._background.submit(self._flush_soon, self._delay)

    def _flush_soon(self, delay: float) -> None:
        """Write the counts once `delay` has passed, or at once when someone waits for them."""
        deadline = time.monotonic() + delay
        while not self._hurry.is_set():
            left = deadline - time.monotonic()
            if left <= 0:
                break
            self._hurry.wait(left)
        self._flush()

    def _flush(self) -> None:
        """Write the counts of each person not written in the last `EVERY_S` (everyone's when
        someone waits); the others stay pending, with a flush queued for the first of them."""
        pending, later = self._due_now()
        for scope, counts in pending.values():
            try:
                with background_writes():  # bookkeeping gives way to the recalls in flight (store/reads_first.py)
                    self._writes.record_access(scope, counts, self._clock.now())
            except Exception as e:  # bookkeeping must never hurt recall
                log.warning("could not record memory access: %s", e)
            self._written[scope.user_id] = time.monotonic()
        if later is not None:
            with contextlib.suppress(RuntimeError):  # closed meanwhile: close() writes what is left
                self._background.submit(self._flush_soon, max(later, self._delay))

    def _due_now(self) -> tuple[dict[str, tuple[Scope, dict[str, int]]], float | None]:
        """The pending counts to write now, and in how many seconds the first of the rest is due (None: no rest)."""
        now, hurried = time.monotonic(), self._hurry.is_set()
        self._written = {u: t for u, t in self._written.items() if now - t < self._every}
        with self._lock:
            due = {u: self._pending.pop(u) for u in list(self._pending) if hurried or u not in self._written}
            later = min((self._written[u] + self._every - now for u in self._pending), default=None)
            self._due = later is not None
        return due, later

    def wait(self) -> None:
        """Return once every count gathered so far is written (tests and shutdown)."""
        self._hurried(True)
        try:
            self._background.submit(self._flush).result()  # after any flush queued before it, which may leave some
        finally:
            self._hurried(False)

    def _hurried(self, on: bool) -> None:
        with self._lock:
            self._waiters += 1 if on else -1
            if self._waiters > 0:
                self._hurry.set()
            else:
                self._hurry.clear()

    def close(self) -> None:
        self._hurried(True)  # never cleared: what is pending is written now, and the thread ends
        self._background.shutdown(wait=True)
        self._flush()  # anything a flush that began before the close left pending
