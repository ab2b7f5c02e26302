"""Reciprocal-rank fusion and score boosts. Pure: values in, values out; time is an argument."""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Mapping, Sequence


@dataclass(frozen=True)
class Candidate:
    """One retrievable record as recall sees it (a memory or a raw message)."""

    id: str
    text: str
    source: str  # "memory" | "message"
    created_at: datetime
    kind: str = "message"
    importance: float = 0.5
    pinned: bool = False
    keyed: bool = False
    client: str | None = None
    author: str | None = None
    sources: tuple[str, ...] = ()  # a memory's source turns
    tags: tuple[str, ...] = ()  # a memory's tags (the destination policy keeps "private" ones on the host)
    score: float = 0.0
    arms: tuple[str, ...] = field(default=())
    # Evidence of relevance, measured (not ranked): the query's cosine similarity to this record,
    # and the share of the query's IDF weight its indexed words cover. 0 where an arm missed it.
    dense: float = 0.0
    lexical: float = 0.0
    excerpt: bool = False  # the block holds only the sentences nearest the query (render.excerpt)


def rrf(rankings: Mapping[str, Sequence[str]], weights: Mapping[str, float], k: int = 60) -> dict[str, float]:
    """Weighted reciprocal-rank fusion: score(d) = sum over arms of w_arm / (k + rank_arm(d))."""
    scores: dict[str, float] = {}
    for arm, ids in rankings.items():
        w = weights.get(arm, 1.0)
        for rank, doc_id in enumerate(ids, start=1):
            scores[doc_id] = scores.get(doc_id, 0.0) + w / (k + rank)
    return scores


def spread(scores: Mapping[str, float], neighbours: Mapping[str, Sequence[str]], factor: float) -> dict[str, float]:
    """Credit each scored turn's neighbours in its session with `factor` times its score.

    An answer is often split over adjacent turns ("where did you go?" / "to the lake"): a hit on
    one is evidence for the other. Computed from the original scores only (one hop, no cascade).
    """
    if factor <= 0:
        return dict(scores)
    out = dict(scores)
    for doc_id, s in scores.items():
        for nb in neighbours.get(doc_id, ()):
            out[nb] = out.get(nb, 0.0) + factor * s
    return out


@dataclass(frozen=True)
class BoostConfig:
    """Bounded nudges on the fused score, set by hand and not fitted by any fold procedure: they
    order what a person marked (pinned, important, keyed) and what is recent, which the benches'
    data (no importance, no pins) cannot measure."""

    importance: float = 0.15  # multiplier at importance 1.0 vs 0.5
    pinned: float = 0.25
    keyed_fact: float = 0.10  # active keyed facts over raw turns
    memory_over_message: float = 0.05
    recency_half_life_days: float = 90.0
    recency_weight: float = 0.10


def boost(c: Candidate, base: float, now: datetime, cfg: BoostConfig) -> float:
    """Multiplicative boosts on a fused score; a bounded nudge, never a reordering by itself."""
    factor = 1.0 + cfg.importance * (c.importance - 0.5) * 2
    if c.pinned:
        factor += cfg.pinned
    if c.keyed:
        factor += cfg.keyed_fact
    if c.source == "memory":
        factor += cfg.memory_over_message
    age_days = max(0.0, (now - c.created_at).total_seconds() / 86400)
    factor += cfg.recency_weight * math.exp(-math.log(2) * age_days / cfg.recency_half_life_days)
    return base * factor


def fuse(
    candidates: Mapping[str, Candidate],
    rankings: Mapping[str, Sequence[str]],
    weights: Mapping[str, float],
    now: datetime,
    cfg: BoostConfig,
    rrf_k: int = 60,
    neighbours: Mapping[str, Sequence[str]] | None = None,
    neighbour_factor: float = 0.0,
    evidence: Mapping[str, tuple[float, float]] | None = None,
) -> list[Candidate]:
    """Fuse the arms, credit neighbours, apply boosts; candidates best first, each with its score,
    arms and evidence (`evidence`: id -> (dense similarity, lexical coverage))."""
    fused = rrf(rankings, weights, rrf_k)
    if neighbours and neighbour_factor > 0:
        fused = spread(fused, neighbours, neighbour_factor)
    arms_of: dict[str, list[str]] = {}
    for arm, ids in rankings.items():
        for doc_id in ids:
            arms_of.setdefault(doc_id, []).append(arm)
    ev = evidence or {}
    out = [
        replace(
            candidates[d],
            score=boost(candidates[d], s, now, cfg),
            arms=tuple(arms_of.get(d, ("neighbour",))),
            dense=ev.get(d, (0.0, 0.0))[0],
            lexical=ev.get(d, (0.0, 0.0))[1],
        )
        for d, s in fused.items()
        if d in candidates
    ]
    out.sort(key=lambda c: (-c.score, c.id))
    return out


def dedup(items: Sequence[Candidate], threshold: float = 0.85, limit: int | None = None) -> list[Candidate]:
    """Drop items whose word set is near-identical (Jaccard >= threshold) to a better-ranked one;
    stop once `limit` items are kept (the rest would be cut anyway: no need to tokenize them)."""
    from .lexical import tokenize

    kept: list[Candidate] = []
    seen: list[set[str]] = []
    for c in items:
        if limit is not None and len(kept) >= limit:
            break
        toks = set(tokenize(c.text))
        if toks and any(len(toks & s) / len(toks | s) >= threshold for s in seen):
            continue
        kept.append(c)
        seen.append(toks)
    return kept


def lexical_trust(weights: dict[str, float], rankings: dict[str, list[str]], cover: dict[str, float], full: float) -> dict[str, float]:
    """Arm weights for a CJK query. Chinese is indexed as character pairs, and a long message
    shares common pairs (我们, 什么, 时候) with almost any record: a lexical arm whose best hit covers
    little of the query is ranking by chance overlap, so it speaks with weight in proportion to that
    coverage, in full from `full` up. (Spaced scripts need no such care: after stop words, an
    English word shared by chance is rare, and the lexical arm helps even at low coverage.) Pure."""
    if full <= 0:
        return weights
    out = dict(weights)
    for arm in ("mem_lexical", "msg_lexical"):
        ids = rankings.get(arm)
        if ids:
            out[arm] = weights.get(arm, 1.0) * min(1.0, max(cover.get(i, 0.0) for i in ids) / full)
    return out
