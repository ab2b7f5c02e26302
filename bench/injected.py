"""What reaches the model: evidence recall of the injected block, tokens injected, abstention.

Ranked R@k says whether search found the evidence; what the model receives is `MemoryService.recall`
at the default preset and budget: only items that cleared the relevance floor, fitted to the token
budget. Every recall bench reports both (issue 32). Evidence counts as injected when the evidence
record itself is in the block, or a memory made from it (its source ids name the evidence).

Evidence that does not reach the block is counted by where it was lost, from the recall's own
verdicts (`RecallResult.verdicts`, core/recall/relevance.py): never weighed (ranking, or the echo,
filler and covered-turn rules, left it out of the items weighed), kept out by the relevance floor
(`below_floor`, `near_everything`), or admitted and then cut by the token budget (`budget`); as
shares averaged over questions like `injected_R`, so the four and `injected_R` add up to 1.

A long item the block holds only in part (core/recall/render.py `excerpt`) still counts as
injected, so `excerpted` checks that this does not flatter the figure: how many evidence items
reached the block as excerpts, and over those whose whole text holds some of the answer's words,
the mean share of those words the excerpt still holds (`answer_words_kept`).
"""

from __future__ import annotations

import statistics
from typing import Callable, Iterable

from core import fingerprints
from core.recall.lexical import tokenize


class Injected:
    """Per question: the share of its evidence in the injected block, the block's tokens, and
    whether recall abstained (nothing injected)."""

    def __init__(self) -> None:
        self.recall: list[float] = []
        self.tokens: list[int] = []
        self.abstained: list[bool] = []
        self.lost = {"not_weighed": 0.0, "below_floor": 0.0, "near_everything": 0.0, "budget": 0.0}  # summed per-question shares
        self.excerpted = {"evidence": 0, "with_answer": 0, "answer_words_kept": 0.0}

    def ask(self, svc, scope, query: str, evidence: Iterable[str], to_bench: Callable[[str], str | None] = lambda i: i,
            answer: str = "", whole: Callable[[str], str | None] = lambda i: None) -> None:
        """`answer` and `whole` (an evidence id's whole text): to check what excerpts keep."""
        ev = set(evidence)
        r = svc.recall(scope, query, echo=fingerprints([query]))
        got = set()
        for c in r.items:
            got |= {to_bench(c.id), *(to_bench(s) for s in c.sources)}
            if c.excerpt and to_bench(c.id) in ev:
                self._excerpt_kept(c.text, whole(to_bench(c.id)) or "", answer)
        self.recall.append(len(ev & got) / len(ev) if ev else 0.0)
        said = {to_bench(i): v for i, v in r.verdicts.items()}
        for e in ev - got:  # each question's lost shares add up to 1 - its injected share
            verdict = said.get(e)
            if verdict is None:
                where = "not_weighed"
            elif verdict in ("below_floor", "near_everything"):  # the floor kept it out
                where = verdict
            else:  # admitted, then cut by the budget
                where = "budget"
            self.lost[where] += 1 / len(ev)
        self.tokens.append(r.tokens)
        self.abstained.append(not r.items)

    def _excerpt_kept(self, shown: str, text: str, answer: str) -> None:
        self.excerpted["evidence"] += 1
        words = set(tokenize(answer)) & set(tokenize(text))
        if words:
            self.excerpted["with_answer"] += 1
            self.excerpted["answer_words_kept"] += len(words & set(tokenize(shown))) / len(words)

    def summary(self) -> dict:
        n = max(1, len(self.recall))
        return {
            "injected_R": round(sum(self.recall) / n, 4),
            "tokens_median": statistics.median(self.tokens) if self.tokens else 0,
            "tokens_mean": round(sum(self.tokens) / n, 1),
            "abstained": round(sum(self.abstained) / n, 4),
            "evidence_lost": {k: round(v / n, 4) for k, v in self.lost.items()},
            "excerpted": {**self.excerpted, "answer_words_kept": round(self.excerpted["answer_words_kept"] / max(1, self.excerpted["with_answer"]), 3)},
        }
