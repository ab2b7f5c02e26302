"""Export, import and reindex: a user's memories and messages as lossless JSONL, re-embedded on the way in."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Iterable, Iterator, Sequence

from .import_check import EXPORT_VERSION, check_import
from .model import Memory, Message, embed_text
from .ports import Clock, Embedder
from .recall.turns import message_index_texts
from .reads import Reads
from .redact import Redactor
from .scope import Scope, memory_collection, memory_where, message_collection
from .supersede import retire_duplicates
from .write_path import WritePath


class Portability:
    """Export, import and reindex for `MemoryService`: given the store (reindex reads, drops and
    refills whole collections), the user's records to export, the write path, the embedder (its id goes into exports and the audit)
    and its background lane, the clock and the redactor an import passes through."""

    def __init__(self, store: Any, reads: Reads, writes: WritePath, embedder: Embedder, clock: Clock, redact: Redactor,
                 embed_background: Callable[[Sequence[str]], list[list[float]]], tombstones: Any = None):
        self._tombstones = tombstones  # what the person forgot (core/tombstones.py): an import never brings it back
        self._store = store
        self._reads = reads
        self._writes = writes
        self._embedder = embedder
        self._clock = clock
        self._redact = redact
        self._embed_background = embed_background

    # ---- vectors of an index a crash cut short (core/store/index_repair.py, core/repair.py) ------

    def vectors_pending(self) -> list[str]:
        """The people's collections whose index the store set aside, their vectors still to give back."""
        return self._store.vectors_to_rebuild()

    def vectors_rebuilt(self, col: str) -> None:
        self._store.vectors_rebuilt(col)

    def wake_on_set_aside(self, wake: Callable[[], None]) -> None:
        self._store.on_set_aside = wake

    def revector(self, scope: Scope, col: str, batch: int = 64) -> int:
        """Give back the vectors of this user's memories or turns (`col`) after their index was set
        aside (core/store/index_repair.py): the records are read once and embedded again on the
        background lane, a batch at a time, each batch written under the user's write lock, where
        a record changed meanwhile is left as its own write left it. Returns the records restored."""
        raw = self._store.read_raw(col)
        if col == memory_collection(scope):
            mems = [Memory.model_validate_json(r["record"]) for r in raw]
            ids, texts = [m.id for m in mems], [embed_text(m) for m in mems]
        elif col == message_collection(scope):
            msgs = [Message.model_validate_json(r["record"]) for r in raw]
            ids, texts = [m.id for m in msgs], message_index_texts(msgs)
        else:
            raise ValueError(f"{col} is not one of {scope.user_id}'s vector collections")
        records = dict(zip(ids, (r["record"] for r in raw)))  # a record's Chroma id is its own id
        restored = 0
        for i in range(0, len(ids), batch):
            vecs = self._embed_background(texts[i : i + batch])
            with self._writes.lock(scope):
                restored += self._store.restore_vectors(col, dict(zip(ids[i : i + batch], vecs)), records)
        return restored

    def export(self, scope: Scope) -> Iterator[dict[str, Any]]:
        yield {"type": "header", "format": "amber-export", "version": EXPORT_VERSION, "user_id": scope.user_id,
               "embedder": self._embedder.id, "exported_at": self._clock.now().isoformat()}
        mems = self._reads.memories(scope, None)
        for m in sorted(mems, key=lambda m: (m.created_at, m.id)):
            yield {"type": "memory", **m.model_dump(mode="json")}
        for msg in self._reads.turns(scope, None):
            yield {"type": "message", **msg.model_dump(mode="json")}
        for ev in reversed(self._writes.events(scope, limit=10**9)):  # oldest first, as they happened
            yield {"type": "event", **ev.model_dump(mode="json", exclude={"user_id"})}

    def import_(self, scope: Scope, lines: Iterable[dict[str, Any]]) -> dict[str, int]:
        """Load an export. The whole file is checked first (core/import_check.py) and every vector
        computed before the first write, so a bad file or a failing embedder writes nothing. Ids are
        kept, so importing twice gives the same state; vectors come from the configured embedder.
        A keyed fact active both here and in the file keeps only its newest version active."""
        plan = check_import(scope.user_id, lines)
        mems, msgs = self._still_wanted(scope, plan.memories, plan.messages)
        mems = [self._redact.fields(m) for m in mems]  # an export from before redaction, or another tool's
        msgs = self._redact.messages(msgs)
        mvecs = self._embed_background([embed_text(m) for m in mems]) if mems else []
        texts = message_index_texts(msgs)  # each turn with its neighbours, as live ingest indexes it
        gvecs = self._embed_background(texts) if msgs else []
        writes = self._writes
        with writes.lock(scope):
            writes.register_user(scope)
            gcol = message_collection(scope)
            for i in range(0, len(mems), 256):
                batch = mems[i : i + 256]
                vectors = {embed_text(m): v for m, v in zip(batch, mvecs[i : i + 256])}
                writes.write(scope, batch, embed=batch, vectors=vectors)
            keys = {(m.namespace, m.fact_key) for m in mems if m.fact_key}
            if keys:
                keyed = [m for m in self._reads.memories(scope, memory_where(scope, all_namespaces=True))
                         if (m.namespace, m.fact_key) in keys]
                retired = retire_duplicates(keyed, self._clock.now())
                if retired:
                    writes.write(scope, retired)
            for i in range(0, len(msgs), 256):
                writes.add_messages(gcol, msgs[i : i + 256], gvecs[i : i + 256], replacing=True)
            for i in range(0, len(plan.events), 256):
                writes.put_events(scope, plan.events[i : i + 256])
            writes.audit(scope, "import", [m.id for m in mems][:1000], memories=len(mems), messages=len(msgs), events=len(plan.events))
        return {"memories": len(mems), "messages": len(msgs), "events": len(plan.events)}

    def _still_wanted(self, scope: Scope, mems: list, msgs: list) -> tuple[list, list]:
        """What of a file the person has not taken back since it was written: nothing they forgot
        (an older export holds it: a forgotten thing never comes back), and no older
        copy of a memory held here (a forget rewrites a daily log in place, under its id): a memory
        the store holds is written only where the file's copy is newer."""
        if self._tombstones is not None:
            gone = self._tombstones.buried(scope.user_id, [m.id for m in mems] + [m.id for m in msgs])
            mems = [m for m in mems if m.id not in gone]
            msgs = [m for m in msgs if m.id not in gone]
        held = {m.id: m.updated_at for m in self._reads.memories_by_id(scope, [m.id for m in mems])} if mems else {}
        return [m for m in mems if m.id not in held or m.updated_at > held[m.id]], msgs

    def reindex(self, scope: Scope) -> dict[str, int]:
        """Re-embed every record of this user with the configured embedder (after changing embedders).
        All vectors are computed before the old collections are dropped, so a failing embedder loses nothing."""
        mcol, gcol = memory_collection(scope), message_collection(scope)
        with self._writes.lock(scope):
            mems = [Memory.model_validate_json(r["record"]) for r in self._store.read_raw(mcol)]
            msgs = [Message.model_validate_json(r["record"]) for r in self._store.read_raw(gcol)]
            mvecs = self._embed_background([embed_text(m) for m in mems])
            gvecs = self._embed_background(message_index_texts(msgs))
            for col in (mcol, gcol):
                self._store.drop(col)
                self._writes.refresh(col)
            if mems:
                self._store.put_memories(mcol, mems, mvecs)
            if msgs:
                self._store.put_messages(gcol, msgs, [m.content for m in msgs], gvecs)
            self._writes.audit(scope, "reindex", [], memories=len(mems), messages=len(msgs), embedder=self._embedder.id)
        return {"memories": len(mems), "messages": len(msgs)}
