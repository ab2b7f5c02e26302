"""The store's registry: small JSON records by key, beside the users' collections.

It holds the list of users, collection revisions (when hosts share a store server), the jobs'
cursors, extraction windows, leases and run records (core/jobs/registry.py) and the client cache
(core/client_cache.py). `Registry` is the narrow view of the store those need: whoever holds one
reads and writes registry records and nothing else, never a memory, a turn or an audit row.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Protocol


class RegistryStore(Protocol):
    """What a registry is kept in: the store (core/store), or a `Registry` view of it."""

    def reg_get(self, key: str) -> Any | None: ...

    def reg_put(self, key: str, value: Any, *, kind: str, owner: str = "") -> None: ...

    def reg_get_many(self, keys: Iterable[str]) -> dict[str, Any]: ...

    def reg_put_many(self, items: Iterable[tuple[str, Any]], *, kind: str, owner: str = "") -> None: ...

    def reg_delete(self, keys: Iterable[str]) -> None: ...

    def reg_find(self, kind: str, owner: str | None = None) -> dict[str, Any]: ...


class Registry:
    """Registry records only: get, put, delete by key, and find by kind (and owner)."""

    def __init__(self, store: RegistryStore):
        self._store = store

    def reg_get(self, key: str) -> Any | None:
        return self._store.reg_get(key)

    def reg_put(self, key: str, value: Any, *, kind: str, owner: str = "") -> None:
        self._store.reg_put(key, value, kind=kind, owner=owner)

    def reg_get_many(self, keys: Iterable[str]) -> dict[str, Any]:
        """The records found among `keys`, by key (one read, however many keys)."""
        return self._store.reg_get_many(keys)

    def reg_put_many(self, items: Iterable[tuple[str, Any]], *, kind: str, owner: str = "") -> None:
        """(key, value) records of one kind and owner, written together."""
        self._store.reg_put_many(items, kind=kind, owner=owner)

    def reg_delete(self, keys: Iterable[str]) -> None:
        self._store.reg_delete(keys)

    def reg_find(self, kind: str, owner: str | None = None) -> dict[str, Any]:
        return self._store.reg_find(kind, owner)


# What a person owns in the registry besides their row, tombstones and secret, each filed under the
# pseudonym of their id (core/scope.py user_key): the jobs' cursors and extraction windows (which
# hold turn ids and a model's error text) and the client cache (values a client put). Erasing the
# person removes them all.
PERSON_KINDS = ("cursor", "window", "cache")


def drop_person(registry: RegistryStore, user_id: str, sealer: Any = None) -> int:
    """Remove every PERSON_KINDS record of `user_id`, and the keys their sealed cache entries were
    sealed under (`sealer`, an embedded store's). Returns how many records went."""
    from .client_cache import cache_collection
    from .scope import user_key

    keys = [k for kind in PERSON_KINDS for k in registry.reg_find(kind, user_key(user_id))]
    if keys:
        registry.reg_delete(keys)
    if sealer is not None:
        sealer.keys.destroy_collection(cache_collection(user_id))
    return len(keys)

