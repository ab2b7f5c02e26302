"""Records and value types. Pure data: no I/O here."""

from __future__ import annotations

import hashlib
import re
import unicodedata
from datetime import datetime, timezone
from enum import Enum
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, field_validator


class Kind(str, Enum):
    fact = "fact"
    event = "event"
    precious = "precious"  # a verbatim quote worth keeping; append-only
    glossary = "glossary"
    digest = "digest"
    daily_log = "daily_log"
    instruction = "instruction"


class Category(str, Enum):
    profile = "profile"
    preference = "preference"
    personality = "personality"
    goal = "goal"
    skill = "skill"
    relationship = "relationship"
    emotional_pattern = "emotional_pattern"
    conversation_style = "conversation_style"
    project = "project"
    world = "world"


class Status(str, Enum):
    active = "active"
    candidate = "candidate"  # waiting in the review queue
    superseded = "superseded"
    archived = "archived"
    expired = "expired"
    deleted = "deleted"


class Role(str, Enum):
    user = "user"
    assistant = "assistant"
    system = "system"
    tool = "tool"


NAMESPACE_RE = re.compile(r"^(default|(project|client):[A-Za-z0-9][A-Za-z0-9._\-]{0,63})\Z")
FACT_KEY_RE = re.compile(r"^[a-z_]+\.[a-z0-9_]+(\.[a-z0-9_]+)*$")  # also a JSON Schema pattern, where ECMA has no \Z: checked with fullmatch
DIGEST_MAX_CHARS = 500
# Field limits, declared once: models below enforce them on every face (REST, MCP, import); the
# proxy hook and the Open WebUI filter clip captured turns to MESSAGE_MAX_CHARS with `clip`.
MEMORY_MAX_CHARS = 8000
MESSAGE_MAX_CHARS = 100_000
QUERY_MAX_CHARS = 4000
ECHO_MAX = 1000  # fingerprints of the turns a recall request carries (the latest: older ones are long out of view)
DEFINITION_MAX_CHARS = 4000


def clip(text: str, limit: int = MESSAGE_MAX_CHARS) -> str:
    """`text` cut to `limit` characters, saying so, for captured turns (a paste is kept, not refused)."""
    if len(text) <= limit:
        return text
    keep = limit - 64  # the note takes fewer than 64 characters
    note = f"\n[… {len(text) - keep} characters not kept …]\n"
    return text[: keep // 2] + note + text[len(text) - (keep - keep // 2) :]


def _aware(value: datetime) -> datetime:
    """A time without a zone is read as UTC (documented in the README): comparing it with aware
    times once made a user's recall, boot and export fail for good. So did one that is before year 1
    or after 9999 in UTC ("0001-01-01T00:00:00+05:00"): stored as a timestamp, it cannot be read back."""
    value = value.replace(tzinfo=timezone.utc) if value.tzinfo is None else value
    try:
        value.astimezone(timezone.utc)
    except OverflowError:
        raise ValueError(f"{value.isoformat()} is outside the years 1-9999 in UTC") from None
    return value


# Every time in a record: always aware, whatever a face or an old store hands in.
Instant = Annotated[datetime, AfterValidator(_aware)]


def utcnow() -> datetime:
    return datetime.now(timezone.utc)


def normalize_text(text: str) -> str:
    """Case-, width- and whitespace-folded form used for content hashes."""
    text = unicodedata.normalize("NFKC", text).casefold()
    return " ".join(text.split())


def content_hash(text: str) -> str:
    return hashlib.sha256(normalize_text(text).encode()).hexdigest()[:32]


class Memory(BaseModel):
    """One durable memory, as stored."""

    model_config = ConfigDict(use_enum_values=False)

    id: str
    content: str
    user_id: str
    namespace: str = "default"
    kind: Kind = Kind.fact
    category: Category | None = None
    fact_key: str | None = None
    lang: str | None = None
    tags: list[str] = Field(default_factory=list)
    source_client: str | None = None
    source_ids: list[str] = Field(default_factory=list)
    importance: float = 0.5
    confidence: float = 1.0
    pinned: bool = False
    status: Status = Status.active
    supersedes: str | None = None
    superseded_by: str | None = None
    valid_from: Instant | None = None
    valid_to: Instant | None = None
    expire_at: Instant | None = None
    created_at: Instant
    updated_at: Instant
    seen_count: int = 1
    last_seen_at: Instant | None = None
    hit_count: int = 0
    last_access_at: Instant | None = None
    content_hash: str = ""
    # glossary entries: the term's other names (the term itself is `title`)
    title: str | None = None
    aliases: list[str] = Field(default_factory=list)


class MemoryIn(BaseModel):
    """What a caller may say when creating or upserting a memory."""

    model_config = ConfigDict(extra="forbid")

    content: str = Field(min_length=1, max_length=MEMORY_MAX_CHARS)
    namespace: str = "default"
    kind: Kind = Kind.fact
    category: Category | None = None
    fact_key: str | None = None
    lang: str | None = None
    tags: list[str] = Field(default_factory=list)
    source_ids: list[str] = Field(default_factory=list)
    importance: float = Field(0.5, ge=0, le=1)
    confidence: float = Field(1.0, ge=0, le=1)
    pinned: bool = False
    status: Status = Status.active
    valid_from: Instant | None = None
    valid_to: Instant | None = None
    expire_at: Instant | None = None
    title: str | None = None
    aliases: list[str] = Field(default_factory=list)

    @field_validator("content")
    @classmethod
    def _not_blank(cls, v: str) -> str:
        if not v.strip():
            raise ValueError("must not be blank")
        return v

    @field_validator("status")
    @classmethod
    def _creatable(cls, v: Status) -> Status:
        if v not in (Status.active, Status.candidate):
            raise ValueError("new memories are 'active' or 'candidate'")
        return v


class MemoryPatch(BaseModel):
    """Fields a caller may change in place (content changes of keyed facts go through supersede)."""

    model_config = ConfigDict(extra="forbid")

    content: str | None = Field(None, min_length=1, max_length=MEMORY_MAX_CHARS)
    category: Category | None = None
    tags: list[str] | None = None
    importance: float | None = Field(None, ge=0, le=1)
    confidence: float | None = Field(None, ge=0, le=1)
    pinned: bool | None = None
    expire_at: Instant | None = None
    valid_to: Instant | None = None


class Message(BaseModel):
    """One turn of a conversation, as captured."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(min_length=1, max_length=200)
    role: Role
    content: str = Field(min_length=1, max_length=MESSAGE_MAX_CHARS)
    client: str | None = None
    session: str | None = None
    author: str | None = None  # who spoke, when known (a name, not a user id)
    created_at: Instant  # when it was said, as the client states it: for display and ordering
    stored_at: Instant | None = None  # when Amber stored it, by the server's clock: what retention ages
    stated_at: Instant | None = None  # the client's time when more than a day ahead of the server's (created_at then says when stored)
    # brought in from a chat export (core/chat_import): kept by message retention (README, Jobs) and
    # planned for extraction even when the cursor is past its date
    imported: bool = False


class Event(BaseModel):
    """One entry of the audit trail."""

    id: str
    user_id: str
    action: str  # create, seen, supersede, update, archive, delete, pin, import, ...
    actor: str
    client: str | None = None
    memory_ids: list[str] = Field(default_factory=list)
    at: Instant
    detail: dict[str, Any] = Field(default_factory=dict)


class WriteResult(BaseModel):
    """Outcome of one write: what happened and the record now active."""

    action: str  # created | seen | superseded | deduplicated
    memory: Memory
    previous: Memory | None = None


class Page(BaseModel):
    items: list[Memory]
    next_cursor: str | None = None


# Whose words a memory holds, as a tag: the person's own statement (extracted from their turn, a
# "remember ..." or a correction they typed) or what an assistant said (extracted from its reply, or
# from the person quoting one). The injected block says which, so the model can weigh it. A memory
# with neither (written through the API, imported, older than these tags) is shown as before.
SAID_BY_USER = "said:user"
SAID_BY_ASSISTANT = "said:assistant"


def said_by(tags: list[str], who: str) -> list[str]:
    """`tags` with the origin tag set to `who` (SAID_BY_USER or SAID_BY_ASSISTANT)."""
    return [t for t in tags if t not in (SAID_BY_USER, SAID_BY_ASSISTANT)] + [who]


def memory_id(*parts: str) -> str:
    """Ids derive from content, so a retried write converges on the same record."""
    return "m_" + hashlib.sha256("\x1f".join(parts).encode()).hexdigest()[:24]


# Set by compose.build_service when the embedder runs off the host: whether a memory's words stay on
# the host (core/destinations.py, `stays`). Such a memory is embedded as what it is, not as its words,
# so the provider never receives them; recall then finds it by its words in the lexical arms only.
_WORDS_STAY_HOME: Any = None


def keep_words_home(stays: Any) -> None:
    """`stays(memory) -> bool` for an embedder off the host, or None for one on it."""
    global _WORDS_STAY_HOME
    _WORDS_STAY_HOME = stays


def embed_text(m: "Memory | MemoryIn") -> str:
    """What a memory is embedded as: glossary entries carry their term and aliases too; with an
    embedder off the host, a host-only memory only its kind."""
    if _WORDS_STAY_HOME is not None and _WORDS_STAY_HOME(m):
        return f"({m.kind.value}, kept on the host)"
    if m.kind == Kind.glossary:
        return " ".join([m.title or "", *m.aliases, m.content])
    return m.content


def as_input(m: Memory) -> dict[str, Any]:
    """A stored memory's fields that a new version (supersede, approve) carries over."""
    keep = set(MemoryIn.model_fields) - {"status"}
    return {k: v for k, v in m.model_dump().items() if k in keep}
