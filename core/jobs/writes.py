"""The few record changes the jobs need that the service's public methods do not offer: status
changes without a new version (expire, archive, merge, retire a conflict), hard deletes, dropping
old messages and audit rows.

They take the service's write path: the user's write lock (shared with other hosts when they
coordinate on Redis), the service's audit events and collection revisions; status changes are
patches on the record as stored, never a write-back of what the job read earlier.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from ..filters import Range, Where
from ..model import Memory, Status
from ..scope import Scope, event_collection, memory_collection, message_collection


def audit(service: Any, scope: Scope, action: str, ids: Sequence[str], **detail: Any) -> None:
    service.writes.audit(scope, action, list(ids), **detail)


def set_status(service: Any, scope: Scope, memories: Sequence[Memory], status: Status, action: str, now: datetime, **updates: Any) -> list[Memory]:
    """Move records to another status in place (expire, archive, merge, retire a conflict).

    Under the user's lock, as a patch on each record as stored now: fields not named here keep what
    they hold (a user's edit made since the job read the record stays), and a record whose status
    changed since then is left alone (the job's reading of it is stale). Returns what changed."""
    return service.writes.patch_status(scope, memories, status, action, now, **updates)


def all_memories(service: Any, scope: Scope) -> list[Memory]:
    """Every record of the user, any status and namespace."""
    return service.reads.memories(scope, None)


def hard_delete_memories(service: Any, scope: Scope, ids: Sequence[str]) -> None:
    """Remove records with their vectors. Raises if the store refuses: the caller keeps them for next time."""
    service.writes.delete_records(scope, memory_collection(scope), ids)


def delete_messages(service: Any, scope: Scope, ids: Sequence[str]) -> None:
    service.writes.delete_records(scope, message_collection(scope), ids)


def old_event_ids(service: Any, scope: Scope, before: datetime) -> list[str]:
    rows = service.reads.event_rows(scope, Where.of(Range("at", lt=before.timestamp())))
    return [r["id"] for r in rows]


def delete_event_rows(service: Any, scope: Scope, ids: Sequence[str]) -> None:
    service.writes.delete_records(scope, event_collection(scope), ids, vectors=False)
