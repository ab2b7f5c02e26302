"""An embedder that holds a query until the test lets it go: a recall in flight for as long as a test needs."""

from __future__ import annotations

import asyncio
import threading
import time

from core.testing import HashEmbedder


class HeldQueries(HashEmbedder):
    """Embeds like HashEmbedder; a query whose text says "hold" waits for `release`."""

    def __init__(self) -> None:
        self.holding = threading.Event()
        self.release = threading.Event()

    async def held(self, timeout: float = 30.0) -> None:
        """Wait, on the event loop, until a query is held; a recall that never embeds fails the test
        here, with a reason, instead of leaving it spinning."""
        deadline = time.monotonic() + timeout
        while not self.holding.is_set():
            assert time.monotonic() < deadline, f"no query was held within {timeout}s: did the recall embed one?"
            await asyncio.sleep(0.01)

    def embed_query(self, text: str) -> list[float]:
        if "hold" in text:
            self.holding.set()
            assert self.release.wait(30)
        return super().embed_query(text)
