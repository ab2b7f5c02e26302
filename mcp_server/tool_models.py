"""Structured output of the MCP tools: compact views, so a model reads what matters and no more."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel, Field

from core import Memory, Message
from core import CommandDone

from .schemas import Item


class MemoryView(BaseModel):
    id: str
    content: str
    namespace: str
    kind: str
    category: str | None = None
    fact_key: str | None = None
    title: str | None = None
    aliases: list[str] = Field(default_factory=list)
    tags: list[str] = Field(default_factory=list)
    importance: float
    pinned: bool
    status: str
    created_at: datetime
    updated_at: datetime
    supersedes: str | None = None
    superseded_by: str | None = None


def view(m: Memory | None) -> MemoryView | None:
    if m is None:
        return None
    return MemoryView(
        id=m.id,
        content=m.content,
        namespace=m.namespace,
        kind=m.kind.value,
        category=m.category.value if m.category else None,
        fact_key=m.fact_key,
        title=m.title,
        aliases=m.aliases,
        tags=m.tags,
        importance=m.importance,
        pinned=m.pinned,
        status=m.status.value,
        created_at=m.created_at,
        updated_at=m.updated_at,
        supersedes=m.supersedes,
        superseded_by=m.superseded_by,
    )


def views(ms: list[Memory]) -> list[MemoryView]:
    return [v for v in (view(m) for m in ms) if v is not None]


class RecallView(BaseModel):
    text: str = Field(description="Memory block ready to read; '' when nothing relevant is stored")
    items: list[Item]
    tokens: int


class SearchView(BaseModel):
    hits: list[Item]


class ListView(BaseModel):
    items: list[MemoryView]
    next_cursor: str | None = Field(None, description="Pass back as `cursor` for the next page")


class WriteView(BaseModel):
    action: str = Field(description="created | seen (already known) | superseded (replaced an older value)")
    memory: MemoryView
    previous: MemoryView | None = None


class GlossaryView(BaseModel):
    entries: list[MemoryView]


class DigestView(BaseModel):
    digest: MemoryView | None


class TurnView(BaseModel):
    id: str | None = Field(None, description="The turn's id (for messages_delete)")
    role: str
    content: str
    created_at: datetime
    session: str | None = None
    client: str | None = None


def turns(ms: list[Message]) -> list[TurnView]:
    return [TurnView(id=m.id, role=m.role.value, content=m.content, created_at=m.created_at, session=m.session, client=m.client) for m in ms]


class BootView(BaseModel):
    date: str
    digest: MemoryView | None
    daily_log: MemoryView | None
    precious: list[MemoryView]
    glossary: list[MemoryView]
    pinned: list[MemoryView]
    today: list[TurnView]
    counts: dict[str, int]


class IngestView(BaseModel):
    ingested: int
    commands: list[CommandDone]


class ExportView(BaseModel):
    lines: list[dict[str, Any]]
    truncated: bool = Field(description="True when more lines exist than `limit`; use the REST export for everything")


class NamespacesView(BaseModel):
    namespaces: dict[str, int]


class ReviewView(BaseModel):
    candidates: list[MemoryView] = Field(default_factory=list)
    action: str | None = None
    memory: MemoryView | None = None
    previous: MemoryView | None = None


class MessagesView(BaseModel):
    turns: list[TurnView] = Field(description="Oldest first")
    total: int = Field(description="How many turns matched; only the newest `limit` are listed")


class DeletedView(BaseModel):
    deleted: int
    ids: list[str] = Field(description="The turns deleted")


class ForgetView(BaseModel):
    what: str = Field(description="What was matched against")
    done: bool = Field(description="false for a preview: nothing was removed yet")
    memories: list[MemoryView] = Field(description="Memories that state it (deleted when done)")
    messages: int = Field(description="How many captured conversation turns say it (deleted when done)")
    message_ids: list[str] = Field(description="Those turns' ids")
    rewritten: list[str] = Field(default_factory=list, description="Digest and daily-log ids rewritten without the sentences that say it")
    uncertain: list[MemoryView] = Field(default_factory=list, description=(
        "Memories it may mean but Amber is not sure of: kept, never erased (not even with preview=false). "
        "Ask the user which of them, if any, they mean, and forget that one in its own words"))
