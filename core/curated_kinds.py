"""Curated kinds of memory: glossary terms, the digest, and precious (append-only) quotes."""

from __future__ import annotations

from collections.abc import Callable
from typing import Sequence

from .errors import InvalidInput
from .model import DIGEST_MAX_CHARS, Kind, Memory, MemoryIn, Status, WriteResult, content_hash
from .ports import Clock
from .reads import Reads
from .scope import Scope, memory_where
from .write_path import WritePath


class Curated:
    """Glossary, digest and precious quotes for `MemoryService`: given the user's records to read
    them from, the write path, the clock, and the service's `remember` (a term or a quote is an ordinary keyed
    or append-only memory)."""

    def __init__(self, reads: Reads, writes: WritePath, clock: Clock, *, remember: Callable[[Scope, MemoryIn], WriteResult]):
        self._reads = reads
        self._writes = writes
        self._clock = clock
        self._remember = remember

    def glossary_set(self, scope: Scope, term: str, definition: str, aliases: Sequence[str] = ()) -> WriteResult:
        term = term.strip()
        if not term:
            raise InvalidInput("term", "must not be blank")
        # the term's key derives from the term, keyed like an id (WritePath.keyed); a term set before
        # keys were keyed keeps the key it has
        held = [m.fact_key for m in self.glossary_get(scope, term) if (m.title or "").casefold() == term.casefold() and m.fact_key]
        key = held[0] if held else "world.term_" + self._writes.keyed(scope, "term", term.casefold(), size=12)
        return self._remember(
            scope,
            MemoryIn(
                content=f"{term}: {definition.strip()}",
                kind=Kind.glossary,
                title=term,
                aliases=[a.strip() for a in aliases if a.strip()],
                fact_key=key,
                importance=0.7,
            ),
        )

    def glossary_get(self, scope: Scope, term: str | None = None) -> list[Memory]:
        entries = self._reads.memories(scope, memory_where(scope, kinds=[Kind.glossary.value]))
        if term is None:
            return sorted(entries, key=lambda m: (m.title or "").casefold())
        needle = term.strip().casefold()
        return [m for m in entries if needle in {(m.title or "").casefold(), *(a.casefold() for a in m.aliases)}]

    def digest_get(self, scope: Scope) -> Memory | None:
        found = self._reads.memories(scope, memory_where(scope, kinds=[Kind.digest.value], namespaces=[scope.write_namespace]))
        return max(found, key=lambda m: m.updated_at) if found else None

    def digest_set(self, scope: Scope, text: str, tags: Sequence[str] = ()) -> Memory:
        text = text.strip()
        if not text:
            raise InvalidInput("text", "must not be blank")
        if len(text) > DIGEST_MAX_CHARS:
            raise InvalidInput("text", f"a digest holds at most {DIGEST_MAX_CHARS} characters, got {len(text)}")
        with self._writes.lock(scope):
            self._writes.register_user(scope)
            now = self._clock.now()
            old = self.digest_get(scope)
            if old and old.content_hash == content_hash(text) and sorted(old.tags) == sorted(tags):
                return old
            data = MemoryIn(content=text, namespace=scope.write_namespace, importance=0.8, tags=list(tags))
            new = self._writes.new(scope, data, now, supersedes=old.id if old else None).model_copy(
                update={"kind": Kind.digest, "id": self._writes.keyed_id(scope, "digest", now.isoformat(), text, *sorted(tags))}
            )
            writes = [new]
            if old:
                writes.append(old.model_copy(update={"status": Status.superseded, "superseded_by": new.id, "updated_at": now}))
            self._writes.write(scope, [new], embed=[new])
            if old:
                self._writes.write(scope, writes[1:])
            self._writes.audit(scope, "digest", [m.id for m in writes])
            return new

    def precious_add(self, scope: Scope, quote: str, *, source_ids: Sequence[str] = (), importance: float = 0.8) -> WriteResult:
        return self._remember(scope, MemoryIn(content=quote, kind=Kind.precious, source_ids=list(source_ids), importance=importance))
