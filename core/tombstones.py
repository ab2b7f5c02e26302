"""What a person made Amber forget: ids and times, never words.

A forget removes records for good. What is left is a tombstone per record in the registry, so that
nothing forgotten comes back by another door: a turn replayed from the proxy's journal or the
shared capture queue, a restore, an import of an old export. A tombstone keeps the record's kind,
the status it had, when it was made and when it was forgotten; no text, no vector and no plain
hash. A tombstone is filed under an HMAC of the record's id, keyed by the person's secret
(core/person_secret.py, deleted with the person): the registry does not even say which ids were
forgotten, and once the person is erased nobody can tell.

A turn that was never stored has no tombstone: one said before a forget and still on its way when
the forget ran (a proxy's journal on another machine while memory was away, an entry set aside and
replayed days later, an older chat export). So each forget also files what it named as keyed words
(`note_words`: one HMAC per word, under the same secret and a salt of the forget's own, so two forgets
do not show which words they share), and a turn said before a forget that holds what the forget's
own matching would take (60 % of a phrase's words, two at the least) is not stored
(`buried_turns`) and gets a tombstone like a forgotten one. A turn said after the forget is the person saying it again, and is kept,
but for an assistant's turn within 15 minutes that repeats it: the reply to the forget ("Done, I have
forgotten that your sister is called Inès"), whichever host the next call reaches.
"""

from __future__ import annotations

import logging
import math
import secrets
from datetime import datetime, timedelta, timezone
from typing import Any, Callable, Iterable, Sequence

from .model import Message, Role
from .person_secret import PersonSecrets, keyed_digest, secret_key
from .recall.lexical import tokenize
from .registry import Registry

log = logging.getLogger("amber.tombstones")

KIND = "tombstone"
WORDS = "words"  # the row of what a person's forgets named, as keyed words
KEEP_FORGETS = 50  # the newest forgets whose words are kept: one row (~70 KB at most), read with a capture's tombstones
MAX_PHRASES, MAX_WORDS = 4, 24  # per forget: what it named and the first memories it erased; a phrase's longest words
REPLY_WINDOW = timedelta(minutes=15)  # an assistant's turn this soon after a forget that repeats it is the reply to it
UNREAD = object()  # a row `turn_rows` names that nobody has read yet


class Tombstones:
    def __init__(self, registry: Registry, secrets: PersonSecrets | None = None, now: Callable[[], datetime] | None = None):
        self._registry = registry
        self._secrets = secrets or PersonSecrets(registry)
        self._now = now or (lambda: datetime.now(timezone.utc))  # the service's clock: a held-out turn's tombstone is dated by it

    def _secret(self, user_id: str, *, create: bool) -> bytes | None:
        # read afresh each time: a tombstone filed under a secret another host has since replaced
        # would not be found there (bury runs under the person's lock, as `create` needs)
        return self._secrets.read(user_id, create=create)

    @staticmethod
    def _ref(secret: bytes, record_id: str) -> str:
        return keyed_digest(secret, record_id, size=40)

    def _key(self, user_id: str, ref: str) -> str:
        return f"tomb:{user_id}:{ref}"

    def key_of(self, user_id: str, record_id: str, secret: bytes) -> str:
        """The registry key a tombstone of `record_id` would be filed under (read with other rows)."""
        return self._key(user_id, self._ref(secret, record_id))

    def bury(self, user_id: str, records: Sequence[dict[str, Any]], now: datetime) -> None:
        """One tombstone per record: `records` hold `id` and optionally `kind`, `status` and
        `created_at` (nothing else is kept)."""
        if not records:
            return
        secret = self._secret(user_id, create=True)
        stones = []
        for r in records:
            ref = self._ref(secret, str(r["id"]))
            value = {
                "ref": ref,
                "kind": str(r.get("kind") or ""),
                "status": str(r.get("status") or ""),
                "created_at": str(r.get("created_at") or ""),
                "forgotten_at": now.isoformat(),
            }
            stones.append((self._key(user_id, ref), value))
        self._registry.reg_put_many(stones, kind=KIND, owner=user_id)  # one write for the whole forget

    def buried(self, user_id: str, ids: Iterable[str], secret: bytes | None = None) -> set[str]:
        """Which of `ids` were forgotten: looked up by key, so a capture pays for the ids it brings,
        not for every tombstone the person has (two reads: the secret, then the keys; one when the
        caller has the secret)."""
        wanted = set(ids)
        if not wanted:
            return set()
        secret = secret or self._secret(user_id, create=False)
        if secret is None:
            return set()
        keys = {self._key(user_id, self._ref(secret, i)): i for i in wanted}
        return {keys[k] for k in self._registry.reg_get_many(keys)}

    def note_words(self, user_id: str, phrases: Sequence[set[str]], now: datetime) -> None:
        """What a forget named (each phrase's words, as the forget matched turns), filed as keyed
        words with the time of the forget. The caller holds the person's write lock."""
        phrases = [set(sorted(p, key=lambda w: (-len(w), w))[:MAX_WORDS]) for p in phrases if p][:MAX_PHRASES]
        if not phrases:
            return
        secret = self._secret(user_id, create=True)
        key = self._key(user_id, WORDS)
        salt = secrets.token_hex(8)
        forgets = list((self._registry.reg_get(key) or {}).get("forgets") or [])
        forgets.append({"at": now.isoformat(), "salt": salt, "phrases": [
            {"words": sorted(_digests(secret, salt, p)), "need": max(min(2, len(p)), math.ceil(0.6 * len(p)))} for p in phrases]})
        self._registry.reg_put(key, {"forgets": forgets[-KEEP_FORGETS:]}, kind=KIND, owner=user_id)

    def buried_turns(self, user_id: str, messages: Sequence[Message]) -> set[str]:
        """The ids of `messages` that stay out: forgotten by id, or said before a forget that named
        what they say (two reads: the secret, then the rows). Writes nothing."""
        return self.held_turns(user_id, messages, bury=False)[1]

    def held_turns(self, user_id: str, messages: Sequence[Message], *, bury: bool = True) -> tuple[bytes | None, set[str]]:
        """The person's secret as read now, and `buried_turns` (with `bury`, as `turns_out`)."""
        secret = self.secret_of(user_id) if messages else None
        return secret, self.turns_out(user_id, messages, secret, self.turn_rows(user_id, messages, secret), bury=bury)

    def secret_of(self, user_id: str) -> bytes | None:
        """The person's secret as the registry holds it now (None: they have never been keyed)."""
        return self._secret(user_id, create=False)

    def turn_rows(self, user_id: str, messages: Sequence[Message], secret: bytes | None, *, unkeyed: bool = False) -> dict[str, Any]:
        """The registry rows `turns_out` reads, as {key: UNREAD}, for a caller to read with other rows
        (`WritePath.register_user`'s `also`). For a person with no secret (none when they were last
        read): nothing, or with `unkeyed`, the secret and the words row (a forget since then makes them)."""
        if not messages:
            return {}
        if secret is None:
            return dict.fromkeys([secret_key(user_id), self._key(user_id, WORDS)], UNREAD) if unkeyed else {}
        return dict.fromkeys([*(self.key_of(user_id, m.id, secret) for m in messages), self._key(user_id, WORDS)], UNREAD)

    def turns_out(self, user_id: str, messages: Sequence[Message], secret: bytes | None, rows: dict[str, Any], *,
                  bury: bool = True) -> set[str]:
        """`buried_turns` from the rows of `turn_rows`; those still UNREAD are read here. With `bury`,
        the turns held out by a forget's words get a tombstone of their own: windows planned on them,
        reports and later imports see them as forgotten."""
        if not rows:
            return set()
        unread = [k for k, v in rows.items() if v is UNREAD]
        if unread:
            rows = {**rows, **dict.fromkeys(unread), **self._registry.reg_get_many(unread)}
        if secret is None:
            found = rows.get(secret_key(user_id))
            if not found:
                return set()
            secret = bytes.fromhex(found)
        out = {m.id for m in messages if rows.get(self.key_of(user_id, m.id, secret)) is not None}
        said = _said_before(secret, rows.get(self._key(user_id, WORDS)), [m for m in messages if m.id not in out])
        if said and bury:
            self.bury(user_id, [{"id": i, "kind": "turn"} for i in sorted(said)], self._now())
        return out | said

    def get(self, user_id: str, record_id: str) -> dict[str, Any] | None:
        """The tombstone of one record, if it was forgotten."""
        secret = self._secret(user_id, create=False)
        return self._registry.reg_get(self._key(user_id, self._ref(secret, record_id))) if secret else None

    def count(self, user_id: str) -> int:
        """How many records the person made Amber forget."""
        return len([k for k in self._registry.reg_find(KIND, user_id) if k != self._key(user_id, WORDS)])

    def remove_user(self, user_id: str) -> int:
        """A person erased as a whole: their tombstones and the secret that files them go."""
        keys = list(self._registry.reg_find(KIND, user_id))
        self._registry.reg_delete(keys)
        self._secrets.drop(user_id)
        return len([k for k in keys if k != self._key(user_id, WORDS)])


def _digests(secret: bytes, salt: str, words: Iterable[str]) -> set[str]:
    return {keyed_digest(secret, "word", salt, w, size=12) for w in words}


def _said_before(secret: bytes, row: Any, messages: Sequence[Message]) -> set[str]:
    """The ids of `messages` said before a forget in `row` (or an assistant's reply soon after it)
    that hold what it named. A row this code cannot read holds nothing back: capture never fails on it."""
    try:
        forgets = [(_aware(datetime.fromisoformat(f["at"])), str(f["salt"]), [(set(p["words"]), int(p["need"])) for p in f["phrases"]])
                   for f in (row or {}).get("forgets") or []]
    except (AttributeError, KeyError, TypeError, ValueError, OverflowError) as e:
        log.warning("amber: a forget's words row could not be read (%s: %s); turns are not held to it", type(e).__name__, e)
        return set()
    out: set[str] = set()
    for m in messages:
        later = [(salt, phrases) for at, salt, phrases in forgets
                 if at > m.created_at or (m.role == Role.assistant and m.created_at - at <= REPLY_WINDOW)]
        if not later:
            continue
        words = {t for t in tokenize(m.content) if len(t) >= 2}
        for salt, phrases in later:
            said = _digests(secret, salt, words)  # once per forget, not once per phrase
            if any(len(said & wanted) >= need for wanted, need in phrases):
                out.add(m.id)
                break
    return out


def _aware(t: datetime) -> datetime:
    return t if t.tzinfo is not None else t.replace(tzinfo=timezone.utc)
