"""Forgetting and raw turns: what a "forget X" erases (shown before it does), and captured turns
deleted by id, by conversation or by time.

A collaborator of MemoryService. Two verbs: *delete* moves a memory to a trash it can be restored
from until retention purges it; *forget* erases at once. A forget removes for good every record
that states the thing, in every status and namespace: the live memories `matching` names
(precious quotes and glossary terms included: append-only holds against jobs and models, never
against their owner), the older versions each of them superseded, candidates, trashed, archived,
expired and superseded records that say it, and the turns that say it or that those memories came
from. The digest and daily logs are rewritten without the sentences that say it, and a digest's
previous version is erased rather than kept. Each erased record leaves a tombstone without words
(core/tombstones.py), so nothing forgotten comes back by restore, a replayed turn or an import;
the audit says `forget` with ids and counts. A preview and the forget itself use one plan, so what
a person is shown is what goes.
"""

from __future__ import annotations

import logging
import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Sequence

from .client_cache import drop_saying
from .commands import FORGET_MAX_CHARS, parse_command
from .embed.fair import asked_by
from .errors import EmbedderUnavailable, InvalidInput, NotFound
from .model import Kind, Memory, MemoryPatch, Role, Status, normalize_text
from .recall.config import RecallConfig
from .embed import sentence
from .recall.lexical import stem, tokenize
from .recall.ranker import turn_words
from .recall.relevance import Floor, is_cjk
from .reads import Reads
from .scope import Scope, memory_collection, memory_where, message_collection, message_where
from .tombstones import Tombstones
from .write_path import WritePath

log = logging.getLogger("amber.forget")

MEANING_CANDIDATES = 3  # at most this many uncertain matches are reported


@dataclass
class ForgetPlan:
    """What a forget erases. `done` is False for a preview; after the forget, `memories` are the
    records erased (as they were) and `message_ids` the turns that were erased."""

    what: str
    memories: list[Memory] = field(default_factory=list)
    message_ids: list[str] = field(default_factory=list)
    done: bool = False
    # the digest and daily logs that say it, each with its text without those sentences
    rewrites: list[tuple[Memory, str]] = field(default_factory=list)
    # live memories the request may mean but Amber is not sure of: never erased, reported so the
    # person can say which (in that memory's words)
    uncertain: list[Memory] = field(default_factory=list)
    # source turns of the erased memories that are no longer stored (retention): tombstoned all the same
    gone_sources: list[str] = field(default_factory=list)


def drop_asked(embedder: Any, user_id: str) -> None:
    """The traces of words a process keeps to answer faster, dropped at a forget: the vectors of what
    the person asked lately (core/embed/recent.py: a repeat answered faster would let someone acting as
    them time whether a forgotten sentence was asked), and the caches of turns' word sets and stems."""
    drop = getattr(embedder, "forget_asked", None)
    if drop is not None:
        drop(user_id)
    sentence.shared().recent.drop(user_id)
    turn_words.cache_clear()
    stem.cache_clear()


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
        update: Callable[[Scope, str, MemoryPatch], Memory],
        digest_set: Callable[[Scope, str], Memory],
        tombstones: Tombstones,
        now: Callable[[], datetime],
        registry: Any = None,
    ):
        self._reads = reads
        self._writes = writes
        self._recaller = recaller
        self._update = update
        self._digest_set = digest_set
        self.tombstones = tombstones
        self._now = now
        self._registry = registry  # the person's client cache is in it (core/client_cache.py)
        # stores outside this one that hold a person's words waiting to be stored here (the proxy's
        # capture journal, the shared capture queue): each is called with the person and a test of
        # whether a text says what was forgotten, after a forget asked through REST, MCP, the admin
        # page or a handle (a "forget …" turn is checked against them where it is drained). Words
        # still waiting there were never stored, so no tombstone would stop them later.
        self.elsewhere: list[Callable[[str, Callable[[str], bool]], int]] = []

    def forget_preview(self, scope: Scope, what: str) -> ForgetPlan:
        """What `forget(scope, what)` would remove now; removes nothing."""
        return self._plan(scope, _subject(what))

    def forget(self, scope: Scope, what: str) -> ForgetPlan:
        """Forget what `what` says: delete the memories that state it and the raw turns that still say
        it, and what is still waiting to be stored that says it."""
        subject = _subject(what)
        plan = self._forget_subject(scope, subject)
        self.purge_elsewhere(scope.user_id, subject_matcher(subject))
        drop_asked(self._recaller.embedder, scope.user_id)  # last: the matching above read the words again
        return plan

    def erase_elsewhere(self, user_id: str) -> int:
        """A person erased: everything of theirs waiting outside the store, and the vectors of what they asked."""
        drop_asked(self._recaller.embedder, user_id)
        return self.purge_elsewhere(user_id, bool)

    def purge_elsewhere(self, user_id: str, says_it: Callable[[str], bool]) -> int:
        """What waits outside the store for `user_id` and says what `says_it` finds, removed (`elsewhere`)."""
        gone = 0
        for purge in list(self.elsewhere):
            try:
                gone += int(purge(user_id, says_it) or 0)
            except Exception as e:  # the store's part is done; say what could not be reached
                log.warning("amber: a forget could not reach %s: %s: %s", getattr(purge, "__qualname__", purge), type(e).__name__, e)
        return gone

    def _plan(self, scope: Scope, what: str) -> ForgetPlan:
        every = self._reads.memories(scope, memory_where(scope, statuses=None, all_namespaces=True))
        live = [m for m in every if m.status == Status.active and m.kind not in STANDING]
        named, uncertain = _named(live, what, lambda: self._meaning(scope, what, live))
        phrases = [what, *(m.content for m in named)]
        wanted = [w for w in map(words_of, phrases) if w]
        # records no longer live (the review queue, the trash, old versions, the archive) that say it
        taken = {m.id for m in named}
        resting = [m for m in every if m.id not in taken and m.status != Status.active and any(says(w, m.content) for w in wanted)]
        memories = _with_older_versions(named + resting, every)
        standing = [m for m in every if m.kind in STANDING and m.status == Status.active]
        names = specific_names(what, memories, live)
        rewrites = [(m, new) for m in standing if (new := without_saying(m.content, phrases, names)) != m.content]
        said = self.turns_saying(scope, what) | {i for m in memories for i in m.source_ids}
        # and what still says each memory in its own words ("Saved: passport P-…" after "forget my passport number")
        for m in memories:
            said |= self.turns_saying(scope, m.content)
        said |= self._replies_naming(scope, said, what)
        # source ids may name turns retention already removed: count only those still stored, and
        # file tombstones for the others too (an older export still holds them: `amber import` of it)
        have = self._reads.existing_turn_ids(scope, sorted(said)) if said else set()
        gone = sorted({i for m in memories for i in m.source_ids} - have)
        return ForgetPlan(what=what, memories=memories, message_ids=sorted(have), rewrites=rewrites, uncertain=uncertain, gone_sources=gone)

    def _meaning(self, scope: Scope, what: str, live: Sequence[Memory]) -> dict[str, float]:
        """The live memories closest to `what` in meaning, by the recall's own embedding and its
        relevance floor for someone holding this many memories (raised for CJK text as recall
        raises it): {id: similarity}."""
        if not live:
            return {}
        cfg = RecallConfig()
        floor = Floor(memory=cfg.floor_memory, cjk_offset=cfg.floor_cjk_offset, per_decade=cfg.floor_per_decade).dense_floor(
            "memory", len(live), is_cjk(what))
        try:
            vector = asked_by(scope.user_id, self._recaller.embedder.embed_query, what)
        except EmbedderUnavailable:  # the words still match; what only meaning would find is not reported
            return {}
        ids = {m.id for m in live}
        near = self._reads.nearest_memories(scope, vector, MEANING_CANDIDATES + 2, memory_where(scope, all_namespaces=True))
        return {m.id: sim for m, sim in near if m.id in ids and sim >= floor}

    def forget_subject(self, scope: Scope, what: str) -> ForgetPlan:
        """`forget` of a subject already read out of its command (a "forget ..." turn)."""
        plan = self._forget_subject(scope, what)
        drop_asked(self._recaller.embedder, scope.user_id)  # this forget's own reading of `what` among them
        return plan

    def _forget_subject(self, scope: Scope, what: str) -> ForgetPlan:
        # planned under the user's write lock, so a turn captured between plan and erase cannot escape it
        with self._writes.lock(scope):
            plan = self._plan(scope, what)
            # what is still on its way here, said before now, is held to the same words (tombstones.py)
            self.tombstones.note_words(scope.user_id, [words_of(t) for t in [what, *(m.content for m in plan.memories)]], self._now())
            erased = list(plan.memories)
            for m, text in plan.rewrites:
                if not text:
                    erased.append(m)
                elif m.kind == Kind.digest:
                    self._digest_set(scope, text)
                    erased.append(m)  # its previous version would keep the sentence as "superseded"
                else:
                    self._update(scope, m.id, MemoryPatch(content=text))  # under a fresh key (WritePath.rewrite)
            self.erase(scope, erased, plan.message_ids, gone_sources=plan.gone_sources)
            if self._registry is not None:
                drop_saying(self._registry, self._writes.sealer, scope.user_id, subject_matcher(what))
            return ForgetPlan(what=what, memories=erased, message_ids=plan.message_ids, done=True, rewrites=plan.rewrites,
                              uncertain=plan.uncertain)

    def erase(self, scope: Scope, memories: Sequence[Memory], message_ids: Sequence[str] = (), *, gone_sources: Sequence[str] = ()) -> None:
        """Remove records for good and leave wordless tombstones (`gone_sources`: turns no longer
        stored that must not come back either); the audit says `forget` with ids and counts. The
        caller holds the user's lock."""
        turns = sorted(self._reads.existing_turn_ids(scope, list(message_ids))) if message_ids else []
        ids = list(dict.fromkeys(m.id for m in memories))
        if not ids and not turns:
            return
        now = self._now()
        self.tombstones.bury(scope.user_id, [
            *({"id": m.id, "kind": m.kind.value, "status": m.status.value, "created_at": m.created_at} for m in memories),
            *({"id": i, "kind": "turn"} for i in [*turns, *(i for i in gone_sources if i not in turns)]),
        ], now)
        self._writes.delete_records(scope, memory_collection(scope), ids)
        self._writes.delete_records(scope, message_collection(scope), turns)
        self._writes.audit(scope, "forget", ids, message_ids=turns, memories=len(ids), turns=len(turns))

    def matching(self, scope: Scope, text: str) -> list[Memory]:
        """Live memories a "forget" names for sure: those containing the words, else the one
        near-match nothing else competes with."""
        live = self._reads.memories(scope, memory_where(scope))
        return _named(live, text, lambda: self._meaning(scope, text, live))[0]

    def _replies_naming(self, scope: Scope, said: set[str], what: str) -> set[str]:
        """The assistant's replies to erased user turns that repeat a name or a number of what is
        forgotten ("Inès is a lovely name!" after "my sister is called Inès"): they hold too few of
        its words for `says`, yet answer the very turn that goes, with its key word in them."""
        keys = {t for t in tokenize(" ".join(_NAME_OR_NUMBER.findall(what)))}
        if not keys or not said:
            return set()
        # in time; at the same instant (a client's clock ahead of the host's is held to now) a question before its answer
        turns = sorted(self._recaller.messages(message_collection(scope)),
                       key=lambda t: (t.session or "", t.created_at, t.role != Role.user, t.id))
        out = set()
        for before, after in zip(turns, turns[1:]):
            if (before.id in said and before.role == Role.user and after.role == Role.assistant and after.session == before.session
                    and keys & set(tokenize(after.content))):
                out.add(after.id)
        return out

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


def _named(memories: Sequence[Memory], text: str, near: Callable[[], dict[str, float]]) -> tuple[list[Memory], list[Memory]]:
    """The memories a forget names for sure, and those it may mean.

    Sure: the memories that contain its words; else the one memory sharing at least half the
    words (by Jaccard over the recall's tokens) when no other does; else the one memory close in
    meaning (`near()`: similarities at or over the recall's floor, asked for only when the words
    did not decide) that also shares a quarter of the words, when it is the only one close in
    meaning. Everything else that is close (two
    memories sharing half the words, meaning alone, a near-match below half) is uncertain: a
    forget acts on what it is sure of and asks about the rest. Pure but for `near`."""
    needle = normalize_text(text)
    exact = [m for m in memories if needle and needle in normalize_text(m.content)]
    if exact:
        return exact, []
    want = set(tokenize(text))

    def overlap(m: Memory) -> float:
        have = set(tokenize(m.content))
        return len(want & have) / max(1, len(want | have))

    lexical = {m.id: overlap(m) for m in memories}
    strong = [m for m in memories if lexical[m.id] >= 0.5]
    if len(strong) == 1:
        return strong, []
    meaning = near()
    close = [m for m in memories if m.id in meaning]
    if not strong and len(close) == 1 and lexical[close[0].id] >= 0.25:
        return close, []
    maybe = {m.id: m for m in strong}
    for m in sorted(close, key=lambda m: -meaning[m.id]):
        maybe.setdefault(m.id, m)
    for m in sorted(memories, key=lambda m: -lexical[m.id]):
        if lexical[m.id] >= 0.25:
            maybe.setdefault(m.id, m)
    ranked = sorted(maybe.values(), key=lambda m: (-max(lexical[m.id], meaning.get(m.id, 0.0)), m.id))
    return [], ranked[:MEANING_CANDIDATES]


def _with_older_versions(memories: Sequence[Memory], every: Sequence[Memory]) -> list[Memory]:
    """`memories` and every version each of them superseded, back to the first: "I live in
    Shanghai" forgotten takes "I live in Beijing" with it. Newer versions are not followed: to
    forget an old value is not to forget the current one."""
    by_id = {m.id: m for m in every}
    out: dict[str, Memory] = {}
    for m in memories:
        while m is not None and m.id not in out:
            out[m.id] = m
            m = by_id.get(m.supersedes) if m.supersedes else None
    return list(out.values())
_SENTENCE_END = re.compile(r"(?<=[.!?。！？；;])\s*|\n+")


# a name (a capitalised word past a sentence's start) or anything holding a digit: what a reply
# repeats of a thing to forget when it repeats little else of it
_NAME_OR_NUMBER = re.compile(r"(?<![.!?]\s)(?<!^)\b[A-Z][^\W\d_]+|\b\w*\d[\w-]*")
_NUMBER = re.compile(r"\b\w*\d[\w-]*")
_YEAR = re.compile(r"(19|20)\d\d")
_CAPITALISED = re.compile(r"\b[A-Z][^\W\d_]+")
_WORD = re.compile(r"[\w-]+")
_TITLES = frozenset("mr mrs ms miss dr prof sir madam mme mlle herr frau st mt jr sr the".split())


def words_of(text: str) -> set[str]:
    return {t for t in tokenize(text) if len(t) >= 2}


def says(words: set[str], text: str) -> bool:
    """Whether `text` holds at least 60 % of `words`, and two of them at the least: a reply that
    says "your sister is Inès" still says what "forget that my sister is called Inès" removes. A
    forget errs on the side of removing."""
    if not words:
        return False
    need = max(min(2, len(words)), math.ceil(0.6 * len(words)))
    if text.isascii() and sum(_probe(w) in text.lower() for w in words) < need:
        return False  # cannot hold enough of them: no need to tokenize it (a forget reads every turn)
    return len(words & set(tokenize(text))) >= need


def _probe(token: str) -> str:
    """What an ASCII text must contain, lower-cased, to yield `token`: the stemmer only strips
    suffixes, but for "ies" -> "y" (parties -> party), so the token less a final y is a prefix of
    the word it came from."""
    return token[:-1] if token.endswith("y") else token


def forget_request(text: str) -> Callable[[str], bool] | None:
    """For a user turn that asks to forget something: a test of whether another text says it (the
    matcher a forget uses on turns), for stores outside the service that hold turns too (the proxy's
    journal). None for any other turn."""
    cmd = parse_command(text or "")
    if cmd is None or cmd.action != "forget":
        return None
    return subject_matcher(cmd.text)


def subject_matcher(subject: str) -> Callable[[str], bool]:
    """A test of whether a text says `subject` (what a forget names), as a forget tests turns."""
    wanted = words_of(subject)
    needle = normalize_text(subject)
    return lambda other: bool(other) and (needle in normalize_text(other) or says(wanted, other))


def specific_names(what: str, erased: Sequence[Memory], live: Sequence[Memory]) -> set[str]:
    """The names and numbers of what is forgotten that nothing else the person keeps mentions: the
    subject's ("Inès" of "my sister is called Inès", written in any case, as the memories that go
    spell it), and the numbers of the memories that go ("QX-774105"). A name another live memory
    holds too (the person's own, a city they live in) is not the forgotten thing's; titles, short
    words, years and small counts are no names. Lowercase whole words, unstemmed. Pure."""
    asked = set(_words(what))
    found = set(_words(" ".join(_NAME_OR_NUMBER.findall(what))))
    found |= {w for m in erased for w in _words(" ".join(_CAPITALISED.findall(m.content))) if w in asked}
    found |= {w for m in erased for w in _words(" ".join(_NUMBER.findall(m.content)))}
    found = {w for w in found if len(w) >= 3 and w not in _TITLES and not (w.isdigit() and (len(w) < 3 or _YEAR.fullmatch(w)))}
    gone = {m.id for m in erased}
    return found - {w for m in live if m.id not in gone for w in _words(m.content)}


def _words(text: str) -> list[str]:
    return [w.strip("-") for w in _WORD.findall(text.casefold()) if w.strip("-")]


def without_saying(text: str, phrases: Sequence[str], names: set[str] | frozenset[str] = frozenset()) -> str:
    """`text` without the sentences that say any of `phrases`, or hold any of `names`
    (`specific_names`: a digest's "Inès visited her in May" after "forget that my sister is called
    Inès"); the rest kept as written. Pure."""
    wanted = [w for w in (words_of(p) for p in phrases) if w]
    parts = [p for p in _SENTENCE_END.split(text) if p and p.strip()]
    kept = [p for p in parts if not any(says(w, p) for w in wanted) and not (names and names & set(_words(p)))]
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
