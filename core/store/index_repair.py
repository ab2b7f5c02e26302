"""Mending a vector index that a killed writer left cut short, where Amber can reach Chroma's files:
an embedded store, or a Chroma server whose persist directory is mounted on the host too
(`chroma_data_path`).

Chroma writes a collection's vector index to disk in place: the hnsw files, then its id map
(`index_metadata.pickle`), truncated and rewritten. A process killed during that write (SIGKILL,
the OOM killer, a power cut; Amber's own process when embedded, the server's otherwise) or a disk
that fills in the middle of it leaves the id map cut short, and from then on every call on the
collection fails ("Error constructing hnsw segment reader: ... Error deserializing pickle file"),
reads included, so the person's memories are out of reach. Chroma's log no longer holds the
vectors (it drops what the index has written), so the index cannot be rebuilt from Chroma alone;
the records themselves (words, metadata) are intact in Chroma's SQLite file.

So the store sets such an index aside (removes its folder): Chroma then starts that collection's
index afresh from what remains of its log, and every record reads again at once. The collection is
listed in `vectors_to_rebuild.json` (beside Chroma's file, written atomically) until its vectors are
back: the store itself gives them back to the registry and audit collections (their vectors are a
placeholder); a person's memories and turns are embedded again from their records by the host's
repairs (core/repair.py `revector_all`), in the background. Until then that person's recall finds
by words only what the dense arm misses.

When: an embedded store, at opening, if the last process that had it open did not close it (its
`OPEN_MARK` is still there), reads every index's id map before Chroma starts. While a store runs
(a Chroma server that crashed and came back; a disk that filled during the write), a call that
fails this way sets its own collection's index aside and is asked once more (core/store/guarded.py).
A running server that has already tried to read the index keeps it in memory and fails the same
way until it restarts; the call that meets that makes the collection again from the records in
Chroma's file (`rebuild`). Several hosts of one server change the list one at a time (a file lock).

A kill can also leave an index whole but older than Chroma's note of how far it has applied the
log: every call then answers, without error and without the records written last, so their
memories are found by their words only. The opening's check also compares each index's id map
with the records Chroma counts as in it (chroma_file.behind) and sets such an index aside."""

from __future__ import annotations

import fcntl
import json
import logging
import os
import pickle
import shutil
import struct
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Iterator

from . import chroma_file

log = logging.getLogger("amber.store")

ID_MAP = "index_metadata.pickle"
HEADER, HEADER_SIZE, LEVEL0 = "header.bin", 100, "data_level0.bin"
OPEN_MARK = "amber-open"  # in the chroma folder while a process has the store open
REBUILD_FILE = "vectors_to_rebuild.json"
LIST_LOCK = "vectors_to_rebuild.lock"
def readable(id_map: Path) -> bool:
    """Whether an index's id map holds the whole of what Chroma wrote. A pickle ends with its STOP
    opcode, so one cut anywhere short of its last byte fails to load."""
    return _id_map(id_map) is not _TORN


def whole(folder: Path) -> bool:
    """Whether an index folder holds one write's files: its id map readable, and counting as many
    elements as the hnsw header and level-0 data the same write left. A kill after Chroma rewrote
    the hnsw files and before it rewrote the id map leaves the header one element ahead of the map,
    and Chroma's reader then crashes the whole process (a segfault in `get`) at every opening
    (bench/README.md, "A store that crashed its host at every start")."""
    data = _id_map(folder / ID_MAP)
    if data is _TORN:
        return False
    counts = _header(folder) if data is not None else None
    if counts is None:  # never written, or a layout this check does not know: the id map alone judges
        return True
    return counts[0] == data.get("total_elements_added") and _holds(folder, counts)


def _holds(folder: Path, counts: tuple[int, int]) -> bool:
    """Whether the folder's level-0 data holds the (elements, bytes per element) its header counts."""
    elements, size = counts
    try:
        return elements >= 0 and (folder / LEVEL0).stat().st_size >= elements * size
    except FileNotFoundError:
        return False


def cut_short(chroma_dir: Path) -> list[Path]:
    """Index folders whose hnsw header is cut short, or whose level-0 data is shorter than the header
    says: damage done after a clean close (a disk, a copy or a restore cut short). Only the openings
    after a crash read the index files, so Chroma's reader crashed the process (a segfault) at the
    first query, with no log line. A small read and a stat a folder: cheap for every opening."""
    folders = (h.parent for h in Path(chroma_dir).glob(f"*/{HEADER}"))
    return [f for f in folders if (counts := _header(f)) is not None and not _holds(f, counts)]


_TORN = object()


def _id_map(id_map: Path) -> Any:
    try:
        with open(id_map, "rb") as f:
            data = pickle.load(f)
    except FileNotFoundError:
        return None  # never written: Chroma builds the index from its log
    except Exception:
        return _TORN
    return data if isinstance(data, dict) and "id_to_label" in data else _TORN


def _header(folder: Path) -> tuple[int, int] | None:
    """(elements, bytes per element) from the hnsw header as Chroma 1.x writes it: format 1 (int32),
    then size_t offsetLevel0, max_elements, cur_element_count, size_data_per_element, ... (100
    bytes). Cut short: (-1, 0), which no id map matches; absent or another format: None."""
    try:
        head = (folder / HEADER).read_bytes()
    except FileNotFoundError:
        return None
    if len(head) < HEADER_SIZE:
        return (-1, 0)
    if struct.unpack_from("<i", head)[0] != 1:
        return None
    return struct.unpack_from("<QQ", head, 20)


def _index_settings(col: Any) -> dict:
    hnsw = {k: v for k, v in ((getattr(col, "configuration_json", None) or {}).get("hnsw") or {}).items() if k in _INDEX_KEYS}
    if "sync_threshold" in hnsw and "batch_size" not in hnsw:  # Chroma does not report it; it may not exceed the threshold
        hnsw["batch_size"] = min(100, hnsw["sync_threshold"])
    return hnsw


def _restore(client: Any, name: str, recs: dict, drop: bool) -> Any:
    """`name` made (dropped first with `drop`) and given `recs` (chroma_file.records), each record
    with a placeholder vector of the collection's dimension."""
    if drop:
        client.delete_collection(name)
    col = client.get_or_create_collection(name, metadata=recs["metadata"] or None, embedding_function=None,
                                          configuration={"hnsw": recs["hnsw"]})
    vector = [1.0] + [0.0] * ((recs["dimension"] or 1) - 1)
    for i in range(0, len(recs["ids"]), _BATCH):
        part = slice(i, i + _BATCH)
        docs, metas = recs["documents"][part], recs["metadatas"][part]
        col.upsert(ids=recs["ids"][part], embeddings=[vector] * len(docs), metadatas=metas if all(metas) else None,
                   documents=docs if all(d is not None for d in docs) else None)
    return col


def _json_to(path: Path, data: Any) -> None:
    """`data` as JSON in `path`, whole or not at all: written beside it, on disk, then renamed over it."""
    tmp = path.with_suffix(".tmp")
    with open(tmp, "w") as f:
        json.dump(data, f)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def _shred(path: Path) -> None:
    """A staged file's words overwritten on disk before it goes (a forgotten person's words must not
    stay in a file's freed blocks); absent: nothing to do."""
    try:
        with open(path, "r+b") as f:
            f.write(b"\0" * os.fstat(f.fileno()).st_size)
            f.flush()
            os.fsync(f.fileno())
    except FileNotFoundError:
        return
    path.unlink(missing_ok=True)


def behind(chroma_dir: Path) -> set[str]:
    """Index folders (names) that answer without records Chroma counts as in them
    (chroma_file.behind), read before Chroma opens the store; none when Chroma's file cannot be
    read, which the log says.

    Only at opening: on a Chroma server that runs again after a kill, setting such an index aside
    made things worse, not better (`bench/server_kills.py --seed 7`: 16 indexes set aside as behind,
    13 memories then not found by their own vector, against none in the run before the check). The
    running server keeps the index it read in memory, so the folder's going changes nothing there."""
    try:
        return set(chroma_file.behind(chroma_dir))
    except Exception as e:
        log.warning("amber: could not compare the vector indexes with their records: %s", e)
        return set()


def torn_folders(chroma_dir: Path) -> list[Path]:
    """Index folders to set aside at opening: torn, or behind their records."""
    late = behind(chroma_dir)
    return sorted(p.parent for p in Path(chroma_dir).glob(f"*/{ID_MAP}") if not whole(p.parent) or p.parent.name in late)


PEOPLE = ("amber_mem_", "amber_msg_")  # collections whose vectors come from a person's words
_UNIT = [1.0]  # the registry's and audit rows' placeholder vector (core/store/chroma.py)
_BATCH = 1000
STAGED = "records_to_restore"  # beside Chroma's file: a collection's records while it is made again (`rebuild`)
_INDEX_KEYS = ("space", "ef_construction", "ef_search", "max_neighbors", "resize_factor", "sync_threshold", "batch_size")


class IndexMender:
    """Sets torn indexes aside and keeps the list of collections whose vectors are to be given back:
    `client` gives the store's Chroma client, `woken` tells the host's repairs (core/repair.py)."""

    def __init__(self, chroma_dir: Path, client: Callable[[], Any] = lambda: None, woken: Callable[[], None] = lambda: None):
        self.dir = Path(chroma_dir)
        self._file = self.dir / REBUILD_FILE
        self._lock = threading.Lock()
        self._client = client
        self._woken = woken

    def mend(self, failing: str) -> bool:
        """While the store runs: set `failing`'s index aside if a crash cut it short; True: ask once more.
        A registry or audit collection gets its placeholder vectors back at once; a person's is
        listed and the host's repairs are woken."""
        try:
            names = self.set_aside(failing)
        except Exception as e:  # the call's own error is the one to report
            log.warning("amber: could not check %s's vector index for a cut-short id map: %s", failing, e)
            return False
        for name in names:
            if not name.startswith(PEOPLE):
                self._placeholders_back(name)
        if names:
            self._woken()
        return True  # set aside here, or a moment ago by another host of the same Chroma server: asked once more

    def rebuild(self, name: str, old: Any) -> Any | None:
        """While a Chroma server runs, a collection whose calls still fail once its index is set aside:
        the server keeps the index it could not read in memory until it restarts (bench/README.md, "A
        Chroma server killed while it writes"). So the collection is made again from its records in
        Chroma's file: staged beside it first (from then on a crash loses nothing: the store's next
        opening finishes the job, `restore_staged`), dropped, made with the same metadata and index
        settings, its records written back (a person's with a placeholder vector, listed for the
        host's repairs to embed again). Returns the new collection, or None: the call's error stands."""
        try:
            with self._listing():
                client = self._client()
                fresh = client.get_collection(name, embedding_function=None)
                if fresh.id != old.id:
                    return fresh  # made again a moment ago, by another thread or host
                if any(f.is_dir() and whole(f) for f in self._folders(name)):
                    return None  # its index is on disk and whole: the failure is not one a new collection mends (e.g. no file descriptors left)
                recs = chroma_file.records(self.dir, name)
                recs["hnsw"] = _index_settings(old)
                staged = self._stage(name, recs)
                if name.startswith(PEOPLE):
                    self._write(set(self.pending()) | {name})
                col = _restore(client, name, recs, drop=True)
                _shred(staged)
        except Exception as e:
            log.warning("amber: could not make %s again from its records: %s", name, e)
            return None
        log.warning("amber: made %s again from its %d records in Chroma's file (the server could not read its vector "
                    "index); %s", name, len(recs["ids"]), "its vectors are being rebuilt" if name.startswith(PEOPLE) else "")
        self._woken()
        return col

    def _folders(self, name: str) -> list[Path]:
        return [self.dir / seg for seg, owner in chroma_file.vector_collections(self.dir).items() if owner == name]

    def _stage(self, name: str, recs: dict) -> Path:
        (self.dir / STAGED).mkdir(exist_ok=True)
        path = self.dir / STAGED / f"{name}.json"
        _json_to(path, recs)
        return path

    def unstage(self, name: str) -> None:
        """The collection is dropped (its person forgotten or moved): records staged for it never come back."""
        with self._listing():
            _shred(self.dir / STAGED / f"{name}.json")
            self._write(set(self.pending()) - {name})

    def restore_staged(self) -> None:
        """Collections a crash left in the middle of `rebuild`: made (if need be) and given their records.
        Run as the store opens, before anyone reads or forgets (a forget in between would come back),
        and again with the repairs if the store was away then. Under the list's lock: a `rebuild` under
        way (another thread's, another host's) holds it from staging to the end, so its file is not
        taken for one a crash left."""
        if not any((self.dir / STAGED).glob("*.json")):
            return
        with self._listing():
            for path in sorted((self.dir / STAGED).glob("*.json")):
                try:
                    _restore(self._client(), path.stem, json.loads(path.read_text()), drop=False)
                    _shred(path)
                except Exception as e:  # kept: the next start, or the collection's next failing call, tries again
                    log.warning("amber: could not give %s its staged records back: %s", path.stem, e)

    def people_pending(self) -> list[str]:
        """Listed people's collections (a listed registry or audit collection is given back here)."""
        self.restore_staged()
        pending = self.pending()
        for name in [n for n in pending if not n.startswith(PEOPLE)]:
            self._placeholders_back(name)
        return [n for n in pending if n.startswith(PEOPLE)]

    def _placeholders_back(self, name: str) -> None:
        try:
            col = self._client().get_collection(name, embedding_function=None)
            r = col.get(include=["metadatas", "documents"])
            ids = r["ids"]
            for i in range(0, len(ids), _BATCH):
                part = slice(i, i + _BATCH)
                docs = r["documents"][part]
                col.upsert(ids=ids[part], metadatas=r["metadatas"][part], embeddings=[_UNIT] * len(ids[part]),
                           documents=docs if all(d is not None for d in docs) else None)
        except Exception as e:  # listed still: the next opening tries again
            log.warning("amber: could not give %s its vectors back: %s", name, e)
            return
        self.done(name)

    # ---- the list ------------------------------------------------------------------------------

    def pending(self) -> list[str]:
        try:
            return sorted(json.loads(self._file.read_text()))
        except FileNotFoundError:
            return []
        except ValueError:  # cut short itself: what it named is found again as records without vectors
            log.warning("amber: %s could not be read; collections set aside earlier may need `amber reindex`", self._file)
            return []

    def _write(self, names: set[str]) -> None:
        if not names:
            self._file.unlink(missing_ok=True)
            return
        _json_to(self._file, sorted(names))

    @contextmanager
    def _listing(self) -> Iterator[None]:
        """The list is changed by one thread and, on a Chroma server's files, one host at a time."""
        with self._lock, open(self.dir / LIST_LOCK, "a") as f:
            fcntl.flock(f, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(f, fcntl.LOCK_UN)

    def done(self, name: str) -> None:
        with self._listing():
            self._write(set(self.pending()) - {name})

    # ---- setting aside -------------------------------------------------------------------------

    def set_aside(self, failing: str | None = None) -> list[str]:
        """Remove torn index folders and list their collections for their vectors to be given back;
        returns the names listed. At opening (`failing` None, Chroma not started) every folder is
        read; while Chroma runs only `failing`'s, read twice a moment apart, since another
        collection's id map may be half-written at this very moment by a healthy write."""
        with self._listing():
            if failing is None:
                folders = torn_folders(self.dir)
                if not folders:
                    return []
            try:
                owners = chroma_file.vector_collections(self.dir)
            except Exception as e:  # at opening the names only say whose vectors to give back
                if failing is not None:
                    raise
                log.warning("amber: could not read which collections own the torn indexes: %s", e)
                owners = {}
            if failing is not None:
                mine = [self.dir / seg for seg, name in owners.items() if name == failing]
                folders = [f for f in mine if not whole(f)]
                if folders:
                    time.sleep(0.05)
                    folders = [f for f in folders if not whole(f)]
                if not folders:
                    return []
            names = {owners[f.name] for f in folders if f.name in owners}
            torn = sum(1 for f in folders if not whole(f))
            self._write(set(self.pending()) | names)  # listed before the index goes: a crash now loses nothing
            for f in folders:
                shutil.rmtree(f, ignore_errors=True)
            log.warning("amber: set aside %d vector index(es) an interrupted write left half-written (%d) or behind their "
                        "records (%d): %s; their records read again now, their vectors are being rebuilt",
                        len(folders), torn, len(folders) - torn, ", ".join(sorted(names)) or "?")
            return sorted(names)

    def open_mark(self) -> bool:
        """Mark the store open; True if the last process to open it never closed it."""
        mark = self.dir / OPEN_MARK
        crashed = mark.exists()
        mark.write_text(str(os.getpid()))
        return crashed

    def close_mark(self) -> None:
        (self.dir / OPEN_MARK).unlink(missing_ok=True)

