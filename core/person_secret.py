"""One random secret per person, that keys every id Amber derives from their words.

A memory's id derives from what it says, so a write retried after a timeout lands on the same
record. Derived with a plain hash, the id would let anyone who reads it (the audit trail keeps the
ids a forget erased, a store's files keep ids with the words sealed) test a guess of the words:
hash "my sister is called Inès" and compare. So the digest is an HMAC under a 256-bit secret of the
person's, kept in the registry and deleted when the person is erased: without it no guess can be
tested, and after the erasure nobody can. Tombstones are filed under the same secret
(core/tombstones.py); the registry key keeps the name it had when tombstones alone used it.

The secret is made the first time it is needed, under the person's write lock (so two hosts never
make two). A process keeps what it read for a few minutes: another host's erasure of the person
reaches it then, and until then the only effect is that a retried write gets a fresh id instead of
the old one (writes find their earlier copy by its words, not by its id).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import threading
import time
from collections import OrderedDict
from typing import Any, Callable, ContextManager

KIND = "tombstone-secret"
KEPT_S = 300.0  # how long a process trusts a secret it read (another host's erasure shows after this)
KEPT_PEOPLE = 4096  # secrets kept in memory at most, the least recently used go first


def secret_key(user_id: str) -> str:
    return f"tombkey:{user_id}"


class PersonSecrets:
    def __init__(self, registry: Any, *, clock: Callable[[], float] = time.monotonic):
        self._registry = registry
        self._clock = clock
        self._kept: OrderedDict[str, tuple[bytes, float]] = OrderedDict()
        self._guard = threading.Lock()

    def read(self, user_id: str, *, create: bool = False) -> bytes | None:
        """The person's secret as the registry holds it now (made if `create` and there is none).
        The caller that creates holds the person's write lock."""
        found = self._registry.reg_get(secret_key(user_id))
        if found is None and create:
            found = secrets.token_hex(32)
            self._registry.reg_put(secret_key(user_id), found, kind=KIND, owner=user_id)
        secret = bytes.fromhex(found) if found else None
        if secret is not None:
            self._keep(user_id, secret)
        return secret

    def get(self, user_id: str, lock: Callable[[], ContextManager[Any]]) -> bytes:
        """The person's secret, from memory when it was read lately; made under `lock` (the person's
        write lock, re-entrant) if they have none."""
        with self._guard:
            kept = self._kept.get(user_id)
            if kept is not None and self._clock() - kept[1] < KEPT_S:
                self._kept.move_to_end(user_id)
                return kept[0]
        secret = self.read(user_id)
        if secret is None:
            with lock():
                secret = self.read(user_id, create=True)
        assert secret is not None
        return secret

    def drop(self, user_id: str) -> None:
        """The person is erased: the secret goes from the registry and from this process."""
        with self._guard:
            self._kept.pop(user_id, None)
        self._registry.reg_delete([secret_key(user_id)])

    def _keep(self, user_id: str, secret: bytes) -> None:
        with self._guard:
            self._kept[user_id] = (secret, self._clock())
            self._kept.move_to_end(user_id)
            while len(self._kept) > KEPT_PEOPLE:
                self._kept.popitem(last=False)


def keyed_digest(secret: bytes, *parts: str, size: int = 24) -> str:
    """Hex HMAC-SHA256 of the parts (joined by a unit separator), `size` characters of it."""
    return hmac.new(secret, "\x1f".join(parts).encode("utf-8", "surrogatepass"), hashlib.sha256).hexdigest()[:size]
