"""One log line per outage state change, for each part Amber depends on (Chroma, Redis, the disk).

A part that fails under load is asked hundreds of times a second; each failure is still answered
(503 with Retry-After, a clean tool error, "no memory this turn"), but the log says only when the
part went down, why, and when it came back with how many calls it refused meanwhile. /health
reads `snapshot()` to name the part that is down.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from pathlib import Path
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


_MB = 1 << 20
# what an embedded store's writes leave free on its filesystem: 5 % of it, at least 8 MB, at most 256 MB
RESERVE_MIN, RESERVE_MAX, RESERVE_SHARE = 8 * _MB, 256 * _MB, 0.05


def disk_space(path: Path | str, reserve: int | None = None) -> tuple[int, int]:
    """(free bytes, the reserve Amber keeps free) on the filesystem holding `path` (OSError if it
    cannot be read). The store's DiskGuard refuses writes below the reserve; `amber doctor` reports
    both for the data directory and the proxy's journal."""
    st = os.statvfs(path)
    total = st.f_blocks * st.f_frsize
    if reserve is None:
        reserve = int(min(RESERVE_MAX, max(RESERVE_MIN, total * RESERVE_SHARE)))
    return st.f_bavail * st.f_frsize, reserve
