"""Export, import and reindex: a user's memories and messages as lossless JSONL, re-embedded on the way in."""

from __future__ import annotations

import json
from typing import Any, Iterable, Iterator

from .errors import InvalidInput
from .model import Memory, Message, embed_text
from .recall.pipeline import message_index_texts
from .scope import Scope, memory_collection, message_collection

EXPORT_VERSION = 1


def parse_jsonl(lines: Iterable[str]) -> Iterator[dict[str, Any]]:
    """Objects from JSON lines (an export file or request body); blank lines skipped; a bad line
    is an InvalidInput naming its number."""
    for n, text in enumerate(lines, start=1):
        if not text.strip():
            continue
        try:
            value = json.loads(text)
        except ValueError as e:
            raise InvalidInput(f"line {n}", f"not JSON: {e}") from None
        if not isinstance(value, dict):
            raise InvalidInput(f"line {n}", "each line is a JSON object")
        yield value


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

    def import_(self, scope: Scope, lines: Iterable[dict[str, Any]]) -> dict[str, int]:
        """Load an export. Ids are kept, so importing twice gives the same state. Vectors are recomputed
        with the configured embedder. Every line is validated before anything is written."""
        mems: list[Memory] = []
        msgs: list[Message] = []
        for n, line in enumerate(lines, start=1):
            kind = line.get("type") if isinstance(line, dict) else None
            body = {k: v for k, v in line.items() if k != "type"} if isinstance(line, dict) else {}
            try:
                if kind == "memory":
                    mems.append(Memory.model_validate({**body, "user_id": scope.user_id}))
                elif kind == "message":
                    msgs.append(Message.model_validate(body))
                elif kind == "header":
                    if body.get("format") != "amber-export":
                        raise ValueError("not an Amber export")
                else:
                    raise ValueError(f"unknown line type {kind!r}")
            except ValueError as e:
                raise InvalidInput(f"line {n}", str(e)) from None
        with self._lock(scope):
            self._register_user(scope)
            for i in range(0, len(mems), 256):
                batch = mems[i : i + 256]
                self._write(scope, batch, embed=batch)
            col = message_collection(scope)
            texts = message_index_texts(msgs)  # each turn with its neighbours, as live ingest indexes it
            for i in range(0, len(msgs), 256):
                batch = msgs[i : i + 256]
                self.store.put_messages(col, batch, [m.content for m in batch], self.embed_background(texts[i : i + 256]))
            if msgs:
                self._bump(col)
                self.recaller.drop_indexes(col)
            self._audit(scope, "import", [m.id for m in mems][:1000], memories=len(mems), messages=len(msgs))
        return {"memories": len(mems), "messages": len(msgs)}

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

