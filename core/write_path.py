"""The write path: the one way a user's records change.

`WritePath` takes the user's write lock (in process, or shared with other hosts through
core/coordination.py), writes, records the change in the audit trail, moves the collection's
revision and keeps the recall indexes current. `MemoryService`, its collaborators
(core/curated_kinds.py, review.py, portability.py, forgetting.py, access.py), the jobs (core/jobs/writes.py)
and the repair at start-up (core/repair.py) all change records through it, so a rule about writes
(precious memories are append-only, a job patches what is stored now rather than writing back
what it read) is kept in one place. One write leaves the revision where it is: the access counts
recall keeps (`record_access` says why).
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import datetime
from typing import Any

from .errors import Immutable, NotFound
from .filters import Eq, Where
from .model import Event, Kind, Memory, MemoryIn, Message, Status, WriteResult, content_hash, embed_text, memory_id
from .ports import Clock, Embedder
from .person_secret import PersonSecrets, keyed_digest
from .registry import RegistryStore
from .scope import Scope, event_collection, memory_collection
from .store.at_once import AtOnce
from .store.gate import writing
from .store.scrub import scrub_erased
from .supersede import require_current


class Revisions:
    """Collection revisions, which tell the recall indexes they are stale: counted in process for
    an embedded store (one owner), kept in the registry when hosts share a store server (each host
    reads the others' writes there).

    A write of records stamps them with the revision it publishes (`stamp`), so an index behind by
    other hosts' writes reads back only the records stamped past it (core/recall/catch_up.py). What
    stamps cannot say is kept beside the revision, in `chg:<collection>`, before it is published:
    the ids removed for good at each revision (a forget, a purge), and the last revision of a change
    an index cannot follow record by record (`full`: an import, turns rewritten, a whole collection
    dropped, any bump without a stamp), which indexes behind it rebuild over."""

    KEEP = 64  # removals remembered per collection; an index behind the oldest one rebuilds
    MAX_IDS = 2000  # a removal of more ids than this is kept as a change to rebuild over

    def __init__(self, registry: RegistryStore, *, shared: bool, at_once: AtOnce | None = None):
        self._registry = registry
        self._shared = shared
        self._at_once = at_once or AtOnce()
        self.one_owner = not shared  # an embedded store: this process alone writes it
        self._revs: dict[str, int] = {}
        self._chg: dict[str, dict[str, Any]] = {}  # one owner's changes (the registry's when shared)
        self._read = threading.local()  # shared: revisions read under the user's lock this thread holds (`read_with`)

    def get(self, col: str) -> int:
        read = getattr(self._read, "revs", None)
        if read and col in read:
            self._revs[col] = read.pop(col)
        elif col not in self._revs or self._shared:
            self._revs[col] = int(self._registry.reg_get(f"rev:{col}") or 0)
        return self._revs[col]

    def read_with(self, key: str, col: str, also: dict[str, Any] | None = None) -> Any:
        """The registry row `key`, and `col`'s revision in the same read when shared: the write about
        to stamp `col` takes it from here instead of asking again. Only under the user's lock, which
        no other host moves the revision without; `forget_read` drops it when the lock goes. `also`:
        more rows to read in that same call, filled in place (None where there is none)."""
        extra = list(also or ())
        if not self._shared:
            found = self._registry.reg_get_many([key, *extra]) if extra else {key: self._registry.reg_get(key)}
        else:
            found = self._registry.reg_get_many([key, f"rev:{col}", *extra])
        if also is not None:
            also.update({k: found.get(k) for k in extra})
        if not self._shared:
            return found.get(key)
        if not hasattr(self._read, "revs"):
            self._read.revs = {}
        self._read.revs[col] = int(found.get(f"rev:{col}") or 0)
        return found.get(key)

    def forget_read(self) -> None:
        if getattr(self._read, "revs", None):
            self._read.revs.clear()

    def get_many(self, cols: Sequence[str]) -> dict[str, int]:
        """`get` of several collections, in one registry read when shared; with one owner, one read of
        those not yet counted here (a person's first recall since the host started)."""
        if self._shared:
            found = self._registry.reg_get_many([f"rev:{c}" for c in cols])
            self._revs.update({c: int(found.get(f"rev:{c}") or 0) for c in cols})
            return {c: self._revs[c] for c in cols}
        held = getattr(self._read, "revs", None) or {}
        unread = [c for c in cols if c not in self._revs and c not in held]
        if len(unread) > 1:
            found = self._registry.reg_get_many([f"rev:{c}" for c in unread])
            self._revs.update({c: int(found.get(f"rev:{c}") or 0) for c in unread})
        return {c: self.get(c) for c in cols}

    def stamp(self, col: str) -> int:
        """The revision the next write will publish: the caller holds the user's lock until it has
        passed this to `bump`, so nobody moves the revision between the two."""
        return self.get(col) + 1

    def changes(self, col: str) -> tuple[int, list[tuple[int, list[str]]]]:
        """(the last revision indexes must rebuild over, [(revision, ids removed for good)])."""
        row = (self._registry.reg_get(f"chg:{col}") if self._shared else self._chg.get(col)) or {}
        return int(row.get("full", 0)), [(int(r), list(ids)) for r, ids in row.get("gone", [])]

    def bump(self, col: str, noted: Callable[[int, int], None] | None = None, *, stamp: int | None = None,
             gone: Sequence[str] | None = None, beside: Callable[[], None] | None = None) -> tuple[int, int]:
        """Move the revision on. `stamp`: the revision the written records carry; `gone`: the ids
        this change removed for good; with neither, indexes behind it rebuild. `noted(old, new)`
        tells this host's recall indexes first: published before them, the new revision made a
        concurrent recall find its index one revision behind and read the person's whole collection
        again (seconds for a big user), for a write that was about to be noted anyway. An index
        ahead of the published revision is current (core/recall). `beside`: a write that goes to the
        store together with the revision's (the audit row of the change; store/at_once.py): both
        follow the records' write, neither waits for the other, and both have ended on return."""
        # a stamp was read under the user's lock the writer still holds (its writes are fenced): no second read
        old = stamp - 1 if stamp is not None else self.get(col)
        if stamp is None or gone is not None:
            self._changed(col, old + 1, gone)
        if noted is not None:
            noted(old, old + 1)
        self._revs[col] = old + 1
        calls = [beside] if beside is not None else []
        if self._shared:  # other hosts read it to know their indexes are stale; one owner needs no record
            calls.append(lambda: self._registry.reg_put(f"rev:{col}", old + 1, kind="rev"))
        self._at_once(*calls, writes=True)
        return old, old + 1

    def _changed(self, col: str, new: int, gone: Sequence[str] | None) -> None:
        full, removed = self.changes(col)
        if gone is None or len(gone) > self.MAX_IDS:
            full = new
        else:
            removed.append((new, list(gone)))
        while len(removed) > self.KEEP:
            full = max(full, removed.pop(0)[0])
        row = {"full": full, "gone": [[r, ids] for r, ids in removed if r > full]}
        if self._shared:
            self._registry.reg_put(f"chg:{col}", row, kind="chg")
        else:
            self._chg[col] = row


class Prior:
    """What `WritePath.prior` read: `found`, the records of the key or with the words, and `taken()`,
    whether a record holds the new memory's id (asked of the store on first use where `found`
    cannot say and it was not asked with them)."""

    def __init__(self, found: list[Memory], mid: str, held: Callable[[], bool] | None, buried: bool = False):
        self.found = found
        self._mid = mid
        self._held = held
        self._taken: bool | None = True if buried else None  # a forgotten record's id is taken for good

    def actives(self, namespace: str) -> list[Memory]:
        """The active records found in `namespace` (of a key: its live versions)."""
        return [m for m in self.found if m.status == Status.active and m.namespace == namespace]

    def taken(self) -> bool:
        if self._taken is None:
            self._taken = any(m.id == self._mid for m in self.found) or (self._held is not None and self._held())
        return self._taken


def event_rows(ev: Event) -> list[tuple[str, dict[str, Any]]]:
    """An audit event as the store keeps it: one flat row per memory it names (Chroma filters on
    flat metadata), all carrying the whole event."""
    rows = []
    for n, mid in enumerate(ev.memory_ids or [""]):
        rows.append((f"{ev.id}:{n}", {
            "event": ev.id, "action": ev.action, "actor": ev.actor, "client": ev.client or "", "memory_id": mid,
            "memory_ids": json.dumps(list(ev.memory_ids)), "at": ev.at.timestamp(),
            "detail": json.dumps(ev.detail, default=str, ensure_ascii=False),
        }))
    return rows


class WritePath:
    """Lock, write, audit, revision: given the store, the embedder for new texts, the clock, the
    coordination that hands out user locks, the revisions and the recaller whose indexes follow."""

    def __init__(self, store: Any, embedder: Embedder, clock: Clock, coordination: Any, revisions: Revisions, recaller: Any,
                 at_once: AtOnce | None = None, secrets: PersonSecrets | None = None):
        self._store = store
        self.secrets = secrets or PersonSecrets(store)  # keys the ids derived from a person's words
        self.tombstones: Any = None  # what was forgotten (core/tombstones.py), set by the service
        self._embedder = embedder
        self._clock = clock
        self._coordination = coordination
        self._revisions = revisions
        self._recaller = recaller
        self.at_once = at_once or AtOnce()  # a write's calls that need nothing from each other go out together
        self.shared = not revisions.one_owner  # hosts share the store (a Chroma server): see `prior`
        self._registered: set[str] = set()  # see register_user

    def close(self) -> None:
        self.at_once.close()

    @property
    def sealer(self) -> Any:
        """An embedded store's sealer (core/store/sealing.py); None on a server, which seals nothing."""
        return getattr(self._store, "sealer", None)

    # ---- lock, users, audit ----------------------------------------------------------------------

    @contextmanager
    def lock(self, scope: Scope) -> Iterator[None]:
        """The user's write lock; re-entrant within a thread. The thread's Chroma calls meanwhile go
        ahead of other work waiting for the store (core/store/gate.py)."""
        try:
            with self._coordination.user_lock(scope.user_id), writing():
                yield
        finally:
            self._revisions.forget_read()  # read under this lock: stale once it is let go

    def register_user(self, scope: Scope, col: str | None = None, also: dict[str, Any] | None = None) -> None:
        """The user's registry row, written on their first write. A store this process alone writes
        remembers who is registered (`unregister` forgets them); a shared one is asked every time,
        since another host may have erased the person since, together with the revision of `col`,
        the collection the write will stamp (one round trip instead of two), and the rows `also`
        names (filled in place when they were read)."""
        if scope.user_id in self._registered:
            return
        key = f"user:{scope.user_id}"
        if (self._revisions.read_with(key, col, also) if col else self._store.reg_get(key)) is None:
            self._store.reg_put(key, {"user_id": scope.user_id, "created_at": self._clock.now().isoformat()}, kind="user")
        if self._revisions.one_owner:
            self._registered.add(scope.user_id)

    def unregister(self, user_id: str) -> None:
        """Remove the user's registry row (erase_person): their next write registers them again."""
        self._store.reg_delete([f"user:{user_id}"])
        self._registered.discard(user_id)

    def audit(self, scope: Scope, action: str, ids: Sequence[str], **detail: Any) -> None:
        self.put_events(scope, [self.event(scope, action, ids, **detail)])

    def event(self, scope: Scope, action: str, ids: Sequence[str], **detail: Any) -> Event:
        """A new audit event, not yet written: `audit` writes it now, `write(audit=...)` with the revision."""
        ev_id = f"{time.time_ns():020d}{uuid.uuid4().hex[:8]}"  # sortable: ties on `at` keep write order
        return Event(id=ev_id, user_id=scope.user_id, action=action, actor=scope.actor, client=scope.client or None,
                     memory_ids=list(ids), at=self._clock.now(), detail=detail)

    def put_events(self, scope: Scope, events: Sequence[Event]) -> None:
        """Audit events as they are (an import's); `audit` records a new one."""
        if events:
            self._store.put_rows(event_collection(scope), [r for ev in events for r in event_rows(ev)])

    def events(self, scope: Scope, memory_id: str | None = None, limit: int = 200) -> list[Event]:
        where = Where.of(Eq("memory_id", memory_id)) if memory_id else None
        by_event: dict[str, Event] = {}
        for r in self._store.find_rows(event_collection(scope), where):
            if r["event"] in by_event:
                continue
            by_event[r["event"]] = Event(
                id=r["event"], user_id=scope.user_id, action=r["action"], actor=r["actor"], client=r["client"] or None,
                memory_ids=json.loads(r["memory_ids"]), at=datetime.fromtimestamp(r["at"], tz=self._clock.now().tzinfo),
                detail=json.loads(r["detail"]),
            )
        return sorted(by_event.values(), key=lambda e: (e.at, e.id), reverse=True)[:limit]

    # ---- memories ----------------------------------------------------------------------------

    def get(self, scope: Scope, memory_id: str) -> Memory:
        found = self._store.get_memories(memory_collection(scope), [memory_id])
        if not found:
            raise NotFound(f"no memory {memory_id!r} for this user")
        return found[0]

    def _secret(self, scope: Scope) -> bytes:
        """The person's secret (core/person_secret.py), made under their lock if they have none."""
        return self.secrets.get(scope.user_id, lambda: self.lock(scope))

    def keyed(self, scope: Scope, *parts: str, size: int = 24) -> str:
        """A digest of these parts (words among them), keyed by the person's secret so that nobody
        who reads it can test a guess of the words (core/person_secret.py)."""
        return keyed_digest(self._secret(scope), *parts, size=size)

    def keyed_id(self, scope: Scope, *parts: str) -> str:
        """A memory id derived from these parts: the same parts give the same id (a retried write)."""
        return "m_" + self.keyed(scope, *parts)

    def id_for(self, scope: Scope, data: MemoryIn) -> str:
        """The id a memory of `data` takes unless a record holds it already (`new`)."""
        h = content_hash(data.content)
        return self.keyed_id(scope, data.namespace, data.fact_key or "", h) if data.kind != Kind.precious else self.keyed_id(scope, "precious", h)

    def prior(self, scope: Scope, data: MemoryIn) -> Prior:
        """What a new memory of `data` is checked against, read under the user's lock: the records of
        its key (a keyed fact) or with its words (otherwise), in every status and namespace, and
        whether a record holds the id it would take; with the person's registry row (`register_user`).

        On a shared store these reads go to Chroma together (store/at_once.py), the registry row last,
        in this thread, which keeps the revision it brings (`Revisions.read_with`). The records say
        whether the id is taken where they can: a keyed record's key and words never change in place
        (new wording is a new version) and a precious quote is never edited, so whatever holds such an
        id is among them. Any other memory's words can be edited under its id (`MemoryService.update`),
        so its id is asked for as well: in the same round on a shared store, else only when needed.

        An embedded store keeps its reads as they were (the id read by `new`, a new value's versions
        read again by the supersede: `shared`). Saved there too, they made a writer killed at random
        points (tests/core/test_crash_supersede.py) write faster, with the same writes in the same
        order, and Chroma's own reader crashed (a segfault) on the files it left in 2 of 48 rounds;
        it does so without them too, rarely (1 in ~200; bench/README.md, "Writes that do not queue
        behind reads")."""
        col = memory_collection(scope)
        mid = self.id_for(scope, data)
        narrow = Eq("fact_key", data.fact_key) if data.fact_key else Eq("content_hash", content_hash(data.content))
        says = self.shared and (data.kind == Kind.precious) != bool(data.fact_key)  # the records say if the id is taken

        def read() -> list[Memory]:
            return self._store.find_memories(col, Where.of(narrow))

        def held() -> bool:
            return bool(self._store.get_memories(col, [mid]))

        # said again after a forget, a memory derives the forgotten record's id: its tombstone is read
        # with the registry row, and the new memory takes another id (`new`)
        tomb = self.tombstones.key_of(scope.user_id, mid, self._secret(scope)) if self.tombstones is not None else None
        rows: dict[str, Any] = {tomb: None} if tomb else {}

        def register() -> None:
            self.register_user(scope, col, rows)

        if says or not self.at_once.parallel:
            found, _ = self.at_once(read, register)
            return Prior(found, mid, None if says else held, self._tomb_read(scope, mid, rows, tomb))
        found, taken, _ = self.at_once(read, held, register)
        return Prior(found, mid, lambda: taken, self._tomb_read(scope, mid, rows, tomb))

    def _tomb_read(self, scope: Scope, mid: str, rows: dict[str, Any], tomb: str | None) -> bool:
        if tomb is None:
            return False
        if rows.get(tomb) is not None:
            return True
        # the registry row was not read (a person this process registered already): asked alone
        return scope.user_id in self._registered and self._buried(scope, mid)

    def _buried(self, scope: Scope, mid: str) -> bool:
        """Whether a forgotten record had the id `mid`: a memory said again after a forget derives it,
        and must take another, or the forget's tombstone would hide it from an import or a restore."""
        if self.tombstones is None:
            return False
        return bool(self.tombstones.buried(scope.user_id, [mid], self._secret(scope)))

    def new(self, scope: Scope, data: MemoryIn, now: datetime, *, supersedes: str | None = None,
            taken: bool | None = None) -> Memory:
        """The record a checked input becomes (not yet written). `taken`: whether a record holds the
        id it would take, when the caller has read that under the lock (`prior`); else it is asked."""
        h = content_hash(data.content)
        mid = self.id_for(scope, data)
        if taken is None:
            taken = bool(self._store.get_memories(memory_collection(scope), [mid])) or self._buried(scope, mid)
        if taken:
            # that id belongs to a retired record (a value came back after a detour), or to a record whose words were
            # edited since: keep both intact
            mid = memory_id(mid, now.isoformat())  # from the keyed id and a time: no words
        fields = data.model_dump(exclude={"status"})
        return Memory(
            id=mid,
            user_id=scope.user_id,
            source_client=scope.client,
            status=data.status,
            supersedes=supersedes,
            created_at=now,
            updated_at=now,
            last_seen_at=now,
            valid_from=data.valid_from or now,
            content_hash=h,
            **{k: v for k, v in fields.items() if k != "valid_from"},
        )

    def write(self, scope: Scope, memories: Sequence[Memory], *, embed: Sequence[Memory] = (), vectors: dict[str, list[float]] | None = None,
              audit: Event | None = None) -> None:
        """Persist memories (re-embedding those in `embed`, unless `vectors` has their text already)
        and keep the lexical index current. The caller holds the lock and writes the audit event,
        or gives it as `audit` (`event`): then it goes to the store together with the revision, both
        after the records. A process killed meanwhile leaves the records with neither, either or both:
        never an audit row or a revision for records not written; records stamped past the published
        revision are what a kill after the records always left (the next write publishes that stamp
        again, and indexes behind read back every record stamped past them)."""
        col = memory_collection(scope)
        embed_ids, stamp = {m.id for m in embed}, self._revisions.stamp(col)
        fresh = [m for m in memories if m.id in embed_ids]
        stale = [m for m in memories if m.id not in embed_ids]
        if fresh:
            # a supersede's new and retired versions go in one store call (a crash between two calls left
            # two active versions of one key); the retired one keeps its vector, re-embedded if the store lost it
            kept = self._store.memory_embeddings(col, [m.id for m in stale]) if stale else {}
            texts = [embed_text(m) for m in fresh]
            have = dict(vectors or {})
            missing = [t for t in dict.fromkeys([*texts, *(embed_text(m) for m in stale if m.id not in kept)]) if t not in have]
            if missing:
                have.update(zip(missing, self._embedder.embed_documents(missing)))
            vecs = [have[t] for t in texts] + [kept.get(m.id) or have[embed_text(m)] for m in stale]
            self._store.put_memories(col, [*fresh, *stale], vecs, rev=stamp)
            stale = []
        if stale:
            self._store.put_memories(col, stale, None, rev=stamp)
        self._revisions.bump(col, lambda old, new: self._recaller.note_memories(col, memories, old, new), stamp=stamp,
                             beside=(lambda: self.put_events(scope, [audit])) if audit is not None else None)

    def seen(self, scope: Scope, mem: Memory, now: datetime) -> WriteResult:
        seen = mem.model_copy(update={"seen_count": mem.seen_count + 1, "last_seen_at": now})
        self.write(scope, [seen], audit=self.event(scope, "seen", [mem.id]))
        return WriteResult(action="seen", memory=seen)

    def set_status(self, scope: Scope, memory_id: str, status: Status, action: str) -> Memory:
        """A person's status change (delete, archive, a reviewed candidate retired)."""
        with self.lock(scope):
            mem = self.get(scope, memory_id)
            if status == Status.archived:
                require_current(mem, action)
            if mem.kind == Kind.precious and status in (Status.deleted, Status.archived, Status.expired):
                raise Immutable(f"memory {memory_id} is precious (append-only): it cannot be {action}d")
            new = mem.model_copy(update={"status": status, "updated_at": self._clock.now()})
            self.write(scope, [new])
            self.audit(scope, action, [memory_id])
            return new

    def patch_status(self, scope: Scope, memories: Sequence[Memory], status: Status, action: str, now: datetime, **updates: Any) -> list[Memory]:
        """A job's status change (expire, archive, merge, retire a conflict), as a patch on each
        record as stored now: fields not named here keep what they hold (a user's edit made since
        the job read the record stays), and a record whose status changed since then is left alone
        (the job's reading of it is stale). Returns what changed."""
        if not memories:
            return []
        seen = {m.id: m.status for m in memories}
        col = memory_collection(scope)
        with self.lock(scope):
            stored = self._store.get_memories(col, list(seen))
            changed = [m.model_copy(update={"status": status, "updated_at": now, **updates}) for m in stored if m.status == seen.get(m.id)]
            if changed:
                self.write(scope, changed)  # stamped and noted as any write: other hosts' indexes follow it record by record
                self.audit(scope, action, [m.id for m in changed])
        return changed

    def record_access(self, scope: Scope, hits: Mapping[str, int], now: datetime) -> None:
        """Add recall hits to memories' `hit_count` and set `last_access_at`, as a patch on each
        record as stored now (a memory deleted for good since is not brought back).

        Unlike every other write this one neither moves the collection's revision nor tells the
        recall indexes, and leaves no audit event. Access counts are bookkeeping that no recall
        index holds and no ranking reads, while recall itself causes this write: moving the
        revision after every recall would make each other host sharing the store rebuild this
        user's memory index after every recall here (and this host recompute its namespace
        filters), a rebuild per recall for nothing; an audit event per recall would bury the
        changes a person made."""
        if not hits:
            return
        col = memory_collection(scope)
        with self.lock(scope):
            stored = self._store.get_memories(col, list(hits))
            touched = [m.model_copy(update={"hit_count": m.hit_count + hits[m.id], "last_access_at": now}) for m in stored]
            if touched:
                self._store.put_memories(col, touched, None)

    def reseal(self, scope: Scope, ids: Sequence[str], col: str | None = None) -> None:
        """Records rewritten with other words get fresh keys (ChromaStore.reseal): their older
        versions, left in the store's files, no longer open. Memories unless `col` says which
        collection. The caller holds the lock."""
        self._store.reseal(col or memory_collection(scope), list(ids))

    def rewrite(self, scope: Scope, old: Memory, new: Memory) -> None:
        """A memory written again under its id (an edit). New words are embedded and sealed under a
        fresh key: the old wording, left in the store's files, opens no more, so nothing is left for
        a later forget of words only it said to miss. The caller holds the lock."""
        reworded = new.content != old.content
        self.write(scope, [new], embed=[new] if reworded else ())
        if reworded:
            self.reseal(scope, [new.id])

    # ---- turns, deletes, indexes ---------------------------------------------------------------

    def add_messages(self, col: str, messages: Sequence[Message], vectors: Sequence[Sequence[float]], *, replacing: bool = False) -> None:
        """Store captured turns (the caller holds the lock); `replacing`: some had other words
        before, so the warm indexes, which hold the discarded words, are rebuilt on the next read."""
        if not messages:
            return
        stamp = self._revisions.stamp(col)
        self._store.put_messages(col, messages, [m.content for m in messages], vectors, rev=stamp)
        if replacing:  # a turn's index entry cannot be rewritten in place: every index rebuilds
            self._recaller.drop_indexes(col, gone=[m.id for m in messages])
            self._revisions.bump(col)
        else:
            self._revisions.bump(col, lambda old, new: self._recaller.note_messages(col, messages, old, new), stamp=stamp)

    def scrub_erased(self) -> int:
        """Overwrite what erased records left in an embedded store's Chroma file (store/scrub.py): the
        daily retention job's last step. Returns the free pages overwritten."""
        return scrub_erased(self._store)

    def delete_records(self, scope: Scope, col: str, ids: Sequence[str], *, vectors: bool = True) -> None:
        """Remove records for good, under the user's lock. Raises if the store refuses."""
        if not ids:
            return
        with self.lock(scope):
            self._store.delete_records(col, list(ids), vectors=vectors)
            if col == memory_collection(scope):  # every index drops them, this host's at once, the others' by `chg:`
                self._revisions.bump(col, lambda old, new: self._recaller.forget_memories(col, ids, old, new), gone=list(ids))
            elif vectors:  # turns (their index cannot drop one in place); audit rows have no index
                self._recaller.drop_indexes(col, gone=list(ids))
                self._revisions.bump(col)

    def refresh(self, col: str) -> None:
        """After a change the indexes cannot follow record by record: they rebuild on the next read,
        and the revision moves the way every write moves it."""
        self._recaller.drop_indexes(col)
        self._revisions.bump(col)
