"""Captured turns that could not be stored yet: an append-only local file, replayed later.

When the store (or, in remote mode, the memory host) is unreachable, capture writes the turns here
instead of dropping them; after the next capture that succeeds, the spool is replayed. Message ids
are deterministic, so a turn replayed twice is stored once.

Each worker process appends to its own file (`<pid>.jsonl`); a replay first claims a file by an
atomic rename, so two workers never replay the same lines.
"""

from __future__ import annotations

import json
import logging
import os
import threading
from pathlib import Path
from typing import Any, Awaitable, Callable

log = logging.getLogger("amber.litellm")


class Spool:
    def __init__(self, directory: Path):
        self.dir = Path(directory)
        self._lock = threading.Lock()

    def _own(self) -> Path:
        return self.dir / f"{os.getpid()}.jsonl"

    def append(self, entry: dict[str, Any]) -> None:
        self._write([json.dumps(entry, ensure_ascii=False, default=str)])

    def _write(self, lines: list[str]) -> None:
        with self._lock:
            self.dir.mkdir(parents=True, exist_ok=True)
            with open(self._own(), "a", encoding="utf-8") as f:
                f.writelines(line + "\n" for line in lines)

    def pending(self) -> bool:
        return self.dir.is_dir() and any(self.dir.glob("*.jsonl"))

    async def replay(self, store: Callable[[dict[str, Any]], Awaitable[None]]) -> int:
        """Store every spooled entry; entries that fail again go back to the spool. Returns how many landed."""
        done = 0
        for path in sorted(self.dir.glob("*.jsonl")) if self.dir.is_dir() else []:
            claimed = path.with_suffix(f".replay-{os.getpid()}")
            try:
                os.rename(path, claimed)
            except OSError:  # another worker took it
                continue
            lines = claimed.read_text(encoding="utf-8").splitlines()
            for n, line in enumerate(lines):
                try:
                    entry = json.loads(line)
                except ValueError:  # a line cut short by a crash: nothing to recover
                    log.warning("amber spool: unreadable line skipped in %s", path.name)
                    continue
                try:
                    await store(entry)
                    done += 1
                except Exception as e:
                    log.warning("amber spool: replay stopped (%s: %s); %d entries kept", type(e).__name__, e, len(lines) - n)
                    self._write(lines[n:])
                    claimed.unlink(missing_ok=True)
                    return done
            claimed.unlink(missing_ok=True)
        if done:
            log.info("amber spool: %d captured exchanges replayed", done)
        return done
