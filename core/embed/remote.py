"""Embeddings through LiteLLM: any provider it knows (OpenAI, Ollama, Voyage, a proxy model group)."""

from __future__ import annotations

import math
from typing import Any, Callable, Sequence

from ..errors import EmbedderUnavailable
from .text import prepare


class LiteLLMEmbedder:
    def __init__(self, model: str, *, dim: int | None = None, embed_fn: Callable[..., Any] | None = None, **kwargs: Any):
        import litellm

        self.model = model
        self.id = f"litellm:{model}"
        self._embed = embed_fn or litellm.embedding
        self._kwargs = kwargs
        self.dim = dim or len(self.embed_query("dimension probe"))

    def _call(self, texts: list[str]) -> list[list[float]]:
        try:
            resp = self._embed(model=self.model, input=[prepare(t) for t in texts], metadata={"amber_internal": True}, **self._kwargs)
        except Exception as e:  # provider errors vary; all mean "not now"
            raise EmbedderUnavailable(f"embedding model {self.model} failed: {e}") from e
        data = resp["data"] if isinstance(resp, dict) else resp.data
        out = []
        for item in sorted(data, key=lambda d: d["index"]):
            vec = list(item["embedding"])
            norm = math.sqrt(sum(x * x for x in vec)) or 1.0
            out.append([x / norm for x in vec])
        return out

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        return self._call(list(texts)) if texts else []

    def embed_query(self, text: str) -> list[float]:
        return self._call([text])[0]
