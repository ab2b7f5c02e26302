"""What the memory port's operations return, besides the domain records of core/model.py.

Declared once, here: the service builds them, the REST routes send them as they are, and
`RemoteMemory` reads them back into the same classes, so a field added here reaches every face.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel, Field

from .model import Memory, Message


class CommandDone(BaseModel):
    """A "remember ..." / "forget ..." carried out from a captured user turn."""

    action: str
    memory_id: str


class IngestResult(BaseModel):
    """Turns stored by one capture (a turn already stored with the same words is not counted), and
    what the commands in new user turns did."""

    ingested: int
    commands: list[CommandDone] = Field(default_factory=list)


class TurnsDeleted(BaseModel):
    deleted: int
    ids: list[str] = Field(description="The turns deleted (an id that was not there is not listed)")


class ForgetResult(BaseModel):
    what: str = Field(description="What was matched against (the command words removed)")
    done: bool = Field(description="false for a preview: nothing was removed")
    memories: list[Memory] = Field(description="Memories that state it (erased when done)")
    messages: int = Field(description="How many captured turns say it")
    message_ids: list[str]
    rewritten: list[str] = Field(default_factory=list, description="Digest and daily-log ids rewritten without the sentences that say it")
    uncertain: list[Memory] = Field(default_factory=list, description="Memories it may mean but Amber is not sure of: kept, "
                                    "never erased; ask the person which they mean and forget that one in its own words")


class PurgeResult(BaseModel):
    """What `purge_trash` removed for good: the ids, and how many."""

    purged: list[str] = Field(description="The memories removed for good (no longer restorable)")
    count: int


class CandidateAction(BaseModel):
    """What one review-queue action did: the memory it left active, and the one it replaced."""

    action: str
    memory: Memory
    previous: Memory | None = None


class BootPack(BaseModel):
    """What a client loads at the start of a conversation."""

    date: str
    yesterday: str
    digest: Memory | None
    daily_log: Memory | None
    precious: list[Memory]
    glossary: list[Memory]
    pinned: list[Memory]
    today: list[Message]
    counts: dict[str, int]
    text: str = Field(description="Digest, pinned facts and glossary as one <memory_context> block to inject, '' when empty")


class ImportCounts(BaseModel):
    memories: int
    messages: int
    events: int = 0


class CacheEntry(BaseModel):
    namespace: str
    key: str
    value: Any = Field(description="Any JSON value, at most 64 KiB")
    updated_at: float
    expires_at: float | None = None


class CollectionHealth(BaseModel):
    count: int
    embedder: str | None
    ok: bool


class UserVectors(BaseModel):
    """One user's collections against the configured embedder."""

    user_id: str
    ok: bool
    memories: CollectionHealth | None = None
    messages: CollectionHealth | None = None


class VectorsHealth(BaseModel):
    embedder: str
    ok: bool
    users: list[UserVectors]


class ReindexCounts(BaseModel):
    memories: int
    messages: int


class ReindexReport(BaseModel):
    users: dict[str, ReindexCounts]


class WhyShown(BaseModel):
    """One item recall injected into a request, and why it was picked (core/why.py)."""

    handle: str = Field(description="as the memory block shows it, e.g. #48213")
    id: str
    source: str = Field(description="'memory' or 'message' (a captured turn)")
    kind: str
    created_at: datetime
    client: str | None = None
    score: float = Field(description="fused rank score")
    dense: float = Field(description="the query's cosine similarity to it (0 where the dense arms missed it)")
    lexical: float = Field(description="the share of the query's word weight it covers")
    arms: list[str] = Field(description="the retrieval arms that found it")
    fact_key: bool = Field(False, description="a keyed fact")
    verdict: str = Field("", description="the relevance floor's verdict: close, distinct, words, pinned or no_floor let it "
                                        "in; near_everything or below_floor kept it out (core/recall/relevance.py VERDICTS)")
    excerpt: bool = Field(False, description="the block held only its sentences nearest the prompt, the rest marked …")
    background: float | None = Field(None, description="its similarity to the nearest prompt about nobody, where known")
    text: str | None = Field(None, description="its words as stored now (None once gone)")
    gone: bool = Field(False, description="forgotten or deleted for good since")
    status: str | None = Field(None, description="set when it is no longer current: superseded, deleted, archived")


class WhyRequest(BaseModel):
    """What recall injected into one request that named itself, and whether it abstained."""

    request: str
    at: datetime
    considered: int = Field(description="candidates weighed")
    abstained: bool = Field(description="nothing cleared the relevance floor (only pinned facts then)")
    tokens: int
    items: list[WhyShown]
    left_out: list[WhyShown] = Field(default_factory=list, description="the best few items weighed and kept out by the "
                                                                       "relevance floor, each with the verdict that kept it out")
