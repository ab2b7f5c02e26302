"""What recall's index of a person's captured turns holds: each turn as a small record, linked to
its neighbours in its session, and indexed for BM25 with its window (the turns around it), plus the
texts a turn is embedded and indexed as. Pure: no I/O."""

from __future__ import annotations

from array import array
from dataclasses import dataclass, field
from datetime import datetime
from functools import lru_cache
from typing import Callable, NamedTuple, Sequence

import numpy as np

from ..model import Message, Role
from .fusion import Candidate
from .lexical import BM25Index, tokenize
from .sentence_arm import SentenceVectors


class Turn(NamedTuple):
    """A captured turn as recall's index holds it: the fields recall and the lexical windows read,
    in a twentieth of the memory a `Message` takes (a person who imported their history holds
    200 000 of them in the host)."""

    id: str
    role: Role
    content: str
    session: str | None
    author: str | None
    created_at: datetime
    client: str | None

    @classmethod
    def of(cls, m: Message | Turn) -> Turn:
        return m if isinstance(m, Turn) else cls(m.id, m.role, m.content, m.session, m.author, m.created_at, m.client)


def message_candidate(m: Message | Turn) -> Candidate:
    return Candidate(
        id=m.id, text=m.content, source="message", created_at=m.created_at, kind=m.role.value, client=m.client, author=m.author
    )


# How many turns on each side a raw turn is indexed with. Measured on LoCoMo dev as a whole, not by
# folds (bench/README.md): BM25 gains from two turns of context, while a longer window blurs the
# embedding, so the dense text keeps one turn on each side.
LEXICAL_CONTEXT = 2
DENSE_CONTEXT = 1
# A neighbour is context, not content: in the dense text it is cut to this many characters (set by
# hand, not fitted), so a long answer is embedded in full once, not again inside each neighbour's.
NEIGHBOUR_CHARS = 300
# In the lexical text a turn's own words count this many times to its neighbours' once: the window
# is there to find the turn by what surrounds it, not to let four neighbours outweigh it. Chosen
# among 1-3 leaving one LoCoMo dev conversation out (bench/README.md).
LEXICAL_SELF_WEIGHT = 2
# A turn's words the lexical index reads: a long paste's head (e5 reads less still; a forget reads it
# whole). A captured turn's own words are read before the recall lock is taken, but its window is
# read again under it as the next two turns arrive: a 100 000-character paste of a character NFKC
# makes eighteen held everyone's recall most of a second (set by hand)
LEXICAL_TURN_CHARS = 20_000

Turns = Message | Turn | Sequence[Message | Turn] | None


def _as_list(x: Turns) -> list:
    if x is None:
        return []
    return [x] if isinstance(x, (Message, Turn)) else list(x)


def _cut(text: str, limit: int | None) -> str:
    return text if limit is None or len(text) <= limit else text[:limit] + " …"


def message_index_text(m: Message | Turn, prev: Turns = None, nxt: Turns = None, neighbour_chars: int | None = None) -> str:
    """What a raw turn is indexed as: its date, speaker and words, between its neighbours in the
    session (`prev` and `nxt`: a turn or turns in time order). A reply like "yes, last Tuesday"
    means little alone; with its neighbours and date it can be found by what it answers."""
    who = m.author or m.role.value
    parts = [f"[{m.created_at:%d %B %Y}]"]
    parts.extend(_cut(x.content, neighbour_chars) for x in _as_list(prev))
    parts.append(f"{who}: {m.content}")
    parts.extend(_cut(x.content, neighbour_chars) for x in _as_list(nxt))
    return " ".join(parts)


def lexical_index_text(m: Message | Turn, prev: Turns = None, nxt: Turns = None) -> str:
    """What a raw turn's BM25 entry holds: its indexed window, with its own words repeated so
    they weigh `LEXICAL_SELF_WEIGHT` times as much as the context's."""
    return " ".join([message_index_text(m, prev, nxt), *[m.content] * (LEXICAL_SELF_WEIGHT - 1)])


@lru_cache(maxsize=4096)
def _label_tokens(label: str) -> tuple[str, ...]:
    """A turn's date or speaker label, tokenized: a person's turns share a few of each."""
    return tuple(tokenize(label))


def lexical_index_tokens(m: Turn, prev: Sequence[Turn], nxt: Sequence[Turn], words: Callable[[Turn], list[str]]) -> list[str]:
    """`tokenize(lexical_index_text(m, prev, nxt))` put together from each turn's own words
    (`words(t)`: `tokenize(t.content)`, cached by the caller). The parts of that text are joined
    by spaces, and no token spans a space, so the tokens are the same; building the index of a
    person's every turn then tokenizes each turn once instead of once per window it sits in."""
    out = list(_label_tokens(f"[{m.created_at:%d %B %Y}]"))
    for x in prev:
        out.extend(words(x))
    out.extend(_label_tokens(f"{m.author or m.role.value}:"))
    own = words(m)
    out.extend(own)
    for x in nxt:
        out.extend(words(x))
    for _ in range(LEXICAL_SELF_WEIGHT - 1):
        out.extend(own)
    return out


def message_index_texts(messages: Sequence[Message], context: int = DENSE_CONTEXT) -> list[str]:
    """`message_index_text` for each message, neighbours taken from the same list and session
    (in time order). For batch writers: import, reindex. Pure."""
    chains: dict[str, list[Message]] = {}
    for m in sorted(messages, key=lambda x: (x.created_at, x.id)):
        chains.setdefault(m.session or "", []).append(m)
    text: dict[str, str] = {}
    for chain in chains.values():
        for i, m in enumerate(chain):
            text[m.id] = message_index_text(m, chain[max(0, i - context) : i], chain[i + 1 : i + 1 + context], NEIGHBOUR_CHARS)
    return [text[m.id] for m in messages]


def _walk(links: dict[str, Turn], m: Turn, n: int) -> list[Turn]:
    """Up to n turns from m along `links` (a turn's predecessor or successor), nearest first."""
    out: list[Turn] = []
    cur = links.get(m.id)
    while cur is not None and len(out) < n:
        out.append(cur)
        cur = links.get(cur.id)
    return out


@dataclass
class TurnIndex:
    rev: int
    bm25: BM25Index = field(default_factory=BM25Index)
    cands: dict[str, Candidate] = field(default_factory=dict)
    msgs: dict[str, Turn] = field(default_factory=dict)
    tails: dict[str, list[Turn]] = field(default_factory=dict)  # session -> its last LEXICAL_CONTEXT turns
    prev_of: dict[str, Turn] = field(default_factory=dict)
    next_of: dict[str, Turn] = field(default_factory=dict)
    # every turn's id and time, in the order added: lists that only grow, so a recall can read
    # them while a capture appends (a dict read beside a writer can fail "changed size")
    order: list[str] = field(default_factory=list)
    times: array = field(default_factory=lambda: array("d"))
    background: dict[str, float] = field(default_factory=dict)  # id -> background similarity (background.py)
    sentences: SentenceVectors | None = None  # the sentence model's vectors, for the turn ranker (None: not read here)

    def since(self, ts: float) -> set[str]:
        """The turns from `ts` on, read without the writers' lock."""
        times = np.frombuffer(self.times.tobytes(), dtype=np.float64)  # one copy, taken at once
        ids = self.order[: len(times)]
        return {ids[k] for k in np.flatnonzero(times[: len(ids)] >= ts)}

    def prev_window(self, m: Turn, n: int) -> list[Turn]:
        """Up to n turns before m in its session, in time order."""
        return _walk(self.prev_of, m, n)[::-1]

    def next_window(self, m: Turn, n: int) -> list[Turn]:
        """Up to n turns after m in its session, in time order."""
        return _walk(self.next_of, m, n)

    def neighbours(self, ids: Sequence[str]) -> dict[str, list[str]]:
        """Adjacent turns of the same session, for neighbour credit in fusion."""
        out: dict[str, list[str]] = {}
        for i in ids:
            nb = [x.id for x in (self.prev_of.get(i), self.next_of.get(i)) if x is not None]
            if nb:
                out[i] = nb
        return out


def turn_tokens(messages: Sequence[Message | Turn]) -> dict[str, list[str]]:
    """Each turn's own words as `add_turns` reads them, tokenized ahead (outside the recall lock)."""
    return {m.id: tokenize(m.content[:LEXICAL_TURN_CHARS]) for m in messages}


def add_turns(idx: TurnIndex, messages: Sequence[Message | Turn], tokens: dict[str, list[str]] | None = None) -> None:
    """Link new turns after their session's last ones, then index each turn whose window
    changed (the new ones, and the last LEXICAL_CONTEXT before them, which gain successors)
    once, with its final window. Each turn's words are tokenized once per session: building
    the index of 200 000 imported turns re-tokenized every turn five times before."""
    n = LEXICAL_CONTEXT
    touched: dict[str, dict[str, Turn]] = {}  # session -> turns to (re)index, in order
    for m in sorted(messages, key=lambda x: (x.created_at, x.id)):
        if m.id in idx.msgs:
            continue
        m = Turn.of(m)
        key = m.session or ""
        tail = idx.tails.get(key, [])
        idx.msgs[m.id] = m
        idx.cands[m.id] = message_candidate(m)
        idx.order.append(m.id)
        idx.times.append(m.created_at.timestamp())
        if idx.sentences is not None:
            idx.sentences.add(m.id, m.content)
        if tail:
            idx.prev_of[m.id] = tail[-1]
            idx.next_of[tail[-1].id] = m
        redo = touched.setdefault(key, {})
        for t in tail:
            redo[t.id] = t
        redo[m.id] = m
        idx.tails[key] = (tail + [m])[-n:]
    for redo in touched.values():
        own: dict[str, list[str]] = dict(tokens or {})

        def words(t: Turn) -> list[str]:
            w = own.get(t.id)
            if w is None:
                w = own[t.id] = tokenize(t.content[:LEXICAL_TURN_CHARS])
            return w

        for t in redo.values():
            idx.bm25.add_tokens(t.id, lexical_index_tokens(t, idx.prev_window(t, n), idx.next_window(t, n), words))
