"""Retention: what expires and what is hard-deleted, and when. The policy is pure (records and
the time in, decisions out); `apply_retention` carries it out for one user through the objects
it is handed, in a fixed order:

    1. raw messages older than 14 days are deleted (imported history only if `imported_days` is set);
    2. audit events older than 30 days are deleted;
    3. unpinned memories unused for 180 days, and memories past their TTL, become `expired`;
    4. records `deleted`, `superseded` or `expired` for 30 days are hard-deleted.

Step 3 stamps `updated_at`, so a memory expired today is hard-deleted 30 days later, not now.
A batch the store refuses to delete stays as it is (metadata included) and is tried again next run.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from ..model import Kind, Memory, Status

NEVER_EXPIRE = (Kind.precious, Kind.digest)  # precious is append-only; the digest is rewritten nightly
PURGEABLE = (Status.deleted, Status.superseded, Status.expired)


@dataclass(frozen=True)
class RetentionPolicy:
    messages_days: int = 14
    imported_days: int | None = None  # turns imported from chat exports: None keeps them
    events_days: int = 30
    unused_days: int = 180
    purge_after_days: int = 30
    batch: int = 500
    pause_s: float = 0.02  # between batches: retention yields to live traffic


def last_used(m: Memory) -> datetime:
    return max(t for t in (m.last_access_at, m.last_seen_at, m.updated_at, m.created_at) if t is not None)


def to_expire(memories: Iterable[Memory], now: datetime, policy: RetentionPolicy = RetentionPolicy()) -> list[Memory]:
    """Live memories that should now be `expired`: past their TTL, or unpinned and unused too long."""
    cutoff = now - timedelta(days=policy.unused_days)
    out = []
    for m in memories:
        if m.status not in (Status.active, Status.candidate) or m.kind in NEVER_EXPIRE:
            continue
        if (m.expire_at is not None and m.expire_at <= now) or (not m.pinned and last_used(m) < cutoff):
            out.append(m)
    return sorted(out, key=lambda m: (last_used(m), m.id))


def to_purge(memories: Iterable[Memory], now: datetime, policy: RetentionPolicy = RetentionPolicy()) -> list[Memory]:
    """Retired records whose grace period is over, oldest first."""
    cutoff = now - timedelta(days=policy.purge_after_days)
    out = [m for m in memories if m.status in PURGEABLE and m.updated_at <= cutoff]
    return sorted(out, key=lambda m: (m.updated_at, m.id))


def message_cutoff(now: datetime, policy: RetentionPolicy = RetentionPolicy()) -> datetime:
    return now - timedelta(days=policy.messages_days)


def event_cutoff(now: datetime, policy: RetentionPolicy = RetentionPolicy()) -> datetime:
    return now - timedelta(days=policy.events_days)


def batches(items: Sequence[Any], size: int) -> Iterable[Sequence[Any]]:
    for i in range(0, len(items), size):
        yield items[i : i + size]


@dataclass
class RetentionStats:
    messages_deleted: int = 0
    events_deleted: int = 0
    expired: int = 0
    hard_deleted: int = 0
    kept_after_failure: int = 0
    errors: list[str] = field(default_factory=list)


def apply_retention(service: Any, scope: Any, now: datetime, ops: Any, policy: RetentionPolicy = RetentionPolicy(),
                    stats: RetentionStats | None = None) -> RetentionStats:
    """Carry out the policy for one user. `ops` is `core.jobs.writes` (passed in so this module stays free of I/O)."""
    stats = stats or RetentionStats()
    # aged from when Amber stored each turn (a client's clock may be off by any amount); turns
    # stored before Amber kept that time are aged by the time they state
    cutoff = message_cutoff(now, policy)
    # imported history (chat exports) is kept unless the operator sets `imported_days`
    imported_cutoff = now - timedelta(days=policy.imported_days) if policy.imported_days is not None else None

    def expired(m: Any) -> bool:
        limit = imported_cutoff if m.imported else cutoff
        return limit is not None and (m.stored_at or m.created_at) < limit

    old_msgs = [m.id for m in service.messages(scope) if expired(m)]
    for b in batches(old_msgs, policy.batch):
        ops.delete_messages(service, scope, b)
        stats.messages_deleted += len(b)
        time.sleep(policy.pause_s)
    old_events = ops.old_event_ids(service, scope, event_cutoff(now, policy))
    for b in batches(old_events, policy.batch):
        ops.delete_event_rows(service, scope, b)
        stats.events_deleted += len(b)
    expiring = to_expire(ops.all_memories(service, scope), now, policy)
    for b in batches(expiring, policy.batch):
        ops.set_status(service, scope, b, Status.expired, "expire", now)
        stats.expired += len(b)
    retired = to_purge(ops.all_memories(service, scope), now, policy)
    for b in batches(retired, policy.batch):
        try:
            ops.hard_delete_memories(service, scope, [m.id for m in b])
            stats.hard_deleted += len(b)
        except Exception as e:  # the store kept them: metadata stays, the next run tries again
            stats.kept_after_failure += len(b)
            stats.errors.append(f"hard delete of {len(b)} records failed: {type(e).__name__}: {e}")
        time.sleep(policy.pause_s)
    if stats.hard_deleted or stats.expired:
        ops.audit(service, scope, "retention", [], expired=stats.expired, hard_deleted=stats.hard_deleted)
    return stats
