"""How close a memory sits to prompts about nobody: its background similarity.

An embedder places some texts near everything. "I love music and dancing" is at cosine ~0.8 from
"Tell me a joke" and from "What sport do I play?" alike, while "My manager is Priyanka" sits at
~0.77 from any small talk. One similarity floor for all memories lets the first kind into small talk
and keeps the second out of real questions. So a memory's similarity to a prompt is also compared
with its similarity to the prompts about nobody nearest it (`background_prompts.txt`, beside this
file: small talk, how-to, trivia, coding, maths, writing, in English and Chinese, written for
Amber and checked to repeat none of bench/prompts/families/): relevance.Floor.margin says how much
of a margin a memory needs (bench/README.md, "A memory's background").

The prompts are embedded once per process, as queries, by the embedder recall uses; a memory's
background comes from its stored vector and is kept by the recall index until the memory changes.
"""

from __future__ import annotations

import logging
import threading
from pathlib import Path
from typing import Callable, Mapping, Sequence

import numpy as np

from ..ports import Embedder
from .fusion import Candidate

log = logging.getLogger("amber.recall")

PROMPTS = Path(__file__).with_name("background_prompts.txt")


def background_prompts(path: Path = PROMPTS) -> list[str]:
    lines = path.read_text(encoding="utf-8").splitlines()
    return [ln.strip() for ln in lines if ln.strip() and not ln.startswith("#")]


class Background:
    """The prompts about nobody as vectors of one embedder, and the background of stored vectors."""

    def __init__(self, embedder: Embedder, prompts: Sequence[str] | None = None, *, ahead: bool = False):
        self._embedder = embedder
        self._prompts = list(prompts) if prompts is not None else background_prompts()
        self._matrix: np.ndarray | None = None
        self._lock = threading.Lock()
        if ahead:
            self.prefetch()

    def matrix(self) -> np.ndarray:
        """The prompts' query vectors, one row each: embedded on first use (under a lock, so a recall
        arriving during `prefetch` waits for the same work instead of repeating it)."""
        with self._lock:
            if self._matrix is None:
                self._matrix = np.array([self._embedder.embed_query(p) for p in self._prompts], dtype=np.float32)
            return self._matrix

    def prefetch(self) -> None:
        """Embed the prompts now, off the caller's thread: the first recall after a start need not."""
        def run() -> None:
            try:
                self.matrix()
            except Exception as e:  # the first recall that needs them tries again
                log.warning("background prompts not embedded ahead: %s", e)

        threading.Thread(target=run, name="amber-background", daemon=True).start()

    def of(self, vectors: Mapping[str, Sequence[float]]) -> dict[str, float]:
        """Each vector's highest cosine similarity to a prompt about nobody (vectors are unit length)."""
        if not vectors:
            return {}
        ids = list(vectors)
        sims = np.asarray([vectors[i] for i in ids], dtype=np.float32) @ self.matrix().T
        return dict(zip(ids, sims.max(axis=1).astype(float).tolist()))


def backgrounds(items: Sequence[Candidate], source: str, known: dict[str, float],
                read: Callable[[list[str]], Mapping[str, Sequence[float]]], background: Background) -> dict[str, float]:
    """The background of each record of `source` ("memory" or "message") among `items` that the
    dense arm found: from `known` (the person's recall index keeps them, filled here), the rest from
    their stored vectors (`read`, one store call). A record whose vector the store cannot read has
    none: the similarity floor alone judges it."""
    ids = [c.id for c in items if c.source == source and c.dense > 0]
    missing = [i for i in ids if i not in known]
    if missing:
        known.update(background.of(read(missing)))
    return {i: known[i] for i in ids if i in known}
