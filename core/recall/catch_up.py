"""Keeping a recall index current with writes it did not make itself.

A host notes its own writes in its indexes as it makes them (`Recaller.note_memories`). Writes by
another host sharing the store only move the collection's revision, and an index behind it used to
read the person's whole collection back: 7.9 s for 20 000 memories, with every request of that
person waiting on it, again and again under another host's steady writes (bench/README.md, "The big
user"). Each write now stamps its records with the revision it publishes (`rev` in their metadata,
core/write_path.py), so an index at revision r reads back only the records stamped past r, in any
status: a record deleted, archived or superseded since comes back with that status and leaves the
index. Records removed for good (a forget, a purge) cannot be read back; their ids are kept beside
the revision (`Revisions.changes`) and dropped first. Whatever the stamps cannot say (an import,
rewritten turns, a collection dropped, a write from a host that stamps nothing, removals forgotten
past the last `Revisions.KEEP`) is marked there as a change to rebuild over, and so is a gap of more
than `MAX_GAP` revisions: those indexes are read back whole, as before.

A request never gets an index that is behind: it waits for the catch-up, which reads what changed
(milliseconds), so nothing forgotten on another host is served here after its revision is published.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Callable

from ..filters import Range, Where

log = logging.getLogger("amber.recall")

MAX_GAP = 1000  # revisions behind past which the whole collection is read again


def stamped_after(rev: int) -> Where:
    """The records written at a revision after `rev` (records of older stores carry no stamp and
    are never among them: an index is built from a full read first)."""
    return Where.of(Range("rev", gte=rev + 1))  # type: ignore[return-value]


def removed_after(changes: tuple[int, list[tuple[int, list[str]]]], at: int) -> list[str] | None:
    """The ids removed for good after revision `at`, or None when the index must be rebuilt instead."""
    full, gone = changes
    if at < 0 or full > at:
        return None
    return [i for r, ids in gone if r > at for i in ids]


def caught_up(idx, notes: list[tuple[str, object, int, int]], apply: Callable[[object, str, object], None]) -> None:
    """Bring an index read from the store up to the writes this host noted meanwhile. A person
    with 20 000 memories takes seconds to read back, and under steady writes the revision used to
    move on before every build ended, so each read started the build again and their recall and
    list waited ~20 s (bench/README.md, "big user"). Notes come in revision order (a user's writes
    hold their lock); one the read already held is replayed harmlessly (the notes carry whole
    records), and a gap (a write this host did not see) leaves the index behind its revision, so
    the next read catches up again."""
    for what, payload, old, new in notes:
        if what == "drop":
            idx.rev = -1
            return
        if new <= idx.rev or old == idx.rev:
            apply(idx, what, payload)
            idx.rev = max(idx.rev, new)
        else:
            return


def log_built(col: str, records: int, notes: list, started: float, was: tuple[int | None, int], now_at: int, builds: int) -> None:
    """Say so when a build took long enough for a person to wait on it (each is a full read of their records)."""
    took = time.monotonic() - started
    if took >= 1.0:
        why = "no index yet" if was[0] is None else f"index at revision {was[0]}, store at {was[1]}"
        log.info("recall index of %s built from the store (%s): %d records in %.1f s, %d writes caught up, now at revision %d (%d builds so far)",
                 col, why, records, took, len(notes), now_at, builds)


class CatchUp:
    """The catch-up itself, as a part of `Recaller` (its lock, its notes of this host's writes)."""

    _lock: threading.RLock
    _notes: dict[str, list[tuple[str, object, int, int]]]
    changes: Callable[[str], tuple[int, list[tuple[int, list[str]]]]] | None
    catch_ups: int

    def _catch_up(self, col: str, idx, rev: int, table: dict, read: Callable[[int], list], apply: Callable, *, drops: bool) -> bool:
        """Bring a warm index behind by other hosts' writes up to `rev` by reading only the records
        stamped since it (the module docstring); False when it must be read back whole. The
        caller holds the build lock; requests wait for this rather than get the index behind."""
        at, started = idx.rev, time.monotonic()
        removed = removed_after(self.changes(col), at) if self.changes is not None and rev - at <= MAX_GAP else None
        if removed is None or (removed and not drops):  # a turn cannot leave its index in place
            return False
        with self._lock:
            self._notes[col] = []
        try:
            records = read(at)
        finally:
            with self._lock:
                notes = self._notes.pop(col, [])
        with self._lock:
            if removed:
                apply(idx, "forget", removed)
            apply(idx, "add", records)
            idx.rev = max(idx.rev, rev)
            caught_up(idx, notes, apply)
            table[col] = idx
            self.catch_ups += 1
        log_caught_up(col, at, rev, len(records), len(removed), started, idx.rev)
        return True


def log_caught_up(col: str, was: int, rev: int, read: int, dropped: int, started: float, now_at: int) -> None:
    took = time.monotonic() - started
    (log.info if took >= 1.0 else log.debug)(
        "recall index of %s caught up from revision %d to %d (store at %d): %d changed records read, %d removed, in %.2f s",
        col, was, now_at, rev, read, dropped, took)
