"""What to do with one extracted fact, given what the user's memory already holds. Pure.

Values in, a Decision out; the caller computes the embeddings and looks up the neighbours.
Order of the rules, and why:
1. importance below the floor: dropped (small talk never reaches the store);
2. the same key already holds a value: cosine >= 0.9 means the same value (seen), otherwise a
   new value (supersede, or a candidate when the model is unsure: a doubtful change must not
   retire a fact the user stated clearly);
3. no holder for the key: a near-identical memory of the same kind (cosine >= 0.9) is seen;
4. confidence below 0.76: candidate for the review queue; otherwise new.

A value said before the one its key holds (an imported 2023 conversation against a 2025 fact)
goes into the key's history at its date (`chain_neighbours`, `placed`), never in front; a history
stored flat by an earlier Amber is put in date order by consolidation (`ordered_history`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from ...model import Kind, Memory, Status
from ...recall.lexical import tokenize
from .parse import Fact

Action = Literal["new", "seen", "supersede", "candidate", "drop"]


@dataclass(frozen=True)
class Policy:
    seen_cosine: float = 0.9
    candidate_below: float = 0.76
    importance_floor: float = 0.3


@dataclass(frozen=True)
class Existing:
    memory: Memory
    vector: Sequence[float]


@dataclass(frozen=True)
class Decision:
    action: Action
    target_id: str | None = None
    similarity: float | None = None
    reason: str = ""


def cosine(a: Sequence[float], b: Sequence[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b))
    na = math.sqrt(sum(x * x for x in a))
    nb = math.sqrt(sum(y * y for y in b))
    return dot / (na * nb) if na and nb else 0.0


def decide(
    fact: Fact,
    vector: Sequence[float],
    same_key: Existing | None,
    neighbours: Sequence[Existing],
    policy: Policy = Policy(),
) -> Decision:
    if fact.importance < policy.importance_floor:
        return Decision("drop", reason=f"importance {fact.importance:.2f} < {policy.importance_floor}")
    unsure = fact.confidence < policy.candidate_below
    if fact.fact_key and same_key is not None and same_key.memory.status == Status.active:
        sim = cosine(vector, same_key.vector)
        # the same words are the same value whatever the vectors say (a host-only memory's stored
        # vector is its kind's, not its words', when the embedder runs off the host: model.embed_text)
        if sim >= policy.seen_cosine or " ".join(fact.fact.casefold().split()) == " ".join(same_key.memory.content.casefold().split()):
            return Decision("seen", same_key.memory.id, sim, "same key, same value")
        if unsure:
            return Decision("candidate", same_key.memory.id, sim, "new value for a key, low confidence")
        return Decision("supersede", same_key.memory.id, sim, "same key, new value")
    best: tuple[float, Memory] | None = None
    for n in neighbours:
        m = n.memory
        if m.status != Status.active or m.kind.value != fact.kind:
            continue
        if fact.fact_key and m.fact_key and m.fact_key != fact.fact_key:
            continue  # a different key is a different statement, however similar the words
        sim = cosine(vector, n.vector)
        if best is None or sim > best[0]:
            best = (sim, m)
    if best is not None and best[0] >= policy.seen_cosine:
        return Decision("seen", best[1].id, best[0], "near-duplicate of the same kind")
    if unsure:
        return Decision("candidate", None, best[0] if best else None, f"confidence {fact.confidence:.2f} < {policy.candidate_below}")
    return Decision("new", None, best[0] if best else None, "")


# ---- an older value into a key's history ----------------------------------------------------


def chain_neighbours(versions: Sequence[Memory], head: Memory, said_at: datetime) -> tuple[Memory | None, Memory]:
    """Where a value said at `said_at`, before `head` (the key's current version), goes in the key's
    supersede chain: (the version it follows, None at the start; the version that follows it).
    Walks back from `head` along `supersedes` through `versions` (the key's active and superseded
    records); a link to a record not among them (deleted, forgotten) is where the chain starts."""
    by_id = {m.id: m for m in versions}
    after, visited = head, {head.id}
    while after.supersedes in by_id and after.supersedes not in visited:
        before = by_id[after.supersedes]
        if before.valid_from is None or before.valid_from <= said_at:
            return before, after
        visited.add(before.id)
        after = before
    return None, after


def placed(new: Memory, before: Memory | None, after: Memory, now: datetime) -> list[Memory]:
    """What to write to put `new` (said at its `valid_from`) between `before` and `after`: `new` as a
    superseded version valid until `after` began, `before` now ending where `new` begins. A precious
    record is append-only: it is never rewritten, only pointed at."""
    out = [new.model_copy(update={"status": Status.superseded, "supersedes": before.id if before else None,
                                  "superseded_by": after.id, "valid_to": after.valid_from})]
    if after.kind != Kind.precious:
        out.append(after.model_copy(update={"supersedes": new.id}))  # a link: the current value keeps its place in lists
    if before is not None and before.kind != Kind.precious:
        out.append(before.model_copy(update={"superseded_by": new.id, "valid_to": new.valid_from, "updated_at": now}))
    return out


def _when(m: Memory) -> datetime:
    return m.valid_from or m.created_at  # a record from a store that kept no valid_from began when it was written


def ordered_history(versions: Sequence[Memory], now: datetime) -> list[Memory]:
    """What to write to put one key's history in date order: [] when it already is, or cannot be.

    An earlier Amber imported an older value against a newer current one flat: superseded by the
    current version and valid until it began, side by side with the other older values, and not
    linked from it. `versions`: the key's records in one namespace; the active one and the
    superseded ones linked to it or to each other (either way) are its history, anything else
    (deleted, candidates, a version whose links lead nowhere near the current one) is left alone.
    If that history is not one chain in date order ending at the active version, every version
    is superseded by the next, valid until it began, and supersedes the previous; the active one
    stays active, keeps its place in lists (`updated_at`) and supersedes the last older one. A
    precious record is append-only: pointed at, never rewritten (its own links stay as stored, and
    do not count as out of order, so a second run writes nothing). An older version dated after
    the current one has no place in a date order that ends at it: such a history is left as it is."""
    own = {m.id: m for m in versions if m.status in (Status.active, Status.superseded)}
    heads = [m for m in own.values() if m.status == Status.active]
    if len(heads) != 1:
        return []  # no current value, or two: the conflicts rule settles that first
    head = heads[0]
    near: dict[str, set[str]] = {i: set() for i in own}
    for m in own.values():
        for other in (m.supersedes, m.superseded_by):
            if other in own and other != m.id:
                near[m.id].add(other)
                near[other].add(m.id)
    linked, todo = {head.id}, [head.id]
    while todo:
        for other in near[todo.pop()] - linked:
            linked.add(other)
            todo.append(other)
    older = sorted((own[i] for i in linked if i != head.id), key=lambda m: (_when(m), m.created_at, m.id))
    if not older or _when(older[-1]) > _when(head):
        return []
    chain = [*older, head]
    links: list[tuple[Memory, dict[str, object]]] = []
    start = None if chain[0].supersedes in linked else chain[0].supersedes  # a deleted or forgotten record: where it started
    for i, m in enumerate(chain):
        want: dict[str, object] = {"supersedes": chain[i - 1].id if i else start}
        if m is not head:
            want["superseded_by"] = chain[i + 1].id
        links.append((m, want))
    if all(getattr(m, k) == v for m, want in links if m.kind != Kind.precious for k, v in want.items()):
        return []  # already one chain in date order (valid_to as stored: a live supersede's own end stays)
    out = []
    for i, (m, want) in enumerate(links):
        if m is not head:
            want["valid_to"] = _when(chain[i + 1])
        if m.kind == Kind.precious or all(getattr(m, k) == v for k, v in want.items()):
            continue
        out.append(m.model_copy(update=want if m is head else {**want, "updated_at": now}))
    return out


# ---- whose statement a "seen" is ------------------------------------------------------------

_QUOTED = re.compile(r"^\s*>.*$|“[^”]{8,}”|\"[^\"]{8,}\"|「[^」]{4,}」|『[^』]{4,}』|‘[^’]{8,}’", re.MULTILINE)
_SENTENCES = re.compile(r"[^.!?。！？\n]+[.!?。！？]*")


def independent_statement(fact: str, evidence: Sequence[tuple[str, str]], earlier: Sequence[str]) -> bool:
    """Whether the evidence holds the person's own statement of `fact`, not a retelling: a user turn
    that still says it once quoted text ("> …", quotation marks) and sentences copied from earlier
    turns (`earlier`: the words said before it, e.g. an assistant's summary pasted back) are set aside.
    `evidence`: (role, words) of the turns the fact was read from. An assistant's retelling, or a
    person quoting one, never counts: confidence rises only on what the person says again themselves."""
    said_before = [" ".join(t.casefold().split()) for t in earlier if t]
    want = set(tokenize(fact))
    if not want:
        return False
    for role, text in evidence:
        if role != "user":
            continue
        own = _QUOTED.sub(" ", text)
        kept = []
        for s in _SENTENCES.findall(own):
            norm = " ".join(s.casefold().split())
            if len(norm) >= 12 and any(norm.strip(" .!?。！？") in e for e in said_before):
                continue  # a sentence copied from an earlier turn
            kept.append(s)
        if len(want & set(tokenize(" ".join(kept)))) >= max(1, round(0.3 * len(want))):
            return True
    return False
