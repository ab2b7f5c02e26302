"""Request and response shapes of the REST API (and the MCP tools' structured output).

Bounds on every number and string are declared here, so bad input is refused with the field
named before any work starts.
"""

from __future__ import annotations

import dataclasses
from datetime import datetime, timezone
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StringConstraints

from core import DEFINITION_MAX_CHARS, ECHO_MAX, MEMORY_MAX_CHARS, QUERY_MAX_CHARS, Candidate, Event, Memory, Message

Preset = Literal["fast", "balanced", "thorough"]
Query = Field(min_length=1, max_length=QUERY_MAX_CHARS, description="What to look for, in the user's words")
NamespaceField = Field(None, max_length=80, description="'default', 'project:<name>' or 'client:<name>'")
ProjectField = Field(None, max_length=64, description="Active project: its namespace is read too")
Fingerprint = Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{16}$")]


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Item(BaseModel):
    """One recalled or found record: every field of `core.Candidate`, so a client rebuilds it whole."""

    id: str
    text: str
    source: str = Field(description="'memory' or 'message' (a raw conversation turn)")
    kind: str
    created_at: datetime
    score: float
    importance: float = 0.5
    pinned: bool = False
    keyed: bool = Field(False, description="a keyed fact (one current value per fact_key)")
    client: str | None = None
    author: str | None = Field(None, description="for a turn: who said it ('user' or 'assistant')")
    sources: list[str] = Field(default_factory=list, description="a memory's source turns")
    arms: list[str] = Field(default_factory=list, description="the retrieval arms that found it")
    dense: float = Field(0.0, description="the query's cosine similarity to it (0 where the dense arms missed it)")
    lexical: float = Field(0.0, description="the share of the query's word weight it covers (0 where the lexical arm missed it)")
    tags: list[str] = Field(default_factory=list, description="a memory's tags")


def item(c: Candidate) -> Item:
    return Item(**{f.name: getattr(c, f.name) for f in dataclasses.fields(Candidate)})


class RecallIn(Strict):
    query: str = Query
    namespace: str | None = NamespaceField
    project: str | None = ProjectField
    budget_tokens: int | None = Field(None, ge=50, le=20000)
    top_k: int | None = Field(None, ge=1, le=100)
    preset: Preset | None = None
    echo: list[Fingerprint] = Field(
        default_factory=list, max_length=ECHO_MAX,
        description="fingerprints (core.fingerprint) of the turns the request already carries: never injected back",
    )
    why: str | None = Field(None, min_length=1, max_length=200, description=(
        "an id for this request: the host keeps what it injected and why, for GET /v1/why (omit in private or "
        "read-only chats: nothing is kept)"))
    model: str | None = Field(None, min_length=1, max_length=200, description=(
        "The model the block goes to (a client's chat model): the host's destination policy decides what it may carry "
        "(nothing for a model that may receive no memory; no precious, health or private items for a model off the host). "
        "Omitted: no policy, for the person's own use"))
    correct: bool = Field(False, description=(
        "with `why`: first carry out a correction this turn makes to what was injected last ('that's wrong, I moved to "
        "Hangzhou', 'forget #12345'); the block then opens with a note saying what changed"))


class RecallOut(BaseModel):
    text: str = Field(description="The <memory_context> block to inject, '' if nothing was found")
    items: list[Item]
    tokens: int


class SearchIn(Strict):
    query: str = Query
    top_k: int | None = Field(None, ge=1, le=100)
    filter: bool = Field(True, description="false skips the optional rerank stage")
    namespace: str | None = NamespaceField
    project: str | None = ProjectField


class SearchOut(BaseModel):
    hits: list[Item]


class IngestIn(Strict):
    messages: list[Message] = Field(max_length=1000)
    commands: bool = Field(True, description="Carry out 'remember ...' / 'forget ...' in new user turns at once")






class MessagesOut(BaseModel):
    messages: list[Message]


def _aware(dt: datetime) -> datetime:
    # a time without a zone is read as UTC, as everywhere else in Amber
    return dt.replace(tzinfo=timezone.utc) if dt.tzinfo is None else dt


Aware = Annotated[datetime, AfterValidator(_aware)]
MessageId = Annotated[str, StringConstraints(min_length=1, max_length=200)]


class MessagesDeleteIn(Strict):
    """Which captured turns to delete: a turn goes when it meets every criterion given."""

    ids: list[MessageId] | None = Field(None, max_length=1000, description="These turns (ids from GET /v1/messages, search or recall)")
    session: str | None = Field(None, min_length=1, max_length=200, description="Only turns of this conversation")
    since: Aware | None = Field(None, description="Only turns said at or after this time")
    until: Aware | None = Field(None, description="Only turns said before this time")
    all: bool = Field(False, description="true with no other criterion: every captured turn of this user")




class ForgetIn(Strict):
    what: str = Field(min_length=1, max_length=2000, description="What to forget, in the user's words ('my passport number'); "
                      "a whole 'forget that ...' sentence works too")




class NamespacesOut(BaseModel):
    namespaces: dict[str, int]


class EventsOut(BaseModel):
    events: list[Event]




class PreciousIn(Strict):
    quote: str = Field(min_length=1, max_length=MEMORY_MAX_CHARS, description="The exact words to keep")
    source_ids: list[str] = Field(default_factory=list, max_length=100)
    importance: float = Field(0.8, ge=0, le=1)


class ItemsOut(BaseModel):
    items: list[Memory]


class GlossaryIn(Strict):
    term: str = Field(min_length=1, max_length=200)
    definition: str = Field(min_length=1, max_length=DEFINITION_MAX_CHARS)
    aliases: list[str] = Field(default_factory=list, max_length=50)


class GlossaryPut(Strict):
    definition: str = Field(min_length=1, max_length=DEFINITION_MAX_CHARS)
    aliases: list[str] = Field(default_factory=list, max_length=50)


class GlossaryOut(BaseModel):
    entries: list[Memory]


class DigestIn(Strict):
    text: str = Field(min_length=1, max_length=500)


class DigestOut(BaseModel):
    digest: Memory | None


class CandidatesOut(BaseModel):
    candidates: list[Memory]


class TargetIn(Strict):
    target_id: str | None = Field(None, min_length=1, max_length=200, description="The active memory to merge into or supersede")




class CacheIn(Strict):
    value: Any = Field(description="Any JSON value, at most 64 KiB")
    ttl_s: float | None = Field(None, gt=0, le=365 * 24 * 3600)




class ReindexIn(Strict):
    user: str | None = Field(None, min_length=1, max_length=256)




class ErrorOut(BaseModel):
    error: str = Field(description="invalid_input, not_found, forbidden, immutable, unauthenticated, store_unavailable, ...")
    detail: str
    field: str | None = None
