"""What is worth injecting: relevance floor, echoes, filler and turns a fact already covers. Pure.

Ranking (fusion.py) orders candidates but cannot say whether any of them is any good: reciprocal
rank fusion gives the top hit of an unrelated prompt the same score as the top hit of a perfect
one. So injection looks at evidence measured on an absolute scale for each candidate (the query's
cosine similarity to it, and the share of the query's IDF weight its words cover). The decision is
per item: an item is injected only when its own evidence clears the floor, so one record that
clears it never carries weaker ones in with it, and a prompt none of whose items clears it gets no
block at all. The similarity floor rises with how many records of that kind the person holds (the
best of many unrelated records sits closer to any prompt than the best of few), so a person with
one memory gets it for a direct question about it. How the floors were chosen (leave one prompt
family out, real questions in halves) is in bench/README.md ("Abstention").
"""

from __future__ import annotations

import dataclasses
import hashlib
import math
import re
import unicodedata
from dataclasses import dataclass
from typing import Iterable, Mapping, Sequence

from .fusion import Candidate
from .lexical import CJK_RANGES, tokenize
from .small_talk import about_me, small_talk

# Whole turns that carry no fact of their own: acknowledgements, thanks, laughter.
FILLER = frozenset(
    """ok okay k yes yeah yep yup no nope sure thank thanks thx ty cool great nice good fine alright
    right noted not got it hmm hm mm lol haha hah wow oh ah awesome perfect agreed understood
    sound cheer bye hi hello hey welcome 好 好的 的好 嗯 嗯嗯 谢谢 谢谢你 多谢 收到 明白 知道 了 哈哈 好吧 吧 对 是的 行""".split()
)
FINGERPRINT_CHARS = 1000


def fingerprint(text: str) -> str:
    """A short digest of a turn's words, blind to case, width and spacing: the request's turns and
    the stored ones are compared by it (a clipped long paste keeps its head, so it still matches).
    Only the head is normalised: NFKC can make one character eighteen, and a 3 MB paste normalised
    whole held the proxy's event loop for seconds. Its spaces are collapsed first, so a head of blank
    lines still holds the words the digest reads."""
    head = " ".join(text[: 64 * FINGERPRINT_CHARS].split())[: 4 * FINGERPRINT_CHARS]  # NFKC on a bounded head only
    norm = " ".join(unicodedata.normalize("NFKC", head).casefold().split())[:FINGERPRINT_CHARS]
    return hashlib.sha256(norm.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def fingerprints(texts: Iterable[str]) -> set[str]:
    return {fingerprint(t) for t in texts if t and t.strip()}


def is_filler(text: str) -> bool:
    """"ok", "Noted.", "thanks!", "好的": a turn made only of acknowledgement words."""
    toks = tokenize(text)
    return all(t in FILLER for t in toks)


_CJK = re.compile(f"[{CJK_RANGES}]")
_WORD = re.compile(r"[^\W\d_]+")


@dataclass(frozen=True)
class Floor:
    """The evidence that makes an item worth injecting: it is close in meaning (cosine similarity at
    or over the floor for its kind: a short memory, or a raw turn indexed with its neighbours, whose
    embedding sits closer to everything), or it shares the query's rare words (IDF coverage).

    The similarity floors are for a person holding one record of that kind and rise by `per_decade`
    for every tenfold more: the most similar of 3 000 unrelated records is closer to a prompt than
    the one record of someone who told Amber a single thing. The embedder scores CJK text higher
    across the board, so a CJK query's similarity floors are raised by `cjk_offset`. All zero:
    never abstain.

    `margin`: a memory close in meaning must also be at least this much closer to the prompt than
    to the prompt about nobody nearest it (its background, background.py), plus `per_decade` for
    every tenfold more memories; None, or a memory whose background is unknown: the floor alone.
    `distinct`: a memory or turn this much closer to the prompt than to its background is evidence
    on its own, however many records the person holds (None: no such route).
    `small_talk`: the prompt is small talk or speaks to the assistant about itself (small_talk.py,
    `for_query`): only the `distinct` route is open.
    `about_me`: for a question about the person's own things (small_talk.about_me, `for_query`) the
    similarity floors are this much lower and do not rise with how much the person holds: the rise
    guards prompts about nobody against a big store's chance neighbours, and this prompt is about
    them (None: no such route)."""

    memory: float = 0.0
    message: float = 0.0
    lexical: float = 0.0
    cjk_offset: float = 0.0
    per_decade: float = 0.0
    margin: float | None = None
    distinct: float | None = None
    small_talk: bool = False
    reads_talk: bool = True  # whether `for_query` reads small talk at all (RecallConfig.floor_small_talk)
    about_me: float | None = None

    def for_query(self, query: str) -> "Floor":
        """This floor as it applies to `query`: small talk and words to the assistant about itself
        keep only the distinct route (no constant: the rule is small_talk.py's); a question about the
        person's own things lowers the similarity floors by `about_me`, with no rise."""
        if self.off:
            return self
        if self.reads_talk and small_talk(query):
            return dataclasses.replace(self, small_talk=True)
        if self.about_me is not None and about_me(query):
            return self.for_me()
        return self

    def for_me(self) -> "Floor":
        """The floor for a question about the person's own things: the similarity floors `about_me`
        lower, with no rise for how much they hold."""
        return dataclasses.replace(self, memory=self.memory - self.about_me, message=self.message - self.about_me, per_decade=0.0,
                                   about_me=None)

    @property
    def weighs_background(self) -> bool:
        return not self.off and (self.margin is not None or self.distinct is not None)

    @property
    def off(self) -> bool:
        return self.memory <= 0 and self.message <= 0 and self.lexical <= 0

    def dense_floor(self, source: str, held: int, cjk: bool = False) -> float:
        """The similarity an item of this kind needs when the person holds `held` records of it."""
        base = self.memory if source == "memory" else self.message
        if base <= 0:
            return math.inf
        return base + self.per_decade * math.log10(max(1, held)) + (self.cjk_offset if cjk else 0.0)

    def passes(self, c: Candidate, cjk: bool = False, held: int = 1, background: float | None = None) -> bool:
        """Whether the item's own evidence clears the floor for a person holding `held` records of its
        kind (`background`: the record's, when known)."""
        return self.verdict(c, cjk, held, background) in PASSING

    def verdict(self, c: Candidate, cjk: bool = False, held: int = 1, background: float | None = None) -> str:
        """Which evidence clears the floor (`passes`), or why none does; one of VERDICTS."""
        if self.small_talk:
            return "distinct" if self._distinct(c, background) else "small_talk"
        close = c.dense >= self.dense_floor(c.source, held, cjk)
        if close and not self._near_everything(c, held, background):
            return "close"
        if self._distinct(c, background):
            return "distinct"
        if self.lexical > 0 and c.lexical >= self.lexical:
            return "words"
        return "near_everything" if close else "below_floor"

    def _distinct(self, c: Candidate, background: float | None) -> bool:
        return self.distinct is not None and background is not None and c.dense > 0 and c.dense - background >= self.distinct

    def _near_everything(self, c: Candidate, held: int, background: float | None) -> bool:
        """A memory about as close to prompts about nobody as to this one: its similarity is its own."""
        if self.margin is None or background is None or c.source != "memory":
            return False
        return c.dense - background < self.margin + self.per_decade * math.log10(max(1, held))


# What a why record (core/why.py) says of an item weighed for injection.
VERDICTS = {
    "close": "close in meaning: its similarity clears the floor",
    "distinct": "much closer to the prompt than to prompts about nobody",
    "words": "it shares the prompt's rare words",
    "pinned": "pinned: it goes with every request",
    "no_floor": "no relevance floor is set: every item goes in",
    "near_everything": "close, but as close to prompts about nobody: its similarity is its own",
    "below_floor": "not close enough in meaning or words",
    "small_talk": "the prompt is not about the person (small talk, words to the assistant, a joke asked for, text to work on), "
                  "and this is not much closer to it than to prompts about nobody",
}
PASSING = frozenset({"close", "distinct", "words", "no_floor"})


def is_cjk(text: str) -> bool:
    """Whether a text is mostly Chinese, Japanese or Korean: its CJK characters (each about a word)
    at least as many as its other words."""
    cjk = len(_CJK.findall(text))
    return cjk > 0 and cjk >= len(_WORD.findall(_CJK.sub(" ", text)))


def admitted(items: Sequence[Candidate], cjk: bool, floor: Floor, held: Mapping[str, int],
             background: Mapping[str, float] | None = None) -> list[Candidate]:
    """The items worth injecting, in the order given (`held`: how many records of each kind,
    "memory" and "message", the person holds; `background`: the records' background similarity by
    id, where known). Pinned facts are the caller's to add.

    Two questions, each with its floor. Is the prompt about the person at all? Only if some item
    clears the floor for as many records as they hold (it rises with them: among thousands, one lies
    close to any prompt by chance). Then, is each item relevant on its own evidence? Each must clear
    the floor a person holding one record of its kind would need. An item never rides in on another's
    score: a weak one stays out of a block a strong one opened. Neither floor is new (both are
    `Floor`'s, chosen by bench/abstention.py's leave-one-family-out folds), and whether a prompt gets
    memory at all is decided by the first alone (bench/README.md, "Two floors")."""
    said = verdicts(items, cjk, floor, held, background)
    return [c for c in items if said[c.id] in PASSING]


def verdicts(items: Sequence[Candidate], cjk: bool, floor: Floor, held: Mapping[str, int],
             background: Mapping[str, float] | None = None) -> dict[str, str]:
    """`admitted`'s decision per item id, one of VERDICTS: when no item clears the floor for what
    the person holds (the prompt is not about them), each item's verdict at that floor; otherwise
    each item's own, at the floor for one record."""
    if floor.off:
        return {c.id: "no_floor" for c in items}
    bg = background or {}
    at_size = {c.id: floor.verdict(c, cjk, held.get(c.source, 1), bg.get(c.id)) for c in items}
    if not any(v in PASSING for v in at_size.values()):
        return at_size
    return {c.id: floor.verdict(c, cjk, 1, bg.get(c.id)) for c in items}


def covered_by(message: Candidate, fact: Candidate, share: float = 0.8) -> bool:
    """A raw turn yields to a fact made from it: the fact names the turn as its source, or the turn
    holds (nearly) all the fact's words ("Remember that I work at Acme" next to "I work at Acme")."""
    if message.id in fact.sources:
        return True
    want = set(tokenize(fact.text))
    return bool(want) and len(want & set(tokenize(message.text))) >= share * len(want)


def asks_again(c: Candidate, query_words: set[str]) -> bool:
    """An earlier asking of the question being asked now ("what is my passport number?" once more):
    a question of the user's that shares nearly all its words with the query holds no answer."""
    if c.source != "message" or c.kind != "user" or not c.text.rstrip().endswith(("?", "？")):
        return False
    words = set(tokenize(c.text))
    return bool(words) and len(words & query_words) >= 0.6 * len(words | query_words)


def select(items: Sequence[Candidate], *, echo: set[str] | frozenset[str] = frozenset(), query: str = "") -> list[Candidate]:
    """The items worth injecting, in the order given: an echo of the request, a filler turn, an
    earlier asking of the same question, or a turn that a fact among the items covers is dropped."""
    query_words = set(tokenize(query))
    facts = [c for c in items if c.source == "memory"]
    out: list[Candidate] = []
    for c in items:
        if c.source == "memory":
            out.append(c)
            continue
        if is_filler(c.text) or (echo and fingerprint(c.text) in echo) or asks_again(c, query_words):
            continue
        if any(covered_by(c, f) for f in facts):
            continue
        out.append(c)
    return out
