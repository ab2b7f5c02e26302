"""Read-only access to one user's records, each call bound to the scope's own collections.

`Reads` is what the service's collaborators, the jobs, the repair at start-up and the inventories
read through instead of the store: it names the collection from the scope (so a caller cannot ask
for another user's) and can change nothing. Writes go through the write path (core/write_path.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .filters import Eq, Where
from .model import Memory, Message
from .scope import Scope, event_collection, memory_collection, message_collection


# A clause on one of these matches a handful of a person's records. Chroma evaluates a conjunction
# clause by clause, so `status in (...) and namespace in (...) and content_hash = h` read every
# active record's metadata: 133 ms at 20 000 memories against 5 ms for the hash alone, on every
# remember (bench/README.md, "big user"). Such filters ask the store for the narrow clause and
# check the rest here.
_NARROW = ("content_hash", "fact_key")
_CHECKED_HERE = ("status", "namespace", "kind", "category")


def _fields(m: Memory) -> dict[str, Any]:
    return {"status": m.status.value, "namespace": m.namespace, "kind": m.kind.value,
            "category": m.category.value if m.category else None}


class Reads:
    """Memories, captured turns and audit rows of the scope's user, and the state of their vector collections."""

    def __init__(self, store: Any):
        self._store = store

    # ---- memories ----------------------------------------------------------------------------

    def memories(self, scope: Scope, where: Where | None) -> list[Memory]:
        """The memories matching `where` (from core.scope.memory_where), or every record with None."""
        col = memory_collection(scope)
        narrow = next((c for c in where.clauses if isinstance(c, Eq) and c.field in _NARROW), None) if where else None
        if narrow is None or where is None or len(where.clauses) == 1 or any(c.field not in _CHECKED_HERE for c in where.clauses if c is not narrow):
            return self._store.find_memories(col, where)
        rest = Where(tuple(c for c in where.clauses if c is not narrow))
        return [m for m in self._store.find_memories(col, Where.of(narrow)) if rest.matches(_fields(m))]

    def memories_by_id(self, scope: Scope, ids: Sequence[str]) -> list[Memory]:
        return self._store.get_memories(memory_collection(scope), list(ids))

    def memory_vectors(self, scope: Scope, ids: Sequence[str]) -> dict[str, list[float]]:
        """The stored vectors of these memories (a memory the store has none for is absent)."""
        return self._store.memory_embeddings(memory_collection(scope), list(ids))

    def nearest_memories(self, scope: Scope, vector: Sequence[float], k: int, where: Where | None) -> list[tuple[Memory, float]]:
        """The `k` memories closest to `vector` among those matching `where`, with their similarity."""
        return self._store.query_memories(memory_collection(scope), vector, k, where)

    # ---- captured turns and audit rows --------------------------------------------------------

    def turns(self, scope: Scope, where: Where | None) -> list[Message]:
        """The captured turns matching `where` (from core.scope.message_where), oldest first."""
        # metadata only: the indexed window texts are not what a caller of this reads
        return sorted(self._store.each_message(message_collection(scope), where), key=lambda m: (m.created_at, m.id))

    def turns_by_id(self, scope: Scope, ids: Sequence[str]) -> dict[str, Message]:
        return self._store.get_messages(message_collection(scope), list(ids))

    def existing_turn_ids(self, scope: Scope, ids: Sequence[str]) -> set[str]:
        return self._store.existing_ids(message_collection(scope), list(ids))

    def event_rows(self, scope: Scope, where: Where | None) -> list[dict[str, Any]]:
        """Audit rows as stored (one per memory an event names; core/write_path.py)."""
        return self._store.find_rows(event_collection(scope), where)

    # ---- vector collections ------------------------------------------------------------------

    def built_by(self, scope: Scope, which: str) -> str | None:
        """The embedder that built the user's "memories" or "messages" collection; None when it does not exist yet."""
        return self._store.collection_embedder(self._collection(scope, which))

    def count(self, scope: Scope, which: str) -> int:
        """Records in the user's "memories" or "messages" collection (metadata only, no vectors read)."""
        return self._store.count(self._collection(scope, which))

    @staticmethod
    def _collection(scope: Scope, which: str) -> str:
        return {"memories": memory_collection, "messages": message_collection}[which](scope)
