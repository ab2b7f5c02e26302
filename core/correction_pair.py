"""The turn read against each item it could correct: a logistic regression over the pair (the
person's turn, one shown item), beside the correction grammar, the update frames and the change
words, which it reads as features.

The grammar and the change words read a turn alone and know only the words they were written for:
on sets nobody here had read they found about half the corrections, and on real chats (LoCoMo's and
MADial's turns, with the person's own nearest memories shown) they replaced a true memory on about
one turn in a hundred. This model reads the pair: the turn's query vector, the memory's (its stored vector taken to the
query side by a linear map fitted beside the weights: cosine 0.99 to its own query vector), their
product, how close the two are against the other memories shown (by e5 and again by the sentence
arm's model, which errs elsewhere), the words they share, and what each rule said of the pair. It decides twice, after the rules:

- a rule's verdict it scores below `veto` is dropped (mostly ordinary chat a change word misread);
- where no rule acted, the item it scores highest is superseded if that score is at or above
  `rescue` (a memory, never a captured turn) with the turn's sentences about it.

The weights (`correction_pair.json`, beside this file) are fitted by `bench/correction_pair_fit.py`
on the correction corpora already read while the rules were written, a training corpus written for
it (bench/corrections_train), and real chat turns as negatives; the thresholds come from the fit's
cross-validated scores. They hold for one embedder's vectors: with any other there is no pair model
and the rules decide alone.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from .changed import Told
from .correction import Correction, Shown, _topics, _words
from .correction_model import load_fitted
from .recall.render import HANDLE_RE
from .update import _SENTENCE, Claim

WEIGHTS = Path(__file__).with_name("correction_pair.json")
_QUESTION = re.compile(r"[?？]|吗|呢\s*$")
_FIRST = re.compile(r"\b(?:i|i'm|im|my|me|mine|we|our|i've|i'd)\b|我", re.IGNORECASE)


@dataclass(frozen=True)
class Reading:
    """What the rules made of the turn (core/correcting.py), the pair model's scalar features."""

    marked: bool  # a correction marker or handle (`might_correct`)
    claims: Sequence[Claim]
    tolds: Sequence[Told]
    found: Correction | None  # the grammar with the classifier
    near: Correction | None  # the grammar with its doubts lifted
    update: Correction | None
    change: Correction | None
    settled: Correction | None  # what the rules would carry out
    vetoed: bool  # the classifier turned down the grammar's reading
    turn_score: float  # the turn classifier's score (core/correction_model.py)


def features(text: str, shown: Sequence[Shown], turn: np.ndarray, items: np.ndarray, r: Reading,
             second: np.ndarray) -> np.ndarray:
    """One row per shown item: the scalars, the turn's vector and its product with the item's.
    `second`: the turn and then each item read by the sentence arm's model (core/embed/sentence.py),
    whose similarity is three scalars more: a second opinion on how close the pair is."""
    sims = items @ turn
    usims = second[1:] @ second[0]
    words = _words(text)
    head = [float(r.marked), float(bool(r.claims)), float(bool(r.tolds)), float(r.vetoed), r.turn_score,
            float(bool(_QUESTION.search(text))), math.log1p(len(text)), float(bool(_FIRST.search(text)))]
    # not the number of items shown: a block holds more than the corpora's cases did
    rows = []
    for i, item in enumerate(shown):
        own = _words(item.text)
        best_other = max((float(s) for j, s in enumerate(sims) if j != i), default=0.5)
        said = [float(c is not None and c.target.id == item.id) for c in (r.found, r.near, r.update, r.change, r.settled)]
        u_other = max((float(x) for j, x in enumerate(usims) if j != i), default=0.5)
        pair = [float(sims[i]), float(sims[i]) - best_other, float(sims[i] >= sims.max()),
                len(words & own) / max(1, len(own)), len(words - own) / max(1, len(words)),
                float(usims[i]), float(usims[i]) - u_other, float(usims[i] >= usims.max())]
        rows.append(np.concatenate([np.asarray(head + said + pair, dtype=np.float64), turn, turn * items[i]]))
    return np.asarray(rows)


_SCALARS = 8 + 5 + 8  # features(): the turn's, what each rule said of the pair, the pair's own


@dataclass(frozen=True)
class PairModel:
    embedder: str  # the id of the embedder whose query vectors the weights were fitted on
    weights: np.ndarray
    bias: float
    veto: float  # a rule's verdict scored below this is dropped
    rescue: float  # with no rule's verdict, the best item scored at or above this is superseded
    to_query: np.ndarray | None = None  # a memory's stored (passage) vector to its query vector, linear

    def scores(self, rows: np.ndarray) -> np.ndarray:
        return 1.0 / (1.0 + np.exp(-np.clip(rows @ self.weights + self.bias, -60.0, 60.0)))

    def decide(self, text: str, shown: Sequence[Shown], turn: Sequence[float], stored: Mapping[str, Sequence[float]],
               r: Reading, second: Callable[[list[str]], np.ndarray]) -> Correction | None:
        """The rules' verdict kept, dropped or supplied, as the scores of the pairs say. `turn` is the
        turn's query vector; `stored`, the shown memories' vectors as the store holds them; `second`
        reads texts with the sentence arm's model (the turn and each memory shown). Only
        memories are read: a captured turn is never superseded by the model, and a rule's verdict on
        one, or on a turn that names a handle, stands."""
        mems = [s for s in shown if s.source == "memory" and s.id in stored]
        if not mems or HANDLE_RE.search(text) or r.settled is not None and r.settled.target not in mems:
            return r.settled  # a handle names the item: the rules' alone
        try:
            t = np.asarray(turn, dtype=np.float64)
            vs = np.asarray([stored[s.id] for s in mems], dtype=np.float64).reshape(len(mems), -1)
        except (TypeError, ValueError):  # a missing or ragged vector
            return r.settled
        square = (len(t), len(t))
        if vs.shape[1] != len(t) or 2 * len(t) + _SCALARS != len(self.weights) or self.to_query is not None and self.to_query.shape != square:
            return r.settled  # vectors of another size: the rules alone
        if self.to_query is not None:
            vs = vs @ self.to_query
            vs /= np.maximum(np.linalg.norm(vs, axis=1, keepdims=True), 1e-12)
        p = None
        if np.isfinite(t).all() and np.isfinite(vs).all():
            p = self.scores(features(text, mems, t, vs, r, second([text, *(s.text for s in mems)])))
        if p is None or not np.isfinite(p).all():
            return r.settled  # a vector Chroma mended with a placeholder, or worse: the rules alone
        if r.settled is not None:
            return r.settled if p[mems.index(r.settled.target)] >= self.veto else None
        best = int(np.argmax(p))
        if p[best] < self.rescue:
            return None
        return Correction(mems[best], "supersede", statement(text, mems[best].text))

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "PairModel":
        to_query = np.load(WEIGHTS.with_name(str(d["to_query"]))).astype(np.float64) if d.get("to_query") else None
        return cls(embedder=str(d["embedder"]), weights=np.asarray(d["weights"], dtype=np.float64), bias=float(d["bias"]),
                   veto=float(d["veto"]), rescue=float(d["rescue"]), to_query=to_query)


def statement(text: str, item: str) -> str:
    """What replaces the item: the turn's sentences on its topic or sharing its words, else the turn."""
    parts = [" ".join(p.split()) for p in _SENTENCE.findall(text) if p.strip(" .,!?;，。！？；")]
    on, own = _topics(item), _words(item)
    keep = [p for p in parts if _topics(p) & on or _words(p) & own]
    return " ".join(keep or parts or [text.strip()])[:600]


def _load(path: str) -> PairModel | None:
    return load_fitted(path, PairModel.from_dict)


def pair_model_for(embedder: Any) -> PairModel | None:
    """The pair model for this embedder's query vectors, or None (the `hash` test embedder, a LiteLLM
    model, a remote host: the rules decide alone)."""
    model = _load(str(WEIGHTS))
    if model is None or embedder is None or getattr(embedder, "id", None) != model.embedder:
        return None
    return model
