"""Optional rerank stage: a Reranker port implementation over LiteLLM's rerank API.

Any provider LiteLLM can rerank with (Cohere, Voyage, Jina through Together, a self-hosted
Infinity/vLLM server via `api_base`, ...) works; the model name says which, e.g.
`cohere/rerank-v3.5`. Off by default (RecallConfig.rerank); the pipeline puts a timeout on it and
keeps the fused order when it fails or is late. No local cross-encoder ships: the ones on PyPI need
torch, which Amber does not pull in.
"""

from __future__ import annotations

import logging
from typing import Any, Sequence

from ..errors import LLMError

log = logging.getLogger("amber.recall.rerank")


class LiteLLMReranker:
    """Scores documents with `litellm.arerank`; extra keyword arguments (api_base, api_key) go to every call."""

    def __init__(self, model: str, *, timeout: float = 5.0, **params: Any):
        import litellm  # imported at wiring time: seconds of import must not eat a request's timeout

        self._litellm = litellm
        self.model = model
        self.timeout = timeout
        self.params = params

    async def rerank(self, query: str, documents: Sequence[str]) -> list[float]:
        if not documents:
            return []
        try:
            resp = await self._litellm.arerank(
                model=self.model,
                query=query,
                documents=list(documents),
                top_n=len(documents),
                return_documents=False,
                timeout=self.timeout,
                metadata={"amber_internal": True},  # never captured as user traffic
                **self.params,
            )
        except Exception as e:
            raise LLMError(f"rerank with {self.model} failed: {type(e).__name__}: {e}") from e
        scores = [float("-inf")] * len(documents)
        for r in resp.results or []:
            i = r.get("index") if isinstance(r, dict) else getattr(r, "index", None)
            s = r.get("relevance_score") if isinstance(r, dict) else getattr(r, "relevance_score", None)
            if isinstance(i, int) and 0 <= i < len(documents) and s is not None:
                scores[i] = float(s)
        return scores


def in_slots(items: Sequence[Any], ranked: Sequence[Any]) -> list[Any]:
    """`items` with the slots of those in `ranked` refilled in `ranked`'s order; the others (kept
    from a model by the destination policy) stay where fusion put them. Pure."""
    chosen = {c.id for c in ranked}
    order = iter(ranked)
    return [next(order) if c.id in chosen else c for c in items]


def reorder(items: Sequence[Any], scores: Sequence[float]) -> list[Any]:
    """Items by descending score; ties (and unscored items) keep their fused order. Pure."""
    if len(scores) != len(items):
        return list(items)
    return [items[i] for i in sorted(range(len(items)), key=lambda i: (-scores[i], i))]
