"""MemoryService: the memory port (core/ports.py) with a `Scope` in front. Synchronous.

Every operation the port declares is a method here with the same name, arguments and typed
result, after a `Scope` (from `core.scope`) that limits it to one user's collections. The faces
never call it directly: `core.LocalMemory` checks the caller's permission, builds the scope and
runs the method in a worker thread; the Redis capture queue, the jobs and the importer hold a scope
and call it as they are. So every rule a face relies on is here, or in a collaborator it owns.
Writes are serialized per user, recorded in the audit trail, and keep the recall indexes current.
"""

from __future__ import annotations

import time
from datetime import datetime
from typing import Any, Collection, Iterable, Iterator, Sequence

from .access import AccessCounts
from .capture import Capture
from .boot import build_boot
from .client_cache import ClientCache
from .coordination import Coordination, LocalCoordination
from .curated_kinds import Curated
from .forgetting import ForgetPlan, Forgetting
from .portability import Portability
from .listing import page_memories
from .reads import Reads
from .registry import Registry, drop_person
from .tombstones import Tombstones
from .repair import Repairs, keyed_actives
from .review import ReviewQueue
from .errors import Conflict, Immutable, InvalidInput, NotFound
from .model import (
    FACT_KEY_RE,
    Category,
    Event,
    Kind,
    Memory,
    MemoryIn,
    MemoryPatch,
    Message,
    Page,
    Status,
    WriteResult,
    as_input,
    content_hash,
    embed_text,
)
from .ports import Clock, Embedder
from .recall.config import RecallConfig, preset
from .recall.fusion import Candidate
from .recall.pipeline import Recaller, RecallResult
from .why import keep_why, why_log, why_report
from .redact import Redactor
from .results import (
    BootPack,
    CacheEntry,
    CandidateAction,
    CommandDone,
    ForgetResult,
    ImportCounts,
    IngestResult,
    PurgeResult,
    ReindexReport,
    TurnsDeleted,
    VectorsHealth,
    WhyRequest,
)
from .scope import (
    Actor,
    Scope,
    event_collection,
    memory_collection,
    memory_where,
    message_collection,
    message_where,
    scope_for,
    validate_namespace,
    widened,
)
from .store import ChromaStore
from .store.at_once import AtOnce
from .supersede import ended_at, newest, require_current
from .user_overview import vector_health
from .write_path import Revisions, WritePath


def forget_result(plan: ForgetPlan) -> ForgetResult:
    """What a forget erased (or would), as the port reports it."""
    return ForgetResult(what=plan.what, done=plan.done, memories=plan.memories, messages=len(plan.message_ids),
                        message_ids=plan.message_ids, rewritten=[m.id for m, _ in plan.rewrites], uncertain=plan.uncertain)


class MemoryService:
    """Composed of collaborators that each get what they need: the write path (lock, audit,
    revisions: core/write_path.py), the curated kinds, the review queue, export/import and
    forgetting; the public methods here are the one surface faces call."""

    def __init__(self, store: ChromaStore, embedder: Embedder, clock: Clock, *, recall_preset: str = "balanced",
                 remote_store: bool = False, coordination: Coordination | None = None, redact: Redactor | None = None):
        self.store = store
        self.embedder = embedder
        self.clock = clock
        self.recall_preset = recall_preset
        # per-user write locks and job leases, in process or shared with hosts (core/coordination.py)
        self.coordination = coordination or LocalCoordination(store)
        store.fence = self.coordination.check_fence
        self.registry = Registry(store)  # users, revisions, the jobs' records, the client cache; nothing else
        self.reads = Reads(store)  # a user's records, read-only: what jobs, repair and inventories read
        at_once = AtOnce(16 if remote_store else 0, fence=lambda: store.fence())  # a write's calls sent together (store/at_once.py)
        self._revisions = Revisions(self.registry, shared=remote_store, at_once=at_once)
        self.recaller = Recaller(store, embedder, self._revisions.get, changes=self._revisions.changes, revisions=self._revisions.get_many)
        self.redact = redact or Redactor()  # secrets never reach the store: every write path passes through it
        self.writes = WritePath(store, embedder, clock, self.coordination, self._revisions, self.recaller, at_once)
        # bulk work (captured turns, imports, reindex, jobs) goes where it cannot delay a query
        self.embed_background = getattr(embedder, "embed_background", embedder.embed_documents)
        self._curated = Curated(self.reads, self.writes, clock, remember=self.remember)
        self._review = ReviewQueue(self.writes, clock, list_memories=self.list, remember=self.remember, supersede=self.supersede)
        self.tombstones = self.writes.tombstones = Tombstones(self.registry, self.writes.secrets, clock.now)  # what was forgotten, without its words
        self._portability = Portability(store, self.reads, self.writes, embedder, clock, self.redact, self.embed_background, self.tombstones)
        self.repairs = Repairs(self, self._portability)  # compose starts it once the host is built (core/repair.py)
        self._forgetting = Forgetting(self.reads, self.writes, self.recaller, update=self.update,
                                      digest_set=self._curated.digest_set, tombstones=self.tombstones, now=clock.now, registry=self.registry)
        self.forget_elsewhere = self._forgetting.elsewhere  # stores outside this one that hold words waiting (forgetting.py)
        self._capture = Capture(self.reads, self.writes, self.recaller, redact=self.redact, clock=clock, tombstones=self.tombstones,
                                forgetting=self._forgetting, embed_background=self.embed_background, remember=self.remember)
        self._access = AccessCounts(self.writes, clock)  # recall hits, written in the background
        self.owns_embedder = False  # set by build_service when it made the embedder (worker processes to stop)
        self.recall_budget: int | None = None  # the operator's budget for the configured preset (compose)
        self.timezone = "UTC"  # the person's day for the boot pack's "today" (compose sets the configured one)

    def close(self) -> None:
        for part in (self.repairs, self.recaller, self._access, self.writes, self.store, self.coordination):  # what runs in the background first
            part.close()
        if self.owns_embedder and hasattr(self.embedder, "close"):
            self.embedder.close()

    # ---- bookkeeping -------------------------------------------------------------------------

    def revision(self, col: str) -> int:
        """Collection revision: in process for an embedded store (one owner), from the registry otherwise."""
        return self._revisions.get(col)

    def users(self) -> list[str]:
        return sorted(v["user_id"] for v in self.registry.reg_find("user").values())

    def events(self, scope: Scope, memory_id: str | None = None, limit: int = 200) -> list[Event]:
        return self.writes.events(scope, memory_id, limit)

    # ---- reads -------------------------------------------------------------------------------

    def get(self, scope: Scope, memory_id: str) -> Memory:
        try:
            return self.writes.get(scope, memory_id)
        except NotFound:
            if self.tombstones.get(scope.user_id, memory_id) is not None:
                raise NotFound(f"memory {memory_id!r} was forgotten: its words are gone, and nothing forgotten can be restored") from None
            # recall and search return captured turns (ids like 'lt_…') next to memories
            if self.has_message(scope, memory_id):
                raise NotFound(
                    f"{memory_id!r} is a captured conversation turn, not a memory: delete it with "
                    f"DELETE /v1/messages/{memory_id} (MCP: messages_delete)"
                ) from None
            raise

    def list(
        self,
        scope: Scope,
        *,
        namespace: str | None = None,
        kind: Kind | str | None = None,
        category: Category | str | None = None,
        status: Status | str | None = Status.active,
        text: str | None = None,
        limit: int = 50,
        cursor: str | None = None,
    ) -> Page:
        return page_memories(self.reads, self.recaller, scope, namespace=namespace, kind=kind, category=category,
                             status=status, text=text, limit=limit, cursor=cursor)

    def namespaces(self, scope: Scope) -> dict[str, int]:
        counts: dict[str, int] = {}
        for m in self.reads.memories(scope, memory_where(scope, all_namespaces=True)):
            counts[m.namespace] = counts.get(m.namespace, 0) + 1
        return dict(sorted(counts.items()))

    # ---- writes ------------------------------------------------------------------------------

    def remember(self, scope: Scope, data: MemoryIn) -> WriteResult:
        """Create or upsert a memory. Keyed facts: same value is 'seen', a new value supersedes.
        Unkeyed: identical content (normalized) is 'seen' instead of duplicated."""
        data = self._checked(scope, data)
        now = self.clock.now()
        text = embed_text(data)  # embedded before the lock (the slow part); unused if the write is "seen"
        vectors = {text: self.embedder.embed_documents([text])[0]}
        with self.writes.lock(scope):
            prior, h = self.writes.prior(scope, data), content_hash(data.content)  # the registry row and what it is checked against
            if data.fact_key:
                current = newest(actives := prior.actives(data.namespace))
                if current and current.content_hash == h:
                    return self.writes.seen(scope, current, now)
                if current and data.status == Status.active:
                    return self._supersede(scope, current, data, now, vectors, actives=actives if self.writes.shared else None, taken=prior.taken())
                dup = [m for m in prior.found if m.namespace == data.namespace and m.status == Status.candidate and m.content_hash == h
                       and data.status == Status.candidate]
            else:
                dup = [m for m in prior.found if m.status in (Status.active, Status.candidate) and m.namespace == data.namespace]
            if dup:
                return self.writes.seen(scope, dup[0], now)
            mem = self.writes.new(scope, data, now, taken=prior.taken())
            event = self.writes.event(scope, "create", [mem.id], kind=mem.kind.value, status=mem.status.value)
            self.writes.write(scope, [mem], embed=[mem], vectors=vectors, audit=event)  # the audit row beside the revision
            return WriteResult(action="created", memory=mem)

    def _checked(self, scope: Scope, data: MemoryIn) -> MemoryIn:
        data = self.redact.fields(data)
        if "namespace" not in data.model_fields_set:
            data = data.model_copy(update={"namespace": scope.write_namespace})
        validate_namespace(data.namespace)
        if data.kind == Kind.digest:
            raise InvalidInput("kind", "set the digest with digest_set")
        if data.kind == Kind.glossary and not data.title:
            raise InvalidInput("title", "a glossary entry needs its term as title")
        if data.fact_key:
            if not FACT_KEY_RE.fullmatch(data.fact_key):
                raise InvalidInput("fact_key", f"{data.fact_key!r} is not '<category>.<topic>' in lowercase, e.g. 'preference.food'")
            prefix = data.fact_key.split(".", 1)[0]
            if prefix not in Category.__members__:
                raise InvalidInput("fact_key", f"namespace {prefix!r} is not a category: use one of {', '.join(Category.__members__)}")
            if data.category is None:
                data = data.model_copy(update={"category": Category(prefix)})
            elif data.category.value != prefix:
                raise InvalidInput(
                    "fact_key", f"{data.fact_key!r} belongs under category {prefix!r}, not {data.category.value!r}"
                )
        return data

    def _supersede(self, scope: Scope, old: Memory, data: MemoryIn, now: datetime, vectors: dict[str, list[float]] | None = None, *,
                   actives: list[Memory] | None = None, taken: bool | None = None) -> WriteResult:  # as remember read them, else read here
        if old.kind == Kind.precious:
            raise Immutable(f"memory {old.id} is precious (append-only) and cannot be superseded")
        if actives is None and self.writes.shared and old.fact_key and (data.fact_key, data.namespace) == (old.fact_key, old.namespace):
            prior = self.writes.prior(scope, data)  # the key's versions, whether the new id is held and the registry row, together
            actives, taken = prior.actives(old.namespace), prior.taken()
        new = self.writes.new(scope, data, now, supersedes=old.id, taken=taken)
        # every active version of the key goes (a store from before atomic supersedes may hold two), ended as ended_at says
        actives = keyed_actives(self, scope, old.fact_key, old.namespace) if actives is None and old.fact_key else actives or []
        twins = [m for m in actives if m.id != old.id]
        retired = [m.model_copy(update={"status": Status.superseded, "superseded_by": new.id, "updated_at": now,
                                        "valid_to": ended_at(m, new, now)}) for m in (old, *twins)]
        event = self.writes.event(scope, "supersede", [old.id, new.id, *(m.id for m in twins)], fact_key=data.fact_key)
        self.writes.write(scope, [new, *retired], embed=[new], vectors=vectors, audit=event)  # one store call: no instant with two active
        return WriteResult(action="superseded", memory=new, previous=retired[0])

    def supersede(self, scope: Scope, memory_id: str, data: MemoryIn) -> WriteResult:
        """Replace a memory with a new version explicitly (keyed or not); the old one is never recalled again."""
        with self.writes.lock(scope):
            old = self.get(scope, memory_id)
            if old.status not in (Status.active, Status.candidate):
                raise InvalidInput("target_id", f"memory {memory_id} is {old.status.value}, not active")
            # the new version stays where the old one was filed unless the caller says otherwise
            inherit = {f: getattr(old, f) for f in ("fact_key", "category", "namespace") if f not in data.model_fields_set and getattr(old, f)}
            data = self._checked(scope, data.model_copy(update=inherit))
            return self._supersede(scope, old, data, self.clock.now())

    def update(self, scope: Scope, memory_id: str, patch: MemoryPatch) -> Memory:
        with self.writes.lock(scope):
            mem = self.get(scope, memory_id)
            if mem.kind == Kind.precious:
                raise Immutable(f"memory {memory_id} is precious (append-only): it cannot be edited")
            changes = self.redact.fields(patch).model_dump(exclude_unset=True)
            if mem.fact_key and changes.get("content") not in (None, mem.content):
                base = MemoryIn(**{**as_input(mem), "content": changes.pop("content")})
                result = self._supersede(scope, mem, base, self.clock.now())  # new wording, same date: the old ends now (ended_at)
                if changes:
                    return self.update(scope, result.memory.id, MemoryPatch(**changes))
                return result.memory
            if "category" in changes and mem.fact_key and changes["category"] is not None:
                if Category(changes["category"]).value != mem.fact_key.split(".", 1)[0]:
                    raise InvalidInput("category", f"memory is keyed {mem.fact_key!r}; its category is fixed")
            now = self.clock.now()
            if "content" in changes and changes["content"] is not None:
                changes["content_hash"] = content_hash(changes["content"])
            new = mem.model_copy(update={**{k: v for k, v in changes.items() if v is not None or k in ("expire_at", "valid_to")}, "updated_at": now})
            self.writes.rewrite(scope, mem, new)  # new words: a fresh key, the old wording opens no more
            self.writes.audit(scope, "update", [memory_id], fields=sorted(changes))
            return new

    def delete(self, scope: Scope, memory_id: str) -> Memory:
        """Move a memory to the trash: never recalled again, restorable until purged (retention, or
        purge_trash now)."""
        try:
            return self.writes.set_status(scope, memory_id, Status.deleted, "delete")
        except NotFound:
            self.get(scope, memory_id)  # says why: a forgotten memory, or a captured turn's id
            raise

    def archive(self, scope: Scope, memory_id: str) -> Memory:
        return self.writes.set_status(scope, memory_id, Status.archived, "archive")

    def erase_person(self, scope: Scope) -> dict[str, int]:
        """Erase a person: every memory, turn, audit event and turn waiting to be stored, their tombstones, secret and
        registry records (jobs' windows, cursors, client cache). An embedded store's record keys go too. Returns what went."""
        with self.writes.lock(scope):
            why_log(self).drop_user(scope.user_id)
            gone_waiting = self._forgetting.erase_elsewhere(scope.user_id)  # every turn of theirs still journaled
            gone = {"memories": len(self.reads.memories(scope, memory_where(scope, statuses=None, all_namespaces=True))),
                    "turns": len(self.reads.turns(scope, None))}
            for col in (memory_collection(scope), message_collection(scope), event_collection(scope)):
                self.store.drop(col)
                self.writes.refresh(col)  # the revision moves on, so hosts sharing the store drop their indexes too
            gone["tombstones"], gone["waiting"], gone["records"] = self.tombstones.remove_user(scope.user_id), gone_waiting, drop_person(self.registry, scope.user_id, self.writes.sealer)
            self.writes.unregister(scope.user_id)
        return gone

    def purge_trash(self, scope: Scope, ids: Sequence[str] | None = None) -> PurgeResult:
        """Empty the trash now (or only these ids from it): deleted memories are removed for good,
        their keys destroyed (core/store/sealing.py). Returns the ids purged. Records not in the
        trash are left alone: purging is for what a person already deleted."""
        with self.writes.lock(scope):
            trash = self.reads.memories(scope, memory_where(scope, statuses=[Status.deleted], all_namespaces=True))
            chosen = [m.id for m in trash if ids is None or m.id in set(ids)]
            if chosen:
                self.writes.delete_records(scope, memory_collection(scope), chosen)
                self.writes.audit(scope, "purge", chosen, count=len(chosen))
            return PurgeResult(purged=chosen, count=len(chosen))

    def restore(self, scope: Scope, memory_id: str) -> Memory:
        """Bring back a deleted, archived or expired memory (a deleted one until retention removes it
        for good, 30 days on). A past TTL is cleared, or it would expire again. Restoring an active
        memory changes nothing. Refused: a superseded version or a candidate (each error names the
        way back), and a keyed value whose key another active memory now holds (Conflict)."""
        with self.writes.lock(scope):
            mem = self.get(scope, memory_id)  # a forgotten one is NotFound, saying so
            if mem.status == Status.active:
                return mem
            if mem.status == Status.superseded:
                newer = f" by {mem.superseded_by}" if mem.superseded_by else ""
                raise InvalidInput("memory_id", f"memory {memory_id} was superseded{newer}; supersede the current version with this content to bring it back")
            if mem.status == Status.candidate:
                raise InvalidInput("memory_id", f"memory {memory_id} is a candidate: approve it in the review queue")
            holders = [m for m in keyed_actives(self, scope, mem.fact_key, mem.namespace) if m.id != mem.id] if mem.fact_key else []
            if holders:
                raise Conflict(f"memory {holders[0].id} holds {mem.fact_key!r} now; supersede it with this content to bring this value back")
            now = self.clock.now()
            ttl = {"expire_at": None} if mem.expire_at is not None and mem.expire_at <= now else {}
            new = mem.model_copy(update={"status": Status.active, "updated_at": now, **ttl})
            self.writes.write(scope, [new])
            self.writes.audit(scope, "restore", [memory_id], was=mem.status.value)
            return new

    def pin(self, scope: Scope, memory_id: str, pinned: bool = True) -> Memory:
        with self.writes.lock(scope):
            mem = self.get(scope, memory_id)
            if pinned:
                require_current(mem, "pin")
            new = mem.model_copy(update={"pinned": pinned, "updated_at": self.clock.now()})
            self.writes.write(scope, [new])
            self.writes.audit(scope, "pin" if pinned else "unpin", [memory_id])
            return new

    # ---- capture (core/capture.py) -------------------------------------------------------------

    def ingest(self, scope: Scope, messages: Sequence[Message | dict[str, Any]], commands: bool = True) -> IngestResult:
        """Capture turns, idempotent by id, and carry out the commands in new user turns. A "forget"
        exchange (the user's turn and the replies to it) is not stored: it would say again what was
        just forgotten. Returns the turns stored and what the commands did."""
        n, done = self.capture(scope, [m if isinstance(m, Message) else Message.model_validate(m) for m in messages], commands=commands)
        return IngestResult(ingested=n, commands=[CommandDone(action=action, memory_id=mem.id) for action, mem in done])

    def capture(self, scope: Scope, messages: Sequence[Message], *, commands: bool = True) -> tuple[int, list[tuple[str, Memory]]]:
        """`ingest`, returning the memories the commands touched: (turns stored, [(action, memory)])."""
        return self._capture.capture(scope, messages, commands=commands)

    def store_turns(self, scope: Scope, messages: Sequence[Message], *, redacted: bool = False) -> int:
        """Append turns to the person's log carrying out no command (imports, benches); returns how many were written."""
        return self._capture.store_turns(scope, messages, redacted=redacted)

    def apply_commands(self, scope: Scope, text: str, *, source_id: str | None = None) -> list[tuple[str, Memory]]:
        """Carry out a "remember ..." / "forget ..." in a user message at once (core/commands.py)."""
        return self._capture.apply_commands(scope, text, source_id=source_id)

    def erase_turns(self, scope: Scope, ids: Sequence[str]) -> int:
        """Erase captured turns for good (a forget, retention, a person cleaning up). The audit keeps
        their ids and count, never their words. Returns how many existed."""
        return self._forgetting.delete_messages(scope, ids)

    # ---- messages ----------------------------------------------------------------------------

    def messages(
        self, scope: Scope, *, since: datetime | None = None, until: datetime | None = None, session: str | None = None,
        text: str | None = None,
    ) -> list[Message]:
        """Captured turns, oldest first; `text`: only those containing it (case-insensitive)."""
        where = message_where(
            since=since.timestamp() if since else None, until=until.timestamp() if until else None, session=session
        )
        found = self.reads.turns(scope, where)
        if text:
            needle = text.casefold()
            found = [m for m in found if needle in m.content.casefold()]
        return found

    # ---- recall ------------------------------------------------------------------------------

    def recall_config(self, name: str | None = None, **overrides: Any) -> RecallConfig:
        """The configured preset (with the operator's budget, if set: `recall_budget`), or the one named."""
        if name is None and self.recall_budget is not None:
            overrides.setdefault("budget_tokens", self.recall_budget)
        return preset(name or self.recall_preset, **overrides)

    def search(
        self, scope: Scope, query: str, *, top_k: int | None = None, filter: bool = True, project: str | None = None,
        namespace: str | None = None, config: RecallConfig | None = None,
    ) -> list[Candidate]:
        """Ranked memories and captured turns with scores, nothing rendered (`filter=False`: no rerank)."""
        cfg = config or self.recall_config(None, **({"top_k": top_k} if top_k else {}))
        if not filter:
            cfg = cfg.model_copy(update={"rerank": False})
        return self.recaller.search(widened(scope, project=project, namespace=namespace), query, cfg, self.clock.now())

    def recall(
        self,
        scope: Scope,
        query: str,
        *,
        namespace: str | None = None,
        project: str | None = None,
        budget_tokens: int | None = None,
        top_k: int | None = None,
        preset: str | None = None,
        echo: Collection[str] = (),
        config: RecallConfig | None = None,
        count_tokens=None,
        why: str | None = None,
        destination: str | None = None,
    ) -> RecallResult:
        """The injectable block for a query: the configured preset with the operator's budget, or the
        named preset's own (`recall_config`), so every face injects the same amount; `config` is a
        whole configuration (benches, the hook's tests). `echo`: fingerprints of turns the request carries,
        never injected back; `destination`: the model the block is for (core/destinations.py). Access is counted in the background."""
        if config is None:
            overrides = {k: v for k, v in (("budget_tokens", budget_tokens), ("top_k", top_k)) if v is not None}
            config = self.recall_config(preset, **overrides)
        scope = widened(scope, project=project, namespace=namespace)
        result = self.recaller.recall(scope, query, config, self.clock.now(), echo=echo, count_tokens=count_tokens, destination=destination)
        used = [c.id for c in result.items if c.source == "memory"]
        if used:
            self._access.count(scope, used)  # bookkeeping, written in the background (core/access.py)
        if why:  # the caller named the request: keep what was injected and why (core/why.py)
            keep_why(self, scope, why, result)
        return result

    def why(self, scope: Scope, last: int = 1, request: str | None = None) -> list[WhyRequest]:
        """What recall injected into this person's recent requests and why (core/why.py)."""
        return why_report(self, scope, last, request)

    def flush(self) -> None:
        """Wait for background bookkeeping (tests and shutdown)."""
        self._access.wait()

    # ---- curated kinds, review queue, export and import, forgetting (collaborators) -----------

    def glossary_set(self, scope: Scope, term: str, definition: str, aliases: Sequence[str] = ()) -> WriteResult:
        return self._curated.glossary_set(scope, term, definition, aliases)

    def glossary_get(self, scope: Scope, term: str | None = None) -> list[Memory]:
        return self._curated.glossary_get(scope, term)

    def digest_get(self, scope: Scope) -> Memory | None:
        return self._curated.digest_get(scope)

    def digest_set(self, scope: Scope, text: str, tags: Sequence[str] = ()) -> Memory:
        return self._curated.digest_set(scope, text, tags)

    def precious_add(self, scope: Scope, quote: str, *, source_ids: Sequence[str] = (), importance: float = 0.8) -> WriteResult:
        return self._curated.precious_add(scope, quote, source_ids=source_ids, importance=importance)

    def glossary_delete(self, scope: Scope, term: str) -> list[Memory]:
        """Move a term's entries to the trash; NotFound if there are none."""
        found = self.glossary_get(scope, term)
        if not found:
            raise NotFound(f"no glossary entry {term!r}")
        return [self.delete(scope, m.id) for m in found]

    def precious_list(self, scope: Scope) -> list[Memory]:
        """Verbatim quotes worth keeping."""
        return self.list(scope, kind=Kind.precious, limit=500).items

    def boot(self, scope: Scope) -> BootPack:
        """The boot pack: digest, daily log, pinned, precious, glossary, today's turns and its text."""
        return BootPack.model_validate(build_boot(self, scope, self.timezone))

    def candidates(self, scope: Scope, limit: int = 500) -> list[Memory]:
        """The review queue: memories waiting for approve / discard / merge / supersede."""
        return self._review.candidates(scope, limit)

    def candidate(self, scope: Scope, memory_id: str, action: str, target_id: str | None = None) -> CandidateAction:
        """approve | discard | merge | supersede one candidate. merge folds it into `target_id` (the
        target is marked seen, the candidate retired); supersede replaces `target_id` with it."""
        if action in ("merge", "supersede") and not target_id:
            raise InvalidInput("target_id", f"{action} needs the id of the active memory it applies to")
        if action == "approve":
            r = self._review.approve(scope, memory_id)
        elif action == "discard":
            r = self._review.discard(scope, memory_id)
        elif action == "merge":
            r = self._review.merge(scope, memory_id, target_id)
        elif action == "supersede":
            r = self._review.supersede_with_candidate(scope, memory_id, target_id)
        else:
            raise InvalidInput("action", "one of approve, discard, merge, supersede")
        if isinstance(r, WriteResult):
            return CandidateAction(action=r.action, memory=r.memory, previous=r.previous)
        return CandidateAction(action=action + ("d" if action.endswith("e") else "ed"), memory=r)

    def export(self, scope: Scope) -> Iterator[dict[str, Any]]:
        """Every record as export lines (JSON objects, core/portability.py), read as they are sent."""
        return self._portability.export(scope)

    def import_(self, scope: Scope, lines: Iterable[dict[str, Any]]) -> ImportCounts:
        """Load an export (core/portability.py): checked whole first, every vector computed before the first write."""
        return ImportCounts.model_validate(self._portability.import_(scope, list(lines)))

    def reindex(self, scope: Scope, user: str | None = None) -> ReindexReport:
        """Re-embed one user's records (`user`), or every user's, with the configured embedder (after
        changing embedders). An administrator's operation: the scope names who asked."""
        users = [user] if user else self.users()
        return ReindexReport(users={u: self._portability.reindex(scope_for(Actor(u, via=scope.actor))) for u in users})

    def vectors_health(self, scope: Scope) -> VectorsHealth:
        """Whether every user's stored vectors were built by the configured embedder (administrators)."""
        return VectorsHealth.model_validate(vector_health(self))

    def cache_get(self, scope: Scope, namespace: str, key: str) -> CacheEntry:
        """A client's cached value (core/client_cache.py); NotFound when absent or expired."""
        return CacheEntry.model_validate(ClientCache(self).get(scope, namespace, key))

    def cache_put(self, scope: Scope, namespace: str, key: str, value: Any, ttl_s: float | None = None) -> CacheEntry:
        return CacheEntry.model_validate(ClientCache(self).put(scope, namespace, key, value, ttl_s))

    def cache_delete(self, scope: Scope, namespace: str, key: str) -> None:
        ClientCache(self).delete(scope, namespace, key)

    def forget(self, scope: Scope, what: str, *, preview: bool = False) -> ForgetResult:
        """Erase for good what states `what` (the memories that state it, in every status, and the
        raw turns that still say it), or with `preview`, say what that would erase."""
        plan = self._forgetting.forget_preview(scope, what) if preview else self._forgetting.forget(scope, what)
        return forget_result(plan)

    def select_messages(self, scope: Scope, *, ids: Sequence[str] | None = None, session: str | None = None,
                        since: datetime | None = None, until: datetime | None = None) -> list[str]:
        """Ids of the stored turns that meet every criterion given (ids, session, since ≤ t < until)."""
        return self._forgetting.select_messages(scope, ids=ids, session=session, since=since, until=until)

    def delete_messages(self, scope: Scope, *, ids: Sequence[str] | None = None, session: str | None = None,
                        since: datetime | None = None, until: datetime | None = None, everything: bool = False) -> TurnsDeleted:
        """Delete the turns that meet every criterion given (`everything` alone: all of them)."""
        gone = self._forgetting.delete_messages_matching(scope, ids=ids, session=session, since=since, until=until, everything=everything)
        return TurnsDeleted(deleted=len(gone), ids=gone)

    def delete_message(self, scope: Scope, message_id: str) -> TurnsDeleted:
        """Delete one captured turn; NotFound when this user has no turn with that id."""
        self._forgetting.delete_message(scope, message_id)
        return TurnsDeleted(deleted=1, ids=[message_id])

    def has_message(self, scope: Scope, message_id: str) -> bool:
        return self._forgetting.has_message(scope, message_id)

    # ---- health ------------------------------------------------------------------------------

    def health(self) -> dict[str, Any]:
        """Store and embedder status. Embeds nothing: a probe must never queue behind real work."""
        sealer = getattr(self.store, "sealer", None)
        at_rest = "off" if sealer is None else ("records sealed, keys under the master key" if sealer.keys.encrypted else "records sealed, no master key")
        out: dict[str, Any] = {"store": {"ok": True, "location": self.store.location, "at_rest": at_rest},
                               "embedder": {"ok": True, "id": self.embedder.id}}
        try:
            self.store.ping()
        except Exception as e:
            out["store"] = {"ok": False, "error": str(e)}
        status = getattr(self.embedder, "status", None)
        if status is not None:
            out["embedder"] = {"id": self.embedder.id, **status()}
        disk = getattr(self.store, "disk_status", lambda: None)()  # free space against the reserve (embedded)
        if disk is not None:
            out["disk"] = disk
        out["ok"] = out["store"]["ok"] and out["embedder"]["ok"]
        return out

    def ready(self) -> dict[str, Any]:
        """Health plus one real query embedding (the caller bounds it with a timeout)."""
        out = self.health()
        started = time.perf_counter()
        try:
            self.embedder.embed_query("ready")
            out["embedder"]["query_ms"] = round((time.perf_counter() - started) * 1000, 1)
        except Exception as e:
            out["embedder"] = {**out["embedder"], "ok": False, "error": str(e)}
            out["ok"] = False
        return out
