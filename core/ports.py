"""Every extension point of Amber, in one place.

Built-in parts implement these Protocols exactly as third-party ones would;
`core.testing` ships deterministic fakes of each.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any, AsyncIterator, Iterable, Protocol, Sequence, TypedDict, runtime_checkable

if TYPE_CHECKING:  # the port speaks the domain models of core/model.py, declared once there
    from .model import Category, Event, Kind, Memory, MemoryIn, MemoryPatch, Message, Page, Status, WriteResult
    from .recall.fusion import Candidate
    from .recall.pipeline import RecallResult


@runtime_checkable
class Clock(Protocol):
    """Returns the current time (UTC, timezone-aware)."""

    def now(self) -> datetime: ...


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into unit vectors; `id` and `dim` are recorded on every collection it fills.

    May also offer `embed_background(texts)` for bulk work that must not delay queries (captured
    turns, imports, reindex, jobs) and `status()` (a dict with "ok", embedding nothing)."""

    id: str
    dim: int

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]: ...

    def embed_query(self, text: str) -> list[float]: ...


@runtime_checkable
class LLM(Protocol):
    """One chat completion; returns the text and a usage dict (prompt/completion tokens, cost)."""

    async def complete(
        self, messages: list[dict[str, Any]], *, json_schema: dict | None = None, purpose: str = ""
    ) -> tuple[str, dict[str, Any]]: ...


@runtime_checkable
class Reranker(Protocol):
    """Scores (query, document) pairs; higher is more relevant."""

    async def rerank(self, query: str, documents: Sequence[str]) -> list[float]: ...


class PurgeResult(TypedDict):
    """What `MemoryPort.purge_trash` removed: the ids, and how many."""

    purged: list[str]
    count: int


@runtime_checkable
class MemoryPort(Protocol):
    """One caller's memory, whatever carries it: in process (`core.LocalMemory`) or over
    HTTP (`core.RemoteMemory`). The caller is fixed when the port is built (an API key, a user), so
    no method takes a user. Both raise the same `core.errors` classes; tests/contract holds them to it."""

    async def recall(
        self,
        query: str,
        *,
        namespace: str | None = None,
        project: str | None = None,
        budget_tokens: int | None = None,
        top_k: int | None = None,
        preset: str | None = None,
        echo: Sequence[str] = (),
        why: str | None = None,
    ) -> RecallResult:
        """The <memory_context> block for a query; budget: `budget_tokens`, else the preset's.
        `why`: a request id under which the host keeps what it injected and why (`why`); None keeps nothing."""

    async def why(self, last: int = 1, request: str | None = None) -> list[dict[str, Any]]:
        """What recall injected into the caller's recent requests and why (newest first; or the one
        `request`): per item its handle, scores and arms, and its words as stored now."""

    async def search(
        self, query: str, *, top_k: int | None = None, filter: bool = True, project: str | None = None, namespace: str | None = None
    ) -> list[Candidate]:
        """Ranked memories and captured turns with scores, nothing rendered."""

    async def ingest(self, messages: Sequence[Message | dict[str, Any]], commands: bool = True) -> dict[str, Any]:
        """Capture turns, idempotent by id: {"ingested": n, "commands": [{"action", "memory_id"}]}."""

    async def messages(
        self, *, since: datetime | None = None, until: datetime | None = None, session: str | None = None, text: str | None = None
    ) -> list[Message]:
        """Captured turns, oldest first."""

    async def delete_message(self, message_id: str) -> dict[str, Any]:
        """Delete one captured turn: {"deleted": 1, "ids": [id]}; NotFound if there is none."""

    async def delete_messages(
        self,
        *,
        ids: Sequence[str] | None = None,
        session: str | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
        everything: bool = False,
    ) -> dict[str, Any]:
        """Delete the turns meeting every criterion given (`everything` alone: all): {"deleted", "ids"}."""

    async def forget(self, what: str, *, preview: bool = False) -> dict[str, Any]:
        """Erase for good what states `what`, in every status (or only say what would go): {"what", "done", "memories", "messages", "message_ids", "rewritten"}."""

    async def remember(self, data: MemoryIn) -> WriteResult:
        """Store a memory; a new value for a fact_key supersedes the old one."""

    async def list(
        self,
        *,
        namespace: str | None = None,
        kind: Kind | str | None = None,
        category: Category | str | None = None,
        status: Status | str | None = "active",
        text: str | None = None,
        limit: int = 50,
        cursor: str | None = None,
    ) -> Page:
        """One page of memories; pass `next_cursor` back as `cursor` for the next."""

    async def get(self, memory_id: str) -> Memory:
        """One memory; NotFound outside the caller's scope."""

    async def update(self, memory_id: str, patch: MemoryPatch) -> Memory:
        """Apply a patch; returns the memory as it now is."""

    async def delete(self, memory_id: str) -> Memory:
        """Move a memory to the trash (never recalled again, restorable until purged); returns it."""

    async def purge_trash(self, ids: Sequence[str] | None = None) -> PurgeResult:
        """Remove deleted memories for good now: the whole trash, or only these ids among it (others are left alone)."""

    async def restore(self, memory_id: str) -> Memory:
        """Bring back a deleted, archived or expired memory; returns it (Conflict if its key is taken)."""

    async def archive(self, memory_id: str) -> Memory:
        """Archive a current memory (superseded ones are refused); returns it."""

    async def pin(self, memory_id: str, pinned: bool = True) -> Memory:
        """Pin (or unpin) a current memory (pinning a superseded one is refused); returns it."""

    async def supersede(self, memory_id: str, data: MemoryIn) -> WriteResult:
        """Replace an active memory with a new one, keeping the chain."""

    async def namespaces(self) -> dict[str, int]:
        """Active memories per namespace."""

    async def events(self, memory_id: str | None = None, limit: int = 200) -> list[Event]:
        """The audit trail, of one memory or all."""

    async def boot(self) -> dict[str, Any]:
        """The boot pack: digest, daily log, pinned, precious, glossary, today's turns and its text."""

    async def precious_list(self) -> list[Memory]:
        """Verbatim quotes worth keeping."""

    async def precious_add(self, quote: str, *, source_ids: Sequence[str] = (), importance: float = 0.8) -> WriteResult:
        """Keep a verbatim quote (append-only)."""

    async def glossary_get(self, term: str | None = None) -> list[Memory]:
        """Glossary entries, all or one term's ([] when there is none)."""

    async def glossary_set(self, term: str, definition: str, aliases: Sequence[str] = ()) -> WriteResult:
        """Define a term."""

    async def glossary_delete(self, term: str) -> list[Memory]:
        """Delete a term's entries; NotFound if there are none."""

    async def digest_get(self) -> Memory | None:
        """The digest, or None."""

    async def digest_set(self, text: str) -> Memory:
        """Replace the digest."""

    async def candidates(self) -> list[Memory]:
        """The review queue."""

    async def candidate(self, memory_id: str, action: str, target_id: str | None = None) -> dict[str, Any]:
        """approve | discard | merge | supersede one candidate: {"action", "memory", "previous"}."""

    def export(self) -> AsyncIterator[dict[str, Any]]:
        """Every record as export lines."""

    async def import_(self, lines: Iterable[dict[str, Any]]) -> dict[str, int]:
        """Load export lines (idempotent)."""

    async def cache_get(self, namespace: str, key: str) -> dict[str, Any]:
        """A client's cached value."""

    async def cache_put(self, namespace: str, key: str, value: Any, ttl_s: float | None = None) -> dict[str, Any]:
        """Cache a client's value."""

    async def cache_delete(self, namespace: str, key: str) -> None:
        """Drop a client's cached value."""

    async def vectors_health(self) -> dict[str, Any]:
        """Whether stored vectors match the embedder (admin)."""

    async def reindex(self, user: str | None = None) -> dict[str, Any]:
        """Re-embed one user's or every user's records (admin)."""
