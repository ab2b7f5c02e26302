"""Users spread over several Chroma servers (shards), each a plain `chroma run`.

One Chroma server does about one core's work and keeps every opened collection's index in memory
(bench/README.md, "Scale-out"), so past one server's reach each user lives on one of several.
`ShardedStore` stands where a `ChromaStore` would and hands each call to the right server:

- **A user's collections** (`amber_<kind>_<user key>`, core/scope.py) go to the user's shard.
- **Their revisions** (`rev:<collection>` registry rows, read by every recall when hosts share the
  store) live with the collection they count, so a recall touches one server.
- **Everything else** (the registry's users, cursors, windows, tombstones, leases, the store's
  format) lives on the home shard, the first one configured.

Where a user lives is kept in Redis (`ShardRoutes`), by the user key: an explicit route once one is
written; a user without one is placed on the shard that already holds their collections (data from
before sharding, or routes lost with Redis), else on the shard a stable hash of the key picks among
the configured names, and that choice is written at once. So adding a shard never moves anyone
silently: only users new to Amber land on it. `amber shards move` (core/store/shard_move.py) is the
one way a user changes shard.

Every process caches routes and checks one counter in Redis (`amber:shards:version`, moved on by
every move, which also appends the user key to the list `amber:shards:moved`) at most every
`check_every_s`; when it moved, the users named since are read again, and their cached collection
handles dropped (the move dropped and created those collections). A write always reads its user's
route afresh, so a write after a move (which holds the user's write lock) lands on the new shard.
A read that fails on a shard the user has just left is tried again where the route now points.
"""

from __future__ import annotations

import hashlib
import logging
import re
import threading
import time
from collections import defaultdict
from typing import Any, Callable, Iterable, Iterator, Sequence

from ..errors import InvalidInput, StoreUnavailable
from .chroma import ChromaStore, _raise_if_outage

log = logging.getLogger("amber.store")

# core/scope.py names a user's collections amber_mem_<key>, amber_msg_<key>, amber_evt_<key>, the key
# 24 hex digits of a hash of the user id; tests/core/test_shards.py checks these still agree
USER_COLLECTION = re.compile(r"^amber_([a-z]+)_([0-9a-f]{24})$")
USER_KINDS = ("mem", "msg", "evt")
REV_PREFIX = "rev:"


def user_key_of(name: str) -> str | None:
    """The user key in a collection's name, or in a `rev:<collection>` registry key; None for the rest."""
    m = USER_COLLECTION.match(name.removeprefix(REV_PREFIX))
    return m.group(2) if m else None


def user_collections(key: str) -> list[str]:
    return [f"amber_{kind}_{key}" for kind in USER_KINDS]


def has_collection(store: ChromaStore, name: str) -> bool:
    try:
        store.client.get_collection(name, embedding_function=None)
    except Exception as e:
        _raise_if_outage(e, f"Chroma collection {name} on {store.location}")
        return False
    return True


def _weight(shard: str, key: str) -> int:
    return int.from_bytes(hashlib.blake2b(f"{shard}\0{key}".encode(), digest_size=8).digest(), "big")


class ShardRoutes:
    """Which shard each user lives on: in Redis, cached in this process (see the module docstring)."""

    def __init__(self, redis: Any, shards: Sequence[str], *, prefix: str = "amber:", check_every_s: float = 0.5):
        self.r = redis
        self.shards = list(shards)
        self.prefix = prefix
        self.check_every_s = check_every_s
        self.existing: Callable[[str], str | None] = lambda key: None  # the shard already holding a user's collections
        self._cache: dict[str, str] = {}
        self._version: int | None = None  # the moves seen; None until the first check
        self._checked = 0.0
        self._guard = threading.Lock()
        self.moved: Callable[[str | None], None] = lambda key: None  # a user moved (None: anyone may have)

    def route_key(self, key: str) -> str:
        return f"{self.prefix}shard:{key}"

    @property
    def version_key(self) -> str:
        return f"{self.prefix}shards:version"

    @property
    def moves_key(self) -> str:
        return f"{self.prefix}shards:moved"

    def hashed(self, key: str) -> str:
        """The shard a new user is placed on: rendezvous hashing over the shard names, so adding a
        shard changes this only for the keys that the new shard wins, and never a written route."""
        return max(self.shards, key=lambda s: _weight(s, key))

    def lookup(self, key: str, *, fresh: bool = False) -> str:
        """The user's shard: cached unless `fresh` or a move happened since it was cached."""
        self._check_version()
        if not fresh and (cached := self._cache.get(key)) is not None:
            return cached
        found = self._redis("reading a shard route", self.r.get, self.route_key(key))
        shard = found.decode() if found is not None else self._place(key)
        if shard not in self.shards:
            raise InvalidInput("chroma_shards", f"user key {key} is routed to shard {shard!r}, which is not configured "
                               f"here ({', '.join(self.shards)}): every host must list the same shards")
        with self._guard:
            self._cache[key] = shard
        return shard

    def _place(self, key: str) -> str:
        """First use of a user: where their data already is, else the hash's pick; written with NX so
        hosts placing the same new user at once agree on the first write."""
        shard = self.existing(key) or self.hashed(key)
        self._redis("writing a shard route", self.r.set, self.route_key(key), shard, nx=True)
        return self._redis("reading a shard route", self.r.get, self.route_key(key)).decode()

    def _check_version(self) -> None:
        """At most every `check_every_s`: the users moved since the last check (anywhere) are
        forgotten here, routes and collection handles, and read again at their next use."""
        now = time.monotonic()
        if now - self._checked < self.check_every_s:
            return
        self._checked = now
        try:
            version = int(self.r.get(self.version_key) or 0)
            seen = self._version if self._version is not None else version
            moved = [m.decode() for m in self.r.lrange(self.moves_key, seen, version - 1)] if version > seen else []
        except Exception as e:  # Redis away: keep the cached routes (no move runs without Redis) and
            self._checked = now + 5.0  # let reads go on without waiting for it at every check
            log.debug("shard routes: version not checked: %s", e)
            return
        if version == seen:
            self._version = version
            return
        with self._guard:
            self._version = version
            if len(moved) != version - seen:  # the list does not account for every move: forget them all
                self._cache.clear()
                moved_keys: list[str | None] = [None]
            else:
                moved_keys = list(dict.fromkeys(moved))
                for key in moved_keys:
                    self._cache.pop(key, None)
        for key in moved_keys:
            self.moved(key)

    def _redis(self, what: str, fn: Callable[..., Any], *args: Any, **kw: Any) -> Any:
        try:
            return fn(*args, **kw)
        except Exception as e:
            raise StoreUnavailable(f"shard routes (Redis) unreachable while {what}: {type(e).__name__}: {e}") from e


class ShardedStore:
    """The store's interface over several ChromaStores, one per shard (see the module docstring)."""

    sealer = None  # records in a Chroma server are not sealed
    disk = None

    def __init__(self, shards: dict[str, ChromaStore], routes: ShardRoutes):
        if not shards:
            raise InvalidInput("chroma_shards", "no shard configured")
        self.shards = shards
        self.home = next(iter(shards))
        self.routes = routes
        routes.moved = self._moved
        routes.existing = self.existing_shard
        self.location = "shards: " + ", ".join(f"{n}={s.location}" for n, s in shards.items())

    @property
    def fence(self) -> Callable[[], None]:
        return self.shards[self.home].fence

    @fence.setter
    def fence(self, check: Callable[[], None]) -> None:
        for s in self.shards.values():
            s.fence = check

    def existing_shard(self, key: str) -> str | None:
        """The shard already holding one of the user's collections (placing a user without a route)."""
        for name, s in self.shards.items():
            if any(has_collection(s, c) for c in user_collections(key)):
                return name
        return None

    def _moved(self, key: str | None) -> None:
        """A user moved: the collections this process has handles for were dropped and created again."""
        log.info("shard routes: %s moved; cached routes and collection handles dropped", f"user key {key}" if key else "users")
        self.forget_handles(f"_{key}" if key else "")

    def shard_of(self, name: str, *, fresh: bool = False) -> str:
        key = user_key_of(name)
        return self.routes.lookup(key, fresh=fresh) if key else self.home

    def _on(self, name: str, call: Callable[[ChromaStore], Any], *, write: bool = False) -> Any:
        """`call` on the shard that holds `name` (a collection or registry key). A write reads the route
        afresh; a read that fails is tried once more where the route points now, if that changed."""
        shard = self.shard_of(name, fresh=write)
        try:
            return call(self.shards[shard])
        except Exception:
            if write or (now := self._moved_to(name, shard)) is None:
                raise
        return call(self.shards[now])

    def _moved_to(self, name: str, shard: str) -> str | None:
        """After a read of `name` failed on `shard`: the shard its user's route points to now, if
        that changed (the user moved meanwhile; the read is tried there once), else None."""
        key = user_key_of(name)
        if key is None or (now := self.routes.lookup(key, fresh=True)) == shard:
            return None
        log.info("read of %s retried on shard %s: the user moved from %s", name, now, shard)
        return now

    def _by_shard(self, keys: Iterable[str], *, write: bool) -> dict[str, list[str]]:
        out: dict[str, list[str]] = defaultdict(list)
        for k in keys:
            out[self.shard_of(k, fresh=write)].append(k)
        return out

    # ---- the ChromaStore interface, routed ------------------------------------------------------

    def close(self) -> None:
        for s in self.shards.values():
            s.close()

    def list_collections(self) -> list[str]:
        return [c for s in self.shards.values() for c in s.list_collections()]

    def ping(self) -> None:
        for name, s in self.shards.items():
            try:
                s.ping()
            except StoreUnavailable as e:
                raise StoreUnavailable(f"shard {name}: {e}") from e

    def disk_status(self) -> None:
        return None  # each Chroma server's disk is its own

    def seal_existing(self) -> int:
        return 0

    @property
    def on_set_aside(self) -> Callable[[], None]:
        return self.shards[self.home].on_set_aside

    @on_set_aside.setter
    def on_set_aside(self, wake: Callable[[], None]) -> None:
        for s in self.shards.values():
            s.on_set_aside = wake

    def vectors_to_rebuild(self) -> list[str]:
        """What every shard whose files are within reach (`chroma_shard_data_paths`) lists."""
        return sorted({name for s in self.shards.values() for name in s.vectors_to_rebuild()})

    def vectors_rebuilt(self, name: str) -> None:
        for s in self.shards.values():
            s.vectors_rebuilt(name)

    def restore_vectors(self, col: str, vectors: dict[str, Sequence[float]], records: dict[str, str]) -> int:
        return self._on(col, lambda s: s.restore_vectors(col, vectors, records), write=True)

    def move_event_logs(self) -> int:
        """A store-wide migration (core/store/format.py) runs on every shard."""
        return sum(s.move_event_logs() for s in self.shards.values())

    def collection_embedder(self, name: str) -> str | None:
        return self._on(name, lambda s: s.collection_embedder(name))

    def read_raw(self, name: str) -> list[dict[str, Any]]:
        return self._on(name, lambda s: s.read_raw(name))

    def drop(self, name: str) -> None:
        self._on(name, lambda s: s.drop(name), write=True)

    def put_memories(self, col: str, memories: Sequence[Any], embeddings: Any, *, rev: int | None = None) -> None:
        self._on(col, lambda s: s.put_memories(col, memories, embeddings, rev=rev), write=True)

    def get_memories(self, col: str, ids: Sequence[str]) -> list[Any]:
        return self._on(col, lambda s: s.get_memories(col, ids))

    def find_memories(self, col: str, where: Any, *, limit: int | None = None) -> list[Any]:
        return self._on(col, lambda s: s.find_memories(col, where, limit=limit))

    def query_memories(self, col: str, embedding: Sequence[float], k: int, where: Any) -> list[Any]:
        return self._on(col, lambda s: s.query_memories(col, embedding, k, where))

    def nearest_ids(self, col: str, embedding: Sequence[float], k: int, where: Any = None) -> list[tuple[str, float]]:
        return self._on(col, lambda s: s.nearest_ids(col, embedding, k, where))

    def memory_embeddings(self, col: str, ids: Sequence[str]) -> dict[str, list[float]]:
        return self._on(col, lambda s: s.memory_embeddings(col, ids))

    def delete_records(self, col: str, ids: Sequence[str], *, vectors: bool = True) -> None:
        self._on(col, lambda s: s.delete_records(col, ids, vectors=vectors), write=True)

    def reseal(self, col: str, ids: Sequence[str]) -> int:
        return self._on(col, lambda s: s.reseal(col, ids), write=True)

    def count(self, col: str, *, vectors: bool = True) -> int:
        return self._on(col, lambda s: s.count(col, vectors=vectors))

    def put_messages(self, col: str, messages: Sequence[Any], texts: Sequence[str], embeddings: Any, *, rev: int | None = None) -> None:
        self._on(col, lambda s: s.put_messages(col, messages, texts, embeddings, rev=rev), write=True)

    def existing_ids(self, col: str, ids: Sequence[str]) -> set[str]:
        return self._on(col, lambda s: s.existing_ids(col, ids))

    def get_messages(self, col: str, ids: Sequence[str]) -> dict[str, Any]:
        return self._on(col, lambda s: s.get_messages(col, ids))

    def find_messages(self, col: str, where: Any) -> list[Any]:
        return self._on(col, lambda s: s.find_messages(col, where))

    def each_message(self, col: str, where: Any = None) -> Iterator[Any]:
        """Read page by page where the route points; a read that fails before its first turn is
        tried once more where the route points now, if the user moved meanwhile (as `_on` does)."""
        shard, started = self.shard_of(col), False
        try:
            for m in self.shards[shard].each_message(col, where):
                started = True
                yield m
            return
        except Exception:
            if started or (now := self._moved_to(col, shard)) is None:
                raise
        yield from self.shards[now].each_message(col, where)

    def put_rows(self, col: str, rows: Sequence[tuple[str, dict[str, Any]]]) -> None:
        self._on(col, lambda s: s.put_rows(col, rows), write=True)

    def find_rows(self, col: str, where: Any, limit: int | None = None) -> list[dict[str, Any]]:
        return self._on(col, lambda s: s.find_rows(col, where, limit))

    def forget_handles(self, suffix: str) -> None:
        for s in self.shards.values():
            s.forget_handles(suffix)

    # ---- the registry: `rev:<collection>` with its collection, the rest on the home shard -------

    def reg_get(self, key: str) -> Any | None:
        return self._on(key, lambda s: s.reg_get(key))

    def reg_put(self, key: str, value: Any, *, kind: str, owner: str = "") -> None:
        self._on(key, lambda s: s.reg_put(key, value, kind=kind, owner=owner), write=True)

    def reg_get_many(self, keys: Iterable[str]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for shard, part in self._by_shard(keys, write=False).items():
            out.update(self.shards[shard].reg_get_many(part))
        return out

    def reg_put_many(self, items: Iterable[tuple[str, Any]], *, kind: str, owner: str = "") -> None:
        items = list(items)
        values = dict(items)
        for shard, part in self._by_shard([k for k, _ in items], write=True).items():
            self.shards[shard].reg_put_many([(k, values[k]) for k in part], kind=kind, owner=owner)

    def reg_delete(self, keys: Iterable[str]) -> None:
        for shard, part in self._by_shard(keys, write=True).items():
            self.shards[shard].reg_delete(part)

    def reg_find(self, kind: str, owner: str | None = None) -> dict[str, Any]:
        if kind != "rev":  # only revisions are kept away from the home shard
            return self.shards[self.home].reg_find(kind, owner)
        out: dict[str, Any] = {}
        for s in self.shards.values():
            out.update(s.reg_find(kind, owner))
        return out


__all__ = ["ShardRoutes", "ShardedStore", "user_collections", "user_key_of"]
