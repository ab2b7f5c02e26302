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
"""

from __future__ import annotations

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


class AccessCounts:
    """Recall hits waiting to be written, and the one background thread that writes them."""

    def __init__(self, writes: WritePath, clock: Clock, delay_s: float = FLUSH_AFTER_S):
        self._writes = writes
        self._clock = clock
        self._delay = delay_s
        self._pending: dict[str, tuple[Scope, dict[str, int]]] = {}  # user id -> (scope, memory id -> hits)
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
        self._background.submit(self._flush_soon)

    def _flush_soon(self) -> None:
        """Write the counts once the moment has passed, or at once when someone waits for them."""
        deadline = time.monotonic() + self._delay
        while not self._hurry.is_set():
            left = deadline - time.monotonic()
            if left <= 0:
                break
            self._hurry.wait(left)
        self._flush()

    def _flush(self) -> None:
        with self._lock:
            pending, self._pending, self._due = self._pending, {}, False
        for scope, counts in pending.values():
            try:
                with background_writes():  # bookkeeping gives way to the recalls in flight (store/reads_first.py)
                    self._writes.record_access(scope, counts, self._clock.now())
            except Exception as e:  # bookkeeping must never hurt recall
                log.warning("could not record memory access: %s", e)

    def wait(self) -> None:
        """Return once every count gathered so far is written (tests and shutdown)."""
        self._hurried(True)
        try:
            self._background.submit(lambda: None).result()
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
