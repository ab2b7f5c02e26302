"""The optional recall stages after the relevance floor: a reranker and a compressor, each a model
call under its own timeout. A failed or late stage keeps what it was given, and a stage's model
reads only what the destination policy lets it receive (core/destinations.py).

`Refines` is mixed into the Recaller, which sets `reranker`, `compressor` and `destinations`.
"""

from __future__ import annotations

import asyncio
import logging
import threading

from ..destinations import DestinationPolicy
from ..ports import LLM, Reranker
from .compress import compress
from .config import RecallConfig
from .fusion import Candidate
from .rerank import in_slots, reorder

log = logging.getLogger("amber.recall")


class Refines:
    reranker: Reranker | None
    compressor: LLM | None
    destinations: DestinationPolicy | None
    _refine_loop: asyncio.AbstractEventLoop | None  # rerank/compress calls (async clients), made at first use
    _refine_guard: threading.Lock

    async def refine(self, query: str, items: list[Candidate], cfg: RecallConfig) -> list[Candidate]:
        """The optional stages, each under its own timeout; a failed or late stage keeps what it was given."""
        if cfg.rerank and self.reranker is not None and items:
            sent = self._sendable(self.reranker, items)
            try:
                if sent:
                    scores = await asyncio.wait_for(self.reranker.rerank(query, [c.text for c in sent]), cfg.rerank_timeout_s)
                    items = in_slots(items, reorder(sent, scores))
            except Exception as e:  # includes TimeoutError: the fused order stands
                log.info("rerank skipped, keeping fused order: %s", type(e).__name__)
        items = items[: cfg.top_k]
        if cfg.compress and self.compressor is not None and items:
            sent = self._sendable(self.compressor, items)
            try:
                if sent:
                    short = {c.id: c for c in await asyncio.wait_for(compress(self.compressor, query, sent, cfg.compress_max_chars),
                                                                     cfg.compress_timeout_s)}
                    went = {c.id for c in sent}
                    items = [short[c.id] if c.id in short else c for c in items if c.id not in went or c.id in short]
            except Exception as e:
                log.info("compression skipped, keeping items as stored: %s", type(e).__name__)
        return items

    def _sendable(self, model: object, items: list[Candidate]) -> list[Candidate]:
        """The items this stage's model may read: none if it receives no memory, host-only ones only if it runs here."""
        policy = self.destinations
        return list(items) if policy is None else policy.admit(items, str(getattr(model, "model", "") or ""))

    def refine_sync(self, query: str, items: list[Candidate], cfg: RecallConfig) -> list[Candidate]:
        """`refine` for the synchronous service: on one event loop of the recaller's own, kept in a
        daemon thread for its lifetime (not a new loop and thread per recall)."""
        with self._refine_guard:
            if self._refine_loop is None:
                loop = asyncio.new_event_loop()
                threading.Thread(target=loop.run_forever, name="amber-refine", daemon=True).start()
                self._refine_loop = loop
        return asyncio.run_coroutine_threadsafe(self.refine(query, items, cfg), self._refine_loop).result()
