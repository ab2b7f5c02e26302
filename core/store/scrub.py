"""What erased records leave in embedded Chroma's SQLite file, overwritten once a day.

A forget overwrites an erased record's vector in Chroma's index file before deleting it
(chroma_query.blank_vectors), at once. Chroma's SQLite file keeps copies too: every log row Chroma
wrote for the record held its vector, and a purged row's bytes stay in free pages, between live
rows and in the write-ahead log's older frames. Overwriting those costs time in proportion to the
file's free pages (about a second for 100 MB, and it writes them twice), so it is not done on each
forget: the daily retention job does it for every person at once (core/jobs/runner.py), and only
when the disk has room above its reserve for those writes.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from . import chroma_file

log = logging.getLogger("amber.store")


def scrub_erased(store: Any) -> int:
    """Overwrite the free pages of an embedded store's Chroma file and empty its write-ahead log
    (chroma_file.zero_free_pages). Returns the pages overwritten; 0 for a Chroma server (Amber owns
    none of its files) or when the disk has no room for it (said in the log; tried again next run)."""
    if getattr(store, "sealer", None) is None or getattr(store, "disk", None) is None:
        return 0
    path = Path(store.location) / chroma_file.FILE
    try:
        pages, size = chroma_file.free_space(path)
    except Exception as e:  # the file could not be read: the next run tries again
        log.warning("amber: the free pages of %s could not be counted: %s: %s", path, type(e).__name__, e)
        return 0
    if not store.disk.fits(2 * pages * size):  # the zeros go through SQLite's write-ahead log first
        log.warning("amber: no room above the disk's reserve to overwrite the %d free pages of %s; the next run tries again", pages, path)
        return 0
    return chroma_file.zero_free_pages(path)
