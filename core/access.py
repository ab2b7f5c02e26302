"""Access counts: how often recall injected a memory, and when it last did.

Recall must stay fast, so `AccessCounts` gathers the counts in memory and one background task
writes them, one write per user for all the recalls since the last one (a write per recall cost
~10 ms of the store's single writer each). The write goes through the write path
(`WritePath.record_access`, core/write_path.py), under the user's lock. The counts are best-effort
bookkeeping: a failed write is logged and recall goes on.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor

from .ports import Clock
from .scope import Scope
from .write_path import WritePath

log = logging.getLogger("amber.service")


class AccessCounts:
    """Recall hits waiting to be written, and the one background thread that writes them."""

    def __init__(self, writes: WritePath, clock: Clock):
        self._writes = writes
        self._clock = clock
        self._pending: dict[str, tuple[Scope, dict[str, int]]] = {}  # user id -> (scope, memory id -> hits)
        self._lock = threading.Lock()
        self._due = False  # a flush is queued and has not taken the pending counts yet
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
        self._background.submit(self._flush)

    def _flush(self) -> None:
        with self._lock:
            pending, self._pending, self._due = self._pending, {}, False
        for scope, counts in pending.values():
            try:
                self._writes.record_access(scope, counts, self._clock.now())
            except Exception as e:  # bookkeeping must never hurt recall
                log.warning("could not record memory access: %s", e)

    def wait(self) -> None:
        """Return once every count gathered so far is written (tests and shutdown)."""
        self._background.submit(lambda: None).result()

    def close(self) -> None:
        self._background.shutdown(wait=True)
