"""Read-only inventories of a user's store: counts by kind and the health of the vector collections.

Used by the memory server's boot pack and by `amber doctor`; reads metadata only, never vectors.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .model import Memory, Status
from .scope import Actor, Scope, memory_where, scope_for
from .supersede import one_active_per_key

if TYPE_CHECKING:
    from .service import MemoryService


def active_memories(service: MemoryService, scope: Scope) -> list[Memory]:
    """Every active memory of the user, in every namespace, newest first."""
    where = memory_where(scope, statuses=[Status.active], all_namespaces=True)
    found = one_active_per_key(service.reads.memories(scope, where))
    return sorted(found, key=lambda m: (m.updated_at, m.id), reverse=True)


def kind_counts(memories: list[Memory]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for m in memories:
        counts[m.kind.value] = counts.get(m.kind.value, 0) + 1
    return dict(sorted(counts.items()))


def vector_health(service: MemoryService, users: list[str] | None = None) -> dict[str, Any]:
    """Per user: record counts and whether each vector collection was built by the configured embedder."""
    want = service.embedder.id
    out: list[dict[str, Any]] = []
    for user in users if users is not None else service.users():
        scope = scope_for(Actor(user, via="inventory"))
        row: dict[str, Any] = {"user_id": user, "ok": True}
        for label in ("memories", "messages"):
            built_by = service.reads.built_by(scope, label)
            # a missing collection is healthy and empty; don't create it just to count it
            count = 0 if built_by is None else service.reads.count(scope, label) if built_by == want else None
            ok = built_by in (None, want)
            row[label] = {"count": count, "embedder": built_by, "ok": ok}
            row["ok"] = row["ok"] and ok
        out.append(row)
    return {"embedder": want, "ok": all(r["ok"] for r in out), "users": out}
