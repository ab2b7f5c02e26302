"""What a recall gives back: the items packed into the budget, their rendered block and its size,
and why (what was weighed, what the floor said of each)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Sequence

from .fusion import Candidate
from .render import estimate_tokens, fit_budget, render


@dataclass
class RecallResult:
    items: list[Candidate]
    text: str
    tokens: int
    # why these items (core/why.py): how many candidates were weighed, and whether recall held back
    # because nothing cleared the relevance floor (only pinned facts then)
    considered: int = 0
    abstained: bool = False
    # per weighed item id: the floor's verdict (relevance.VERDICTS) and its background, where known;
    # and the weighed items the floor kept out, best first
    verdicts: dict[str, str] = field(default_factory=dict)
    backgrounds: dict[str, float] = field(default_factory=dict)
    left_out: list[Candidate] = field(default_factory=list)


def build_result(items: Sequence[Candidate], budget: int, count: Callable[[str], int] = estimate_tokens, query: str | None = None) -> RecallResult:
    kept = fit_budget(items, budget, count, query)
    text = render(kept)
    return RecallResult(items=kept, text=text, tokens=count(text) if text else 0)
