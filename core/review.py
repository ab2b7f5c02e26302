"""The review queue: candidate memories (low confidence) wait here for approve, discard, merge or supersede."""

from __future__ import annotations

from collections.abc import Callable

from .errors import InvalidInput
from .model import Memory, MemoryIn, Page, Status, WriteResult, as_input
from .ports import Clock
from .scope import Scope
from .write_path import WritePath


class ReviewQueue:
    """The review queue of `MemoryService`: given the write path, the clock, and the service's
    `list`, `remember` and `supersede` (an approved candidate is remembered or supersedes like
    anything a person saves)."""

    def __init__(
        self,
        writes: WritePath,
        clock: Clock,
        *,
        list_memories: Callable[..., Page],
        remember: Callable[[Scope, MemoryIn], WriteResult],
        supersede: Callable[[Scope, str, MemoryIn], WriteResult],
    ):
        self._writes = writes
        self._clock = clock
        self._list = list_memories
        self._remember = remember
        self._supersede = supersede

    def candidates(self, scope: Scope, limit: int = 500) -> list[Memory]:
        """The review queue: memories waiting for approve / discard / merge / supersede."""
        return self._list(scope, status=Status.candidate, limit=limit).items

    def approve(self, scope: Scope, memory_id: str) -> WriteResult:
        with self._writes.lock(scope):
            cand = self._candidate(scope, memory_id)
            self._writes.set_status(scope, memory_id, Status.deleted, "approve")
            data = MemoryIn(**{**as_input(cand), "status": Status.active})
            return self._remember(scope, data)

    def discard(self, scope: Scope, memory_id: str) -> Memory:
        with self._writes.lock(scope):
            self._candidate(scope, memory_id)
            return self._writes.set_status(scope, memory_id, Status.deleted, "discard")

    def merge(self, scope: Scope, memory_id: str, target_id: str) -> Memory:
        """Fold a candidate into an existing memory: the target is marked seen, the candidate retired."""
        with self._writes.lock(scope):
            cand = self._candidate(scope, memory_id)
            target = self._writes.get(scope, target_id)
            if target.status != Status.active:
                raise InvalidInput("target_id", f"memory {target_id} is {target.status.value}, not active")
            seen = self._writes.seen(scope, target, self._clock.now()).memory
            sources = sorted(set(seen.source_ids) | set(cand.source_ids))
            seen = seen.model_copy(update={"source_ids": sources})
            self._writes.write(scope, [seen])
            self._writes.set_status(scope, memory_id, Status.deleted, "merge")
            return seen

    def supersede_with_candidate(self, scope: Scope, memory_id: str, target_id: str) -> WriteResult:
        with self._writes.lock(scope):
            cand = self._candidate(scope, memory_id)
            self._writes.set_status(scope, memory_id, Status.deleted, "approve")
            return self._supersede(scope, target_id, MemoryIn(**{**as_input(cand), "status": Status.active}))

    def _candidate(self, scope: Scope, memory_id: str) -> Memory:
        mem = self._writes.get(scope, memory_id)
        if mem.status != Status.candidate:
            raise InvalidInput("id", f"memory {memory_id} is {mem.status.value}, not a candidate")
        return mem
