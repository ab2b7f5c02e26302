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

A face that gets no id for a turn names it by its words (`words_turn_id`: the proxy, MCP), so that
a retry keeps one copy. Such a name is a plain hash of the words, and ids outlive a forget (in the
audit, in extraction's windows), so the store keys it with the person's secret before anything
keeps it (`keyed_turn_ids`; core/person_secret.py): the same words still give the same id.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Mapping, Sequence

from .model import Message

if TYPE_CHECKING:
    from .reads import Reads
    from .scope import Scope


# `<face>~<24 hex>` and a suffix naming the turn's part in its exchange (`_u`, `-reply-2`)
_WORDS_ID = re.compile(r"([a-z]{2,8})~([0-9a-f]{24})([-_][a-z0-9-]{1,16})?")


def words_turn_id(face: str, *parts: str, suffix: str = "") -> str:
    """A turn's id derived from `parts` (its words among them), e.g. `lt~<24 hex>_u`. The store keys
    it on arrival (`keyed_turn_ids`), to `lt_<24 hex>_u`: only the face and the turn's way to the store
    ever see the plain form."""
    digest = hashlib.sha256("\x1f".join(parts).encode("utf-8", "surrogatepass")).hexdigest()[:24]
    return f"{face}~{digest}{suffix}"


def keyed_turn_ids(messages: Sequence[Message], keyed: Callable[[str], str]) -> list[Message]:
    """`messages` with every id `words_turn_id` made replaced by its keyed form (`keyed`: the
    person's keyed digest of the plain one); other ids (a client's own, an import's) as they are."""
    out = []
    for m in messages:
        found = _WORDS_ID.fullmatch(m.id)
        out.append(m.model_copy(update={"id": f"{found[1]}_{keyed(found[2])}{found[3] or ''}"}) if found else m)
    return out


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
