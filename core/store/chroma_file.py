"""Embedded Chroma's SQLite file (`<data_dir>/chroma/chroma.sqlite3`): its journal mode, and the few
things Amber does to the file itself.

**Write-ahead log.** Embedded Chroma's bindings hold the Python interpreter's lock through every
write, so each fsync of a write stops every other thread of the process (recall, the event loop).
In SQLite's default rollback journal an upsert costs ~8 fsyncs; in WAL mode ~3 (measured with
`strace -c` on this machine: 360 against 123 for the same 42 upserts; an upsert 70 ms -> 18.5 ms at
p50 on a busy disk), with `synchronous` left at Chroma's FULL, so a write is on disk when it returns,
as before. WAL is a property of the file, so it is set once, before Chroma opens it (`prepare`), and
Chroma's own connections use it from then on.

**Never open the file in this process once Chroma has.** Chroma links its own copy of SQLite. Two
SQLite libraries in one process do not see each other's connections, and POSIX locks belong to the
process: when Python's `sqlite3` closed its connection it took itself for the last one, checkpointed
and reset the shared index under Chroma's open connections, and Chroma's next call failed. So the
work Amber does on the file while Chroma is open (the list of live index folders, the format-2
migration's log scrub and VACUUM) runs in a child process (`_in_child`), where SQLite's locking
between processes keeps both sides right. This file imports nothing of Amber's: the child runs it
as a plain script.
"""

from __future__ import annotations

import json
import logging
import os
import pickle
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path

FILE = "chroma.sqlite3"
log = logging.getLogger("amber.store")

_opened: set[str] = set()  # chroma folders this process has handed to Chroma
_opened_lock = threading.Lock()


def prepare(chroma_dir: Path) -> None:
    """Before this process first opens embedded Chroma on `chroma_dir`: put its file in WAL mode
    (made empty if new; Chroma creates its tables in it). Once Chroma has the file open in this
    process, nothing here touches it again (see the module docstring)."""
    key = str(Path(chroma_dir).resolve())
    with _opened_lock:
        if key in _opened:
            return
        Path(chroma_dir).mkdir(parents=True, exist_ok=True)
        db = sqlite3.connect(str(Path(chroma_dir) / FILE), timeout=60, isolation_level=None)
        try:
            mode = db.execute("PRAGMA journal_mode=WAL").fetchone()[0]
        finally:
            db.close()
        if str(mode).lower() != "wal":  # a filesystem without shared memory (some network mounts)
            log.warning("amber: %s stays in journal mode %r (this filesystem refused WAL); writes hold the host longer",
                        Path(chroma_dir) / FILE, mode)
        _opened.add(key)


def live_segments(chroma_dir: Path) -> set[str]:
    """The ids of the segments (index folders) Chroma still uses."""
    if not (Path(chroma_dir) / FILE).is_file():
        return set()
    return set(_in_child("segments", Path(chroma_dir) / FILE))


def vector_collections(chroma_dir: Path) -> dict[str, str]:
    """Each vector index folder's collection name (core/store/index_repair.py)."""
    if not (Path(chroma_dir) / FILE).is_file():
        return {}
    return dict(_in_child("vectors", Path(chroma_dir) / FILE))


def records(chroma_dir: Path, collection: str) -> dict:
    """A collection's records as Chroma's file holds them, read without Chroma (whose calls on the
    collection may all fail: index_repair.py `rebuild`): {"dimension", "metadata", "ids",
    "documents", "metadatas"}. What the log holds past the records' segment is folded in."""
    return _in_child("records", Path(chroma_dir) / FILE, collection)  # type: ignore[return-value]


def behind(chroma_dir: Path, collection: str = "") -> dict[str, list[str]]:
    """Vector index folders whose id map lacks records Chroma counts as already in them: folder
    name -> those records' ids. Chroma notes in its file how far each index has applied the log, and never
    replays what lies before that; an index left older than that note (a kill between the two
    writes) answers every query without error and without those records, so their memories are
    found by their words only (bench/README.md, "A Chroma server killed while it writes"). Only
    `collection`'s folders if named; an index never written, or one whose id map does not read,
    is not counted here (index_repair.whole judges those)."""
    if not (Path(chroma_dir) / FILE).is_file():
        return {}
    return dict(_in_child("behind", Path(chroma_dir) / FILE, collection))  # type: ignore[arg-type]


def scrub_log(path: Path, sealed_prefix: str) -> int:
    """Blank the words in Chroma's log rows whose record is not sealed (see format.scrub_log)."""
    return int(_in_child("scrub", path, sealed_prefix)) if Path(path).is_file() else 0


def vacuum(path: Path) -> None:
    """Rebuild the file with deleted content overwritten, the log checkpointed and emptied."""
    if Path(path).is_file():
        _in_child("vacuum", path)


def free_space(path: Path) -> tuple[int, int]:
    """Chroma's file's free pages and its page size."""
    pages, size = _in_child("free", path) if Path(path).is_file() else (0, 4096)  # type: ignore[misc]
    return int(pages), int(size)


def zero_free_pages(path: Path) -> int:
    """Overwrite the free pages of Chroma's file and empty its write-ahead log, after records were
    erased (daily, by the retention job: scrub.py). Chroma purges a record's log rows (each holds
    the record's vector as written) once its indexes have applied them; SQLite leaves a purged row's
    bytes where it was, in a page it freed or
    between the rows a page still holds, and in the write-ahead log's older frames, until something
    reuses them. Here the log table is rewritten with secure_delete on, every free page is taken by a
    table of zeros then dropped (so each is written with zeros), and the write-ahead log is
    checkpointed into the file and truncated. Another connection's lock held for long (a backup
    reading the file) makes it give up after a few seconds, and the next run tries again. Returns
    the number of free pages overwritten."""
    if not Path(path).is_file():
        return 0
    try:
        return int(_in_child("zero", path))
    except (OSError, sqlite3.Error, subprocess.SubprocessError, ValueError) as e:  # the erases are done: say so, the next run tries again
        log.warning("amber: the free pages of %s were not overwritten this time: %s", path, e)
        return 0


def _in_child(op: str, path: Path, *args: str) -> object:
    done = subprocess.run([sys.executable, "-I", os.path.abspath(__file__), op, str(path), *args],
                          capture_output=True, text=True, timeout=3600)
    if done.returncode != 0:
        raise sqlite3.OperationalError(f"{op} on {path} failed: {done.stderr.strip()[-500:]}")
    return json.loads(done.stdout)


# ---- what the child runs (standard library only) ------------------------------------------------

def _segments(db: sqlite3.Connection) -> list[str]:
    return [row[0] for row in db.execute("SELECT id FROM segments")]


def _vectors(db: sqlite3.Connection) -> dict[str, str]:
    return {seg: name for seg, name in db.execute(
        "SELECT s.id, c.name FROM segments s JOIN collections c ON s.collection = c.id WHERE s.scope = 'VECTOR'")}


def _behind(db: sqlite3.Connection, folder: Path, collection: str) -> dict[str, list[str]]:
    out = {}
    for seg, cid, applied in db.execute(
            "SELECT s.id, s.collection, m.seq_id FROM segments s JOIN collections c ON s.collection = c.id "
            "JOIN max_seq_id m ON m.segment_id = s.id WHERE s.scope = 'VECTOR' AND (? = '' OR c.name = ?)",
            (collection, collection)).fetchall():
        try:
            with open(folder / seg / "index_metadata.pickle", "rb") as f:
                held = pickle.load(f)["id_to_label"]
        except Exception:  # never written (built from the log), or torn
            continue
        meta = db.execute("SELECT id FROM segments WHERE collection = ? AND scope = 'METADATA'", (cid,)).fetchone()
        if meta is None:
            continue
        missing = sorted(rid for (rid,) in db.execute("SELECT embedding_id FROM embeddings WHERE segment_id = ? AND seq_id <= ?",
                                                      (meta[0], int(applied))) if rid not in held)
        if missing:
            out[seg] = missing
    return out


def _value(row: tuple) -> object:
    """A metadata row's value: the first of its string, int, float and bool columns that is set."""
    s, i, f, b = row
    return s if s is not None else i if i is not None else f if f is not None else (bool(b) if b is not None else None)


def _records(db: sqlite3.Connection, collection: str) -> dict:
    cid, dim = db.execute("SELECT id, dimension FROM collections WHERE name = ?", (collection,)).fetchone()
    seg = db.execute("SELECT id FROM segments WHERE collection = ? AND scope = 'METADATA'", (cid,)).fetchone()[0]
    meta = {k: _value(v) for k, *v in db.execute(
        "SELECT key, str_value, int_value, float_value, bool_value FROM collection_metadata WHERE collection_id = ?", (cid,))}
    rows: dict[str, dict] = {}
    by_pk = {pk: rid for pk, rid in db.execute("SELECT id, embedding_id FROM embeddings WHERE segment_id = ?", (seg,))}
    for rid in by_pk.values():
        rows[rid] = {}
    for pk, key, *v in db.execute(
            "SELECT m.id, m.key, m.string_value, m.int_value, m.float_value, m.bool_value FROM embedding_metadata m "
            "JOIN embeddings e ON e.id = m.id WHERE e.segment_id = ?", (seg,)):
        rows[by_pk[pk]][key] = _value(tuple(v))
    # log entries the records' segment has not applied yet: 0 add, 1 update, 2 upsert, 3 delete
    applied = db.execute("SELECT seq_id FROM max_seq_id WHERE segment_id = ?", (seg,)).fetchone()
    for op, rid, raw in db.execute("SELECT operation, id, metadata FROM embeddings_queue WHERE topic LIKE ? AND seq_id > ? "
                                   "ORDER BY seq_id", (f"%/{cid}", int(applied[0]) if applied else -1)):
        new = json.loads(raw) if raw else {}
        if op == 3:
            rows.pop(rid, None)
        elif op == 2 or (op == 0 and rid not in rows):  # an upsert merges keys; an add of a new id starts afresh
            rows[rid] = {**rows.get(rid, {}), **new}
        elif op == 1 and rid in rows:
            rows[rid].update(new)
    ids = sorted(rows)
    return {"dimension": dim, "metadata": meta, "ids": ids, "documents": [rows[i].pop("chroma:document", None) for i in ids],
            "metadatas": [{k: v for k, v in rows[i].items() if not k.startswith("chroma:") and v is not None} for i in ids]}


def _scrub(db: sqlite3.Connection, sealed_prefix: str) -> int:
    """Each blanked row's record was sealed by a later update in the same log, so replaying the log
    still ends with the sealed record; only the clear copies go."""
    db.execute("PRAGMA secure_delete=ON")
    changed = []
    for seq, raw in db.execute("SELECT seq_id, metadata FROM embeddings_queue WHERE metadata IS NOT NULL").fetchall():
        try:
            meta = json.loads(raw)
        except ValueError:
            continue
        blanked = {k: ("" if k in ("record", "chroma:document") and isinstance(v, str) and not v.startswith(sealed_prefix) else v)
                   for k, v in meta.items()}
        if blanked != meta:
            changed.append((json.dumps(blanked), seq))
    if changed:
        db.execute("BEGIN IMMEDIATE")
        db.executemany("UPDATE embeddings_queue SET metadata = ? WHERE seq_id = ?", changed)
        db.execute("COMMIT")
    return len(changed)


def _zero(db: sqlite3.Connection) -> int:
    db.execute("PRAGMA secure_delete=ON")  # what this connection deletes or frees is overwritten with zeros
    db.execute("PRAGMA temp_store=MEMORY")
    size = db.execute("PRAGMA page_size").fetchone()[0]
    db.execute("BEGIN IMMEDIATE")
    try:
        # the log's own pages keep purged rows' bytes between the rows it still holds: emptied (each
        # page zeroed as it goes) and given back its rows, it holds those rows and nothing else
        rows = db.execute("SELECT * FROM embeddings_queue").fetchall()
        db.execute("DELETE FROM embeddings_queue")
        if rows:
            db.executemany(f"INSERT INTO embeddings_queue VALUES ({', '.join('?' * len(rows[0]))})", rows)
        free = left = db.execute("PRAGMA freelist_count").fetchone()[0]
        if free:  # rows of zeros take the free pages until none is left (the file grows by a page at most)
            db.execute("CREATE TABLE amber_zero_free (fill BLOB)")
            while left:
                db.execute("INSERT INTO amber_zero_free VALUES (zeroblob(?))", (size - 200,))
                left = db.execute("PRAGMA freelist_count").fetchone()[0]
            db.execute("DROP TABLE amber_zero_free")  # secure_delete: its pages go back to the free list zeroed
        db.execute("COMMIT")
    except BaseException:
        if db.in_transaction:  # SQLite has already rolled back after some errors (a full disk)
            db.execute("ROLLBACK")
        raise
    finally:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # the log back to nothing, whatever happened
    return int(free)


def _free(db: sqlite3.Connection) -> list[int]:
    return [db.execute("PRAGMA freelist_count").fetchone()[0], db.execute("PRAGMA page_size").fetchone()[0]]


def _vacuum(db: sqlite3.Connection) -> None:
    db.execute("PRAGMA secure_delete=ON")
    db.execute("VACUUM")
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # the pages VACUUM wrote into the log go into the file


def _main(argv: list[str]) -> None:
    op, path, *args = argv
    db = sqlite3.connect(path, timeout=5 if op == "zero" else 60, isolation_level=None)  # zero: never hold writers up for long
    try:
        out = {"segments": lambda: _segments(db), "vectors": lambda: _vectors(db), "scrub": lambda: _scrub(db, *args),
               "vacuum": lambda: _vacuum(db), "zero": lambda: _zero(db), "free": lambda: _free(db), "records": lambda: _records(db, *args), "behind": lambda: _behind(db, Path(path).parent, *args)}[op]()
    finally:
        db.close()
    print(json.dumps(out))


if __name__ == "__main__":
    _main(sys.argv[1:])
