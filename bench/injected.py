"""What reaches the model: evidence recall of the injected block, tokens injected, abstention.

Ranked R@k says whether search found the evidence; what the model receives is `MemoryService.recall`
at the default preset and budget: only items that cleared the relevance floor, fitted to the token
budget. Every recall bench reports both (issue 32). Evidence counts as injected when the evidence
record itself is in the block, or a memory made from it (its source ids name the evidence).
"""

from __future__ import annotations

import statistics
from typing import Callable, Iterable

from core import fingerprints


class Injected:
    """Per question: the share of its evidence in the injected block, the block's tokens, and
    whether recall abstained (nothing injected)."""

    def __init__(self) -> None:
        self.recall: list[float] = []
        self.tokens: list[int] = []
        self.abstained: list[bool] = []

    def ask(self, svc, scope, query: str, evidence: Iterable[str], to_bench: Callable[[str], str | None] = lambda i: i) -> None:
        ev = set(evidence)
        r = svc.recall(scope, query, echo=fingerprints([query]))
        got = set()
        for c in r.items:
            got |= {to_bench(c.id), *(to_bench(s) for s in c.sources)}
        self.recall.append(len(ev & got) / len(ev) if ev else 0.0)
        self.tokens.append(r.tokens)
        self.abstained.append(not r.items)

    def summary(self) -> dict:
        n = max(1, len(self.recall))
        return {
            "injected_R": round(sum(self.recall) / n, 4),
            "tokens_median": statistics.median(self.tokens) if self.tokens else 0,
            "tokens_mean": round(sum(self.tokens) / n, 1),
            "abstained": round(sum(self.abstained) / n, 4),
        }
