"""One log line per outage state change, for each part Amber depends on (Chroma, Redis, the disk).

A part that fails under load is asked hundreds of times a second; each failure is still answered
(503 with Retry-After, a clean tool error, "no memory this turn"), but the log says only when the
part went down, why, and when it came back with how many calls it refused meanwhile. /health
reads `snapshot()` to name the part that is down.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Any

log = logging.getLogger("amber.outage")


class OutageState:
    """Up or down, since when and why; thread-safe and cheap to call on every operation."""

    def __init__(self, part: str):
        self.part = part
        self._lock = threading.Lock()
        self._down_since: float | None = None
        self._reason = ""
        self._refused = 0

    @property
    def is_down(self) -> bool:
        return self._down_since is not None

    def down(self, reason: str) -> None:
        """A call failed because the part cannot serve now; logs only the first of an outage."""
        with self._lock:
            self._refused += 1
            if self._down_since is not None:
                self._reason = reason
                return
            self._down_since, self._reason, self._refused = time.monotonic(), reason, 1
        log.warning("%s unavailable: %s (calls fail with 503 and Retry-After until it is back)", self.part, reason[:300])

    def up(self) -> None:
        """A call succeeded; logs the end of an outage once."""
        if self._down_since is None:  # the common case, without the lock
            return
        with self._lock:
            if self._down_since is None:
                return
            took, refused = time.monotonic() - self._down_since, self._refused
            self._down_since, self._reason, self._refused = None, "", 0
        log.warning("%s is back after %.1f s (%d call(s) refused meanwhile)", self.part, took, refused)

    def snapshot(self) -> dict[str, Any]:
        with self._lock:
            if self._down_since is None:
                return {"ok": True}
            return {"ok": False, "error": self._reason[:300], "down_s": round(time.monotonic() - self._down_since, 1)}
