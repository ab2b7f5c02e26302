"""Sealed records: every record's words are encrypted under a key of its own, so erasing the key
erases the words wherever copies of them lie.

Chroma keeps more than the current record. Its write-ahead log (`embeddings_queue` in
chroma.sqlite3) holds every version ever written, and SQLite leaves the bytes of deleted and
overwritten rows in free space inside its pages; an access-count patch after a recall is enough
to leave an old copy behind. Amber cannot reach into all of that without stopping everybody (a
VACUUM rewrites the whole file under an exclusive lock). So the words never reach Chroma in the
clear: the record JSON of each record is sealed with AES-GCM under a random 256-bit key for that
record (Chroma's document column and its full-text index get an empty string: the words are sealed
once, in the record), and the keys live in a small SQLite file Amber owns
(`<data_dir>/record_keys.sqlite3`, secure_delete on, its write-ahead log emptied at every erase).
Removing a record for good (a forget, a purge of the trash, a retention purge, a person erased)
deletes its key, and every copy Chroma still holds, in its log, its free pages or its index
files, is unreadable from then on.

What stays readable in Chroma: the ids, the vectors, and the flat fields Amber filters on (status,
kind, namespace, dates, the fact key's name, a content digest). With Chroma as a server
(`chroma_url`) several hosts share records, so records are not sealed (a shared key table is the
next step; README, "What forget erases").
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import logging
import os
import sqlite3
import threading
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any, Iterable, Iterator, Sequence

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from ..errors import InvalidInput, StoreUnavailable

log = logging.getLogger("amber.store")

PREFIX = "sealed1:"
_M_PERTURB = -6  # glibc mallopt: fill freed and newly allocated heap blocks with a byte pattern


def scrub_freed_memory() -> bool:
    """Have the C allocator overwrite memory when it is freed and before it is handed out again.

    Chroma's native code writes index files (`length.bin`, ...) from buffers it does not fully
    initialise, so stray bytes of this process's heap, which holds opened records' words, can land
    in them (seen in tests). With glibc's M_PERTURB every block is filled on malloc and on free, so a
    buffer holds a pattern, never old words. Python's own small-object pools are separate from the
    C heap. Returns whether it could be set (glibc only)."""
    try:
        import ctypes
        import ctypes.util

        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        return bool(libc.mallopt(_M_PERTURB, 0xA5))
    except (OSError, AttributeError):
        return False


TCACHE_OFF = "glibc.malloc.tcache_count=0"


def thread_caches_off() -> bool:
    """Whether this process started with glibc's per-thread malloc caches switched off.

    M_PERTURB does not reach blocks that glibc keeps in a thread's cache (up to 7 freed blocks of
    each size up to 1 KiB, handed out again as they are): Chroma's `length.bin` of a new collection
    is 400 bytes written from such a block, so it can carry a fragment of an opened record. The
    cache can only be switched off when the process starts (`GLIBC_TUNABLES=glibc.malloc.
    tcache_count=0`, which `make run`, `make serve` and `make test` set); the store warns when it
    is on. Measured: without it a fresh collection's `length.bin` held 304 of 400 bytes of old
    heap, with it none."""
    tunables = os.environ.get("GLIBC_TUNABLES", "")
    return TCACHE_OFF in tunables.replace(":", " ").split()


def warn_if_bytes_may_stray(log: logging.Logger) -> None:
    """The store's warning when this process cannot keep opened words out of Chroma's index files."""
    if not scrub_freed_memory():
        log.warning("amber: this C library cannot scrub freed memory; Chroma's index files may hold stray bytes of opened records")
    elif not thread_caches_off():
        log.warning("amber: glibc's thread caches are on, so Chroma's index files may hold stray bytes of opened records "
                    "after a forget; start the process that owns the store with GLIBC_TUNABLES=%s (make run/serve do)", TCACHE_OFF)


def _ref(col: str, record_id: str) -> str:
    return f"{col}\x1f{record_id}"


class MasterKeyError(ValueError):
    """The key table and the master key do not go together (missing, wrong or malformed)."""


def load_master_key(value: str | None = None, path: str | Path | None = None) -> bytes | None:
    """The operator's master key: 32 bytes as 64 hex characters or base64, from a setting (the
    environment) or a file; None when neither is set (encryption at rest off)."""
    raw = value
    if raw is None and path:
        try:
            raw = Path(path).read_text().strip()
        except OSError as e:
            raise MasterKeyError(f"master_key_file {path}: {e}") from None
    if not raw:
        return None
    raw = raw.strip()
    try:
        key = bytes.fromhex(raw) if len(raw) == 64 else base64.b64decode(raw, validate=True)
    except ValueError:
        key = b""
    if len(key) != 32:
        raise MasterKeyError("the master key must be 32 bytes, as 64 hex characters or base64 (make one: `openssl rand -hex 32`)")
    return key


_CHECK = b"amber record keys"


class RecordKeys:
    """The key of each sealed record, in a file Amber owns; all of them cached in memory
    (32 bytes a record: 100 000 records are 3 MB).

    With a master key (encryption at rest on) every record key is stored wrapped by it (AES-GCM),
    so the file alone opens nothing; a check value tells a wrong master key from a right one, and
    a table written without a master key is wrapped the first time one is given. Without the
    master key a wrapped table does not open: losing it loses the encrypted memory."""

    def __init__(self, path: Path, master: bytes | None = None):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(str(self.path), check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA secure_delete=ON")  # a deleted key's bytes are overwritten in the file
        # Write-ahead log with synchronous=FULL: a commit is one append and one fsync of the log,
        # where a rollback journal costs a file created, written, synced and deleted and the
        # database synced (7-12x the time a capture batch spends here). Durability is the same:
        # a key is on disk before the record it seals is handed to Chroma. The log also holds
        # copies of pages, so a destroy checkpoints it into the file and truncates it (`_settle`).
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")
        self._db.execute("CREATE TABLE IF NOT EXISTS record_keys (ref TEXT PRIMARY KEY, key BLOB NOT NULL)")
        self._db.execute("CREATE TABLE IF NOT EXISTS key_table (name TEXT PRIMARY KEY, value BLOB)")
        self._lock = threading.Lock()  # the database connection, one user at a time
        self._turn = threading.Condition()  # keys waiting for the next shared commit (`ensure`)
        self._queued: dict[str, bytes] = {}
        self._writing: dict[str, bytes] = {}  # the batch on its way to disk
        self.master = master
        check = self._db.execute("SELECT value FROM key_table WHERE name = 'check'").fetchone()
        stored = dict(self._db.execute("SELECT ref, key FROM record_keys"))
        if check is not None and master is None:
            self._db.close()
            raise MasterKeyError(f"{self.path} is encrypted with a master key: set AMBER_MASTER_KEY (or master_key_file) to open it")
        if check is not None:
            try:
                _unwrap(master, check[0], b"check")
            except Exception:
                self._db.close()
                raise MasterKeyError(f"the master key given does not open {self.path}") from None
            stored = {r: _unwrap(master, k, r.encode()) for r, k in stored.items()}
        self._keys: dict[str, bytes] = {}
        self._prev: dict[str, dict[str, bytes]] = {}  # ref -> {row: key}: keys a record had before `renew`
        for r, k in stored.items():
            base, sep, _ = r.partition(_PREV)
            if sep:
                self._prev.setdefault(base, {})[r] = k
            else:
                self._keys[r] = k
        if check is None and master is not None:  # encryption switched on: wrap what is there
            self._rewrite(master)
        # the table's name, kept beside the store's records too (ChromaStore): a key file deleted,
        # emptied or replaced is a new table, told apart from the store's own at opening
        named = self._db.execute("SELECT value FROM key_table WHERE name = 'table'").fetchone()
        if named is None:
            named = (os.urandom(12).hex(),)
            self._db.execute("INSERT INTO key_table (name, value) VALUES ('table', ?)", named)
        self.table_id = str(named[0])

    @property
    def encrypted(self) -> bool:
        return self.master is not None

    def _stored(self, ref: str, key: bytes) -> bytes:
        return _wrap(self.master, key, ref.encode()) if self.master is not None else key

    @contextmanager
    def _transaction(self) -> Iterator[None]:
        """One write to the table, durable when the block ends (COMMIT: one fsync of the log) and
        undone if anything in it raises. The caller holds `_lock`."""
        try:
            self._db.execute("BEGIN IMMEDIATE")
        except sqlite3.DatabaseError as e:
            raise self._unwritable(e) from e
        try:
            yield
            self._db.execute("COMMIT")
        except BaseException as e:
            with suppress(sqlite3.Error):
                self._db.execute("ROLLBACK")
            if isinstance(e, sqlite3.DatabaseError):
                raise self._unwritable(e) from e
            raise

    def _unwritable(self, e: sqlite3.DatabaseError) -> StoreUnavailable:
        """A damaged key file (a garbled page) read fine and failed every write as an internal error
        that named nothing; writes are refused as the store's outage, naming the file."""
        log.error("amber: the record key file %s cannot be written: %s", self.path, e)
        return StoreUnavailable(
            f"the record key file {self.path} cannot be written ({e}): no new record can be sealed, so writes are "
            "refused and recall serves what is stored. Stop Amber, put the file back from a backup, and start it again")

    def _rewrite(self, master: bytes | None) -> None:
        """Store every key again under `master` (None: in the clear), in one transaction."""
        with self._lock:
            before = self.master
            try:
                with self._transaction():
                    self.master = master
                    self._db.executemany("UPDATE record_keys SET key = ? WHERE ref = ?", [(self._stored(r, k), r) for r, k in self._rows()])
                    self._db.execute("DELETE FROM key_table WHERE name = 'check'")
                    if master is not None:
                        self._db.execute("INSERT INTO key_table (name, value) VALUES ('check', ?)", (_wrap(master, _CHECK, b"check"),))
            except BaseException:
                self.master = before
                raise
            self._settle()  # the keys as they were stored before (in the clear, or under the old key) go

    def rotate(self, new_master: bytes | None) -> int:
        """Wrap every record key under a new master key (or none); returns how many."""
        self._rewrite(new_master)
        return len(self._keys)

    def _rows(self) -> list[tuple[str, bytes]]:
        return [*self._keys.items(), *(row for prev in self._prev.values() for row in prev.items())]

    def get(self, ref: str) -> bytes | None:
        return self._keys.get(ref)

    def previous(self, ref: str) -> list[bytes]:
        """Keys the record had before `renew`, kept until `retire` (none, nearly always)."""
        prev = self._prev.get(ref)
        return list(prev.values()) if prev else []

    def renew(self, refs: Sequence[str]) -> None:
        """A fresh key for each ref, durably written; the key each had stays as a previous key
        until `retire`, so the record opens whichever version the store holds meanwhile (a crash
        between the two leaves both, and the record readable)."""
        wanted = list(dict.fromkeys(refs))
        if not wanted:
            return
        with self._lock:
            fresh = {r: os.urandom(32) for r in wanted}
            kept = {r: (f"{r}{_PREV}{os.urandom(6).hex()}", self._keys[r]) for r in wanted if r in self._keys}
            with self._transaction():
                self._db.executemany("INSERT INTO record_keys (ref, key) VALUES (?, ?)", [(row, self._stored(row, k)) for row, k in kept.values()])
                self._db.executemany("INSERT OR REPLACE INTO record_keys (ref, key) VALUES (?, ?)", [(r, self._stored(r, k)) for r, k in fresh.items()])
            for r, (row, k) in kept.items():
                self._prev.setdefault(r, {})[row] = k
            self._keys.update(fresh)

    def retire(self, refs: Iterable[str]) -> int:
        """Destroy the previous keys of these refs (the store now holds their records under the
        current ones): every older copy sealed under them is unreadable from then on."""
        rows = [row for r in dict.fromkeys(refs) for row in self._prev.get(r, {})]
        if not rows:
            return 0
        with self._lock:
            with self._transaction():
                self._db.executemany("DELETE FROM record_keys WHERE ref = ?", [(row,) for row in rows])
            for row in rows:
                self._prev.get(row.partition(_PREV)[0], {}).pop(row, None)
            self._prev = {r: p for r, p in self._prev.items() if p}
            self._settle()
        return len(rows)

    def ensure(self, refs: Sequence[str]) -> list[bytes]:
        """The key of each ref, made (and durably written) for those that have none yet.

        Every write of every person comes through here, inside that person's write lock, so the
        commit is shared: keys asked for while a commit is on disk wait for it to end and go in the
        next one together, one fsync for all of them (group commit). One commit each, in turn, made
        this the longest wait of a write under load (bench/README.md, "base and now in turn")."""
        missing = [r for r in dict.fromkeys(refs) if r not in self._keys]
        if missing:
            with self._turn:
                while True:
                    waiting = [r for r in missing if r not in self._keys]
                    if not waiting:
                        break
                    for r in waiting:  # also after a failed commit, which took its batch with it
                        if r not in self._queued and r not in self._writing:
                            self._queued[r] = os.urandom(32)
                    if self._writing:
                        self._turn.wait()
                        continue
                    batch, self._queued, self._writing = self._queued, {}, self._queued
                    self._turn.release()
                    try:
                        self._commit(batch)
                        self._keys.update(batch)
                    finally:
                        self._turn.acquire()
                        self._writing = {}
                        self._turn.notify_all()
        return [self._keys[r] for r in refs]

    def _commit(self, fresh: dict[str, bytes]) -> None:
        with self._lock, self._transaction():
            self._db.executemany("INSERT OR IGNORE INTO record_keys (ref, key) VALUES (?, ?)", [(r, self._stored(r, k)) for r, k in fresh.items()])

    def destroy(self, refs: Iterable[str]) -> int:
        """Delete these keys for good; what they sealed can no longer be read anywhere."""
        gone = [r for r in dict.fromkeys(refs) if r in self._keys or r in self._prev]
        if not gone:
            return 0
        rows = [*gone, *(row for r in gone for row in self._prev.get(r, {}))]
        with self._lock:
            with self._transaction():
                self._db.executemany("DELETE FROM record_keys WHERE ref = ?", [(r,) for r in rows])
            for r in gone:
                self._keys.pop(r, None)
                self._prev.pop(r, None)
            self._settle()
        return len(gone)

    def _settle(self) -> None:
        """Copy the write-ahead log into the file and empty it. The log holds whole pages as they
        were written, a destroyed key's among them; once they are checkpointed (secure_delete has
        zeroed the key's bytes in the page) and the log truncated, no file holds the key."""
        busy = self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()[0]
        if busy:  # one connection, under the lock: not expected; the next destroy or close retries
            log.warning("amber: the record key table's log could not be emptied now (%s); it is at the next erase or on close", self.path)

    def destroy_collection(self, col: str) -> int:
        return self.destroy([r for r in {*self._keys, *self._prev} if r.startswith(col + "\x1f")])

    def close(self) -> None:
        with self._lock:
            self._settle()
            self._db.close()  # the last connection in WAL mode removes the log file


_PREV = "\x1eprev\x1e"  # a previous key's row: `<ref><_PREV><random>`


def _wrap(master: bytes, key: bytes, ad: bytes) -> bytes:
    nonce = os.urandom(12)
    return nonce + AESGCM(master).encrypt(nonce, key, ad)


def _unwrap(master: bytes, blob: bytes, ad: bytes) -> bytes:
    return AESGCM(master).decrypt(blob[:12], blob[12:], ad)


class LineSeal:
    """Seal lines of text at rest under a key derived from the master key for one purpose (the
    proxy's journal of waiting turns): each line is `sealed1:` and base64 of a fresh nonce and the
    AES-GCM box. Without the master key the lines stay unreadable; with another one they do not open."""

    def __init__(self, master: bytes, purpose: str):
        self._ad = f"amber {purpose}".encode()
        self._aead = AESGCM(hmac.new(master, self._ad, hashlib.sha256).digest())

    def seal(self, text: str) -> str:
        nonce = os.urandom(12)
        return PREFIX + base64.b64encode(nonce + self._aead.encrypt(nonce, text.encode("utf-8"), self._ad)).decode("ascii")

    def open(self, text: str) -> str:
        """The line's text; a line written in the clear (before a master key was set) as it is.
        MasterKeyError when it does not open (another master key, or a damaged line)."""
        if not text.startswith(PREFIX):
            return text
        try:
            raw = base64.b64decode(text[len(PREFIX):])
            return self._aead.decrypt(raw[:12], raw[12:], self._ad).decode("utf-8")
        except Exception:
            raise MasterKeyError("a sealed line does not open with this master key") from None


def open_record_keys(path: Path, master: bytes | None) -> RecordKeys:
    """The store's key table; a damaged file is named (it was reported as a broken Chroma store)."""
    try:
        return RecordKeys(path, master)
    except sqlite3.DatabaseError as e:
        raise InvalidInput("record_keys", f"{path} cannot be read ({e}); it holds the key of every record: "
                           "put it back from a backup and start again (nothing in the store was changed)") from None


KEY_TABLE = "store:record-key-table"  # where the store's registry keeps the name of its key table


def not_own_key_table(keys: RecordKeys, registry: Any) -> InvalidInput | None:
    """The refusal of a key file that is not the one the store's records were sealed with (None: it
    is). The store's registry keeps the table's name; a new store, or one from before tables were
    named, keeps this one's. Deleted or emptied, the file opened as a new table: every record then
    opened as nothing (read as erased), the person's whole memory gone without a word, and new
    records were sealed under keys the store's own file lacks."""
    known = registry.reg_get(KEY_TABLE)
    if known is None:
        registry.reg_put(KEY_TABLE, keys.table_id, kind="store")
    elif known != keys.table_id:
        return InvalidInput("record_keys", (
            f"{keys.path} is not the key file this store's records were sealed with (it was deleted, emptied or "
            "replaced, and a new empty one stands there now): opened with it, every memory would read as nothing "
            "and new ones would be sealed under keys the store's own file lacks. Put the store's own file back "
            "(from a backup) and start again; nothing in the store was changed"))
    return None


class Sealer:
    """Seal and open the words of records by (collection, id)."""

    def __init__(self, keys: RecordKeys):
        self.keys = keys

    def seal(self, col: str, ids: Sequence[str], texts: Sequence[str]) -> list[str]:
        keys = self.keys.ensure([_ref(col, i) for i in ids])
        out = []
        for i, key, text in zip(ids, keys, texts):
            nonce = os.urandom(12)
            box = AESGCM(key).encrypt(nonce, text.encode("utf-8"), _ref(col, i).encode("utf-8"))
            out.append(PREFIX + base64.b64encode(nonce + box).decode("ascii"))
        return out

    def open(self, col: str, record_id: str, text: str | None) -> str | None:
        """The words, or None when the record's key is gone (it was erased). Text written before
        records were sealed is returned as it is."""
        if text is None or not text.startswith(PREFIX):
            return text
        ref = _ref(col, record_id)
        key = self.keys.get(ref)
        if key is None:
            return None
        raw = base64.b64decode(text[len(PREFIX):])
        try:
            return AESGCM(key).decrypt(raw[:12], raw[12:], ref.encode("utf-8")).decode("utf-8")
        except InvalidTag:
            for old in self.keys.previous(ref):  # sealed before a renew the store has not caught up with
                try:
                    return AESGCM(old).decrypt(raw[:12], raw[12:], ref.encode("utf-8")).decode("utf-8")
                except InvalidTag:
                    continue
            raise

    def renew(self, col: str, ids: Sequence[str]) -> None:
        """Fresh keys for these records; `seal` uses them from now on (see RecordKeys.renew)."""
        self.keys.renew([_ref(col, i) for i in ids])

    def retire(self, col: str, ids: Iterable[str]) -> int:
        return self.keys.retire(_ref(col, i) for i in ids)

    def destroy(self, col: str, ids: Iterable[str]) -> int:
        return self.keys.destroy(_ref(col, i) for i in ids)

    def digest(self, col: str, value: str) -> str:
        """A keyed digest of a word-derived filter value, under a secret of the collection (one
        person's records), which goes when the collection is dropped."""
        key = self.keys.ensure([_ref(col, "\x00digest")])[0]
        return "k1:" + hmac.new(key, value.encode("utf-8"), hashlib.sha256).hexdigest()[:40]
