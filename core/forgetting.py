"""Forgetting and raw turns: what a "forget X" removes (shown before it does), and captured turns
deleted by id, by conversation or by time.

A collaborator of MemoryService. A preview and the forget itself use one plan, so what a person is
shown is what goes: the memories `matching` names (precious quotes stay: they are append-only) and
the turns `turns_saying` finds, plus the turns those memories were taken from.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Sequence

from .commands import parse_command
from .errors import InvalidInput, NotFound
from .model import Kind, Memory, MemoryPatch, Status, normalize_text
from .recall.lexical import tokenize
from .reads import Reads
from .scope import Scope, memory_where, message_collection, message_where
from .write_path import WritePath

FORGET_MAX_CHARS = 2000


@dataclass
class ForgetPlan:
    """What a forget removes. `done` is False for a preview; after the forget, `memories` are the
    deleted versions and `message_ids` the turns that were deleted."""

    what: str
    memories: list[Memory] = field(default_factory=list)
    message_ids: list[str] = field(default_factory=list)
    done: bool = False
    # the digest and daily logs that say it, each with its text without those sentences
    rewrites: list[tuple[Memory, str]] = field(default_factory=list)


class Forgetting:
    """Forgetting and raw-turn deletes for `MemoryService`: given the user's records (to find what
    a forget names), the write path, the recaller (whose warm index holds the turns to search), and the
    service's `delete`, `update` and `digest_set` (a forget deletes and rewrites memories the way a
    person would)."""

    def __init__(
        self,
        reads: Reads,
        writes: WritePath,
        recaller: Any,
        *,
        delete: Callable[[Scope, str], Memory],
        update: Callable[[Scope, str, MemoryPatch], Memory],
        digest_set: Callable[[Scope, str], Memory],
    ):
        self._reads = reads
        self._writes = writes
        self._recaller = recaller
        self._delete = delete
        self._update = update
        self._digest_set = digest_set

    def forget_preview(self, scope: Scope, what: str) -> ForgetPlan:
        """What `forget(scope, what)` would remove now; removes nothing."""
        return self._plan(scope, _subject(what))

    def forget(self, scope: Scope, what: str) -> ForgetPlan:
        """Forget what `what` says: delete the memories that state it and the raw turns that still say it."""
        return self.forget_subject(scope, _subject(what))

    def _plan(self, scope: Scope, what: str) -> ForgetPlan:
        # active facts and candidates still in the review queue; the digest and daily logs are
        # written from many facts, so they are rewritten without what they say of this one
        memories = [m for m in self.matching(scope, what) if m.kind not in (Kind.precious, *STANDING)]
        phrases = [what, *(m.content for m in memories)]
        wanted = [w for w in map(words_of, phrases) if w]
        waiting = self._reads.memories(scope, memory_where(scope, statuses=[Status.candidate]))
        memories += [m for m in waiting if any(says(w, m.content) for w in wanted)]
        standing = self._reads.memories(scope, memory_where(scope, kinds=[k.value for k in STANDING]))
        rewrites = [(m, new) for m in standing if (new := without_saying(m.content, phrases)) != m.content]
        said = self.turns_saying(scope, what) | {i for m in memories for i in m.source_ids}
        # and what still says each memory in its own words ("Saved: passport P-…" after "forget my passport number")
        for m in memories:
            said |= self.turns_saying(scope, m.content)
        # source ids may name turns retention already removed: count only those still stored
        have = self._reads.existing_turn_ids(scope, sorted(said)) if said else set()
        return ForgetPlan(what=what, memories=memories, message_ids=sorted(have), rewrites=rewrites)

    def forget_subject(self, scope: Scope, what: str) -> ForgetPlan:
        """`forget` of a subject already read out of its command (a "forget ..." turn)."""
        # planned under the user's write lock, so a turn captured between plan and delete cannot escape it
        with self._writes.lock(scope):
            plan = self._plan(scope, what)
            deleted = [self._delete(scope, m.id) for m in plan.memories]
            if plan.message_ids:
                self.delete_messages(scope, plan.message_ids)
            for m, text in plan.rewrites:
                if not text:
                    self._delete(scope, m.id)
                elif m.kind == Kind.digest:
                    self._digest_set(scope, text)
                else:
                    self._update(scope, m.id, MemoryPatch(content=text))
            return ForgetPlan(what=what, memories=deleted, message_ids=plan.message_ids, done=True, rewrites=plan.rewrites)

    def matching(self, scope: Scope, text: str) -> list[Memory]:
        """Active memories a "forget" names: those containing the words, else the closest near-match."""
        needle = normalize_text(text)
        mems = self._reads.memories(scope, memory_where(scope))
        exact = [m for m in mems if needle in normalize_text(m.content)]
        if exact:
            return exact
        want = set(tokenize(text))
        scored = [(len(want & set(tokenize(m.content))) / max(1, len(want | set(tokenize(m.content)))), m) for m in mems]
        best = max(scored, key=lambda x: x[0], default=(0.0, None))
        return [best[1]] if best[1] is not None and best[0] >= 0.5 else []

    def turns_saying(self, scope: Scope, text: str) -> set[str]:
        """Turns holding at least 60 % of the words of `text`, and two of them at the least: a reply
        that says "your sister is Inès" still says what "forget that my sister is called Inès"
        removes. A forget errs on the side of removing."""
        want = words_of(text)
        if not want:
            return set()
        return {m.id for m in self._recaller.messages(message_collection(scope)) if says(want, m.content)}

    def delete_messages(self, scope: Scope, ids: Sequence[str]) -> int:
        """Delete captured turns for good (a forget, a person cleaning up). The audit keeps their ids
        and count, never their words. Returns how many existed."""
        col = message_collection(scope)
        with self._writes.lock(scope):
            have = sorted(self._reads.existing_turn_ids(scope, ids))
            if not have:
                return 0
            self._writes.delete_records(scope, col, have)
            self._writes.audit(scope, "delete_messages", [], message_ids=have, count=len(have))
            return len(have)

    def select_messages(
        self,
        scope: Scope,
        *,
        ids: Sequence[str] | None = None,
        session: str | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
    ) -> list[str]:
        """Ids of the stored turns that meet every criterion given (ids, session, since ≤ t < until)."""
        chosen: set[str] | None = None
        if ids is not None:
            chosen = set(self._reads.existing_turn_ids(scope, list(dict.fromkeys(ids)))) if ids else set()
        if session is not None or since is not None or until is not None:
            where = message_where(
                session=session, since=since.timestamp() if since else None, until=until.timestamp() if until else None
            )
            found = {m.id for m in self._reads.turns(scope, where)}
            chosen = found if chosen is None else chosen & found
        if chosen is None:
            raise InvalidInput("ids", "name the turns to delete: ids, a session, a time range, or all")
        return sorted(chosen)

    def delete_messages_matching(
        self,
        scope: Scope,
        *,
        ids: Sequence[str] | None = None,
        session: str | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
        everything: bool = False,
    ) -> list[str]:
        """Delete the turns that meet every criterion given (or all of the user's turns with
        `everything` and no criterion). Returns the ids deleted; the audit keeps ids and count only."""
        if since is not None and until is not None and since >= until:
            raise InvalidInput("until", "must be later than since")
        with self._writes.lock(scope):
            if everything and ids is None and session is None and since is None and until is None:
                chosen = sorted(m.id for m in self._reads.turns(scope, None))
            else:
                chosen = self.select_messages(scope, ids=ids, session=session, since=since, until=until)
            if chosen:
                self.delete_messages(scope, chosen)
            return chosen

    def delete_message(self, scope: Scope, message_id: str) -> None:
        """Delete one captured turn; NotFound when this user has no turn with that id."""
        if not self.delete_messages(scope, [message_id]):
            raise NotFound(f"no captured turn {message_id!r} for this user")

    def has_message(self, scope: Scope, message_id: str) -> bool:
        return bool(self._reads.existing_turn_ids(scope, [message_id]))


STANDING = (Kind.digest, Kind.daily_log)
_SENTENCE_END = re.compile(r"(?<=[.!?。！？；;])\s*|\n+")


def words_of(text: str) -> set[str]:
    return {t for t in tokenize(text) if len(t) >= 2}


def says(words: set[str], text: str) -> bool:
    """Whether `text` holds at least 60 % of `words`, and two of them at the least: a reply that
    says "your sister is Inès" still says what "forget that my sister is called Inès" removes. A
    forget errs on the side of removing."""
    if not words:
        return False
    need = max(min(2, len(words)), math.ceil(0.6 * len(words)))
    return len(words & set(tokenize(text))) >= need


def without_saying(text: str, phrases: Sequence[str]) -> str:
    """`text` without the sentences that say any of `phrases` (the rest kept as written). Pure."""
    wanted = [w for w in (words_of(p) for p in phrases) if w]
    parts = [p for p in _SENTENCE_END.split(text) if p and p.strip()]
    kept = [p for p in parts if not any(says(w, p) for w in wanted)]
    if len(kept) == len(parts):
        return text
    return " ".join(p.strip() for p in kept)


def _subject(what: str) -> str:
    """The thing to forget. "Forget that my passport number is P-1" and "my passport number is P-1"
    name the same thing, so a whole command is accepted too."""
    text = (what or "").strip()
    if not text:
        raise InvalidInput("what", "say what to forget")
    if len(text) > FORGET_MAX_CHARS:
        raise InvalidInput("what", f"at most {FORGET_MAX_CHARS} characters")
    cmd = parse_command(text)
    if cmd is not None and cmd.action == "forget" and cmd.text.strip():
        return cmd.text.strip()
    return text
