"""How Amber keeps Chroma's pool of vector indexes safe to evict, and sized to the process.

Chroma keeps the vector index of each collection it has opened in a pool (a server: its config
file's `segment_manager.hnsw_index_pool_cache_config`; embedded: the open-file limit / 5). With
thousands of people on a box the pool holds only the active ones, and an evicted index is read
back from disk. Chroma 1.5.9 writes an index to disk only every `sync_threshold` changes (1 000
unless set) and reads it back as last written, so with its defaults:

- a collection of fewer changes has nothing on disk, and its next query fails "Nothing found on
  disk" (chroma-core/chroma#4212);
- a bigger one answers without up to 999 of its latest changes, silently.

Measured on embedded Chroma, 60 collections of 3 single-record writes each with a pool of 20: the
defaults failed 20 queries; `batch_size` 2 / `sync_threshold` 2 failed none but 38 answers were a
record short; 1 / 1 failed none and none was short (bench/index_pool.py, bench/README.md). So each
person's memories and turns are kept at 1 / 1 (`PERSON_INDEX`): Chroma writes the index to disk
after every write. The shared registry and audit collections keep Chroma's defaults:
they are read by id and metadata, not by nearest vector, and stay pooled because every request
touches them. A collection made before this is switched over the first time the store opens it
(`keep_on_disk`). core/store/guarded.py still reloads an index that fails, whatever the cause.

An index on disk keeps four files open while Chroma holds it. Embedded Chroma sizes its pool as
the open-file limit / 5, which at a limit of 200 ran out of files (EMFILE, which a write reports as
"Error in compaction"). Measured with PERSON_INDEX, embedded, 420 collections: the files of at most
64 indexes were open (~260 descriptors) with pools of 20 and of 100; a `chroma run` server with a
pool of 1 000 held ~3 900 descriptors (its open-file limit is the operator's: the compose files in
deploy/ set it). `embedded_client` raises the
process's soft open-file limit to its hard limit, which leaves room for that and for every socket,
and gives Chroma a pool of `chroma_index_pool` indexes (1 000 unless set, ~2.6 GB at most; ~2.6 MB
each whatever they hold), never more than a tenth of that limit.
"""

from __future__ import annotations

import logging
import os
import resource
from pathlib import Path
from typing import Any

import chromadb

log = logging.getLogger("amber.store")

PERSON_INDEX = {"space": "cosine", "batch_size": 1, "sync_threshold": 1}
SHARED_INDEX = {"space": "cosine"}
FILES_PER_POOLED_INDEX = 5  # what embedded Chroma divides the open-file limit by
POOL_SHARE = 10  # Amber's pool: the open-file limit / 10
NOOP_ID = "amber:reload-index"  # deleting an id no record has: a write that changes nothing


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


def keeps_on_disk(col: Any) -> bool:
    hnsw = (getattr(col, "configuration_json", None) or {}).get("hnsw") or {}
    return hnsw.get("sync_threshold") == PERSON_INDEX["sync_threshold"]


def keep_on_disk(col: Any) -> None:
    """Switch a collection made with Chroma's defaults to PERSON_INDEX, then write nothing to it so
    that Chroma writes its index to disk under the new settings at once (an index never written
    would still fail after eviction until the person's next write)."""
    col.modify(configuration={"hnsw": {k: v for k, v in PERSON_INDEX.items() if k != "space"}})
    col.delete(ids=[NOOP_ID])
