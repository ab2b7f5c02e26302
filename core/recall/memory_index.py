"""A person's memories as recall reads them, held in process: BM25 postings, candidates, what the
memory list sorts by, background similarities and the sentence arm's vectors. Built from the store
and kept current by the service's writes (core/recall/pipeline.py)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import NamedTuple

from ..model import Memory
from .fusion import Candidate
from .lexical import BM25Index
from .sentence_arm import SentenceVectors


def memory_candidate(m: Memory) -> Candidate:
    return Candidate(
        id=m.id, text=m.content, source="memory", created_at=m.valid_from or m.created_at, kind=m.kind.value,
        importance=m.importance, pinned=m.pinned, keyed=bool(m.fact_key), client=m.source_client, sources=tuple(m.source_ids), tags=tuple(m.tags),
    )


class ListEntry(NamedTuple):
    """One active memory as the memory list sees it before the page is read."""

    updated_at: datetime
    id: str
    namespace: str
    kind: str
    category: str | None
    fact_key: str | None


@dataclass
class MemIndex:
    rev: int
    bm25: BM25Index = field(default_factory=BM25Index)
    cands: dict[str, Candidate] = field(default_factory=dict)
    meta: dict[str, tuple[str, float]] = field(default_factory=dict)  # id -> (namespace, expire_ts)
    # id -> what `MemoryService.list` filters and sorts active memories by, so a page costs one read
    # of its own records instead of every record the person has (bench/README.md, "big user")
    listing: dict[str, ListEntry] = field(default_factory=dict)
    background: dict[str, float] = field(default_factory=dict)  # id -> background similarity (background.py)
    sentences: SentenceVectors = field(default_factory=SentenceVectors)  # the sentence arm's
    # namespaces -> (rev, valid from, valid until, ids): building the set costs ~15 ms at 100k records
    _allowed: dict[tuple[str, ...], tuple[int, float, float, set[str]]] = field(default_factory=dict)

    def drop(self, memory_id: str) -> None:
        """The memory is no longer active (or no longer exists): out of every part of the index."""
        self.bm25.remove(memory_id)
        self.cands.pop(memory_id, None)
        self.meta.pop(memory_id, None)
        self.listing.pop(memory_id, None)
        self.background.pop(memory_id, None)
        self.sentences.drop(memory_id)

    def allowed(self, namespaces: tuple[str, ...], now_ts: float) -> set[str]:
        """Ids readable in these namespaces and not past their TTL; cached until the next write or
        the next expiry, whichever comes first."""
        hit = self._allowed.get(namespaces)
        if hit is not None and hit[0] == self.rev and hit[1] <= now_ts < hit[2]:
            return hit[3]
        rev = self.rev
        # one copy, made in one step (no item is allocated while it is made, so no other thread runs):
        # a write may add to the dict while this reads, and iterating it then failed the recall
        meta = self.meta.copy()
        ids = {i for i, (ns, exp) in meta.items() if ns in namespaces and (not exp or exp > now_ts)}
        until = min((exp for i, (ns, exp) in meta.items() if exp > now_ts), default=float("inf"))
        self._allowed[namespaces] = (rev, now_ts, until, ids)
        return ids
