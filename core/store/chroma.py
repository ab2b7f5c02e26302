"""ChromaStore: per-user collections of memories, messages and audit events, plus a registry.

Embedded (`PersistentClient` under `<data_dir>/chroma`, guarded by a lock file) or client/server
(`HttpClient` at `chroma_url`). Vectors are computed by Amber's embedder and passed in; each
vector collection records the embedder's id and dimension, and refuses to open under another.

A full disk: embedded Chroma must never be asked to write onto a full filesystem. Its Rust core
holds the Python interpreter lock while it waits for its SQLite pool, and after a couple of
"database or disk is full" failures an upsert waits for a connection that never comes back, so
the whole process froze (the event loop, /health, recall), and stayed frozen after space was
freed. So every write first asks the filesystem (`DiskGuard`): below a reserve it is refused as
StoreUnavailable (503 with Retry-After, "no memory this turn" in a chat) before Chroma starts,
reads go on, and writes resume by themselves once space is back.

What the guard cannot close (the disk filled between its check and Chroma's write): core/store/disk.py.
"""

from __future__ import annotations

import json
import logging
import threading
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Sequence

from chromadb.config import Settings as ChromaSettings

from ..errors import AmberError, EmbedderMismatch, InvalidInput, StoreUnavailable
from ..filters import Eq, In, Where
from ..model import Memory, Message
from ..outage import OutageState
from . import chroma_file
from .chroma_query import MAX_BATCH, MISSING as _MISSING, blank_vectors, chroma_where, get_paged as _get_paged, pages, upsert_rows
from .codec import memory_from, memory_metadata, message_from, message_metadata
from .disk import DiskGuard
from .group_commit import GroupCommit, GroupRead
from .format import remove_orphan_segments
from .guarded import _Guarded, _raise_if_outage
from .index_pool import embedded_client, index_settings, keep_on_disk, server_client
from .gate import StoreGate
from .index_repair import IndexMender, cut_short
from .lock import DirectoryLock
from .reads_first import READS_FIRST, ReadsFirst
from .sealing import MasterKeyError, Sealer, not_own_key_table, open_record_keys, warn_if_bytes_may_stray

log = logging.getLogger("amber.store")

REGISTRY = "amber_registry"
EVENTS = "amber_events"  # every person's audit rows (see put_rows)
EVENT_LOG = "amber_evt_"  # how core.scope names a person's audit log
_UNIT = [1.0]  # registry and audit rows carry no meaningful vector
_WORD_FIELDS = ("content_hash", "title")  # flat fields derived from a record's words


class ChromaStore:
    def __init__(
        self, *, data_dir: Path | None = None, chroma_url: str | None = None, embedder_id: str, dim: int,
        tenant: str = "default_tenant", database: str = "default_database", token: str | None = None,
        master_key: bytes | None = None, index_pool: int | None = None, server_files: Path | None = None, slots: int = 0,
        timeout_s: float | None = None,
    ):
        # embedded: each record's words sealed under a key of its own (sealing.py); server: plain
        self.sealer: Sealer | None = None
        self.embedder_id = embedder_id
        self.dim = dim
        self._lock: DirectoryLock | None = None
        self._cols: dict[str, Any] = {}
        self._mutex = threading.RLock()
        self.disk: DiskGuard | None = None  # embedded only: writes wait for room on the filesystem
        self.outage = OutageState("Chroma")
        self.gate: ReadsFirst | None = None if chroma_url else READS_FIRST  # see reads_first.py: embedded writes hold the GIL
        self.turns = StoreGate(slots) if slots else None  # Chroma calls at once, a person's write first (gate.py)
        # called before every write: with several hosts it refuses a write whose user lock was lost
        self.fence: Callable[[], None] = lambda: None
        self._events = GroupCommit(lambda ids, metas: self._upsert_rows(EVENTS, ids, metas))  # everybody's audit rows, written together
        # on a server the registry rows too: every write publishes its revision there (bench/README.md, "Writes that do not queue behind reads")
        self._registry_rows = GroupCommit(lambda ids, metas: self._upsert_rows(REGISTRY, ids, metas)) if chroma_url else None
        self._registry_reads = GroupRead(self._reg_read) if chroma_url else None  # and the reads, revisions above all
        self.mender: IndexMender | None = None  # embedded, or a server's files within reach: index_repair.py
        self.on_set_aside: Callable[[], None] = lambda: None  # core/repair.py: gives a person's vectors back
        try:
            if chroma_url:
                self.client, self.location = server_client(chroma_url, tenant, database, token, timeout_s)
                self.mender = IndexMender(Path(server_files), lambda: self.client, lambda: self.on_set_aside()) if server_files else None
            else:
                assert data_dir is not None
                path = Path(data_dir) / "chroma"
                self._lock = DirectoryLock(Path(data_dir))
                self._lock.acquire()
                self.disk = DiskGuard(Path(data_dir))
                chroma_file.prepare(path)  # write-ahead log: shorter writes (chroma_file.py)
                self.mender = IndexMender(path, lambda: self.client, lambda: self.on_set_aside())
                # the last process never closed the store (a write may have been cut short), or an index was damaged since
                if self.mender.open_mark() or cut_short(path):
                    self.mender.set_aside()
                self.client = embedded_client(path, ChromaSettings(anonymized_telemetry=False, allow_reset=False), index_pool)
                self.location = str(path)
                self.sealer = Sealer(open_record_keys(Path(data_dir) / "record_keys.sqlite3", master_key))
                warn_if_bytes_may_stray(log)
        except Exception as e:
            if self._lock:
                self._lock.release()  # the open mark stays: the next opening reads every id map, harmlessly
            if isinstance(e, AmberError):
                raise
            if isinstance(e, MasterKeyError):  # the operator's to fix, not an outage to wait out
                raise InvalidInput("master_key", str(e)) from None
            raise StoreUnavailable(f"cannot open Chroma at {chroma_url or data_dir}: {e}") from e
        if self.mender is not None:  # a collection a crash left half made again gets its records before anyone reads it
            self.mender.restore_staged()
        if self.sealer is not None and (refused := not_own_key_table(self.sealer.keys, self)) is not None:
            self.close()  # a key file deleted, emptied or replaced (sealing.py)
            raise refused

    def close(self) -> None:
        self._cols.clear()
        if self.sealer is not None:
            self.sealer.keys.close()
        if self._lock and self.mender:
            # embedded: Chroma lets go of its files (four per pooled index) first; the open mark goes with a clean close
            try:
                self.client.close()
            except Exception as e:
                log.warning("amber: closing the embedded Chroma at %s: %s", self.location, e)
            self.mender.close_mark()
            self._lock.release()
            self._lock = None

    # ---- collections -------------------------------------------------------------------------

    def _collection(self, name: str, *, vectors: bool, create: bool = True) -> Any:
        """The collection `name`, made if it does not exist; for a read (`create=False`) one that does not exist reads as
        empty (`_MISSING`) and stays unmade: making one is a write, which stops every thread of an embedded store's
        process (reads_first.py), so a never-seen person's first recall makes nothing; their first write does."""
        col = self._cols.get(name)
        if col is not None:
            return col
        if self.disk is not None:
            self.disk.usable()
        if not create:
            try:
                found = self.client.get_collection(name, embedding_function=None)
            except Exception as e:
                _raise_if_outage(e, f"Chroma collection {name}")
                return _MISSING  # no such collection yet
            return self._adopt(name, found, vectors)
        if self.gate is not None:
            self.gate.before_write()
        with self._mutex:
            meta = {"amber:embedder": self.embedder_id, "amber:dim": self.dim} if vectors else {"amber:vectors": "none"}
            try:
                index = index_settings(vectors, mendable=self.mender is not None)
                col = self.client.get_or_create_collection(name, metadata=meta, embedding_function=None, configuration={"hnsw": index})
            except Exception as e:
                raise StoreUnavailable(f"Chroma collection {name}: {e}") from e
            return self._adopt(name, col, vectors)

    def _adopt(self, name: str, col: Any, vectors: bool) -> Any:
        if vectors:
            found = (col.metadata or {}).get("amber:embedder")
            if found and found != self.embedder_id:
                raise EmbedderMismatch(
                    f"collection {name} was built with embedder {found!r}, but Amber is configured with "
                    f"{self.embedder_id!r}. Run `amber reindex` to re-embed it, or set AMBER_EMBEDDING_MODEL back."
                )
        guarded = _Guarded(col, name, self.outage, self.disk, self.gate, self.mender, self.turns,
                           lambda n: self.client.get_collection(n, embedding_function=None))
        if vectors and self.mender is not None:
            keep_on_disk(guarded, name)  # a collection made before Amber kept indexes on disk is switched
        self._cols[name] = guarded
        return guarded

    # ---- indexes a crash cut short (index_repair.py) -------------------------------------------

    def vectors_to_rebuild(self) -> list[str]:
        """People's collections whose index was set aside, their vectors to be given back (core/repair.py)."""
        return self.mender.people_pending() if self.mender is not None else []

    def vectors_rebuilt(self, name: str) -> None:
        if self.mender is not None:
            self.mender.done(name)

    def restore_vectors(self, col: str, vectors: dict[str, Sequence[float]], records: dict[str, str]) -> int:
        """Give records of `col` their vectors back after its index was set aside, each rewritten as it
        is stored; one gone or changed since it was read (`records`) is left alone. Returns how many."""
        if not vectors:
            return 0
        self.fence()
        self._room(len(vectors) * (2048 + 8 * self.dim))
        c = self._collection(col, vectors=True, create=False)
        r = c.get(ids=list(vectors), include=["metadatas", "documents"])
        keep = [i for i, (rid, meta) in enumerate(zip(r["ids"], r["metadatas"]))
                if (opened := self._opened(col, rid, meta)) is not None and opened.get("record") == records.get(rid)
                and r["documents"][i] is not None]
        if keep:
            ids = [r["ids"][i] for i in keep]
            c.upsert(ids=ids, metadatas=[r["metadatas"][i] for i in keep], documents=[r["documents"][i] for i in keep],
                     embeddings=[list(map(float, vectors[i])) for i in ids])
        return len(keep)

    def collection_embedder(self, name: str) -> str | None:
        try:
            col = self.client.get_collection(name, embedding_function=None)
        except Exception as e:
            _raise_if_outage(e, f"Chroma collection {name}")
            return None  # no such collection
        return (col.metadata or {}).get("amber:embedder")

    def forget_handles(self, suffix: str) -> None:
        """Drop cached handles of `...suffix` collections another process may drop (a user moving shard)."""
        self._cols = {n: c for n, c in self._cols.items() if not n.endswith(suffix)}

    def read_raw(self, name: str) -> list[dict[str, Any]]:
        """Every record's metadata, whatever embedder built the collection (for reindexing)."""
        try:
            col = self.client.get_collection(name, embedding_function=None)
        except Exception as e:
            _raise_if_outage(e, f"Chroma collection {name}")
            return []  # no such collection
        r = _Guarded(col, name, self.outage).get(include=["metadatas"])
        return [m for m in (self._opened(name, i, m) for i, m in zip(r["ids"], r["metadatas"])) if m is not None]

    def drop(self, name: str) -> None:
        self._room(0, floor=0.5)
        if name.startswith(EVENT_LOG):  # a person's audit log: their rows of the shared collection
            self.fence()
            self._collection(EVENTS, vectors=False).delete(where={"log": name})
            return
        self._drop_collection(name)

    def _drop_collection(self, name: str) -> None:
        with self._mutex:
            self._cols.pop(name, None)
            if self.mender is not None:  # records staged while it was being made again go with it (index_repair.py)
                self.mender.unstage(name)
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

    def put_memories(self, col: str, memories: Sequence[Memory], embeddings: Sequence[Sequence[float]] | None, *,
                     rev: int | None = None) -> None:
        """`rev`: the collection revision this write publishes, kept on each record (`rev` in its
        metadata), so a host whose recall index is behind reads back only what changed since."""
        self.fence()
        self._room(sum(len(m.content) for m in memories) + len(memories) * (2048 + 8 * self.dim))
        c = self._collection(col, vectors=True)
        for i in range(0, len(memories), MAX_BATCH):
            batch = memories[i : i + MAX_BATCH]
            ids, metas = [m.id for m in batch], self._sealed(col, [m.id for m in batch], [_stamped(memory_metadata(m), rev) for m in batch])
            if embeddings is not None:
                vectors = [list(v) for v in embeddings[i : i + MAX_BATCH]]
                docs = self._documents(col, ids, [m.content for m in batch], [m.content for m in batch])
                c.upsert(ids=ids, documents=docs, metadatas=metas, embeddings=vectors)
            else:
                c.update(ids=ids, metadatas=metas)  # content unchanged: document and vector stay

    def get_memories(self, col: str, ids: Sequence[str]) -> list[Memory]:
        if not ids:
            return []
        r = self._collection(col, vectors=True, create=False).get(ids=list(ids), include=["metadatas"])
        by_id = {i: memory_from(m) for i, m in self._open_all(col, r["ids"], r["metadatas"])}
        return [by_id[i] for i in ids if i in by_id]

    def find_memories(self, col: str, where: Where | None, *, limit: int | None = None) -> list[Memory]:
        r = _get_paged(self._collection(col, vectors=True, create=False), self._where(col, where), ["metadatas"], limit)
        return [memory_from(m) for _, m in self._open_all(col, r["ids"], r["metadatas"])]

    def query_memories(self, col: str, embedding: Sequence[float], k: int, where: Where | None) -> list[tuple[Memory, float]]:
        c = self._collection(col, vectors=True, create=False)
        r = c.query(query_embeddings=[list(embedding)], n_results=k, where=self._where(col, where), include=["metadatas", "distances"])
        dist = dict(zip(r["ids"][0], r["distances"][0]))
        return [(memory_from(m), 1.0 - dist[i]) for i, m in self._open_all(col, r["ids"][0], r["metadatas"][0])]

    def nearest_ids(self, col: str, embedding: Sequence[float], k: int, where: Where | None = None) -> list[tuple[str, float]]:
        """The `k` nearest record ids with their similarity, and nothing else: recall's dense arms rank by
        id (their candidates come from the lexical index), and reading the metadata of an 80-record
        over-fetch cost ~100 ms at 20 000 records against ~5 ms for the ids (bench/README.md, "big user")."""
        r = self._collection(col, vectors=True, create=False).query(query_embeddings=[list(embedding)], n_results=k,
                                                       where=self._where(col, where), include=["distances"])
        return [(i, 1.0 - d) for i, d in zip(r["ids"][0], r["distances"][0])]

    def memory_embeddings(self, col: str, ids: Sequence[str]) -> dict[str, list[float]]:
        """Stored vectors by id; {} when the store cannot read them (after a crash, embedded Chroma can
        hold a record whose vector it cannot find: callers re-embed the text instead)."""
        if not ids:
            return {}
        try:
            r = self._collection(col, vectors=True, create=False).get(ids=list(ids), include=["embeddings"])
        except AmberError:
            raise
        except Exception as e:
            log.warning("Chroma could not read the vectors of %d record(s) in %s: %s", len(ids), col, e)
            return {}
        return {i: list(map(float, e)) for i, e in zip(r["ids"], r["embeddings"])}

    def delete_records(self, col: str, ids: Sequence[str], *, vectors: bool = True) -> None:
        self.fence()
        if ids and col.startswith(EVENT_LOG):
            col, ids = EVENTS, [f"{col}/{i}" for i in ids]
        if ids:
            self._room(len(ids) * 512, floor=0.5)  # a delete writes too: allowed deeper into the reserve
            c = self._collection(col, vectors=vectors)
            if vectors:  # the index file keeps a deleted record's vector: overwritten first, if the disk has room (chroma_query.py)
                blank_vectors(c, ids, self.dim, lambda n: self.disk is None or self.disk.fits(n))
            c.delete(ids=list(ids))
            if self.sealer is not None:  # removed for good: every copy Chroma still holds goes unreadable
                with self._keys_written(col):
                    self.sealer.destroy(col, ids)

    def reseal(self, col: str, ids: Sequence[str]) -> int:
        """Seal these records again as they are now, under fresh keys, and destroy the keys they had:
        the older versions Chroma still holds (its log, its free pages) were sealed under those and
        open no more. For a record rewritten without some of its words (a forget's daily log), whose
        id, and so whose key, would otherwise live on. Returns how many records were resealed."""
        if self.sealer is None or not ids:
            return 0
        self.fence()
        c = self._collection(col, vectors=True)
        r = c.get(ids=list(ids), include=["metadatas", "embeddings"])
        found = self._open_all(col, r["ids"], r["metadatas"])
        if not found:
            return 0
        self._room(sum(len(m["record"]) for _, m in found) + len(found) * (2048 + 8 * self.dim))
        vectors = dict(zip(r["ids"], r["embeddings"]))
        done = [i for i, _ in found]
        with self._keys_written(col):
            self.sealer.renew(col, done)  # the old keys stay as previous ones until Chroma holds the new seals
            sealed = self.sealer.seal(col, done, [m["record"] for _, m in found])
        c.update(ids=done, metadatas=[{**m, "record": s} for (_, m), s in zip(found, sealed)],
                 embeddings=[list(map(float, vectors[i])) for i in done], documents=[""] * len(done))
        with self._keys_written(col):
            self.sealer.retire(col, done)
        return len(done)

    def count(self, col: str, *, vectors: bool = True) -> int:
        return self._collection(col, vectors=vectors, create=False).count()

    # ---- messages ----------------------------------------------------------------------------

    def put_messages(self, col: str, messages: Sequence[Message], texts: Sequence[str], embeddings: Sequence[Sequence[float]], *,
                     rev: int | None = None) -> None:
        self.fence()
        self._room(sum(len(t) for t in texts) + len(messages) * (2048 + 8 * self.dim))
        c = self._collection(col, vectors=True)
        for i in range(0, len(messages), MAX_BATCH):
            batch = messages[i : i + MAX_BATCH]
            ids = [m.id for m in batch]
            c.upsert(ids=ids, documents=self._documents(col, ids, list(texts[i : i + MAX_BATCH]), [m.content for m in batch]),
                     metadatas=self._sealed(col, ids, [_stamped(message_metadata(m), rev) for m in batch]),
                     embeddings=[list(v) for v in embeddings[i : i + MAX_BATCH]])

    def existing_ids(self, col: str, ids: Sequence[str]) -> set[str]:
        if not ids:
            return set()
        return set(self._collection(col, vectors=True, create=False).get(ids=list(ids), include=[])["ids"])

    def get_messages(self, col: str, ids: Sequence[str]) -> dict[str, Message]:
        """The stored turns among these ids, by id."""
        if not ids:
            return {}
        r = self._collection(col, vectors=True, create=False).get(ids=list(ids), include=["metadatas"])
        return {i: message_from(m) for i, m in self._open_all(col, r["ids"], r["metadatas"])}

    def find_messages(self, col: str, where: Where | None) -> list[tuple[Message, str]]:
        r = _get_paged(self._collection(col, vectors=True, create=False), chroma_where(where), ["metadatas", "documents"], None)
        docs = dict(zip(r["ids"], r["documents"]))
        out = []
        for i, m in self._open_all(col, r["ids"], r["metadatas"]):
            msg = message_from(m)
            out.append((msg, self._open_text(col, i, docs[i]) or msg.content))  # an empty document: the turn's own words
        out.sort(key=lambda x: (x[0].created_at, x[0].id))
        return out

    def each_message(self, col: str, where: Where | None = None) -> Iterator[Message]:
        """Every turn matching `where`, a page at a time, in no order and without the indexed text:
        what recall's index is built from. A person with 200 000 imported turns is read without
        holding all of their records (the window texts, the raw metadata) at once."""
        for r in pages(self._collection(col, vectors=True, create=False), chroma_where(where), ["metadatas"]):
            for _, m in self._open_all(col, r["ids"], r["metadatas"]):
                yield message_from(m)

    def _room(self, payload: int, *, floor: float = 1.0) -> None:
        """Refuse a write the filesystem may not hold (embedded stores; see the module docstring)."""
        if self.disk is not None:
            self.disk.usable()
            self.disk.check(payload, floor=floor)

    def disk_status(self) -> dict[str, Any] | None:
        """Free space against the reserve, for /health; None when Chroma runs as a server."""
        return self.disk.status() if self.disk is not None else None

    # ---- sealing (embedded stores) -------------------------------------------------------------

    def _sealed(self, col: str, ids: Sequence[str], metas: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Records with their words sealed; the flat fields that derive from words (a digest of the
        content, a glossary term) become keyed digests, so leftover bytes confirm no guess either."""
        if self.sealer is None:
            return metas
        with self._keys_written(col):
            sealed = self.sealer.seal(col, ids, [m["record"] for m in metas])
            out = []
            for m, r in zip(metas, sealed):
                m = {**m, "record": r}
                for name in _WORD_FIELDS:
                    if m.get(name):
                        m[name] = self.sealer.digest(col, str(m[name]))
                out.append(m)
        return out

    @contextmanager
    def _keys_written(self, col: str) -> Iterator[None]:
        """The record-key file is written like the store: its disk full is an outage, not a bug."""
        try:
            yield
        except Exception as e:
            _raise_if_outage(e, f"record keys of {col}", self.disk.outage if self.disk is not None else None)
            raise

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

    def _documents(self, col: str, ids: Sequence[str], texts: Sequence[str], words: Sequence[str]) -> list[str]:
        """Chroma's `documents` for a write. In the clear (a Chroma server) the text itself. Sealed, ""
        wherever the text is the record's own words (sealed once, in the record: Chroma's document column
        and full-text index hold no second ciphertext; "", since an upsert without a document keeps the
        one stored before), and any other text sealed under the record's key."""
        if self.sealer is None:
            return list(texts)
        if all(t == w for t, w in zip(texts, words)):
            return [""] * len(texts)
        sealed = self._seal_texts(col, ids, texts)
        return ["" if t == w else s for t, w, s in zip(texts, words, sealed)]

    def _seal_texts(self, col: str, ids: Sequence[str], texts: Sequence[str]) -> list[str]:
        if self.sealer is None:
            return list(texts)
        with self._keys_written(col):
            return self.sealer.seal(col, ids, texts)

    def _open_text(self, col: str, record_id: str, text: str | None) -> str | None:
        return text if self.sealer is None else self.sealer.open(col, record_id, text)

    def _opened(self, col: str, record_id: str, meta: dict[str, Any]) -> dict[str, Any] | None:
        """The metadata with its record readable; None for a record erased meanwhile (its key is gone)."""
        if self.sealer is None:
            return meta
        record = self.sealer.open(col, record_id, meta.get("record"))
        return None if record is None else {**meta, "record": record}

    def _open_all(self, col: str, ids: Sequence[str], metas: Sequence[dict[str, Any]]) -> list[tuple[str, dict[str, Any]]]:
        opened = ((i, self._opened(col, i, m)) for i, m in zip(ids, metas))
        return [(i, m) for i, m in opened if m is not None]

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
            ids, metas, docs = list(r["ids"]), [dict(m) if m else None for m in r["metadatas"]], list(r["documents"])
            if words and ids:
                own = [json.loads(m["record"]).get("content", "") if m and m.get("record") else "" for m in metas]
                metas = self._sealed(name, ids, metas)
                docs = self._documents(name, ids, [d or "" for d in docs], own)
                sealed += len(ids)
            vectors = [list(map(float, v)) for v in r["embeddings"]]
            meta = dict(old.metadata or {})
            with self._mutex:
                self._cols.pop(name, None)
                self.client.delete_collection(name)
                index = index_settings(meta.get("amber:vectors") != "none", mendable=True)
                c = self.client.create_collection(name, metadata=meta or None, embedding_function=None, configuration={"hnsw": index})
            for i in range(0, len(ids), MAX_BATCH):
                part = slice(i, i + MAX_BATCH)
                c.add(ids=ids[part], metadatas=metas[part], embeddings=vectors[part],
                      documents=docs[part] if any(d is not None for d in docs[part]) else None)
        return sealed

    # ---- audit events ------------------------------------------------------------------------
    # Every person's audit log (core.scope.event_collection names it, `amber_evt_<hash>`) is kept in
    # one shared collection, EVENTS, each row marked with that name in `log` and its id prefixed with
    # it. Chroma keeps a vector index of ~2.5 MB for every collection written to, however small, so a
    # collection per person made the audit trail a third of Chroma's memory per user (store format 4;
    # bench/README.md, "Many users"). Audit rows are read by person and memory, never by meaning.

    def put_rows(self, col: str, rows: Sequence[tuple[str, dict[str, Any]]]) -> None:
        """Metadata-only rows (audit events): (id, flat metadata)."""
        self.fence()
        if rows:
            self._room(len(rows) * 2048)
            target, log = (EVENTS, col) if col.startswith(EVENT_LOG) else (col, None)
            ids, metas = [r[0] for r in rows], [r[1] for r in rows]
            if log:  # with other writers' rows, in one upsert (group_commit.py)
                self._events.put([f"{log}/{i}" for i in ids], [{**m, "log": log} for m in metas])
            elif target == REGISTRY and self._registry_rows is not None:
                self._registry_rows.put(ids, metas)
            else:
                self._upsert_rows(target, ids, metas)

    def _upsert_rows(self, name: str, ids: list[str], metas: list[dict[str, Any]]) -> None:
        upsert_rows(self._collection(name, vectors=False), ids, metas, _UNIT)

    def find_rows(self, col: str, where: Where | None, limit: int | None = None) -> list[dict[str, Any]]:
        if not col.startswith(EVENT_LOG):
            r = self._collection(col, vectors=False, create=False).get(where=chroma_where(where), limit=limit, include=["metadatas"])
            return [dict(m, id=i) for i, m in zip(r["ids"], r["metadatas"])]
        mine = Where.of(Eq("log", col), *(where.clauses if where else ()))
        r = _get_paged(self._collection(EVENTS, vectors=False), chroma_where(mine), ["metadatas"], limit)
        cut = len(col) + 1
        return [{k: v for k, v in dict(m, id=i[cut:]).items() if k != "log"} for i, m in zip(r["ids"], r["metadatas"])]

    def move_event_logs(self) -> int:
        """Store format 4: move each person's audit collection (format 3 and before) into EVENTS and drop
        it; safe to run again after a crash (rows are upserted under their ids). Returns the rows moved."""
        moved = 0
        for name in self.list_collections():
            if not name.startswith(EVENT_LOG):
                continue
            try:
                old = self.client.get_collection(name, embedding_function=None)
            except Exception as e:
                _raise_if_outage(e, f"Chroma collection {name}")
                continue  # another host moved and dropped it meanwhile
            r = _get_paged(_Guarded(old, name, self.outage), None, ["metadatas"], None)
            for i in range(0, len(r["ids"]), MAX_BATCH):
                self.put_rows(name, list(zip(r["ids"][i : i + MAX_BATCH], r["metadatas"][i : i + MAX_BATCH])))
            moved += len(r["ids"])
            self._drop_collection(name)
        return moved

    # ---- registry: users, cursors, revisions, leases, client cache ----------------------------

    def reg_get(self, key: str) -> Any | None:
        return self.reg_get_many([key]).get(key)

    def reg_put(self, key: str, value: Any, *, kind: str, owner: str = "") -> None:
        self.put_rows(REGISTRY, [(key, {"value": json.dumps(value, default=str), "kind": kind, "owner": owner})])

    def reg_get_many(self, keys: Iterable[str]) -> dict[str, Any]:
        wanted = list(dict.fromkeys(keys))  # on a server, in one call with other threads' (group_commit.py)
        return self._registry_reads.get(wanted) if self._registry_reads and wanted else self._reg_read(wanted)

    def _reg_read(self, wanted: list[str]) -> dict[str, Any]:
        found = [self._collection(REGISTRY, vectors=False).get(ids=wanted[i : i + MAX_BATCH], include=["metadatas"])
                 for i in range(0, len(wanted), MAX_BATCH)]  # nothing asked: no call, the registry not even made
        return {k: json.loads(m["value"]) for r in found for k, m in zip(r["ids"], r["metadatas"])}

    def reg_put_many(self, items: Iterable[tuple[str, Any]], *, kind: str, owner: str = "") -> None:
        rows = [(k, {"value": json.dumps(v, default=str), "kind": kind, "owner": owner}) for k, v in items]
        for i in range(0, len(rows), MAX_BATCH):
            self.put_rows(REGISTRY, rows[i : i + MAX_BATCH])

    def reg_delete(self, keys: Iterable[str]) -> None:
        self.delete_records(REGISTRY, list(keys), vectors=False)

    def reg_find(self, kind: str, owner: str | None = None) -> dict[str, Any]:
        where = Where.of(Eq("kind", kind), Eq("owner", owner) if owner is not None else None)
        return {row["id"]: json.loads(row["value"]) for row in self.find_rows(REGISTRY, where)}

    def ping(self) -> None:
        if self.disk is not None:
            self.disk.usable()  # a broken embedded store is down, not merely short of space
        try:
            self.client.heartbeat()
        except Exception as e:
            self.outage.down(f"does not answer: {e}")
            raise StoreUnavailable(f"Chroma at {self.location} does not answer: {e}") from e
        self.outage.up()


def _stamped(meta: dict[str, Any], rev: int | None) -> dict[str, Any]:
    """A record's metadata with the revision its write publishes (Chroma merges metadata on update
    and upsert, so a write that names none, the access counts', keeps the stamp it had)."""
    return meta if rev is None else {**meta, "rev": rev}
