"""Export, import and reindex: a user's memories and messages as lossless JSONL, re-embedded on the way in."""

from __future__ import annotations

import json
from typing import Any, Iterable, Iterator

from .import_check import EXPORT_VERSION, check_import
from .model import Event, Memory, Message, embed_text
from .recall.pipeline import message_index_texts
from .scope import Scope, event_collection, memory_collection, memory_where, message_collection
from .supersede import retire_duplicates


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


class Portability:
    """Mixed into MemoryService."""

    def export(self, scope: Scope) -> Iterator[dict[str, Any]]:
        yield {"type": "header", "format": "amber-export", "version": EXPORT_VERSION, "user_id": scope.user_id,
               "embedder": self.embedder.id, "exported_at": self.clock.now().isoformat()}
        mems = self.store.find_memories(memory_collection(scope), None)
        for m in sorted(mems, key=lambda m: (m.created_at, m.id)):
            yield {"type": "memory", **m.model_dump(mode="json")}
        for msg in self.messages(scope):
            yield {"type": "message", **msg.model_dump(mode="json")}
        for ev in reversed(self.events(scope, limit=10**9)):  # oldest first, as they happened
            yield {"type": "event", **ev.model_dump(mode="json", exclude={"user_id"})}

    def import_(self, scope: Scope, lines: Iterable[dict[str, Any]]) -> dict[str, int]:
        """Load an export. The whole file is checked first (core/import_check.py) and every vector
        computed before the first write, so a bad file or a failing embedder writes nothing. Ids are
        kept, so importing twice gives the same state; vectors come from the configured embedder.
        A keyed fact active both here and in the file keeps only its newest version active."""
        plan = check_import(scope.user_id, lines)
        mems = [self.redact.fields(m) for m in plan.memories]  # an export from before redaction, or another tool's
        msgs = self.redact.messages(plan.messages)
        mvecs = self.embed_background([embed_text(m) for m in mems]) if mems else []
        texts = message_index_texts(msgs)  # each turn with its neighbours, as live ingest indexes it
        gvecs = self.embed_background(texts) if msgs else []
        with self._lock(scope):
            self._register_user(scope)
            mcol, gcol = memory_collection(scope), message_collection(scope)
            for i in range(0, len(mems), 256):
                batch = mems[i : i + 256]
                vectors = {embed_text(m): v for m, v in zip(batch, mvecs[i : i + 256])}
                self._write(scope, batch, embed=batch, vectors=vectors)
            keys = {(m.namespace, m.fact_key) for m in mems if m.fact_key}
            if keys:
                keyed = [m for m in self.store.find_memories(mcol, memory_where(scope, all_namespaces=True))
                         if (m.namespace, m.fact_key) in keys]
                retired = retire_duplicates(keyed, self.clock.now())
                if retired:
                    self._write(scope, retired)
            for i in range(0, len(msgs), 256):
                self.store.put_messages(gcol, msgs[i : i + 256], [m.content for m in msgs[i : i + 256]], gvecs[i : i + 256])
            if msgs:
                self._bump(gcol)
                self.recaller.drop_indexes(gcol)
            for i in range(0, len(plan.events), 256):
                self.store.put_rows(event_collection(scope), [r for ev in plan.events[i : i + 256] for r in event_rows(ev)])
            self._audit(scope, "import", [m.id for m in mems][:1000], memories=len(mems), messages=len(msgs), events=len(plan.events))
        return {"memories": len(mems), "messages": len(msgs), "events": len(plan.events)}

    def reindex(self, scope: Scope) -> dict[str, int]:
        """Re-embed every record of this user with the configured embedder (after changing embedders).
        All vectors are computed before the old collections are dropped, so a failing embedder loses nothing."""
        mcol, gcol = memory_collection(scope), message_collection(scope)
        with self._lock(scope):
            mems = [Memory.model_validate_json(r["record"]) for r in self.store.read_raw(mcol)]
            msgs = [Message.model_validate_json(r["record"]) for r in self.store.read_raw(gcol)]
            mvecs = self.embed_background([embed_text(m) for m in mems])
            gvecs = self.embed_background(message_index_texts(msgs))
            for col in (mcol, gcol):
                self.store.drop(col)
                self.recaller.drop_indexes(col)
                self._bump(col)
            if mems:
                self.store.put_memories(mcol, mems, mvecs)
            if msgs:
                self.store.put_messages(gcol, msgs, [m.content for m in msgs], gvecs)
            self._audit(scope, "reindex", [], memories=len(mems), messages=len(msgs), embedder=self.embedder.id)
        return {"memories": len(mems), "messages": len(msgs)}

