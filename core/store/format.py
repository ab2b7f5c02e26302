"""The store's format version, and the migration from an older one.

The registry holds `store:format`. A host refuses a store written by a newer Amber (it cannot know
what that one changed) and migrates an older one when it opens it:

- 1 (no record): records held their words in the clear.
- 2: in an embedded store every record's words are sealed under a key of its own (sealing.py).
  Migrating seals every record, then rebuilds chroma.sqlite3 once (VACUUM, secure_delete on) so
  the clear copies Chroma kept in its log and free pages are gone from the file too. That costs a
  full rewrite of the file, once, while nothing else uses the store. A server-mode store records
  2 with `sealed: false` (the records of a shared Chroma server are not sealed).
- 3: a turn can say it was imported from a chat export (`Message.imported`, core/chat_import),
  and the registry holds extraction windows marked `imported`. A format-2 Amber reads turns with
  `extra="forbid"` and would fail on every turn written since, and would run imported windows as
  live ones: it must refuse the store, which the version does. Nothing is rewritten: a turn
  stored before has no mark, which reads as not imported.
- 4: the audit events of every person are in one shared collection (`amber_events`, rows marked
  with the person's log) instead of a collection per person: Chroma keeps a ~2.5 MB vector index
  for every collection written to, so the per-person audit collection was a third of Chroma's
  memory per user. Migrating moves each `amber_evt_*` collection's rows there and drops it (run
  again after a crash, it moves what is left). A format-3 Amber would write and read audit rows in
  the old collections, so it must refuse the store.
"""

from __future__ import annotations

import logging
import shutil
import uuid
from pathlib import Path
from typing import Any

from ..errors import StoreTooNew
from . import chroma_file
from .sealing import PREFIX as SEALED

log = logging.getLogger("amber.store")

FORMAT = 4
KEY = "store:format"


def ensure_format(store: Any) -> int:
    """Check the store's format and migrate it to this Amber's; returns how many records were sealed."""
    found = store.reg_get(KEY)
    if found is None:
        version = 1 if _holds_records(store) else FORMAT
    else:
        version = int(found.get("version") or 1)
    if version > FORMAT:
        raise StoreTooNew(
            f"the store at {store.location} has format {version}, written by a newer Amber; this one understands "
            f"up to {FORMAT}. Upgrade Amber, or point it at another data_dir"
        )
    sealed = 0
    if version < 2 and store.sealer is not None:
        sealed = store.seal_existing()
        path = Path(store.location) / chroma_file.FILE
        chroma_file.scrub_log(path, SEALED)  # Chroma has the file open: both run in a child process
        chroma_file.vacuum(path)
        remove_orphan_segments(Path(store.location))
        log.info("amber store %s: format %d -> %d, %d records sealed, file rebuilt", store.location, version, FORMAT, sealed)
    # 2 -> 3 (imported turns and windows) rewrites nothing: an unmarked turn is not imported
    if version < 4:
        moved = store.move_event_logs()
        if moved:
            log.info("amber store %s: format %d -> %d, %d audit rows moved to the shared audit collection", store.location, version, FORMAT, moved)
    if found is None or version < FORMAT:
        store.reg_put(KEY, {"version": FORMAT, "sealed": store.sealer is not None}, kind="store")
    return sealed


def _holds_records(store: Any) -> bool:
    return any(name.startswith(("amber_mem_", "amber_msg_")) for name in store.list_collections())


def remove_orphan_segments(chroma_dir: Path) -> int:
    """Delete the index folders of collections Chroma has dropped: it leaves them on disk, with
    whatever they held (a rebuilt or erased collection's old vectors and stray heap bytes)."""
    if not (chroma_dir / chroma_file.FILE).is_file():
        return 0
    live = chroma_file.live_segments(chroma_dir)
    removed = 0
    for d in chroma_dir.iterdir():
        if d.is_dir() and _is_uuid(d.name) and d.name not in live:
            shutil.rmtree(d, ignore_errors=True)
            removed += 1
    return removed


def _is_uuid(name: str) -> bool:
    try:
        uuid.UUID(name)
    except ValueError:
        return False
    return True
