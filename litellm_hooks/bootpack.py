"""The boot pack in the system prompt: the user's digest, pinned facts and glossary (rendered by
`core.render_boot`, fenced like the recall patch), kept once a day.

It sits at the end of the system prompt, behind the system cache anchor, so it must not change
from one turn to the next: the rendered text is kept per user for the day (in the configured time
zone).
"""

from __future__ import annotations

import threading
from datetime import datetime, timezone
from typing import Awaitable, Callable
from zoneinfo import ZoneInfo


class DailyBootPacks:
    """Rendered boot packs per user, recomputed when the day changes (process-wide, not per request)."""

    def __init__(self, tz: str = "UTC"):
        try:
            self.tz = ZoneInfo(tz)
        except Exception:
            self.tz = ZoneInfo("UTC")
        self._packs: dict[str, tuple[str, str]] = {}
        self._lock = threading.Lock()

    async def get(self, user_id: str, build: Callable[[], Awaitable[str]]) -> str:
        day = datetime.now(timezone.utc).astimezone(self.tz).date().isoformat()
        with self._lock:
            hit = self._packs.get(user_id)
        if hit and hit[0] == day:
            return hit[1]
        text = await build()
        with self._lock:
            self._packs[user_id] = (day, text)
        return text
