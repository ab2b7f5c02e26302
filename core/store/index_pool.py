"""The embedded store's pool of Chroma vector indexes: what its indexes keep on disk, and its size.

Chroma keeps the vector index of each collection it has opened in a pool (a server: its config
file's `segment_manager.hnsw_index_pool_cache_config`; embedded: the open-file limit / 5), ~2.6 MB
each whatever it holds. An evicted index is read back from disk, and Chroma writes one there only
every `sync_threshold` changes (1 000 unless set), so with its defaults a collection of fewer
changes fails "Nothing found on disk" once evicted (chroma-core/chroma#4212), and a bigger one
answers without its latest changes. core/store/guarded.py mends both by a write that makes Chroma
rebuild the index from its log, at ~200 ms of Chroma's CPU each: with 3 000 people on a pool of
1 000 nearly every operation paid it (5 op/s, bench/README.md).

An embedded store keeps each person's indexes on disk after every write (`PERSON_INDEX`:
`batch_size` 1, `sync_threshold` 1): an evicted index reads back whole (60 collections of single
writes on a pool of 20: none failed, none short; at 2 / 2, 38 answers were a record short) and the
3 000-person run went from 5.0 to 49.5 op/s. A write then costs more at 100 000 records (p50 101
against 21 ms): Chroma rewrites the index's id map each time. That rewrite is in place, so a
writer killed in the middle leaves it cut short and the collection unreadable; the embedded store
owns the files and sets such an index aside, then gives its vectors back (index_repair.py). A
Chroma server's collections do the same when the host can reach the server's files
(`chroma_data_path`), and keep Chroma's defaults otherwise. The registry and audit collections
keep the defaults too: they are read by id and metadata, never by nearest vector. A collection
made before this is switched the first time the store opens it (`keep_on_disk`).

An index on disk keeps four files open while Chroma holds it, so an embedded pool of limit / 5
indexes can take four fifths of the process's files (at a limit of 200 it ran out: EMFILE, which a
write reports as "Error in compaction"). `embedded_client` raises the process's soft open-file
limit to its hard limit and gives Chroma a pool of `chroma_index_pool` indexes (1 000 unless set,
~2.6 GB at most), never more than a tenth of that limit.
"""

from __future__ import annotations

import logging
import os
import resource
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import chromadb
from chromadb.config import Settings

log = logging.getLogger("amber.store")

# glibc gives a freed block back to the kernel only if it was mmapped, and by default it raises its
# mmap threshold to the largest block freed: after the first index Chroma evicts (~2.6 MB, most of
# it zeroed lock tables it never touches) every index is carved from some thread's arena and its
# memory stays there. Fixed at 128 KiB, an index is mmapped, its untouched pages cost nothing and
# an evicted one is returned whole: 8 threads querying 600 collections on a pool of 100 held
# 654 MB and growing by default, 328 MB flat with it (bench/README.md). Set at process start
# (`amber` restarts itself with it, `make run`, `make serve` and `make test` export it).
MMAP_FIXED = "glibc.malloc.mmap_threshold=131072"
PERSON_INDEX = {"space": "cosine", "batch_size": 1, "sync_threshold": 1}
SHARED_INDEX = {"space": "cosine"}
NOOP_ID = "amber:reload-index"  # deleting an id no record has: a write that changes nothing
FILES_PER_POOLED_INDEX = 5  # what embedded Chroma divides the open-file limit by
POOL_SHARE = 10  # Amber's pool: the open-file limit / 10


def _open_files() -> int:
    try:
        return len(os.listdir("/proc/self/fd"))
    except OSError:
        return 64


def pool_size(limit: int) -> int:
    return max(1, limit // POOL_SHARE)


def embedded_client(path: Path, settings: Any, most: int | None = None) -> Any:
    """A PersistentClient at `path` whose index pool is `most` indexes, and never more than
    `pool_size` of the hard open-file limit, with the process's soft limit raised to that hard
    limit. Chroma reads the soft limit once, as the client starts, to size its pool; so it is set
    to pool × 5 for that moment and raised after (never below what the process already has open)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    room = hard if hard != resource.RLIM_INFINITY else max(soft, 1 << 16)
    pool = min(most or room, pool_size(room))
    during = min(room, max(pool * FILES_PER_POOLED_INDEX, _open_files() + 64))
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (during, hard))
    except (ValueError, OSError):
        during = soft
    try:
        return chromadb.PersistentClient(path=str(path), settings=settings)
    finally:
        for limit in (room, soft):
            try:
                resource.setrlimit(resource.RLIMIT_NOFILE, (limit, hard))
                break
            except (ValueError, OSError):  # a kernel cap under an unlimited hard limit: keep what was
                continue
        log.debug("amber: embedded Chroma pools %d vector indexes; open-file limit %d", during // FILES_PER_POOLED_INDEX, room)


def index_settings(vectors: bool, *, mendable: bool) -> dict[str, Any]:
    """A new collection's index settings (the module docstring says why): `mendable`, a store whose
    Chroma files are within Amber's reach (embedded, or a server's with `chroma_data_path`)."""
    return PERSON_INDEX if vectors and mendable else SHARED_INDEX


def keeps_on_disk(col: Any) -> bool:
    hnsw = (getattr(col, "configuration_json", None) or {}).get("hnsw") or {}
    return hnsw.get("sync_threshold") == PERSON_INDEX["sync_threshold"]


def keep_on_disk(col: Any, name: str) -> None:
    """Switch a person's collection made with Chroma's defaults (an embedded store from before this)
    to PERSON_INDEX, then write nothing to it so that Chroma writes its index to disk under the new
    settings at once (an index never written would still fail after eviction until the person's
    next write). A failure leaves the collection as it was; the next opening tries again."""
    if keeps_on_disk(col):
        return
    try:
        col.modify(configuration={"hnsw": {k: v for k, v in PERSON_INDEX.items() if k != "space"}})
        col.delete(ids=[NOOP_ID])
    except Exception as e:
        log.warning("amber: could not switch %s to keep its vector index on disk: %s", name, e)


def server_client(url: str, tenant: str, database: str, token: str | None, timeout_s: float | None = None) -> tuple[Any, str]:
    """An HttpClient for a Chroma server, and how to name where it stores. `timeout_s`: how long a
    call may wait for the server; chromadb's own client waits for ever (a server stopped, or
    packets dropped on the way, held every request and its thread: `chroma_timeout_s`)."""
    u = urlparse(url)
    client = chromadb.HttpClient(host=u.hostname or "127.0.0.1", port=u.port or 8000, ssl=u.scheme == "https",
                                 headers={"x-chroma-token": token} if token else None, tenant=tenant, database=database,
                                 settings=Settings(anonymized_telemetry=False))
    session = getattr(getattr(client, "_server", None), "_session", None)
    if timeout_s is not None and session is not None:  # chromadb offers no setting for it
        import httpx

        session.timeout = httpx.Timeout(timeout_s, connect=min(timeout_s, 5.0))
    return client, url if (tenant, database) == ("default_tenant", "default_database") else f"{url} ({tenant}/{database})"
