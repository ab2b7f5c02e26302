"""What is worth injecting: relevance floor, echoes, filler and turns a fact already covers. Pure.

Ranking (fusion.py) orders candidates but cannot say whether the best of them is any good: reciprocal
rank fusion gives the top hit of an unrelated prompt the same score as the top hit of a perfect
one. So injection looks at evidence measured on an absolute scale for each candidate (the query's
cosine similarity to it, and the share of the query's IDF weight its words cover) and keeps an
item only when one of them clears a floor. Below both floors an item is noise to the model, and a
prompt whose candidates all fall below gets no block at all. How the floors were chosen is in
bench/README.md ("Abstention").
"""

from __future__ import annotations

import hashlib
import unicodedata
from dataclasses import dataclass
from typing import Iterable, Sequence

from .fusion import Candidate
from .lexical import tokenize

# Whole turns that carry no fact of their own: acknowledgements, thanks, laughter.
FILLER = frozenset(
    """ok okay k yes yeah yep yup no nope sure thank thanks thx ty cool great nice good fine alright
    right noted not got it hmm hm mm lol haha hah wow oh ah awesome perfect agreed understood
    sound cheer bye hi hello hey welcome 好 好的 的好 嗯 嗯嗯 谢谢 谢谢你 多谢 收到 明白 知道 了 哈哈 好吧 吧 对 是的 行""".split()
)
FINGERPRINT_CHARS = 1000


def fingerprint(text: str) -> str:
    """A short digest of a turn's words, blind to case, width and spacing: the request's turns and
    the stored ones are compared by it (a clipped long paste keeps its head, so it still matches)."""
    norm = " ".join(unicodedata.normalize("NFKC", text).casefold().split())[:FINGERPRINT_CHARS]
    return hashlib.sha256(norm.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def fingerprints(texts: Iterable[str]) -> set[str]:
    return {fingerprint(t) for t in texts if t and t.strip()}


def is_filler(text: str) -> bool:
    """"ok", "Noted.", "thanks!", "好的": a turn made only of acknowledgement words."""
    toks = tokenize(text)
    return all(t in FILLER for t in toks)


@dataclass(frozen=True)
class Floor:
    """Evidence an item needs to be injected: either arm clearing its floor is enough. 0 turns an
    arm's floor off; both 0 turns abstention off."""

    dense: float = 0.0
    lexical: float = 0.0

    def passes(self, c: Candidate) -> bool:
        if self.dense <= 0 and self.lexical <= 0:
            return True
        return (self.dense > 0 and c.dense >= self.dense) or (self.lexical > 0 and c.lexical >= self.lexical)


def covered_by(message: Candidate, fact: Candidate, share: float = 0.8) -> bool:
    """A raw turn yields to a fact made from it: the fact names the turn as its source, or the turn
    holds (nearly) all the fact's words ("Remember that I work at Acme" next to "I work at Acme")."""
    if message.id in fact.sources:
        return True
    want = set(tokenize(fact.text))
    return bool(want) and len(want & set(tokenize(message.text))) >= share * len(want)


def select(items: Sequence[Candidate], *, floor: Floor = Floor(), echo: set[str] | frozenset[str] = frozenset()) -> list[Candidate]:
    """The items worth injecting, in the order given. Pinned memories always pass the floor (the
    user asked for them everywhere); an echo of the request, a filler turn, or a turn a kept fact
    covers never does."""
    facts = [c for c in items if c.source == "memory" and (c.pinned or floor.passes(c))]
    kept = {c.id for c in facts}
    out: list[Candidate] = []
    for c in items:
        if c.source == "memory":
            if c.id in kept:
                out.append(c)
            continue
        if not floor.passes(c) or is_filler(c.text) or (echo and fingerprint(c.text) in echo):
            continue
        if any(covered_by(c, f) for f in facts):
            continue
        out.append(c)
    return out
