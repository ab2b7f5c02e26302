"""Every extension point of Amber, in one place.

Built-in parts implement these Protocols exactly as third-party ones would;
`core.testing` ships deterministic fakes of each.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Protocol, Sequence, runtime_checkable


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
