"""What a person made Amber forget: ids and times, never words.

A forget removes records for good. What is left is a tombstone per record in the registry, so that
nothing forgotten comes back by another door: a turn replayed from the proxy's journal or the
shared capture queue, a restore, an import of an old export. A tombstone keeps the record's kind,
the status it had, when it was made and when it was forgotten; no text, no vector and no plain
hash. A tombstone is filed under an HMAC of the record's id, keyed by the person's secret
(core/person_secret.py, deleted with the person): the registry does not even say which ids were
forgotten, and once the person is erased nobody can tell.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Iterable, Sequence

from .person_secret import PersonSecrets, keyed_digest
from .registry import Registry

KIND = "tombstone"


class Tombstones:
    def __init__(self, registry: Registry, secrets: PersonSecrets | None = None):
        self._registry = registry
        self._secrets = secrets or PersonSecrets(registry)

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

    def get(self, user_id: str, record_id: str) -> dict[str, Any] | None:
        """The tombstone of one record, if it was forgotten."""
        secret = self._secret(user_id, create=False)
        return self._registry.reg_get(self._key(user_id, self._ref(secret, record_id))) if secret else None

    def count(self, user_id: str) -> int:
        return len(self._registry.reg_find(KIND, user_id))

    def remove_user(self, user_id: str) -> int:
        """A person erased as a whole: their tombstones and the secret that files them go."""
        keys = list(self._registry.reg_find(KIND, user_id))
        self._registry.reg_delete(keys)
        self._secrets.drop(user_id)
        return len(keys)
