"""The recall pipeline: dense and lexical arms over memories and raw messages, fused and budgeted.

The lexical indexes live in process, one per user collection, and are kept current by the
service's writes (`note_memories`, `note_messages`) instead of being rebuilt. In client/server
mode another host may write too, so each index remembers the collection revision it reflects
and is rebuilt when the stored revision moves.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Callable, Sequence

from ..model import Memory, Message, Status
from ..ports import Embedder, Reranker
from ..scope import Scope, memory_collection, memory_where, message_collection, message_where
from .config import RecallConfig
from .fusion import Candidate, dedup, fuse
from .lexical import BM25Index
from .render import estimate_tokens, fit_budget, render

log = logging.getLogger("amber.recall")


def memory_candidate(m: Memory) -> Candidate:
    text = m.content
    if m.kind.value == "glossary" and m.title:
        text = m.content
    return Candidate(
        id=m.id,
        text=text,
        source="memory",
        created_at=m.valid_from or m.created_at,
        kind=m.kind.value,
        importance=m.importance,
        pinned=m.pinned,
        keyed=bool(m.fact_key),
        client=m.source_client,
    )


def message_candidate(m: Message) -> Candidate:
    return Candidate(
        id=m.id, text=m.content, source="message", created_at=m.created_at, kind=m.role.value, client=m.client, author=m.author
    )


def message_index_text(m: Message, prev: Message | None = None, nxt: Message | None = None) -> str:
    """What a raw turn is indexed as: its date, speaker and words, with its neighbours in the session."""
    who = m.author or m.role.value
    parts = [f"[{m.created_at:%d %B %Y}]"]
    if prev is not None:
        parts.append(prev.content)
    parts.append(f"{who}: {m.content}")
    if nxt is not None:
        parts.append(nxt.content)
    return " ".join(parts)


@dataclass
class _MemIndex:
    rev: int
    bm25: BM25Index = field(default_factory=BM25Index)
    cands: dict[str, Candidate] = field(default_factory=dict)
    meta: dict[str, tuple[str, float]] = field(default_factory=dict)  # id -> (namespace, expire_ts)


@dataclass
class _MsgIndex:
    rev: int
    bm25: BM25Index = field(default_factory=BM25Index)
    cands: dict[str, Candidate] = field(default_factory=dict)
    msgs: dict[str, Message] = field(default_factory=dict)
    tails: dict[str, Message] = field(default_factory=dict)  # session -> last message
    prev_of: dict[str, Message] = field(default_factory=dict)


@dataclass
class RecallResult:
    items: list[Candidate]
    text: str
    tokens: int


class Recaller:
    def __init__(self, store, embedder: Embedder, revision: Callable[[str], int], reranker: Reranker | None = None):
        self.store = store
        self.embedder = embedder
        self.revision = revision
        self.reranker = reranker
        self._mem: dict[str, _MemIndex] = {}
        self._msg: dict[str, _MsgIndex] = {}
        self._lock = threading.RLock()

    # ---- index upkeep ------------------------------------------------------------------------

    def _mem_index(self, col: str) -> _MemIndex:
        rev = self.revision(col)
        idx = self._mem.get(col)
        if idx is not None and idx.rev == rev:
            return idx
        with self._lock:
            idx = _MemIndex(rev=rev)
            for m in self.store.find_memories(col, {"status": Status.active.value}):
                self._mem_add(idx, m)
            self._mem[col] = idx
            return idx

    @staticmethod
    def _mem_add(idx: _MemIndex, m: Memory) -> None:
        if m.status != Status.active:
            idx.bm25.remove(m.id)
            idx.cands.pop(m.id, None)
            idx.meta.pop(m.id, None)
            return
        text = " ".join([m.title or "", *m.aliases, m.content])
        idx.bm25.add(m.id, text)
        idx.cands[m.id] = memory_candidate(m)
        idx.meta[m.id] = (m.namespace, m.expire_at.timestamp() if m.expire_at else 0.0)

    def note_memories(self, col: str, memories: Sequence[Memory], old_rev: int, new_rev: int) -> None:
        with self._lock:
            idx = self._mem.get(col)
            if idx is None:
                return
            if idx.rev != old_rev:
                self._mem.pop(col, None)
                return
            for m in memories:
                self._mem_add(idx, m)
            idx.rev = new_rev

    def forget_memories(self, col: str, ids: Sequence[str], old_rev: int, new_rev: int) -> None:
        with self._lock:
            idx = self._mem.get(col)
            if idx is None:
                return
            if idx.rev != old_rev:
                self._mem.pop(col, None)
                return
            for i in ids:
                idx.bm25.remove(i)
                idx.cands.pop(i, None)
                idx.meta.pop(i, None)
            idx.rev = new_rev

    def _msg_index(self, col: str) -> _MsgIndex:
        rev = self.revision(col)
        idx = self._msg.get(col)
        if idx is not None and idx.rev == rev:
            return idx
        with self._lock:
            idx = _MsgIndex(rev=rev)
            self._msg_add(idx, [m for m, _ in self.store.find_messages(col, None)])
            self._msg[col] = idx
            return idx

    @staticmethod
    def _msg_add(idx: _MsgIndex, messages: Sequence[Message]) -> None:
        for m in sorted(messages, key=lambda x: (x.created_at, x.id)):
            if m.id in idx.msgs:
                continue
            key = m.session or ""
            prev = idx.tails.get(key)
            idx.msgs[m.id] = m
            idx.cands[m.id] = message_candidate(m)
            if prev is not None:
                idx.prev_of[m.id] = prev
                # the previous turn now has a known successor: re-index it with both neighbours
                idx.bm25.add(prev.id, message_index_text(prev, idx.prev_of.get(prev.id), m))
            idx.bm25.add(m.id, message_index_text(m, prev, None))
            idx.tails[key] = m

    def note_messages(self, col: str, messages: Sequence[Message], old_rev: int, new_rev: int) -> None:
        with self._lock:
            idx = self._msg.get(col)
            if idx is None:
                return
            if idx.rev != old_rev:
                self._msg.pop(col, None)
                return
            self._msg_add(idx, messages)
            idx.rev = new_rev

    def drop_indexes(self, *cols: str) -> None:
        with self._lock:
            for c in cols:
                self._mem.pop(c, None)
                self._msg.pop(c, None)

    # ---- query -------------------------------------------------------------------------------

    def search(self, scope: Scope, query: str, cfg: RecallConfig, now: datetime) -> list[Candidate]:
        """Ranked candidates for a query, best first, at most `cfg.top_k`."""
        if not query.strip():
            return []
        mcol = memory_collection(scope)
        now_ts = now.timestamp()
        qvec = self.embedder.embed_query(query)
        rankings: dict[str, list[str]] = {}
        cands: dict[str, Candidate] = {}

        midx = self._mem_index(mcol)
        allowed = {
            i for i, (ns, exp) in midx.meta.items() if ns in scope.read_namespaces and (not exp or exp > now_ts)
        }
        if allowed:
            where = memory_where(scope)
            dense = self.store.query_memories(mcol, qvec, min(cfg.k_dense, len(allowed)), where)
            rankings["mem_dense"] = [m.id for m, _ in dense if m.id in allowed]
            rankings["mem_lexical"] = [i for i, _ in midx.bm25.search(query, cfg.k_lexical, allowed)]
            cands.update({i: midx.cands[i] for i in allowed})

        if cfg.include_messages:
            gcol = message_collection(scope)
            gidx = self._msg_index(gcol)
            if gidx.msgs:
                since = None
                if cfg.message_window_days is not None:
                    since = (now - timedelta(days=cfg.message_window_days)).timestamp()
                dense_m = self.store.query_messages(gcol, qvec, min(cfg.k_dense, len(gidx.msgs)), message_where(since=since))
                rankings["msg_dense"] = [m.id for m, _ in dense_m]
                allowed_m = None if since is None else {i for i, m in gidx.msgs.items() if m.created_at.timestamp() >= since}
                rankings["msg_lexical"] = [i for i, _ in gidx.bm25.search(query, cfg.k_lexical, allowed_m)]
                for i in rankings["msg_dense"] + rankings["msg_lexical"]:
                    if i in gidx.cands:
                        cands[i] = gidx.cands[i]

        ranked = fuse(cands, rankings, cfg.weights, now, cfg.boosts, cfg.rrf_k)
        ranked = [c for c in ranked if c.score >= cfg.min_score]
        return dedup(ranked, cfg.dedup_threshold)[: cfg.top_k]

    async def rerank(self, query: str, items: list[Candidate], cfg: RecallConfig) -> list[Candidate]:
        """Optional stage: reorder by a reranker; on timeout or error keep the fused order."""
        if not (cfg.rerank and self.reranker and items):
            return items
        try:
            scores = await asyncio.wait_for(self.reranker.rerank(query, [c.text for c in items]), cfg.rerank_timeout_s)
        except Exception as e:
            log.info("rerank skipped, keeping fused order: %s", type(e).__name__)
            return items
        order = sorted(range(len(items)), key=lambda i: -scores[i])
        return [items[i] for i in order]


def build_result(items: Sequence[Candidate], budget_tokens: int, count: Callable[[str], int] = estimate_tokens) -> RecallResult:
    kept = fit_budget(items, budget_tokens, count)
    text = render(kept)
    return RecallResult(items=kept, text=text, tokens=count(text) if text else 0)
