"""An embedder that holds a query until the test lets it go: a recall in flight for as long as a test needs."""

from __future__ import annotations

import threading

from core.testing import HashEmbedder


class HeldQueries(HashEmbedder):
    """Embeds like HashEmbedder; a query whose text says "hold" waits for `release`."""

    def __init__(self) -> None:
        self.holding = threading.Event()
        self.release = threading.Event()

    def embed_query(self, text: str) -> list[float]:
        if "hold" in text:
            self.holding.set()
            assert self.release.wait(30)
        return super().embed_query(text)
