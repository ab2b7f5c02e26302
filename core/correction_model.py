"""A second opinion on a correction in the conversation: a logistic regression over the query vector
of the person's turn, the vector recall embeds for that turn anyway (multilingual-e5-small, 384
dimensions; the local embedder keeps it in its per-text cache, so recall does not embed it again).

It answers one question, "does this turn correct something Amber holds about the person?", and
nothing else: the grammar (core/correction.py) still decides which item is meant and what replaces
it. The two combine (`combine`):

- a grammar hit the classifier scores below `veto` is dropped (a look-alike sharing a word with
  what was shown: a correction of the answer, a remark about the topic);
- a near miss (`near_correction`: the grammar's candidate with its doubts lifted) that the
  classifier scores at or above `rescue` is acted on;
- a handle named ("forget #48213") is the grammar's alone, whatever the score.

The weights (`correction_model.json`, beside this file) are made by `bench/corrections.py --train`
from the tune split of tests/core/correction_phrasings.py only; the thresholds come from that
split's cross-validated scores. They hold for the vectors of one embedder: with any other (the
`hash` test embedder, a LiteLLM model) there is no classifier and the grammar decides alone, as it
did before. Scoring is one dot product of 384 numbers.
"""

from __future__ import annotations

import functools
import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

from .correction import Correction, Shown, find_correction, near_correction, pointed_handles

WEIGHTS = Path(__file__).with_name("correction_model.json")


@dataclass(frozen=True)
class CorrectionClassifier:
    embedder: str  # the id of the embedder whose query vectors the weights were fitted on
    weights: tuple[float, ...]
    bias: float
    veto: float  # a grammar hit scored below this is dropped
    rescue: float  # a near miss scored at or above this is acted on

    def score(self, vector: Sequence[float]) -> float:
        """The probability that the turn whose query vector this is corrects a memory."""
        if len(vector) != len(self.weights):
            raise ValueError(f"vector of {len(vector)} dimensions, weights of {len(self.weights)}")
        z = self.bias + math.fsum(w * x for w, x in zip(self.weights, vector))
        return 1.0 / (1.0 + math.exp(-max(-60.0, min(60.0, z))))

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "CorrectionClassifier":
        return cls(embedder=str(d["embedder"]), weights=tuple(float(x) for x in d["weights"]), bias=float(d["bias"]),
                   veto=float(d["veto"]), rescue=float(d["rescue"]))


@functools.lru_cache(maxsize=4)
def load_fitted(path: str, make: Callable[[dict[str, Any]], Any]) -> Any:
    """Weights a bench fitted (this classifier's, the pair model's), read once; None where none are
    shipped or the file does not read: the rules decide alone."""
    try:
        return make(json.loads(Path(path).read_text(encoding="utf-8")))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _load(path: str) -> CorrectionClassifier | None:
    return load_fitted(path, CorrectionClassifier.from_dict)


def classifier_for(embedder: Any) -> CorrectionClassifier | None:
    """The classifier for this embedder's query vectors, or None: the weights fit one embedder's
    vectors only, so with the `hash` test embedder (what tests run) or a LiteLLM model the grammar
    decides alone."""
    model = _load(str(WEIGHTS))
    if model is None or embedder is None or getattr(embedder, "id", None) != model.embedder:
        return None
    return model if getattr(embedder, "dim", len(model.weights)) == len(model.weights) else None


def combine(text: str, shown: Sequence[Shown], score: float | None, model: CorrectionClassifier | None) -> Correction | None:
    """The grammar's verdict, overruled by the classifier's `score` of this turn where it is sure:
    with no score (no classifier for this embedder, or the turn not embedded) the grammar's alone."""
    return judge(text, shown, score, model)[0]


def judge(text: str, shown: Sequence[Shown], score: float | None, model: CorrectionClassifier | None) -> tuple[Correction | None, bool]:
    """`combine`'s verdict, and whether it is the classifier turning down what the grammar read (a
    veto: nothing read later in the turn overrules it)."""
    found = find_correction(text, shown)
    if score is None or model is None:
        return found, False
    if found is not None:
        if pointed_handles(text) & {x.handle for x in shown}:
            return found, False  # the person named the item: no doubt about what they mean
        return (found, False) if score >= model.veto else (None, True)
    near = near_correction(text, shown)
    return (near if near is not None and score >= model.rescue else None), False
