"""Which captured turns a write must store: ids not seen before, and known ids whose words changed.

A client may send a turn again under the id it used before. With the same words it is a retry (a
spooled capture sent twice, a filter retrying after a timeout) and costs nothing but the one read
that tells. With other words it is the same turn said anew: Open WebUI saves a reply under an id
derived from its question, so a regenerated answer arrives with that id and the words that replace
the discarded ones, and Amber must keep the new words, not the discarded ones.

`dated` is how a captured turn's time is believed (README, Jobs; retention ages a turn from its
`stored_at`, the server's clock): a stated time more than a day ahead of the server's clock is
clamped to it, the client's time kept as `stated_at`. Refusing such a turn would lose it (the
person already has the answer; a spool would set it aside), and keeping the date would put it in
every coming "today" of the boot pack and after everything said later. Captures from clients
(every face and the capture queue go through `MemoryService.capture`) are dated so; `ingest`
called directly (imports, jobs, tests on a fixed clock) keeps the times it is given.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Mapping, Sequence

from .model import Message

if TYPE_CHECKING:
    from .reads import Reads
    from .scope import Scope


def to_store(stored: Mapping[str, Message], messages: Sequence[Message]) -> tuple[list[Message], set[str]]:
    """(the turns to write, oldest first; the ids among them that replace a stored turn), given the
    stored turns of those ids. Pure."""
    replacing = {m.id for m in messages if m.id in stored and stored[m.id].content != m.content}
    todo = [m for m in messages if m.id not in stored or m.id in replacing]
    return sorted(todo, key=lambda m: (m.created_at, m.id)), replacing


def unsaved(reads: "Reads", scope: "Scope", messages: Sequence[Message]) -> tuple[list[Message], set[str]]:
    """`to_store` against the user's stored turns: one read, of the ids given."""
    return to_store(reads.turns_by_id(scope, [m.id for m in messages]), messages)


FUTURE_SLACK = timedelta(days=1)  # client clocks a little ahead (time zones entered wrong) are believed


def dated(m: Message, now: datetime) -> Message:
    """The turn with a time the server can believe at `now` (module docstring)."""
    if m.created_at > now + FUTURE_SLACK:
        return m.model_copy(update={"created_at": now, "stated_at": m.created_at})
    return m
