"""An exclusive lock on the embedded store's directory.

Chroma's embedded client is not process-safe (two writers lose vectors; a second reader sees stale
results), so exactly one process may open a directory. The lock is an OS-level `flock`, released
by the kernel if the owner dies, with the owner's pid written inside for the error message.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

from ..errors import StoreLocked


class DirectoryLock:
    def __init__(self, directory: Path):
        self.path = Path(directory) / "amber.lock"
        self._fd: int | None = None

    def acquire(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            owner = os.pread(fd, 64, 0).decode(errors="replace").strip() or "another process"
            os.close(fd)
            raise StoreLocked(
                f"the Amber store at {self.path.parent} is held by process {owner}. "
                "Only one process may open it. Go through that process instead: the `amber` commands take "
                "--url http://127.0.0.1:<port>/memory (or its `amber serve` URL; AMBER_SERVER_URL in the environment "
                "is their default) with --key or AMBER_KEY, `amber mcp --url ...` for an MCP client; a program using "
                "Amber sets server_url; "
                "for several hosts, run Chroma as a server and set AMBER_CHROMA_URL."
            ) from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, str(os.getpid()).encode(), 0)
        self._fd = fd

    def release(self) -> None:
        if self._fd is not None:
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None
