"""Moving one user to another shard (`amber shards move USER TO`), losing and doubling nothing.

1. Take the user's write lock: hosts' writes for them wait (a capture queue entry waits its turn);
   reads go on from the old shard, which holds everything until step 5.
2. **copy** every collection of the user to the target with upserts, and their revisions
   (`rev:<collection>`). A collection Chroma holds as such is copied as Chroma holds it, page by
   page (vectors, metadata, documents); the audit log, which chroma.py may keep as the user's rows
   of a collection shared by everyone on the shard, is copied row by row through the store.
3. Verify: the target holds exactly the source's ids, collection by collection; ids an earlier
   attempt left there that the source no longer has are deleted, a missing one stops the move.
4. Flip: the route, this move's step, the routes' version and the list of moved users change in
   one Redis transaction; from here every write reads the new route, and hosts drop the user's
   cached route and collection handles within a version check (`ShardRoutes.check_every_s`).
5. **drop**: after `grace_s` (reads that started on the old shard finish), the user's
   collections and revisions are dropped from the source, then the move's state is deleted.

The move's state (`amber:shardmove:<user key>`: source, target, step) is in Redis, so a mover
killed at any point is run again with the same command: in `copy` it copies again over what is
there (upserts of the same ids), in `drop` it drops what is left. A different target is refused
until the unfinished move is finished.
"""

from __future__ import annotations

import json
import logging
import time
from contextlib import AbstractContextManager
from typing import Any, Callable

from ..errors import InvalidInput, StoreUnavailable
from ..scope import user_key
from .chroma import ChromaStore, _get_paged
from .chroma_query import blank_vectors
from .index_pool import index_settings
from .shards import REV_PREFIX, ShardedStore, has_collection, user_collections, user_key_of

log = logging.getLogger("amber.shards")


class ShardMover:
    """Moves users between the shards of `store`, under `lock(user_id)` (the hosts' write lock)."""

    def __init__(self, store: ShardedStore, lock: Callable[[str], AbstractContextManager[Any]], *,
                 grace_s: float = 2.0, batch: int = 1000, say: Callable[[str], None] = lambda line: None):
        self.store = store
        self.routes = store.routes
        self.r = store.routes.r
        self.lock = lock
        self.grace_s = grace_s
        self.batch = batch
        self.say = say  # one line per step, for the command's output

    def state_key(self, key: str) -> str:
        return f"{self.routes.prefix}shardmove:{key}"

    def unfinished(self, key: str) -> dict[str, str] | None:
        found = self.r.get(self.state_key(key))
        return json.loads(found) if found else None

    def collections(self, shard: str, key: str) -> list[str]:
        """The user's collections on a shard, by the names core/scope.py gives them: those Chroma
        holds as collections of their own (whatever their kind), and the audit log however kept."""
        held = {c for c in self.store.shards[shard].list_collections() if user_key_of(c) == key}
        return sorted(held | set(user_collections(key)))

    def move(self, user_id: str, to: str) -> dict[str, Any]:
        if to not in self.store.shards:
            raise InvalidInput("shard", f"no shard named {to!r} (configured: {', '.join(self.store.shards)})")
        key = user_key(user_id)
        with self.lock(user_id):
            state = self.unfinished(key)
            if state and state["to"] != to:
                raise InvalidInput("shard", f"this user's move to {state['to']} is unfinished: run "
                                   f"`amber shards move {user_id} {state['to']}` first")
            if state is None:
                source = self.routes.lookup(key, fresh=True)
                if source == to:
                    self.say(f"already on {to}")
                    return {"moved": False, "shard": to}
                state = {"from": source, "to": to, "step": "copy"}
                self.r.set(self.state_key(key), json.dumps(state))
            else:
                self.say(f"resuming the move from {state['from']} to {to} at step {state['step']}")
            src, dst = self.store.shards[state["from"]], self.store.shards[to]
            counts: dict[str, int] = {}
            if state["step"] == "copy":
                for name in self.collections(state["from"], key):
                    counts[name] = self._copy(src, dst, name) if has_collection(src, name) else self._copy_rows(src, dst, name)
                    self.say(f"copied {name}: {counts[name]} records, ids verified")
                revs = src.reg_get_many(REV_PREFIX + name for name in counts)
                if revs:
                    dst.reg_put_many(revs.items(), kind="rev")
                self._flip(key, state)
                self.say(f"route flipped: {state['from']} -> {to}")
            time.sleep(self.grace_s)  # reads that started on the source before the flip end there
            names = self.collections(state["from"], key)
            for name in names:  # drop() knows how the store keeps each: a collection, or rows of a shared one
                src.drop(name)
            src.reg_delete([REV_PREFIX + name for name in names])
            self.r.delete(self.state_key(key))
            self.say(f"dropped the user's collections from {state['from']}; move done")
        return {"moved": True, "from": state["from"], "to": to, "records": counts}

    def _copy(self, src: ChromaStore, dst: ChromaStore, name: str) -> int:
        """Every record of one collection, in pages, then the two id sets compared."""
        source = src.client.get_collection(name, embedding_function=None)
        vectors = (source.metadata or {}).get("amber:vectors") != "none"
        target = dst.client.get_or_create_collection(name, metadata=source.metadata or None, embedding_function=None,
                                                     configuration={"hnsw": index_settings(vectors, mendable=dst.mender is not None)})
        offset = 0
        while True:
            page = source.get(limit=self.batch, offset=offset, include=["embeddings", "metadatas", "documents"])
            if not page["ids"]:
                break
            self._upsert(target, page)
            offset += len(page["ids"])
            if offset % (self.batch * 10) == 0:
                self.say(f"  {name}: {offset} records copied")
        have = set(_get_paged(source, None, [], None)["ids"])
        there = set(_get_paged(target, None, [], None)["ids"])
        if have - there:
            raise StoreUnavailable(f"{name}: {len(have - there)} record(s) missing on the target after the copy; run the move again")
        if stale := sorted(there - have):  # left by an attempt from a time the source held them: not the user's any more
            if vectors:  # erased at the source since: their vectors go too (chroma_query.blank_vectors)
                blank_vectors(target, stale, dst.dim)
            target.delete(ids=stale)
        return len(have)

    def _copy_rows(self, src: ChromaStore, dst: ChromaStore, name: str) -> int:
        """Metadata-only rows (the audit log) through the store, which knows where it keeps them."""
        rows = src.find_rows(name, None)
        for i in range(0, len(rows), self.batch):
            dst.put_rows(name, [(r["id"], {k: v for k, v in r.items() if k != "id"}) for r in rows[i : i + self.batch]])
        have, there = {r["id"] for r in rows}, {r["id"] for r in dst.find_rows(name, None)}
        if have - there:
            raise StoreUnavailable(f"{name}: {len(have - there)} row(s) missing on the target after the copy; run the move again")
        if there - have:
            dst.delete_records(name, sorted(there - have), vectors=False)
        return len(have)

    @staticmethod
    def _upsert(target: Any, page: dict[str, Any]) -> None:
        """Rows with a document and rows without one (audit and registry rows) in separate upserts:
        Chroma takes a documents list only when every row has one."""
        rows = list(zip(page["ids"], page["embeddings"], page["metadatas"], page["documents"]))
        for with_doc in (True, False):
            part = [r for r in rows if (r[3] is not None) == with_doc]
            if part:
                target.upsert(ids=[r[0] for r in part], embeddings=[list(map(float, r[1])) for r in part],
                              metadatas=[r[2] for r in part], **({"documents": [r[3] for r in part]} if with_doc else {}))

    def _flip(self, key: str, state: dict[str, str]) -> None:
        """Route, step and version in one transaction: a kill cannot leave one without the others."""
        state["step"] = "drop"
        with self.r.pipeline(transaction=True) as p:
            p.set(self.routes.route_key(key), state["to"])
            p.set(self.state_key(key), json.dumps(state))
            p.incr(self.routes.version_key)
            p.rpush(self.routes.moves_key, key)  # hosts drop this user's cached route and handles
            p.execute()

    # ---- what the command shows ------------------------------------------------------------------

    def show(self, user_id: str) -> dict[str, Any]:
        key = user_key(user_id)
        route = self.r.get(self.routes.route_key(key))
        return {
            "user_key": key, "shard": route.decode() if route else None,
            "unfinished_move": self.unfinished(key),
            "records": {shard: {c: n for c in self.collections(shard, key) if (n := self._count(s, c))}
                        for shard, s in self.store.shards.items()},
        }

    @staticmethod
    def _count(store: ChromaStore, name: str) -> int:
        if has_collection(store, name):
            return store.client.get_collection(name, embedding_function=None).count()
        return len(store.find_rows(name, None))

    def list(self) -> list[dict[str, Any]]:
        """Each shard: its URL, whether it answers, its collections and the users routed to it."""
        routed: dict[str, int] = {}
        for k in self.r.scan_iter(match=self.routes.route_key("*"), count=1000):
            shard = self.r.get(k)
            if shard is not None:
                routed[shard.decode()] = routed.get(shard.decode(), 0) + 1
        out = []
        for name, s in self.store.shards.items():
            try:
                s.ping()
                row: dict[str, Any] = {"answers": True, "collections": s.client.count_collections()}
            except StoreUnavailable as e:
                row = {"answers": False, "error": str(e)}
            out.append({"shard": name, "url": s.location, "home": name == self.store.home,
                        "users_routed": routed.get(name, 0), **row})
        moves = sum(1 for _ in self.r.scan_iter(match=self.state_key("*"), count=1000))
        return out + ([{"unfinished_moves": moves}] if moves else [])
