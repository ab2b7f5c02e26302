"""The review queue: candidate memories (low confidence) wait here for approve, discard, merge or supersede."""

from __future__ import annotations

from .errors import InvalidInput
from .model import Memory, MemoryIn, Status, WriteResult, as_input
from .scope import Scope


class ReviewQueue:
    """Mixed into MemoryService."""

    def candidates(self, scope: Scope, limit: int = 500) -> list[Memory]:
        """The review queue: memories waiting for approve / discard / merge / supersede."""
        return self.list(scope, status=Status.candidate, limit=limit).items

    def approve(self, scope: Scope, memory_id: str) -> WriteResult:
        with self._lock(scope):
            cand = self._candidate(scope, memory_id)
            self._set_status(scope, memory_id, Status.deleted, "approve")
            data = MemoryIn(**{**as_input(cand), "status": Status.active})
            return self.remember(scope, data)

    def discard(self, scope: Scope, memory_id: str) -> Memory:
        with self._lock(scope):
            self._candidate(scope, memory_id)
            return self._set_status(scope, memory_id, Status.deleted, "discard")

    def merge(self, scope: Scope, memory_id: str, target_id: str) -> Memory:
        """Fold a candidate into an existing memory: the target is marked seen, the candidate retired."""
        with self._lock(scope):
            cand = self._candidate(scope, memory_id)
            target = self.get(scope, target_id)
            if target.status != Status.active:
                raise InvalidInput("target_id", f"memory {target_id} is {target.status.value}, not active")
            seen = self._seen(scope, target, self.clock.now()).memory
            sources = sorted(set(seen.source_ids) | set(cand.source_ids))
            seen = seen.model_copy(update={"source_ids": sources})
            self._write(scope, [seen])
            self._set_status(scope, memory_id, Status.deleted, "merge")
            return seen

    def supersede_with_candidate(self, scope: Scope, memory_id: str, target_id: str) -> WriteResult:
        with self._lock(scope):
            cand = self._candidate(scope, memory_id)
            self._set_status(scope, memory_id, Status.deleted, "approve")
            return self.supersede(scope, target_id, MemoryIn(**{**as_input(cand), "status": Status.active}))

    def _candidate(self, scope: Scope, memory_id: str) -> Memory:
        mem = self.get(scope, memory_id)
        if mem.status != Status.candidate:
            raise InvalidInput("id", f"memory {memory_id} is {mem.status.value}, not a candidate")
        return mem

