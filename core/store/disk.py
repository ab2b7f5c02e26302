"""DiskGuard: room on the filesystem of an embedded store, asked before every write.

Why (core/store/chroma.py's docstring): embedded Chroma must never be asked to write onto a full
filesystem, or the whole process froze. Below a reserve (core.outage.disk_space) a write is refused
as StoreUnavailable before Chroma starts; reads go on; writes resume by themselves once space is back.

The guard asks before the write; another program can still fill the disk between its check and
Chroma's write. Measured (chromadb 1.5.9, a 24 MB tmpfs, bench/disk_race.py): an upsert holds the
interpreter lock for its whole native run (a 5 000-record upsert: 3.3 s with no other thread
running; a query releases it), and ONE native write failure on a full disk ("Error in
compaction") is enough: the next write froze the process even after the space was freed (2 of 3
runs), and the next read hung its thread. After a restart the store opens whole, the failed
writes included. So the first native write failure on a full disk breaks the embedded store for
this process (`DiskGuard.broken`): every later Chroma call is refused at once as StoreUnavailable
naming the restart, /health says the store is down, and nothing enters Chroma's native code again.
What stays open: a call already inside Chroma on another thread when that failure happens.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from ..errors import AmberError, StoreUnavailable
from ..outage import OutageState, disk_space

log = logging.getLogger("amber.store")

_MB = 1 << 20
# Chroma refusing what it was asked: its native state is fine
_REFUSALS = frozenset({"InvalidArgumentError", "NotFoundError", "InvalidCollectionException", "DuplicateIDError"})


def _need(reserve: int, payload: int, floor: float = 1.0) -> int:
    """Free bytes a write of `payload` needs: the reserve (or `floor` of it) and four times the
    payload, for `check` and `fits` alike."""
    return int(reserve * floor) + 4 * max(0, payload)


class DiskGuard:
    """Room on the filesystem of an embedded store, asked before every write (module docstring).

    A write needs the reserve plus four times its own size free (Chroma writes a record to its log,
    its table and its index); a delete only half the reserve, so a person can still forget on a disk
    that is nearly full. One statvfs per write (microseconds)."""

    def __init__(self, path: Path, reserve: int | None = None):
        self.path = path
        self._reserve = reserve
        self.outage = OutageState("disk")
        self.broken: str | None = None  # Chroma failed natively on a full disk: nothing enters it until a restart
        self._refused_need = 0  # what the last refused write needed free: /health is degraded until it fits

    def usable(self) -> None:
        """Refuse any call into a store that broke on a full disk (module docstring)."""
        if self.broken is not None:
            raise StoreUnavailable(self.broken)

    def failed(self, e: BaseException, what: str, *, says_full: bool = False) -> None:
        """A write Chroma itself failed: on a full disk (its error says so, or the filesystem is below
        the reserve now), its native state can no longer be trusted; refuse every later call."""
        if isinstance(e, (AmberError, ValueError, TypeError)) or type(e).__name__ in _REFUSALS or self.broken is not None:
            return  # Chroma refused the arguments: its state is fine
        try:
            free, reserve = self._space()
        except OSError:
            free, reserve = 0, 1
        if not (says_full or free < reserve):
            return
        self.broken = (f"embedded Chroma failed a write on a full disk ({what}: {type(e).__name__}: {str(e)[:200]}); "
                       f"it can hang on any later call, so Amber stopped using it: free space on {self.path} and restart "
                       "Amber (what was acknowledged is kept; the proxy's journal and the capture queue hold what waits)")
        log.error("amber: %s", self.broken)
        self.outage.down(self.broken)

    def _space(self) -> tuple[int, int]:
        return disk_space(self.path, self._reserve)

    def check(self, payload: int = 0, *, floor: float = 1.0) -> None:
        try:
            free, reserve = self._space()
        except OSError as e:
            self.outage.down(f"cannot read free space of {self.path}: {e}")
            raise StoreUnavailable(f"cannot read the free space of Amber's data directory {self.path}: {e}") from e
        need = _need(reserve, payload, floor)
        if free < need:
            msg = (f"the disk holding Amber's store ({self.path}) is full: {free / _MB:.1f} MB free, this write needs "
                   f"{need / _MB:.1f} MB (Amber keeps {reserve / _MB:.0f} MB free so the store is never written full). "
                   "Free some space: writes resume by themselves, and recall serves what is stored meanwhile")
            self._refused_need = need
            self.outage.down(msg)
            raise StoreUnavailable(msg)
        self.outage.up()

    def fits(self, payload: int) -> bool:
        """Whether a write of `payload` bytes that may be left out (the noise over a deleted vector, the
        zeros over free pages) leaves the reserve free, counted as `check` counts; marks nothing."""
        try:
            free, reserve = self._space()
        except OSError:
            return False
        return free >= _need(reserve, payload)

    def status(self) -> dict[str, Any]:
        try:
            free, reserve = self._space()
        except OSError as e:
            return {"ok": False, "error": str(e)}
        if self.outage.is_down and free >= self._refused_need and self.broken is None:
            self.outage.up()  # room again for the write that was refused: writes go through again
        out = {"ok": free >= reserve and not self.outage.is_down and self.broken is None, "free_mb": round(free / _MB, 1), "reserve_mb": round(reserve / _MB, 1)}
        return {**out, "error": self.broken} if self.broken is not None else out
