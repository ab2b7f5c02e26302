"""MemoryService: the one facade every face calls. Synchronous; `AsyncMemory` wraps it for async hosts.

Every method takes a `Scope` (from `core.scope`), so it can only touch that user's collections.
Writes are serialized per user, recorded in the audit trail, and keep the recall indexes current.
"""

from __future__ import annotations

import time
from datetime import datetime
from typing import Any, Collection, Iterable, Iterator, Sequence

from .access import AccessCounts
from .commands import parse_command
from .coordination import Coordination, LocalCoordination
from .curated_kinds import Curated
from .embed.fair import background_owner
from .forgetting import ForgetPlan, Forgetting
from .portability import Portability
from .listing import page_memories
from .reads import Reads
from .registry import Registry
from .tombstones import Tombstones
from .repair import keyed_actives
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
    Role,
    Status,
    WriteResult,
    as_input,
    content_hash,
    embed_text,
    normalize_text,
)
from .ports import Clock, Embedder
from .recall.config import RecallConfig, preset
from .recall.fusion import Candidate
from .recall.pipeline import DENSE_CONTEXT, Recaller, RecallResult, message_index_texts
from .recall.render import strip_patch
from .why import keep_why, why_log, why_report
from .redact import Redactor
from .scope import Scope, event_collection, memory_collection, memory_where, message_collection, message_where, validate_namespace
from .store import ChromaStore
from .supersede import newest, require_current
from .turns import dated, unsaved
from .write_path import Revisions, WritePath


def as_said(messages: Sequence[Message]) -> list[Message]:
    """Turns as the person and the model said them, whichever face or queue brought them: a client may
    echo back the memory block Amber gave it (stored, it would be recalled as if someone had said
    it), and a turn left empty by that is dropped. One request naming an id twice is refused (the
    capture queue merges a retried entry's turns before it calls, core/capture_queue.py)."""
    if len({m.id for m in messages}) != len(messages):
        raise InvalidInput("messages", "message ids repeat within one request")
    out = []
    for m in messages:
        text = strip_patch(m.content)
        if text.strip():
            out.append(m if text == m.content else m.model_copy(update={"content": text}))
    return out


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
        # per-user write locks and job leases, in process or shared with other hosts; a write under a
        # lock another host took over is refused (core/coordination.py)
        self.coordination = coordination or LocalCoordination(store)
        store.fence = self.coordination.check_fence
        self.registry = Registry(store)  # users, revisions, the jobs' records, the client cache; nothing else
        self.reads = Reads(store)  # a user's records, read-only: what jobs, repair and inventories read
        self._revisions = Revisions(self.registry, shared=remote_store)
        self.recaller = Recaller(store, embedder, self._revisions.get)
        self.redact = redact or Redactor()  # secrets never reach the store: every write path passes through it
        self.writes = WritePath(store, embedder, clock, self.coordination, self._revisions, self.recaller)
        # bulk work (captured turns, imports, reindex, jobs) goes where it cannot delay a query
        self.embed_background = getattr(embedder, "embed_background", embedder.embed_documents)
        self._curated = Curated(self.reads, self.writes, clock, remember=self.remember)
        self._review = ReviewQueue(self.writes, clock, list_memories=self.list, remember=self.remember, supersede=self.supersede)
        self._portability = Portability(store, self.reads, self.writes, embedder, clock, self.redact, embed_background=self.embed_background)
        self.tombstones = Tombstones(self.registry)  # what was forgotten, without its words
        self._forgetting = Forgetting(self.reads, self.writes, self.recaller, update=self.update,
                                      digest_set=self._curated.digest_set, tombstones=self.tombstones, now=clock.now)
        self._access = AccessCounts(self.writes, clock)  # recall hits, written in the background
        self.owns_embedder = False  # set by build_service when it made the embedder (worker processes to stop)
        self.recall_budget: int | None = None  # the operator's budget for the configured preset (compose)

    def close(self) -> None:
        self._access.close()
        self.store.close()
        self.coordination.close()
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
            self.writes.register_user(scope)
            h = content_hash(data.content)
            live = [Status.active, Status.candidate]
            if data.fact_key:
                same_key = self.reads.memories(
                    scope, memory_where(scope, statuses=[Status.active], namespaces=[data.namespace], fact_key=data.fact_key)
                )
                current = newest(same_key)
                if current and current.content_hash == h:
                    return self.writes.seen(scope, current, now)
                if current and data.status == Status.active:
                    return self._supersede(scope, current, data, now, vectors)
                if data.status == Status.candidate:
                    dup = self.reads.memories(scope, memory_where(scope, statuses=[Status.candidate], namespaces=[data.namespace], fact_key=data.fact_key, content_hash=h))
                    if dup:
                        return self.writes.seen(scope, dup[0], now)
            else:
                dup = self.reads.memories(scope, memory_where(scope, statuses=live, namespaces=[data.namespace], content_hash=h))
                if dup:
                    return self.writes.seen(scope, dup[0], now)
            mem = self.writes.new(scope, data, now)
            self.writes.write(scope, [mem], embed=[mem], vectors=vectors)
            self.writes.audit(scope, "create", [mem.id], kind=mem.kind.value, status=mem.status.value)
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
            if not FACT_KEY_RE.match(data.fact_key):
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

    def _supersede(self, scope: Scope, old: Memory, data: MemoryIn, now: datetime, vectors: dict[str, list[float]] | None = None) -> WriteResult:
        if old.kind == Kind.precious:
            raise Immutable(f"memory {old.id} is precious (append-only) and cannot be superseded")
        new = self.writes.new(scope, data, now, supersedes=old.id)
        # every active version of the key goes (a store from before atomic supersedes may hold two)
        twins = [m for m in keyed_actives(self, scope, old.fact_key, old.namespace) if m.id != old.id] if old.fact_key else []
        retired = [m.model_copy(update={"status": Status.superseded, "superseded_by": new.id, "valid_to": now, "updated_at": now})
                   for m in (old, *twins)]
        self.writes.write(scope, [new, *retired], embed=[new], vectors=vectors)  # one store call: no instant with two active
        self.writes.audit(scope, "supersede", [old.id, new.id, *(m.id for m in twins)], fact_key=data.fact_key)
        return WriteResult(action="superseded", memory=new, previous=retired[0])

    def supersede(self, scope: Scope, old_id: str, data: MemoryIn) -> WriteResult:
        """Replace a memory with a new version explicitly (keyed or not); the old one is never recalled again."""
        with self.writes.lock(scope):
            old = self.get(scope, old_id)
            if old.status not in (Status.active, Status.candidate):
                raise InvalidInput("target_id", f"memory {old_id} is {old.status.value}, not active")
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
                result = self._supersede(scope, mem, base, self.clock.now())
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
            self.writes.write(scope, [new], embed=[new] if new.content != mem.content else ())
            self.writes.audit(scope, "update", [memory_id], fields=sorted(changes))
            return new

    def delete(self, scope: Scope, memory_id: str) -> Memory:
        """Soft delete: never recalled again; hard-deleted by retention later."""
        return self.writes.set_status(scope, memory_id, Status.deleted, "delete")

    def archive(self, scope: Scope, memory_id: str) -> Memory:
        return self.writes.set_status(scope, memory_id, Status.archived, "archive")

    def erase_person(self, scope: Scope) -> dict[str, int]:
        """Erase a person from Amber: every memory, turn and audit event, their tombstones and the
        registry's records of them. In an embedded store each collection's record keys are destroyed
        with it, so whatever Chroma still holds of them cannot be read. Returns what went."""
        with self.writes.lock(scope):
            why_log(self).drop_user(scope.user_id)
            gone = {"memories": len(self.reads.memories(scope, memory_where(scope, statuses=None, all_namespaces=True))),
                    "turns": len(self.reads.turns(scope, None))}
            for col in (memory_collection(scope), message_collection(scope), event_collection(scope)):
                self.store.drop(col)
                self.writes.refresh(col)  # the revision moves on, so hosts sharing the store drop their indexes too
            gone["tombstones"] = self.tombstones.remove_user(scope.user_id)
            self.store.reg_delete([f"user:{scope.user_id}"])
        return gone

    def purge_trash(self, scope: Scope, ids: Sequence[str] | None = None) -> list[str]:
        """Empty the trash now (or only these ids from it): deleted memories are removed for good,
        their keys destroyed (core/store/sealing.py). Returns the ids purged. Records not in the
        trash are left alone: purging is for what a person already deleted."""
        with self.writes.lock(scope):
            trash = self.reads.memories(scope, memory_where(scope, statuses=[Status.deleted], all_namespaces=True))
            chosen = [m.id for m in trash if ids is None or m.id in set(ids)]
            if chosen:
                self.writes.delete_records(scope, memory_collection(scope), chosen)
                self.writes.audit(scope, "purge", chosen, count=len(chosen))
            return chosen

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

    # ---- explicit commands -------------------------------------------------------------------

    def apply_commands(self, scope: Scope, text: str, *, source_id: str | None = None) -> list[tuple[str, Memory]]:
        """Carry out "remember ..." / "记住 ..." / "forget ..." in a user message at once.
        Returns what was done: ("remember", memory) or ("forget", memory) per record touched."""
        cmd = parse_command(text)
        if cmd is None:
            return []
        if cmd.action == "remember":
            data = MemoryIn(content=cmd.text, importance=0.8, source_ids=[source_id] if source_id else [])
            return [("remember", self.remember(scope, data).memory)]
        # the memories that state it, the raw turns that still say it and those the memories came from
        return [("forget", m) for m in self._forgetting.forget_subject(scope, cmd.text).memories]

    def delete_messages(self, scope: Scope, ids: Sequence[str]) -> int:
        """Delete captured turns for good (a forget, a person cleaning up). The audit keeps their ids
        and count, never their words. Returns how many existed."""
        return self._forgetting.delete_messages(scope, ids)

    def capture(self, scope: Scope, messages: Sequence[Message], *, commands: bool = True) -> tuple[int, list[tuple[str, Memory]]]:
        """Store captured turns and carry out the commands in new user turns. A "forget" exchange (the
        user's turn and the replies to it) is not stored: it would say again what was just forgotten.
        Returns (turns stored, what the commands did)."""
        messages = self.redact.messages(as_said(messages))  # before a "remember" command can keep a secret
        messages = [dated(m, self.clock.now()) for m in messages]  # a client's clock does not date a turn into the future
        new = unsaved(self.reads, scope, messages)[0] if commands else list(messages)
        done: list[tuple[str, Memory]] = []
        keep: list[Message] = []
        forgets: list[str] = []
        dropping = False
        for m in new:
            if m.role == Role.user:
                cmd = parse_command(m.content) if commands else None
                dropping = cmd is not None and cmd.action == "forget"
                if cmd is not None:
                    done.extend(self.apply_commands(scope, m.content, source_id=m.id))
                if dropping:
                    forgets.append(cmd.text)
            if not dropping:
                keep.append(m)
        n = self.ingest(scope, keep, redacted=True)
        if forgets:  # a turn of this same batch may say what a later turn of it forgot
            said = {i for text in forgets for i in self._forgetting.turns_saying(scope, text)}
            said |= {i for action, mem in done if action == "forget" for i in mem.source_ids}
            if said:
                self.delete_messages(scope, sorted(said))
                n -= len(said & {m.id for m in keep})
        return n, done

    # ---- messages ----------------------------------------------------------------------------

    def ingest(self, scope: Scope, messages: Sequence[Message], *, redacted: bool = False) -> int:
        """Append turns to the user's log. A message id already stored is skipped when its words are the
        same, and replaced when they changed (a regenerated reply, core/turns.py). Returns how many were written."""
        if not redacted:  # capture has done both already
            messages = self.redact.messages(as_said(messages))
        if not messages:
            return 0
        # Embedding happens before the user's lock is taken: it is the slow part, and the user's
        # other writes (a memory saved now) must not wait behind a batch of captured turns.
        now = self.clock.now()
        col = message_collection(scope)
        new, _ = unsaved(self.reads, scope, messages)
        # a turn the person made Amber forget stays forgotten when a journal or queue replays it
        buried = self.tombstones.buried(scope.user_id, [m.id for m in new])
        new = [m for m in new if m.id not in buried]
        if not new:
            return 0
        with background_owner(scope.user_id):  # the background lane shares itself out per person (core/embed/fair.py)
            vectors = self.embed_background(self._index_texts(scope, new))
        with self.writes.lock(scope):
            self.writes.register_user(scope)
            fresh, replacing = unsaved(self.reads, scope, new)  # another writer may have stored some meanwhile
            fresh_ids = {m.id for m in fresh}
            keep = [(m, v) for m, v in zip(new, vectors) if m.id in fresh_ids]
            if not keep:
                return 0
            # retention ages a turn from when Amber stored it, whatever clock the client keeps
            stored = [m.model_copy(update={"stored_at": now}) if m.stored_at is None else m for m, _ in keep]
            self.writes.add_messages(col, stored, [v for _, v in keep], replacing=bool(replacing))
            if replacing:
                self.writes.audit(scope, "replace_message", [], message_ids=sorted(replacing), count=len(replacing))
            return len(stored)

    def _index_texts(self, scope: Scope, new: Sequence[Message]) -> list[str]:
        """What each new turn is embedded as: with its neighbours in the session (date, the turn
        before, the turn, the turn after when it is in the same batch): a reply like "yes, last
        Tuesday" means nothing alone. Earlier turns are not re-embedded when their successors
        arrive: that doubled the embedding work of every capture (bench/README.md, proxy load)."""
        c, col = DENSE_CONTEXT, message_collection(scope)
        by_session: dict[str, list[Message]] = {}
        for m in new:
            by_session.setdefault(m.session or "", []).append(m)
        chains: list[Message] = []
        for key, turns in by_session.items():
            # the session's last turns: from the warm recall index when it is current and the new
            # turns come after them (the usual capture), else from the store (a full session read)
            ids = {m.id for m in turns}
            earlier = self.recaller.session_tail(col, key, c) if c else []
            if earlier is None or (earlier and (earlier[-1].created_at > turns[0].created_at or ids & {x.id for x in earlier})):
                earlier = self.reads.turns(scope, message_where(session=key, until=turns[0].created_at.timestamp()))
            earlier = [x for x in earlier if x.id not in ids]  # a turn being replaced is not its own neighbour
            chains.extend(earlier[-c:] if c else [])
            chains.extend(turns)
        text = dict(zip((m.id for m in chains), message_index_texts(chains, c)))
        return [text[m.id] for m in new]

    def messages(
        self, scope: Scope, *, since: datetime | None = None, until: datetime | None = None, session: str | None = None
    ) -> list[Message]:
        where = message_where(
            since=since.timestamp() if since else None, until=until.timestamp() if until else None, session=session
        )
        return self.reads.turns(scope, where)

    # ---- recall ------------------------------------------------------------------------------

    def recall_config(self, name: str | None = None, **overrides: Any) -> RecallConfig:
        """The configured preset (with the operator's budget, if set: `recall_budget`), or the one named."""
        if name is None and self.recall_budget is not None:
            overrides.setdefault("budget_tokens", self.recall_budget)
        return preset(name or self.recall_preset, **overrides)

    def search(self, scope: Scope, query: str, cfg: RecallConfig | None = None) -> list[Candidate]:
        return self.recaller.search(scope, query, cfg or self.recall_config(), self.clock.now())

    def recall(
        self, scope: Scope, query: str, cfg: RecallConfig | None = None, count_tokens=None, *, echo: Collection[str] = (),
        why: str | None = None,
    ) -> RecallResult:
        """The injectable block for a query (`echo`: fingerprints of turns the request already
        carries, never injected back); access counted in the background."""
        result = self.recaller.recall(scope, query, cfg or self.recall_config(), self.clock.now(), echo=echo, count_tokens=count_tokens)
        used = [c.id for c in result.items if c.source == "memory"]
        if used:
            self._access.count(scope, used)  # bookkeeping, written in the background (core/access.py)
        if why:  # the caller named the request: keep what was injected and why (core/why.py)
            keep_why(self, scope, why, result)
        return result

    def why(self, scope: Scope, last: int = 1, request: str | None = None) -> list[dict[str, Any]]:
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

    def digest_set(self, scope: Scope, text: str) -> Memory:
        return self._curated.digest_set(scope, text)

    def precious_add(self, scope: Scope, quote: str, *, source_ids: Sequence[str] = (), importance: float = 0.8) -> WriteResult:
        return self._curated.precious_add(scope, quote, source_ids=source_ids, importance=importance)

    def candidates(self, scope: Scope, limit: int = 500) -> list[Memory]:
        """The review queue: memories waiting for approve / discard / merge / supersede."""
        return self._review.candidates(scope, limit)

    def approve(self, scope: Scope, memory_id: str) -> WriteResult:
        return self._review.approve(scope, memory_id)

    def discard(self, scope: Scope, memory_id: str) -> Memory:
        return self._review.discard(scope, memory_id)

    def merge(self, scope: Scope, memory_id: str, target_id: str) -> Memory:
        """Fold a candidate into an existing memory: the target is marked seen, the candidate retired."""
        return self._review.merge(scope, memory_id, target_id)

    def supersede_with_candidate(self, scope: Scope, memory_id: str, target_id: str) -> WriteResult:
        return self._review.supersede_with_candidate(scope, memory_id, target_id)

    def export(self, scope: Scope) -> Iterator[dict[str, Any]]:
        return self._portability.export(scope)

    def import_(self, scope: Scope, lines: Iterable[dict[str, Any]]) -> dict[str, int]:
        """Load an export (core/portability.py): checked whole first, every vector computed before the first write."""
        return self._portability.import_(scope, lines)

    def reindex(self, scope: Scope) -> dict[str, int]:
        """Re-embed every record of this user with the configured embedder (after changing embedders)."""
        return self._portability.reindex(scope)

    def forget_preview(self, scope: Scope, what: str) -> ForgetPlan:
        """What `forget(scope, what)` would remove now; removes nothing."""
        return self._forgetting.forget_preview(scope, what)

    def forget(self, scope: Scope, what: str) -> ForgetPlan:
        """Forget what `what` says: delete the memories that state it and the raw turns that still say it."""
        return self._forgetting.forget(scope, what)

    def select_messages(self, scope: Scope, *, ids: Sequence[str] | None = None, session: str | None = None,
                        since: datetime | None = None, until: datetime | None = None) -> list[str]:
        """Ids of the stored turns that meet every criterion given (ids, session, since ≤ t < until)."""
        return self._forgetting.select_messages(scope, ids=ids, session=session, since=since, until=until)

    def delete_messages_matching(self, scope: Scope, *, ids: Sequence[str] | None = None, session: str | None = None,
                                 since: datetime | None = None, until: datetime | None = None, everything: bool = False) -> list[str]:
        """Delete the turns that meet every criterion given (or all of them with `everything`)."""
        return self._forgetting.delete_messages_matching(scope, ids=ids, session=session, since=since, until=until, everything=everything)

    def delete_message(self, scope: Scope, message_id: str) -> None:
        """Delete one captured turn; NotFound when this user has no turn with that id."""
        self._forgetting.delete_message(scope, message_id)

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
