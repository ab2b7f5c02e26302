"""The boot pack: what a client loads once at the start of a conversation.

Digest, the latest daily log before today, precious quotes, glossary, pinned memories,
today's raw turns and counts by kind. Built from the service's reads; it changes at most a few
times a day, so clients may cache it.
"""

from __future__ import annotations

from datetime import datetime, time, timedelta
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from .inventory import active_memories, kind_counts
from .model import Kind
from .scope import Scope

TODAY_MESSAGES_MAX = 50
LIST_MAX = 100


def _zone(name: str) -> ZoneInfo:
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return ZoneInfo("UTC")


def build_boot(service: Any, scope: Scope, timezone: str) -> dict[str, Any]:
    """The boot pack for one user, as data (the memory server returns it; the hook renders part of it)."""
    tz = _zone(timezone)
    now = service.clock.now().astimezone(tz)
    today = datetime.combine(now.date(), time(0), tzinfo=tz)
    mems = active_memories(service, scope)
    # "yesterday's log": the latest one written before today, so a quiet day doesn't leave it empty
    logs = [m for m in mems if m.kind == Kind.daily_log and (m.valid_from or m.created_at) < today]
    return {
        "date": now.date().isoformat(),
        "yesterday": (now.date() - timedelta(days=1)).isoformat(),
        "digest": service.digest_get(scope),
        "daily_log": max(logs, key=lambda m: m.valid_from or m.created_at) if logs else None,
        "precious": [m for m in mems if m.kind == Kind.precious][:LIST_MAX],
        "glossary": service.glossary_get(scope)[:LIST_MAX],
        "pinned": [m for m in mems if m.pinned][:LIST_MAX],
        "today": service.messages(scope, since=today)[-TODAY_MESSAGES_MAX:],
        "counts": kind_counts(mems),
    }
