"""A small per-user key/value cache for clients (e.g. a filter remembering what it injected).

Entries live in the store's registry (`service.registry`, core/registry.py), keyed by a pseudonym
of the user so one user's entries can never be addressed by another. Values are JSON, at most
64 KiB; an optional TTL makes them expire.
"""

from __future__ import annotations

import hashlib
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
_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:\-]{0,63}$")
_KEY_RE = re.compile(r"^[^\x00-\x1f/]{1,200}$")


class ClientCache:
    """get / put / delete of `(namespace, key)` entries for the scope's user."""

    def __init__(self, service: MemoryService):
        self.service = service

    @staticmethod
    def _id(scope: Scope, namespace: str, key: str) -> str:
        if not _NAME_RE.match(namespace):
            raise InvalidInput("namespace", "1-64 characters: letters, digits, '.', '_', ':', '-'")
        if not _KEY_RE.match(key):
            raise InvalidInput("key", "1-200 printable characters, no '/'")
        digest = hashlib.sha256("\x1f".join([scope.user_id, namespace, key]).encode()).hexdigest()[:40]
        return f"cache:{digest}"

    @staticmethod
    def _owner(scope: Scope) -> str:
        return user_key(scope.user_id)  # erase_person and a forget find the person's entries by it

    def get(self, scope: Scope, namespace: str, key: str) -> dict[str, Any]:
        rid = self._id(scope, namespace, key)
        entry = self.service.registry.reg_get(rid)
        now = self.service.clock.now().timestamp()
        if entry is None or (entry.get("expires_at") and entry["expires_at"] <= now):
            if entry is not None:
                self.service.registry.reg_delete([rid])
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
        self.service.registry.reg_put(rid, entry, kind="cache", owner=self._owner(scope))
        return entry

    def delete(self, scope: Scope, namespace: str, key: str) -> None:
        self.get(scope, namespace, key)  # NotFound for a missing entry
        self.service.registry.reg_delete([self._id(scope, namespace, key)])


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [t for k, v in value.items() for t in (*_strings(k), *_strings(v))]
    if isinstance(value, (list, tuple)):
        return [t for v in value for t in _strings(v)]
    return []


def drop_saying(registry: Any, user_id: str, says_it: Callable[[str], bool]) -> int:
    """A forget reaches the person's cache too: an entry that says what was forgotten anywhere in its
    key or value (a filter's remembered block, say) goes. Returns how many went."""
    rows = registry.reg_find("cache", user_key(user_id))
    gone = [rid for rid, e in rows.items() if isinstance(e, dict) and any(says_it(t) for t in _strings([e.get("key"), e.get("value")]))]
    if gone:
        registry.reg_delete(gone)
    return len(gone)
