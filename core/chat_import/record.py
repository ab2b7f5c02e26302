"""The one shape every source's parser produces: a conversation's active thread as turns, and what
was left out of it and why. Pure: no I/O.

Ids are `<source>:<the source's own message id>` (or `<source>:<conversation id>:<position>` when a
source gives a message no id): never derived from the words, so a re-import finds the same ids and
a forgotten turn's tombstone (core/tombstones.py) keeps matching it.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Any

SOURCES = ("chatgpt", "claude", "openwebui", "claude-code")
# the client each source's turns are filed under (what a person sees as "where this was said")
CLIENTS = {"chatgpt": "chatgpt", "claude": "claude.ai", "openwebui": "open-webui", "claude-code": "claude-code"}
# what the parsers find; a Claude.ai export's projects.json comes in with its conversations
KINDS = (*SOURCES, "claude-projects")
# a conversation and its messages without any time: one fixed instant, so a re-import gives the same times
SENTINEL = datetime(2000, 1, 1, tzinfo=timezone.utc)
EARLIEST = datetime(1990, 1, 1, tzinfo=timezone.utc)
LATEST = datetime(2200, 1, 1, tzinfo=timezone.utc)
ID_MAX = 200
_ID_OK = re.compile(r"^[\x21-\x7e]{1,120}\Z")  # printable ASCII without spaces: ids end up in URLs and logs
_SURROGATE = re.compile("[\ud800-\udfff]")


@dataclass(frozen=True)
class Turn:
    id: str  # "<source>:<message id>"
    role: str  # "user" | "assistant"
    text: str
    created_at: datetime


@dataclass(frozen=True)
class Instructions:
    """What a person told the chat app about themselves and how it should answer (ChatGPT's custom
    instructions): a snapshot as of `created_at`, found in the message `id` (`<source>:<message id>`)."""

    id: str
    about: str
    respond: str
    created_at: datetime


@dataclass
class Conversation:
    source: str
    id: str
    title: str | None
    turns: list[Turn] = field(default_factory=list)
    skipped: Counter[str] = field(default_factory=Counter)  # reason -> messages left out
    skip_all: str | None = None  # the whole conversation was left out, and why (e.g. do_not_remember)
    session_key: str | None = None  # when a face of Amber files this conversation's live turns under another name
    instructions: list[Instructions] = field(default_factory=list)  # custom instructions it carried

    @property
    def session(self) -> str:
        return self.session_key or f"{self.source}:{clean_id(self.id)}"


def clean_id(value: Any) -> str:
    """A source's id as Amber files it: as it is when it is short printable ASCII, else a digest of
    the id (of the id, never of any words), so the same id always maps to the same name."""
    s = str(value).strip() if value not in (None, "") else ""
    if not s or _ID_OK.match(s):
        return s
    return "h" + hashlib.sha256(s.encode("utf-8", "surrogatepass")).hexdigest()[:32]


def turn_id(source: str, message_id: Any, conversation_id: str, position: int) -> str:
    """`<source>:<message id>`; a message without an id is named by its place in its conversation."""
    mid = clean_id(message_id)
    return f"{source}:{mid}" if mid else f"{source}:{clean_id(conversation_id)}:{position}"


def clean_text(text: str) -> str:
    """Text a store can keep: a lone surrogate (valid in JSON, not in UTF-8) becomes U+FFFD."""
    return _SURROGATE.sub("\ufffd", text)


def parse_time(value: Any) -> datetime | None:
    """Epoch seconds (or milliseconds) or an ISO 8601 string, as an aware UTC time; None when absent
    or not a plausible time (a broken export must not date a turn in the year 30000)."""
    if value is None or isinstance(value, bool):
        return None
    try:
        if isinstance(value, (int, float)):
            v = float(value)
            if v != v:  # NaN
                return None
            if v > 1e11:  # milliseconds
                v /= 1000.0
            t = datetime.fromtimestamp(v, tz=timezone.utc)
        elif isinstance(value, str) and value.strip():
            s = value.strip()
            if s.endswith("Z"):
                s = s[:-1] + "+00:00"
            t = datetime.fromisoformat(s)
            t = t.replace(tzinfo=timezone.utc) if t.tzinfo is None else t.astimezone(timezone.utc)
        else:
            return None
    except (ValueError, OverflowError, OSError):
        return None
    return t if EARLIEST <= t <= LATEST else None


class Timeline:
    """Times for a thread's turns: the message's own time when it has one, else the one before it
    (or the conversation's, or SENTINEL) plus a microsecond per step, so turns without times keep
    their order and a re-import gives each the same time."""

    def __init__(self, conversation_time: datetime | None):
        self._last = conversation_time or SENTINEL

    def next(self, own: datetime | None) -> datetime:
        self._last = own if own is not None else self._last + timedelta(microseconds=1)
        return self._last


def as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def raw_text(kind: str, value: Any, limit: int = 4000) -> str:
    """A part this parser does not know, kept as it came (cut to `limit`), never dropped unsaid."""
    try:
        raw = json.dumps(value, ensure_ascii=False, default=str)
    except (RecursionError, ValueError):
        raw = "(nested too deeply to keep)"
    return f"[{kind}] {raw[:limit]}"
