"""The boot pack in the system prompt: the user's digest, pinned facts and glossary (rendered by
`core.render_boot`, fenced like the recall patch), kept per user for a short while.

It sits at the end of the system prompt, behind the system cache anchor. Its text depends only on
the digest, pinned facts and glossary (ordered by creation, never by use), so fetching it again
gives the same bytes and the prompt cache stays warm; when the user changes one of them (unpins,
forgets, edits the digest) the next fetch carries the change, within `refresh_s`, instead of a
forgotten fact staying in every prompt until the day ends.
"""

from __future__ import annotations

import threading
import time
from typing import Awaitable, Callable

REFRESH_S = 30.0


class BootPacks:
    """Rendered boot packs per user, fetched again after `refresh_s` (process-wide, not per request)."""

    def __init__(self, refresh_s: float = REFRESH_S, clock: Callable[[], float] = time.monotonic):
        self.refresh_s = refresh_s
        self.clock = clock
        self._packs: dict[str, tuple[float, str]] = {}
        self._dropped: dict[str, int] = {}  # per person, how many times `drop` ran: a build it overtook is not kept
        self._lock = threading.Lock()

    async def get(self, user_id: str, build: Callable[[], Awaitable[str]]) -> str:
        now = self.clock()
        person = user_id.split("\0", 1)[0]
        with self._lock:
            hit = self._packs.get(user_id)
            seen = self._dropped.get(person, 0)
        if hit and now - hit[0] < self.refresh_s:
            return hit[1]
        text = await build()
        with self._lock:
            if self._dropped.get(person, 0) == seen:  # a forget that landed while it was built: not kept
                self._packs[user_id] = (now, text)
        return text

    def drop(self, user_id: str, _says: object = None) -> int:
        """A forget or a correction for `user_id`: their packs are built again at the next request
        instead of carrying what was forgotten for up to `refresh_s` (a `forget_elsewhere` purger,
        hence the unused second argument). Returns 0: nothing waiting to be stored was removed."""
        with self._lock:
            self._packs.pop(user_id, None)
            self._packs.pop(f"{user_id}\0off-host", None)
            self._dropped[user_id] = self._dropped.get(user_id, 0) + 1
        return 0
