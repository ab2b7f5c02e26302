"""After a restart, the people a host was serving find their recall indexes built.

A person's first recall on a host builds their indexes from the store: ~15 ms for a few dozen
records, eight people at once ~100 ms (bench/README.md, "Nineteenth session"), and a minute for
200 000 imported turns, during which their recalls go on without their turns. So when the host
closes it writes down whose indexes it held, most recently used first, and when it starts again it
builds them in that order on a thread of their own while it serves. The index pool stays free for
the recalls of people not on the list; a person on it who asks before their turn comes builds their
own, and the start-up thread then finds it built.

The file (`recall-serving.json` in the data directory) holds collection names only: hashed user
ids, no words. A missing or unreadable file means a cold start, as without it. Recall's index
limits still hold: the list was what fitted under them when the host stopped. It is written when
the list changed, every `recall_warm_save_s`, and when the service closes: the proxy is often
stopped by a signal that ends the process before any close runs (uvicorn raises it again once its
own shutdown is done), and a host may be killed.
"""

from __future__ import annotations

import json
import logging
import os
import re
import threading
import time
from pathlib import Path
from typing import Any

log = logging.getLogger("amber.recall")

FILE = "recall-serving.json"
KINDS = ("memories", "turns")
_NAME = re.compile(r"^amber_(?:mem|msg)_[0-9a-f]{24}$")


def save(recaller: Any, path: Path, held: list[tuple[str, str]] | None = None) -> int:
    """Write whose indexes `recaller` holds (`held`, if the caller has just read it) to `path`
    (atomically): how many were written. A host with no data directory of its own (its store a
    Chroma server, nothing local) keeps no file."""
    if not path.parent.is_dir():
        return 0
    held = recaller.serving() if held is None else held
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps({"version": 1, "serving": [list(e) for e in held]}), encoding="utf-8")
    os.replace(tmp, path)
    return len(held)


def save_quietly(recaller: Any, path: Path, held: list[tuple[str, str]] | None = None) -> bool:
    """`save`, and on failure a log line: the next start is then cold, nothing else. Not while the
    start's own builds go on: the file still holds the whole list, which a partial one would cut."""
    if recaller.warming is not None and recaller.warming.is_alive():
        return False
    try:
        save(recaller, path, held)
        return True
    except OSError as e:
        log.warning("could not note whose recall indexes to build at the next start: %s", e)
        return False


def read(path: Path) -> list[tuple[str, str]]:
    """The (kind, collection) pairs saved at `path`; nothing when there is no file or it is not one
    this code wrote (said in the log: the start is then cold)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return [(k, c) for k, c in data["serving"] if k in KINDS and isinstance(c, str) and _NAME.match(c)]
    except FileNotFoundError:
        return []
    except (OSError, ValueError, KeyError, TypeError) as e:
        log.warning("recall indexes not built ahead: %s is unreadable (%s: %s)", path, type(e).__name__, e)
        return []


def restore(recaller: Any, path: Path) -> threading.Thread | None:
    """Build the indexes saved at `path`, in order, on a thread of its own (returned; None when
    there is nothing to build)."""
    todo = read(path)
    if not todo:
        return None

    def run() -> None:
        started, built = time.monotonic(), 0
        for kind, col in todo:
            if recaller.closed:
                break
            try:
                recaller.rebuild(kind, col)
                built += 1
            except Exception as e:  # that person's first recall builds it, as on a cold start
                log.info("recall index of %s not built ahead: %s: %s", col, type(e).__name__, e)
        log.info("recall indexes built ahead at start: %d of %d in %.1fs", built, len(todo), time.monotonic() - started)

    thread = threading.Thread(target=run, name="amber-warm-start", daemon=True)
    thread.start()
    return thread


def keep_saving(recaller: Any, path: Path, every_s: float) -> threading.Thread:
    """Write the list every `every_s` seconds while it changes, until `recaller` closes."""
    def run() -> None:
        last: list[tuple[str, str]] = []
        while not recaller.closed:
            time.sleep(every_s)
            held = recaller.serving()
            if held != last and not recaller.closed and save_quietly(recaller, path, held):  # else the next round tries again
                last = held

    thread = threading.Thread(target=run, name="amber-warm-list", daemon=True)
    thread.start()
    return thread
