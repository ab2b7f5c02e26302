"""Extraction windows: how a user's message log is cut up, and each window's state machine. Pure.

    pending ──> processing ──> processed
       ^            │
       └────────────┴──> (model error or stuck: retry_count + 1) ──> failed after MAX_RETRIES

A window is a fixed list of message ids, planned once and stored, so a retry sees the same
messages as the first attempt. Its id derives from the user and its first message, so planning
the same log twice yields the same windows.

An import (core/chat_import) plans a window before it stores the window's turns, and may be
killed in between. Extraction leaves such a window pending while its turns are still arriving
(`arriving`); past IMPORT_WAIT it reads what is there and keeps the ids it did not find as the
window's `unseen`; once they are stored they go to a window of their own (`carried_over`). Every
imported turn is read by the model once: never skipped, never twice.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from ...model import Message, Role

WINDOW_SIZE = 40
MAX_WINDOW_CHARS = 24_000  # keeps one call's prompt bounded even for long pastes
MAX_RETRIES = 3
STUCK_AFTER = timedelta(minutes=30)
# an import stores a window's turns within minutes of planning it; a window still short of turns
# after this long belongs to an import that was stopped, and is read as it is
IMPORT_WAIT = timedelta(hours=1)
PENDING, PROCESSING, PROCESSED, FAILED = "pending", "processing", "processed", "failed"


@dataclass(frozen=True, order=True)
class Mark:
    """A position in the log: messages sort by (created_at, id)."""

    ts: float
    id: str

    @classmethod
    def of(cls, m: Message) -> Mark:
        return cls(m.created_at.timestamp(), m.id)

    def as_dict(self) -> dict[str, Any]:
        return {"ts": self.ts, "id": self.id}

    @classmethod
    def from_dict(cls, d: dict[str, Any] | None) -> Mark | None:
        return cls(float(d["ts"]), str(d["id"])) if d else None


def extractable(m: Message) -> bool:
    return m.role in (Role.user, Role.assistant)


def plan_windows(
    messages: Sequence[Message],
    *,
    after: Mark | None,
    planned: frozenset[str] | set[str] = frozenset(),
    backfill: bool = False,
    size: int = WINDOW_SIZE,
    max_chars: int = MAX_WINDOW_CHARS,
) -> list[list[Message]]:
    """Cut the messages past `after` into windows of at most `size` messages and `max_chars` characters.

    With no mark yet (first run) only the latest window is planned: a new user's old history is
    not mined unless `backfill` asks for it. A message stamped the same instant as the mark but
    not in any planned window (`planned`) arrived late and is still taken."""
    todo = sorted((m for m in messages if extractable(m)), key=lambda m: (m.created_at, m.id))
    if after is not None:
        todo = [m for m in todo if Mark.of(m) > after or (
            m.created_at.timestamp() == after.ts and m.id != after.id and m.id not in planned)]
    elif not backfill:
        todo = todo[-size:]
    windows: list[list[Message]] = []
    current: list[Message] = []
    chars = 0
    for m in todo:
        if current and (len(current) >= size or chars + len(m.content) > max_chars):
            windows.append(current)
            current, chars = [], 0
        current.append(m)
        chars += len(m.content)
    if current:
        windows.append(current)
    return windows


def window_id(user_id: str, first_message_id: str) -> str:
    return "w_" + hashlib.sha256(f"{user_id}\x1f{first_message_id}".encode()).hexdigest()[:20]


def new_window(user_id: str, msgs: Sequence[Message], now: datetime) -> dict[str, Any]:
    return {
        "id": window_id(user_id, msgs[0].id),
        "user_id": user_id,
        "state": PENDING,
        "message_ids": [m.id for m in msgs],
        "start": Mark.of(msgs[0]).as_dict(),
        "end": Mark.of(msgs[-1]).as_dict(),
        "retry_count": 0,
        "created_at": now.isoformat(),
        "started_at": None,
        "finished_at": None,
        "error": None,
        "links": {},  # fact signature -> memory id written for it
        "outcome": {},  # action -> count
    }


def order(windows: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    return sorted(windows, key=lambda w: (w["start"]["ts"], w["start"]["id"]))


def is_stuck(w: dict[str, Any], now: datetime, stuck_after: timedelta = STUCK_AFTER) -> bool:
    if w["state"] != PROCESSING or not w.get("started_at"):
        return False
    return now - datetime.fromisoformat(w["started_at"]) >= stuck_after


def started(w: dict[str, Any], now: datetime) -> dict[str, Any]:
    return {**w, "state": PROCESSING, "started_at": now.isoformat(), "error": None}


def failed_attempt(w: dict[str, Any], error: str, now: datetime, max_retries: int = MAX_RETRIES) -> dict[str, Any]:
    """Count a failed attempt (model error, or a worker that died mid-window)."""
    retries = int(w.get("retry_count", 0)) + 1
    state = FAILED if retries >= max_retries else PENDING
    return {**w, "state": state, "retry_count": retries, "error": error[:500], "finished_at": now.isoformat() if state == FAILED else None}


def finished(w: dict[str, Any], outcome: dict[str, int], now: datetime) -> dict[str, Any]:
    return {**w, "state": PROCESSED, "finished_at": now.isoformat(), "error": None, "outcome": outcome}


def cursor_after(windows: Sequence[dict[str, Any]], cursor: Mark | None) -> Mark | None:
    """The cursor moves over the leading run of windows that are done (processed or failed for good)."""
    for w in order(windows):
        end = Mark.from_dict(w["end"])
        if cursor is not None and end is not None and end <= cursor:
            continue
        if w["state"] not in (PROCESSED, FAILED):
            break
        cursor = end
    return cursor


def arriving(w: dict[str, Any], missing: Sequence[str], now: datetime, wait: timedelta = IMPORT_WAIT) -> bool:
    """Whether an imported window should wait for `missing` (its turns not stored yet): only for a
    while after it was planned (or last carried over)."""
    return bool(missing) and now - datetime.fromisoformat(w["created_at"]) < wait


def carried_over(w: dict[str, Any], arrived: Sequence[Message], still: Sequence[str], now: datetime) -> tuple[dict[str, Any] | None, dict[str, Any]]:
    """A processed imported window's `unseen` turns that have been stored since (`arrived`) as a
    window of their own, and the window with only the ones still to come (`still`) left unseen.
    The new window's id derives from the old one and its first turn, so doing this twice (a crash
    between the two writes) plans the same window."""
    w = {**w, "unseen": list(still)}
    if not arrived:
        return None, w
    return following(w["user_id"], w["id"], sorted(arrived, key=lambda m: (m.created_at, m.id)), now), w


def following(user_id: str, earlier: str, turns: Sequence[Message], now: datetime) -> dict[str, Any]:
    """An imported window for `turns` an earlier window (`earlier`) was run without; its id derives
    from that window's and the first turn's, so planning it twice plans it once."""
    return {**new_window(user_id, turns, now), "imported": True, "id": window_id(user_id, f"{earlier}\x1f{turns[0].id}")}


def fact_signature(keyed: Callable[..., str], window: str, fact: str, fact_key: str | None) -> str:
    """Stable name of one fact of one window, so a retried window skips what already landed. The
    window's record keeps it after a forget of the fact, so it is keyed by the person's secret
    (`keyed`: WritePath.keyed), never a plain hash of the words."""
    return keyed(window, fact_key or "", " ".join(fact.casefold().split()), size=16)
