"""A small per-user key/value cache for clients (e.g. a filter remembering what it injected).

Entries live in the store's registry (`service.registry`, core/registry.py), keyed by a pseudonym
of the user so one user's entries can never be addressed by another. Values are JSON, at most
64 KiB; an optional TTL makes them expire.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .errors import InvalidInput, NotFound
from .scope import Scope, user_key

if TYPE_CHECKING:
    from .service import MemoryService

MAX_VALUE_BYTES = 64 * 1024
MAX_TTL_S = 365 * 24 * 3600
_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:\-]{0,63}\Z")
_KEY_RE = re.compile(r"^[^\x00-\x1f/]{1,200}\Z")


class ClientCache:
    """get / put / delete of `(namespace, key)` entries for the scope's user."""

    def __init__(self, service: MemoryService):
        self.service = service
        self.sealer = service.writes.sealer

    def _id(self, scope: Scope, namespace: str, key: str) -> str:
        if not _NAME_RE.match(namespace):
            raise InvalidInput("namespace", "1-64 characters: letters, digits, '.', '_', ':', '-'")
        if not _KEY_RE.match(key):
            raise InvalidInput("key", "1-200 printable characters, no '/'")
        # a client's key may be words of the person's: keyed by their secret, like every id derived from words
        return "cache:" + self.service.writes.keyed(scope, "cache", namespace, key, size=40)

    @staticmethod
    def _owner(scope: Scope) -> str:
        return user_key(scope.user_id)  # erase_person and a forget find the person's entries by it

    def get(self, scope: Scope, namespace: str, key: str) -> dict[str, Any]:
        rid = self._id(scope, namespace, key)
        row = self.service.registry.reg_get(rid)
        entry = opened(self.sealer, scope.user_id, rid, row)
        now = self.service.clock.now().timestamp()
        if entry is None or (entry.get("expires_at") and entry["expires_at"] <= now):
            if row is not None:
                self._delete(scope, rid)
            raise NotFound(f"no cache entry {namespace}/{key}")
        return entry

    def put(self, scope: Scope, namespace: str, key: str, value: Any, ttl_s: float | None = None) -> dict[str, Any]:
        rid = self._id(scope, namespace, key)
        if ttl_s is not None and not 0 < ttl_s <= MAX_TTL_S:
            raise InvalidInput("ttl_s", f"must be between 0 and {MAX_TTL_S} seconds")
        if len(json.dumps(value, ensure_ascii=False).encode()) > MAX_VALUE_BYTES:
            raise InvalidInput("value", f"at most {MAX_VALUE_BYTES} bytes of JSON")
        now = self.service.clock.now().timestamp()
        entry = {
            "namespace": namespace,
            "key": key,
            "value": value,
            "updated_at": now,
            "expires_at": now + ttl_s if ttl_s else None,
        }
        if self.sealer is None:
            self.service.registry.reg_put(rid, entry, kind="cache", owner=self._owner(scope))
            return entry
        # sealed like a record (core/store/sealing.py): the registry sits in Chroma's files, which keep
        # old versions; a fresh key per write, so an overwritten value opens no more either
        col = cache_collection(scope.user_id)
        self.sealer.renew(col, [rid])
        row = {"sealed": self.sealer.seal(col, [rid], [json.dumps(entry, ensure_ascii=False)])[0], "expires_at": entry["expires_at"]}
        self.service.registry.reg_put(rid, row, kind="cache", owner=self._owner(scope))
        self.sealer.retire(col, [rid])
        return entry

    def delete(self, scope: Scope, namespace: str, key: str) -> None:
        self.get(scope, namespace, key)  # NotFound for a missing entry
        self._delete(scope, self._id(scope, namespace, key))

    def _delete(self, scope: Scope, rid: str) -> None:
        self.service.registry.reg_delete([rid])
        if self.sealer is not None:
            self.sealer.destroy(cache_collection(scope.user_id), [rid])


def cache_collection(user_id: str) -> str:
    """The name a person's cache entries' keys are filed under in the record key table (no Chroma
    collection has it): erasing the person destroys them all (`drop_person`)."""
    return f"amber_cache_{user_key(user_id)}"


def opened(sealer: Any, user_id: str, rid: str, row: Any) -> dict[str, Any] | None:
    """A cache row as its client put it: opened when sealed; None when missing or its key is gone."""
    if not isinstance(row, dict):
        return None
    if "sealed" not in row:
        return row  # written before entries were sealed, or by a store that seals nothing
    text = sealer.open(cache_collection(user_id), rid, row["sealed"]) if sealer is not None else None
    return json.loads(text) if text else None


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [t for k, v in value.items() for t in (*_strings(k), *_strings(v))]
    if isinstance(value, (list, tuple)):
        return [t for v in value for t in _strings(v)]
    return []


def drop_saying(registry: Any, sealer: Any, user_id: str, says_it: Callable[[str], bool]) -> int:
    """A forget reaches the person's cache too: an entry that says what was forgotten anywhere in its
    key or value (a filter's remembered block, say) goes, with its key. Returns how many went."""
    rows = registry.reg_find("cache", user_key(user_id))
    gone = [rid for rid, row in rows.items()
            if (e := opened(sealer, user_id, rid, row)) is not None and any(says_it(t) for t in _strings([e.get("key"), e.get("value")]))]
    if gone:
        registry.reg_delete(gone)
        if sealer is not None:
            sealer.destroy(cache_collection(user_id), gone)
    return len(gone)
