"""The turn ranker: after fusion, captured turns are put in order by a linear score over what
fusion reads (the arms' ranks) and what it leaves out: who said the turn, whether its own words
(not only its window's) hold the query's, how its session and its neighbours fared. Memories keep
the places fusion gave them; the turns are reordered among the turns' places (rerank.in_slots).

Only features that mean the same in a chat between two people and in a chat with an assistant:
the form of a turn (its length, whether it asks or answers a question) helped on LoCoMo's
human-to-human chats and cost a third of the MRR on a person's chats with an assistant, where the
person asks and the assistant answers at length (bench/README.md, "The turn ranker").

The weights (turn_ranker.json) are fitted by bench/turn_ranker_fit.py: logistic regression on
LoCoMo dev turns, its L2 strength chosen leaving one conversation out within the training
conversations; the held-out figures (each conversation scored by weights fitted on the other four)
are in bench/README.md. Pure: no I/O beyond reading the weights once.
"""

from __future__ import annotations

import json
import logging
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Mapping, Sequence

import numpy as np

from .fusion import Candidate
from .lexical import tokenize
from .relevance import is_cjk
from .rerank import in_slots
from .turns import TurnIndex

FEATURES = (
    "fused",  # fusion's score, x10
    "lexical_rank",  # 1 / (rrf_k + rank in the turns' lexical arm), x10; not found: rank 100
    "dense_gap",  # similarity minus the best turn's, x10 (not found by the dense arm: under the worst found)
    "cover_share",  # the lexical coverage of the query over the best turn's
    "author_named",  # the turn's author is named in the query ("What did Hannah say about Rome?")
    "own_words",  # share of the query's IDF weight held by the turn's own words, not its window's
    "neighbour",  # the best fused score among its adjacent turns in the session, x10
    "session",  # the best fused score of another turn of its session among the candidates, x10
    # the sentence model's similarity minus the best turn's, x10 (sentence_arm.turn_similarities):
    # a second reading of meaning, trained on other data than the dense arm's, so wrong elsewhere.
    # Missing (the model loading, a cold index being read, another embedder): its mean, so it weighs nothing
    "sentence_gap",
)
_WORD = re.compile(r"\w+")
WEIGHTS = Path(__file__).with_name("turn_ranker.json")
log = logging.getLogger("amber.recall.ranker")


@lru_cache(maxsize=8192)
def turn_words(text: str) -> frozenset[str]:
    return frozenset(tokenize(text))


def _named(author: str | None, words: set[str], query: str) -> bool:
    """The author's name is a word of the query (a CJK name: anywhere in it, having no spaces)."""
    if not author:
        return False
    name = author.lower()
    return name in words or (is_cjk(name) and name in query)


def features(query: str, turns: Sequence[Candidate], idx: TurnIndex, rank_of: Mapping[str, int], rrf_k: int,
             sentence: Mapping[str, float] | None = None) -> np.ndarray:
    """One row per turn (FEATURES, in order). `rank_of`: each turn's rank in the lexical arm;
    `sentence`: each turn's similarity by the sentence model, if read (else NaN: `TurnRanker.score`)."""
    if not turns:
        return np.zeros((0, len(FEATURES)))
    fused = {c.id: c.score for c in turns}
    found = [c.dense for c in turns if c.dense > 0]
    best, worst = (max(found), min(found)) if found else (0.0, 0.0)
    top_cover = max(c.lexical for c in turns) or 1.0
    q_words = {w.lower() for w in _WORD.findall(query)}
    idf = idx.bm25.idf_weights(query)
    total = sum(idf.values()) or 1.0
    by_session: dict[str, list[tuple[float, str]]] = {}  # session -> its candidates' (score, id)
    for c in turns:
        t = idx.msgs.get(c.id)
        by_session.setdefault((t.session if t else "") or "", []).append((c.score, c.id))
    # each session's two best candidates: a turn's best mate is the first of them that is not itself
    # (a recall's candidates are mostly one session's: comparing every pair cost a millisecond)
    best_two = {s: sorted(v, reverse=True)[:2] for s, v in by_session.items()}
    said = [sentence[c.id] for c in turns if c.id in sentence] if sentence else []
    top_said = max(said) if len(said) == len(turns) else None
    rows = []
    for c in turns:
        t = idx.msgs.get(c.id)
        session = (t.session if t else "") or ""
        prev, nxt = idx.prev_of.get(c.id), idx.next_of.get(c.id)
        own = turn_words(c.text)
        rows.append((
            10 * c.score,
            10 / (rrf_k + rank_of.get(c.id, 100)),
            10 * ((c.dense if c.dense > 0 else worst - 0.01) - best),
            c.lexical / top_cover,
            1.0 if _named(c.author, q_words, query) else 0.0,
            sum(w for term, w in idf.items() if term in own) / total,
            10 * max((fused.get(n.id, 0.0) for n in (prev, nxt) if n is not None), default=0.0),
            10 * next((s for s, i in best_two.get(session, ()) if i != c.id), 0.0),
            np.nan if top_said is None else 10 * (sentence[c.id] - top_said),  # type: ignore[index]
        ))
    return np.array(rows, dtype=np.float64)


@dataclass(frozen=True)
class TurnRanker:
    mean: np.ndarray
    scale: np.ndarray
    weights: np.ndarray

    @classmethod
    def load(cls, path: Path | None = None) -> TurnRanker:
        """The weights in `path` (default: `WEIGHTS`, read when called)."""
        path = path or WEIGHTS
        spec = json.loads(path.read_text())
        if tuple(spec["features"]) != FEATURES:
            raise ValueError(f"{path.name} was fitted on features {spec['features']}, recall computes {list(FEATURES)}")
        return cls(*(np.array(spec[k], dtype=np.float64) for k in ("mean", "scale", "weights")))

    def score(self, rows: np.ndarray) -> np.ndarray:
        """A feature not read (NaN) counts as its mean: it adds nothing either way. Fitted with the
        sentence model's feature and scored without it, LoCoMo and the assistant chats held out lose
        nothing against the ranker fitted without it (bench/README.md)."""
        if not len(rows):
            return np.zeros(0)
        return ((np.where(np.isnan(rows), self.mean, rows) - self.mean) / self.scale) @ self.weights


@lru_cache(maxsize=1)
def shipped() -> TurnRanker:
    return TurnRanker.load()


def turns_of(ranked: Sequence[Candidate], idx: TurnIndex) -> list[Candidate]:
    return [c for c in ranked if c.source == "message" and c.id in idx.msgs]


def weighed(query: str, ranked: Sequence[Candidate], idx: TurnIndex, lexical: Sequence[str], rrf_k: int,
            sentence: Mapping[str, float] | None = None) -> tuple[list[Candidate], np.ndarray]:
    """The turns among `ranked` (fusion's order) and their feature rows (`lexical`: the lexical
    arm's ranking; `sentence`: the turns' similarities by the sentence model, if read)."""
    turns = turns_of(ranked, idx)
    return turns, features(query, turns, idx, {d: r for r, d in enumerate(lexical, start=1)}, rrf_k, sentence)


def in_order(ranked: Sequence[Candidate], turns: Sequence[Candidate], scores: np.ndarray) -> list[Candidate]:
    """`ranked` with `turns` put in the order of their scores in the turns' places; ties keep fusion's order."""
    order = sorted(range(len(turns)), key=lambda i: (-scores[i], i))
    return in_slots(ranked, [turns[i] for i in order])


def reorder(query: str, ranked: Sequence[Candidate], idx: TurnIndex | None, lexical: Sequence[str], rrf_k: int,
            ranker: TurnRanker | None = None, sentence: Mapping[str, float] | None = None) -> list[Candidate]:
    """`ranked` (fusion's order) with its turns put in the ranker's order in the turns' places;
    ties keep fusion's order. Memories, and every item when there is no turn index, stay put."""
    if idx is None:
        return list(ranked)
    turns, rows = weighed(query, ranked, idx, lexical, rrf_k, sentence)
    if len(turns) < 2:
        return list(ranked)
    try:
        s = (ranker or shipped()).score(rows)
    except (OSError, ValueError, KeyError) as e:  # weights missing or not for these features: fusion's order, and say why
        log.warning("turns in fusion's order: the turn ranker cannot score them: %s", e)
        return list(ranked)
    return in_order(ranked, turns, s)
