"""ChromaStore: per-user collections of memories, messages and audit events, plus a registry.

Embedded (`PersistentClient` under `<data_dir>/chroma`, guarded by a lock file) or client/server
(`HttpClient` at `chroma_url`). Vectors are computed by Amber's embedder and passed in; each
vector collection records the embedder's id and dimension, and refuses to open under another.
"""

from __future__ import annotations

import json
import logging
import threading
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence
from urllib.parse import urlparse

import chromadb
import httpx
from chromadb.config import Settings as ChromaSettings

from ..errors import AmberError, EmbedderMismatch, InvalidInput, StoreUnavailable
from ..filters import Eq, In, Range, Where
from ..model import Memory, Message
from .codec import memory_from, memory_metadata, message_from, message_metadata
from .format import remove_orphan_segments
from .lock import DirectoryLock
from .sealing import PREFIX as SEALED
from .sealing import MasterKeyError, RecordKeys, Sealer, scrub_freed_memory

log = logging.getLogger("amber.store")

REGISTRY = "amber_registry"
_UNIT = [1.0]  # registry and audit rows carry no meaningful vector
_MAX_BATCH = 5000  # Chroma caps a batch at 5461
_WORD_FIELDS = ("content_hash", "title")  # flat fields derived from a record's words


class ChromaStore:
    def __init__(
        self, *, data_dir: Path | None = None, chroma_url: str | None = None, embedder_id: str, dim: int,
        tenant: str = "default_tenant", database: str = "default_database", token: str | None = None,
        master_key: bytes | None = None,
    ):
        # embedded: each record's words sealed under a key of its own (sealing.py); server: plain
        self.sealer: Sealer | None = None
        self.embedder_id = embedder_id
        self.dim = dim
        self._lock: DirectoryLock | None = None
        self._cols: dict[str, Any] = {}
        self._mutex = threading.RLock()
        # called before every write: with several hosts it refuses a write whose user lock was lost
        self.fence: Callable[[], None] = lambda: None
        try:
            if chroma_url:
                u = urlparse(chroma_url)
                self.client = chromadb.HttpClient(
                    host=u.hostname or "127.0.0.1",
                    port=u.port or 8000,
                    ssl=u.scheme == "https",
                    headers={"x-chroma-token": token} if token else None,
                    tenant=tenant,
                    database=database,
                    settings=ChromaSettings(anonymized_telemetry=False),
                )
                self.location = chroma_url if (tenant, database) == ("default_tenant", "default_database") else f"{chroma_url} ({tenant}/{database})"
            else:
                assert data_dir is not None
                path = Path(data_dir) / "chroma"
                self._lock = DirectoryLock(Path(data_dir))
                self._lock.acquire()
                self.client = chromadb.PersistentClient(
                    path=str(path), settings=ChromaSettings(anonymized_telemetry=False, allow_reset=False)
                )
                self.location = str(path)
                self.sealer = Sealer(RecordKeys(Path(data_dir) / "record_keys.sqlite3", master_key))
                if not scrub_freed_memory():
                    log.warning("amber: this C library cannot scrub freed memory; Chroma's index files may hold stray bytes of opened records")
        except Exception as e:
            if self._lock:
                self._lock.release()
            if isinstance(e, AmberError):
                raise
            if isinstance(e, MasterKeyError):  # the operator's to fix, not an outage to wait out
                raise InvalidInput("master_key", str(e)) from None
            raise StoreUnavailable(f"cannot open Chroma at {chroma_url or data_dir}: {e}") from e

    def close(self) -> None:
        self._cols.clear()
        if self.sealer is not None:
            self.sealer.keys.close()
        if self._lock:
            self._lock.release()
            self._lock = None

    # ---- collections -------------------------------------------------------------------------

    def _collection(self, name: str, *, vectors: bool) -> Any:
        col = self._cols.get(name)
        if col is not None:
            return col
        with self._mutex:
            meta = {"amber:embedder": self.embedder_id, "amber:dim": self.dim} if vectors else {"amber:vectors": "none"}
            try:
                col = self.client.get_or_create_collection(
                    name, metadata=meta, embedding_function=None, configuration={"hnsw": {"space": "cosine"}}
                )
            except Exception as e:
                raise StoreUnavailable(f"Chroma collection {name}: {e}") from e
            if vectors:
                found = (col.metadata or {}).get("amber:embedder")
                if found and found != self.embedder_id:
                    raise EmbedderMismatch(
                        f"collection {name} was built with embedder {found!r}, but Amber is configured with "
                        f"{self.embedder_id!r}. Run `amber reindex` to re-embed it, or set AMBER_EMBEDDING_MODEL back."
                    )
            self._cols[name] = guarded = _Guarded(col, name)
            return guarded

    def collection_embedder(self, name: str) -> str | None:
        try:
            col = self.client.get_collection(name, embedding_function=None)
        except Exception as e:
            _raise_if_outage(e, f"Chroma collection {name}")
            return None  # no such collection
        return (col.metadata or {}).get("amber:embedder")

    def read_raw(self, name: str) -> list[dict[str, Any]]:
        """Every record's metadata, whatever embedder built the collection (for reindexing)."""
        try:
            col = self.client.get_collection(name, embedding_function=None)
        except Exception as e:
            _raise_if_outage(e, f"Chroma collection {name}")
            return []  # no such collection
        r = _Guarded(col, name).get(include=["metadatas"])
        return [m for m in (self._opened(name, i, m) for i, m in zip(r["ids"], r["metadatas"])) if m is not None]

    def drop(self, name: str) -> None:
        with self._mutex:
            self._cols.pop(name, None)
            if self.sealer is not None:
                self.sealer.keys.destroy_collection(name)
            try:
                self.client.delete_collection(name)
                if self.sealer is not None:  # Chroma leaves a dropped collection's index files behind
                    remove_orphan_segments(Path(self.location))
            except Exception as e:
                _raise_if_outage(e, f"Chroma collection {name}")  # else: it was not there

    def list_collections(self) -> list[str]:
        return [c.name if hasattr(c, "name") else str(c) for c in self.client.list_collections()]

    # ---- memories ----------------------------------------------------------------------------

    def put_memories(self, col: str, memories: Sequence[Memory], embeddings: Sequence[Sequence[float]] | None) -> None:
        self.fence()
        c = self._collection(col, vectors=True)
        for i in range(0, len(memories), _MAX_BATCH):
            batch = memories[i : i + _MAX_BATCH]
            ids, metas = [m.id for m in batch], self._sealed(col, [m.id for m in batch], [memory_metadata(m) for m in batch])
            if embeddings is not None:
                vectors = [list(v) for v in embeddings[i : i + _MAX_BATCH]]
                docs = self._seal_texts(col, ids, [m.content for m in batch])
                c.upsert(ids=ids, documents=docs, metadatas=metas, embeddings=vectors)
            else:
                c.update(ids=ids, metadatas=metas)  # content unchanged: document and vector stay

    def get_memories(self, col: str, ids: Sequence[str]) -> list[Memory]:
        if not ids:
            return []
        r = self._collection(col, vectors=True).get(ids=list(ids), include=["metadatas"])
        by_id = {i: memory_from(m) for i, m in self._open_all(col, r["ids"], r["metadatas"])}
        return [by_id[i] for i in ids if i in by_id]

    def find_memories(self, col: str, where: Where | None, *, limit: int | None = None) -> list[Memory]:
        r = _get_paged(self._collection(col, vectors=True), self._where(col, where), ["metadatas"], limit)
        return [memory_from(m) for _, m in self._open_all(col, r["ids"], r["metadatas"])]

    def query_memories(self, col: str, embedding: Sequence[float], k: int, where: Where | None) -> list[tuple[Memory, float]]:
        c = self._collection(col, vectors=True)
        r = c.query(query_embeddings=[list(embedding)], n_results=k, where=self._where(col, where), include=["metadatas", "distances"])
        dist = dict(zip(r["ids"][0], r["distances"][0]))
        return [(memory_from(m), 1.0 - dist[i]) for i, m in self._open_all(col, r["ids"][0], r["metadatas"][0])]

    def memory_embeddings(self, col: str, ids: Sequence[str]) -> dict[str, list[float]]:
        """Stored vectors by id; {} when the store cannot read them (after a crash, embedded Chroma can
        hold a record whose vector it cannot find: callers re-embed the text instead)."""
        if not ids:
            return {}
        try:
            r = self._collection(col, vectors=True).get(ids=list(ids), include=["embeddings"])
        except AmberError:
            raise
        except Exception as e:
            log.warning("Chroma could not read the vectors of %d record(s) in %s: %s", len(ids), col, e)
            return {}
        return {i: list(map(float, e)) for i, e in zip(r["ids"], r["embeddings"])}

    def delete_records(self, col: str, ids: Sequence[str], *, vectors: bool = True) -> None:
        self.fence()
        if ids:
            self._collection(col, vectors=vectors).delete(ids=list(ids))
            if self.sealer is not None:  # removed for good: every copy Chroma still holds goes unreadable
                self.sealer.destroy(col, ids)

    def count(self, col: str, *, vectors: bool = True) -> int:
        return self._collection(col, vectors=vectors).count()

    # ---- messages ----------------------------------------------------------------------------

    def put_messages(self, col: str, messages: Sequence[Message], texts: Sequence[str], embeddings: Sequence[Sequence[float]]) -> None:
        self.fence()
        c = self._collection(col, vectors=True)
        for i in range(0, len(messages), _MAX_BATCH):
            batch = messages[i : i + _MAX_BATCH]
            ids = [m.id for m in batch]
            c.upsert(
                ids=ids,
                documents=self._seal_texts(col, ids, list(texts[i : i + _MAX_BATCH])),
                metadatas=self._sealed(col, ids, [message_metadata(m) for m in batch]),
                embeddings=[list(v) for v in embeddings[i : i + _MAX_BATCH]],
            )

    def existing_ids(self, col: str, ids: Sequence[str]) -> set[str]:
        if not ids:
            return set()
        return set(self._collection(col, vectors=True).get(ids=list(ids), include=[])["ids"])

    def get_messages(self, col: str, ids: Sequence[str]) -> dict[str, Message]:
        """The stored turns among these ids, by id."""
        if not ids:
            return {}
        r = self._collection(col, vectors=True).get(ids=list(ids), include=["metadatas"])
        return {i: message_from(m) for i, m in self._open_all(col, r["ids"], r["metadatas"])}

    def find_messages(self, col: str, where: Where | None) -> list[tuple[Message, str]]:
        r = _get_paged(self._collection(col, vectors=True), chroma_where(where), ["metadatas", "documents"], None)
        docs = dict(zip(r["ids"], r["documents"]))
        out = [(message_from(m), self._open_text(col, i, docs[i]) or "") for i, m in self._open_all(col, r["ids"], r["metadatas"])]
        out.sort(key=lambda x: (x[0].created_at, x[0].id))
        return out

    def query_messages(self, col: str, embedding: Sequence[float], k: int, where: Where | None = None) -> list[tuple[Message, float]]:
        c = self._collection(col, vectors=True)
        r = c.query(query_embeddings=[list(embedding)], n_results=k, where=chroma_where(where), include=["metadatas", "distances"])
        dist = dict(zip(r["ids"][0], r["distances"][0]))
        return [(message_from(m), 1.0 - dist[i]) for i, m in self._open_all(col, r["ids"][0], r["metadatas"][0])]

    # ---- sealing (embedded stores) -------------------------------------------------------------

    def _sealed(self, col: str, ids: Sequence[str], metas: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Records with their words sealed; the flat fields that derive from words (a digest of the
        content, a glossary term) become keyed digests, so leftover bytes confirm no guess either."""
        if self.sealer is None:
            return metas
        sealed = self.sealer.seal(col, ids, [m["record"] for m in metas])
        out = []
        for m, r in zip(metas, sealed):
            m = {**m, "record": r}
            for name in _WORD_FIELDS:
                if m.get(name):
                    m[name] = self.sealer.digest(col, str(m[name]))
            out.append(m)
        return out

    def _where(self, col: str, where: Where | None) -> dict[str, Any] | None:
        """A filter in Chroma's dialect, with values on word-derived fields keyed as stored."""
        if where is None or self.sealer is None or not any(c.field in _WORD_FIELDS for c in where.clauses):
            return chroma_where(where)
        keyed: list[Any] = []
        for c in where.clauses:
            if isinstance(c, Eq) and c.field in _WORD_FIELDS and c.value:
                c = Eq(c.field, self.sealer.digest(col, str(c.value)))
            elif isinstance(c, In) and c.field in _WORD_FIELDS:
                c = In(c.field, tuple(self.sealer.digest(col, str(v)) if v else v for v in c.values))
            keyed.append(c)
        return chroma_where(Where.of(*keyed))

    def _seal_texts(self, col: str, ids: Sequence[str], texts: Sequence[str]) -> list[str]:
        return list(texts) if self.sealer is None else self.sealer.seal(col, ids, texts)

    def _open_text(self, col: str, record_id: str, text: str | None) -> str | None:
        return text if self.sealer is None else self.sealer.open(col, record_id, text)

    def _opened(self, col: str, record_id: str, meta: dict[str, Any]) -> dict[str, Any] | None:
        """The metadata with its record readable; None for a record erased meanwhile (its key is gone)."""
        if self.sealer is None:
            return meta
        record = self.sealer.open(col, record_id, meta.get("record"))
        return None if record is None else {**meta, "record": record}

    def _open_all(self, col: str, ids: Sequence[str], metas: Sequence[dict[str, Any]]) -> list[tuple[str, dict[str, Any]]]:
        out = []
        for i, m in zip(ids, metas):
            opened = self._opened(col, i, m)
            if opened is not None:
                out.append((i, opened))
        return out

    def seal_existing(self) -> int:
        """Seal every record of a store from before sealing, rebuilding every collection: Chroma's
        index files of that time can hold stray bytes of the old process's memory (clear text), and
        only new files are free of them. Vectors are kept as they are. Returns the records sealed."""
        if self.sealer is None:
            return 0
        sealed = 0
        for name in self.list_collections():
            words = name.startswith(("amber_mem_", "amber_msg_"))
            old = self.client.get_collection(name, embedding_function=None)
            r = _get_paged(old, None, ["metadatas", "documents", "embeddings"], None)
            ids = list(r["ids"])
            metas = [dict(m) if m else None for m in r["metadatas"]]
            docs = list(r["documents"])
            if words and ids:
                metas = self._sealed(name, ids, metas)
                docs = self._seal_texts(name, ids, [d or "" for d in docs])
                sealed += len(ids)
            vectors = [list(map(float, v)) for v in r["embeddings"]]
            meta = dict(old.metadata or {})
            with self._mutex:
                self._cols.pop(name, None)
                self.client.delete_collection(name)
                c = self.client.create_collection(name, metadata=meta or None, embedding_function=None, configuration={"hnsw": {"space": "cosine"}})
            for i in range(0, len(ids), _MAX_BATCH):
                part = slice(i, i + _MAX_BATCH)
                c.add(ids=ids[part], metadatas=metas[part], embeddings=vectors[part],
                      documents=docs[part] if any(d is not None for d in docs[part]) else None)
        return sealed

    # ---- audit events ------------------------------------------------------------------------

    def put_rows(self, col: str, rows: Sequence[tuple[str, dict[str, Any]]]) -> None:
        """Metadata-only rows (audit events): (id, flat metadata)."""
        self.fence()
        if rows:
            c = self._collection(col, vectors=False)
            c.upsert(ids=[r[0] for r in rows], metadatas=[r[1] for r in rows], embeddings=[_UNIT] * len(rows))

    def find_rows(self, col: str, where: Where | None, limit: int | None = None) -> list[dict[str, Any]]:
        r = self._collection(col, vectors=False).get(where=chroma_where(where), limit=limit, include=["metadatas"])
        return [dict(m, id=i) for i, m in zip(r["ids"], r["metadatas"])]

    # ---- registry: users, cursors, revisions, leases, client cache ----------------------------

    def reg_get(self, key: str) -> Any | None:
        r = self._collection(REGISTRY, vectors=False).get(ids=[key], include=["metadatas"])
        return json.loads(r["metadatas"][0]["value"]) if r["ids"] else None

    def reg_put(self, key: str, value: Any, *, kind: str, owner: str = "") -> None:
        self.put_rows(REGISTRY, [(key, {"value": json.dumps(value, default=str), "kind": kind, "owner": owner})])

    def reg_delete(self, keys: Iterable[str]) -> None:
        self.delete_records(REGISTRY, list(keys), vectors=False)

    def reg_find(self, kind: str, owner: str | None = None) -> dict[str, Any]:
        where = Where.of(Eq("kind", kind), Eq("owner", owner) if owner is not None else None)
        return {row["id"]: json.loads(row["value"]) for row in self.find_rows(REGISTRY, where)}

    def ping(self) -> None:
        try:
            self.client.heartbeat()
        except Exception as e:
            raise StoreUnavailable(f"Chroma at {self.location} does not answer: {e}") from e


_OUTAGE_WORDS = ("disk is full", "no space left", "database is locked", "could not connect", "connection", "timed out", "unavailable")


def _is_outage(e: Exception) -> bool:
    """Chroma or its transport unable to serve now (unreachable, timing out, its disk full), as
    opposed to refusing what it was asked (a bad argument, a missing record)."""
    if isinstance(e, (OSError, TimeoutError, ConnectionError, httpx.TransportError)):
        return True
    text = f"{type(e).__name__}: {e}".casefold()
    return any(w in text for w in _OUTAGE_WORDS)


def _raise_if_outage(e: Exception, what: str) -> None:
    if isinstance(e, AmberError):
        raise e
    if _is_outage(e):
        raise StoreUnavailable(f"{what}: {type(e).__name__}: {e}") from e


class _Guarded:
    """A Chroma collection whose every call fails in Amber's error tree: an outage is
    StoreUnavailable (503 with Retry-After over REST, a clean tool error over MCP, "no memory this
    turn" in a chat), whatever the operation; anything else is raised as Chroma raised it."""

    __slots__ = ("_col", "_name")

    def __init__(self, col: Any, name: str):
        self._col, self._name = col, name

    def __getattr__(self, attr: str) -> Any:
        value = getattr(self._col, attr)
        if not callable(value):
            return value

        def call(*args: Any, **kwargs: Any) -> Any:
            try:
                return value(*args, **kwargs)
            except Exception as e:
                _raise_if_outage(e, f"Chroma {attr} on {self._name}")
                raise

        return call


def chroma_where(where: Where | None) -> dict[str, Any] | None:
    """A typed filter in Chroma's `where` dialect (the only place that speaks it)."""
    if where is None:
        return None
    if not isinstance(where, Where):
        raise TypeError(f"a store filter is a core.filters.Where, not {type(where).__name__}")
    parts: list[dict[str, Any]] = []
    for c in where.clauses:
        if isinstance(c, Eq):
            parts.append({c.field: c.value})
        elif isinstance(c, In):
            parts.append({c.field: c.values[0]} if len(c.values) == 1 else {c.field: {"$in": list(c.values)}})
        elif isinstance(c, Range):
            parts += [{c.field: {op: v}} for op, v in (("$gte", c.gte), ("$lt", c.lt)) if v is not None]
        else:
            raise TypeError(f"not a store filter clause: {c!r}")
    if not parts:
        return None
    return parts[0] if len(parts) == 1 else {"$and": parts}


def _get_paged(col: Any, where: dict[str, Any] | None, include: list[str], limit: int | None) -> dict[str, list]:
    """`get` in pages: one unbounded get over ~100k records fails in Chroma ("too many SQL variables")."""
    out: dict[str, list] = {"ids": [], **{k: [] for k in include}}
    offset = 0
    while limit is None or offset < limit:
        size = _MAX_BATCH if limit is None else min(_MAX_BATCH, limit - offset)
        r = col.get(where=where, limit=size, offset=offset, include=include)
        for k in out:
            out[k].extend(r[k] if r[k] is not None else [])  # embeddings come as an array
        if len(r["ids"]) < size:
            break
        offset += size
    return out
