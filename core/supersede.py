"""Supersede decisions: which version of a keyed fact stays active. Pure: values in, values out.

A keyed fact (`fact_key` within a namespace) has at most one active version. A writer replaces a
value by writing the new version and retiring the old one; Chroma has no transaction across two
records, so a writer killed between the two (or two hosts racing on one Chroma server) can leave
two active versions. Readers therefore never trust the store on this point: `one_active_per_key`
filters what they see, and `retire_duplicates` says what to write to repair the store for good.
The newest version wins, as it would have had the writer finished.
"""

from __future__ import annotations

from datetime import datetime
from typing import Iterable

from .errors import InvalidInput
from .model import Memory, Status


def _newness(m: Memory) -> tuple:
    return (m.created_at, m.updated_at, m.id)


def newest(versions: list[Memory]) -> Memory | None:
    """The version that wins: the one created last."""
    return max(versions, key=_newness, default=None)


def ended_at(old: Memory, new: Memory, now: datetime) -> datetime:
    """When `old`, retired by `new`, stopped holding: when `new` began (a value dated from the imported
    turn that said it, a candidate approved later), unless that is not after `old` began (an edit of
    its wording keeps its date: the new wording does not end the old at its own start) or is after
    `now`; then `now`, when it was replaced. A write given no date begins now (WritePath.new): for
    it this is `now`, as it always was."""
    began = new.valid_from
    if began is None or began > now or (old.valid_from is not None and began <= old.valid_from):
        return now
    return began


def duplicate_actives(memories: Iterable[Memory]) -> list[tuple[Memory, Memory]]:
    """(loser, winner) for every active keyed version that a newer active version of its key outranks."""
    newest: dict[tuple[str, str], Memory] = {}
    keyed = [m for m in memories if m.fact_key and m.status == Status.active]
    for m in keyed:
        k = (m.namespace, m.fact_key or "")
        if k not in newest or _newness(m) > _newness(newest[k]):
            newest[k] = m
    return [(m, newest[(m.namespace, m.fact_key or "")]) for m in keyed if newest[(m.namespace, m.fact_key or "")].id != m.id]


def retire_duplicates(memories: Iterable[Memory], now: datetime) -> list[Memory]:
    """The losers of `duplicate_actives`, retired: superseded by the winner, as a finished write leaves them."""
    return [
        loser.model_copy(update={"status": Status.superseded, "superseded_by": winner.id,
                                 "valid_to": loser.valid_to or now, "updated_at": now})
        for loser, winner in duplicate_actives(memories)
    ]


def one_active_per_key(memories: list[Memory]) -> list[Memory]:
    """`memories` without the active keyed versions a newer active version of the same key outranks
    (order kept): what a reader may see while a repair has not yet been written."""
    losers = {loser.id for loser, _ in duplicate_actives(memories)}
    return [m for m in memories if m.id not in losers] if losers else memories


def require_current(m: Memory, action: str) -> None:
    """Pinning or archiving an old version would act on a record no reader sees (and archiving would
    turn history into a different state): refuse, naming the version to use."""
    if m.status == Status.superseded:
        newer = f" by {m.superseded_by}" if m.superseded_by else ""
        raise InvalidInput("memory_id", f"memory {m.id} was superseded{newer}; {action} the current version instead")
