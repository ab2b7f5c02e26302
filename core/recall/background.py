"""How close a record sits to prompts about nobody: its background similarity.

An embedder places some texts near everything. "My favourite singer is Adele" sits at 0.77-0.78
from "Tell me a pun about bread" and "What's a good riddle?" (its own question, "Which singer do I
like most?", at 0.87), while another person's only memory may sit at 0.77 from the question it
answers. One similarity floor for every record lets the first kind into small talk or keeps the
second out of real questions. So a record's similarity to a prompt is also compared with its
similarity to the prompt about nobody nearest it (`background_prompts.txt`, beside this file: small
talk, how-to, trivia, coding, maths and writing, in English and Chinese, written for Amber and
checked to repeat none of bench/prompts/families/). relevance.Floor says what it does with it: a
memory needs a margin over its background (`margin`), and a memory or turn far enough over it is
evidence on its own (`distinct`) (bench/README.md, "A memory's background").

The prompts are embedded once per process, as queries, by the embedder recall uses; a record's
background comes from its stored vector and is kept by the person's recall index until it changes.
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
