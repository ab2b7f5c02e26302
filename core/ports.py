"""Every extension point of Amber, in one place.

Built-in parts implement these Protocols exactly as third-party ones would;
`core.testing` ships deterministic fakes of each.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any, AsyncIterator, Callable, Iterable, Protocol, Sequence, TypeVar, runtime_checkable

from .identity import ADMIN, READ, WRITE

if TYPE_CHECKING:  # the port speaks the domain models of core/model.py, declared once there
    from .model import Category, Event, Kind, Memory, MemoryIn, MemoryPatch, Message, Page, Status, WriteResult
    from .recall.fusion import Candidate
    from .recall.pipeline import RecallResult
    from .results import (
        BootPack,
        CacheEntry,
        CandidateAction,
        ForgetResult,
        ImportCounts,
        IngestResult,
        PurgeResult,
        ReindexReport,
        TurnsDeleted,
        VectorsHealth,
        WhyRequest,
    )


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


F = TypeVar("F", bound=Callable[..., Any])


def needs(permission: str, *, reads_when: str | None = None) -> Callable[[F], F]:
    """Declare the permission an operation needs (READ, WRITE or ADMIN); `core.LocalMemory` enforces
    it for every face, from this declaration alone. `reads_when`: the name of a flag argument that,
    when true, makes the call read only (a forget's preview), so READ is enough."""

    def mark(fn: F) -> F:
        fn.__amber_needs__ = (permission, reads_when)  # type: ignore[attr-defined]
        return fn

    return mark


def operations() -> dict[str, tuple[str, str | None]]:
    """Every operation of the port: the permission it needs, and the flag that makes it read only."""
    return {name: fn.__amber_needs__ for name, fn in vars(MemoryPort).items() if hasattr(fn, "__amber_needs__")}


@runtime_checkable
class MemoryPort(Protocol):
    """One caller's memory, whatever carries it: in process (`core.LocalMemory`, over
    `core.MemoryService`, which has these same operations with a `Scope` in front) or over HTTP
    (`core.RemoteMemory`). The caller is fixed when the port is built (an API key, a user), so no
    method takes a user. All raise the same `core.errors` classes; tests/contract holds them to it."""

    @needs(READ)
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
        destination: str | None = None,
    ) -> RecallResult:
        """The <memory_context> block for a query; budget: `budget_tokens`, else the preset's.
        `why`: a request id under which the host keeps what it injected and why (`why`); None keeps nothing.
        `destination`: the model the block goes to; the host's destination policy decides what it may
        carry (nothing, or no host-only item) before the block is packed and its why record kept."""

    @needs(READ)
    async def why(self, last: int = 1, request: str | None = None) -> list[WhyRequest]:
        """What recall injected into the caller's recent requests and why (newest first; or the one
        `request`): per item its handle, scores and arms, and its words as stored now."""

    @needs(READ)
    async def search(
        self, query: str, *, top_k: int | None = None, filter: bool = True, project: str | None = None, namespace: str | None = None
    ) -> list[Candidate]:
        """Ranked memories and captured turns with scores, nothing rendered."""

    @needs(WRITE)
    async def ingest(self, messages: Sequence[Message | dict[str, Any]], commands: bool = True) -> IngestResult:
        """Capture turns, idempotent by id, carrying out "remember/forget ..." in new user turns."""

    @needs(READ)
    async def messages(
        self, *, since: datetime | None = None, until: datetime | None = None, session: str | None = None, text: str | None = None
    ) -> list[Message]:
        """Captured turns, oldest first."""

    @needs(WRITE)
    async def delete_message(self, message_id: str) -> TurnsDeleted:
        """Delete one captured turn; NotFound if there is none."""

    @needs(WRITE)
    async def delete_messages(
        self,
        *,
        ids: Sequence[str] | None = None,
        session: str | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
        everything: bool = False,
    ) -> TurnsDeleted:
        """Delete the turns meeting every criterion given (`everything` alone: all)."""

    @needs(WRITE, reads_when="preview")
    async def forget(self, what: str, *, preview: bool = False) -> ForgetResult:
        """Erase for good what states `what`, in every status (or, with `preview`, only say what would go)."""

    @needs(WRITE)
    async def remember(self, data: MemoryIn) -> WriteResult:
        """Store a memory; a new value for a fact_key supersedes the old one."""

    @needs(READ)
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

    @needs(READ)
    async def get(self, memory_id: str) -> Memory:
        """One memory; NotFound outside the caller's scope."""

    @needs(WRITE)
    async def update(self, memory_id: str, patch: MemoryPatch) -> Memory:
        """Apply a patch; returns the memory as it now is."""

    @needs(WRITE)
    async def delete(self, memory_id: str) -> Memory:
        """Move a memory to the trash (never recalled again, restorable until purged); returns it."""

    @needs(WRITE)
    async def purge_trash(self, ids: Sequence[str] | None = None) -> PurgeResult:
        """Remove deleted memories for good now: the whole trash, or only these ids among it (others are left alone)."""

    @needs(WRITE)
    async def restore(self, memory_id: str) -> Memory:
        """Bring back a deleted, archived or expired memory; returns it (Conflict if its key is taken)."""

    @needs(WRITE)
    async def archive(self, memory_id: str) -> Memory:
        """Archive a current memory (superseded ones are refused); returns it."""

    @needs(WRITE)
    async def pin(self, memory_id: str, pinned: bool = True) -> Memory:
        """Pin (or unpin) a current memory (pinning a superseded one is refused); returns it."""

    @needs(WRITE)
    async def supersede(self, memory_id: str, data: MemoryIn) -> WriteResult:
        """Replace an active memory with a new one, keeping the chain."""

    @needs(READ)
    async def namespaces(self) -> dict[str, int]:
        """Active memories per namespace."""

    @needs(READ)
    async def events(self, memory_id: str | None = None, limit: int = 200) -> list[Event]:
        """The audit trail, of one memory or all."""

    @needs(READ)
    async def boot(self) -> BootPack:
        """The boot pack: digest, daily log, pinned, precious, glossary, today's turns and its text."""

    @needs(READ)
    async def precious_list(self) -> list[Memory]:
        """Verbatim quotes worth keeping."""

    @needs(WRITE)
    async def precious_add(self, quote: str, *, source_ids: Sequence[str] = (), importance: float = 0.8) -> WriteResult:
        """Keep a verbatim quote (append-only)."""

    @needs(READ)
    async def glossary_get(self, term: str | None = None) -> list[Memory]:
        """Glossary entries, all or one term's ([] when there is none)."""

    @needs(WRITE)
    async def glossary_set(self, term: str, definition: str, aliases: Sequence[str] = ()) -> WriteResult:
        """Define a term."""

    @needs(WRITE)
    async def glossary_delete(self, term: str) -> list[Memory]:
        """Move a term's entries to the trash; NotFound if there are none."""

    @needs(READ)
    async def digest_get(self) -> Memory | None:
        """The digest, or None."""

    @needs(WRITE)
    async def digest_set(self, text: str) -> Memory:
        """Replace the digest."""

    @needs(READ)
    async def candidates(self) -> list[Memory]:
        """The review queue."""

    @needs(WRITE)
    async def candidate(self, memory_id: str, action: str, target_id: str | None = None) -> CandidateAction:
        """approve | discard | merge | supersede one candidate."""

    @needs(READ)
    def export(self) -> AsyncIterator[dict[str, Any]]:
        """Every record as export lines (JSON objects; the format is core/portability.py's)."""

    @needs(WRITE)
    async def import_(self, lines: Iterable[dict[str, Any]]) -> ImportCounts:
        """Load export lines (idempotent)."""

    @needs(READ)
    async def cache_get(self, namespace: str, key: str) -> CacheEntry:
        """A client's cached value."""

    @needs(WRITE)
    async def cache_put(self, namespace: str, key: str, value: Any, ttl_s: float | None = None) -> CacheEntry:
        """Cache a client's value."""

    @needs(WRITE)
    async def cache_delete(self, namespace: str, key: str) -> None:
        """Drop a client's cached value."""

    @needs(ADMIN)
    async def vectors_health(self) -> VectorsHealth:
        """Whether stored vectors match the embedder."""

    @needs(ADMIN)
    async def reindex(self, user: str | None = None) -> ReindexReport:
        """Re-embed one user's or every user's records."""
