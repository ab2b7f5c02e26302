"""The embedded store's pool of Chroma vector indexes, sized to the process.

Chroma keeps the vector index of each collection it has opened in a pool (a server: its config
file's `segment_manager.hnsw_index_pool_cache_config`; embedded: the open-file limit / 5), ~2.6 MB
each whatever it holds. An evicted index is read back from disk if Chroma wrote it there (it does
every `sync_threshold` changes, 1 000 unless set); one never written fails "Nothing found on disk"
(chroma-core/chroma#4212), which core/store/guarded.py mends by a write that makes Chroma rebuild
it from its log.

Amber's collections keep Chroma's defaults. Writing each person's index to disk after every write
(`batch_size` 1, `sync_threshold` 1) made evicted indexes read back whole and a 3 000-person server
~10× faster (bench/README.md), but a writer killed during that write can leave the index's
metadata file cut short, and the collection then fails every read ("Error deserializing pickle
file"; tests/core/test_crash_supersede.py found it). Not worth a person's memory.

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

import chromadb

log = logging.getLogger("amber.store")

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
