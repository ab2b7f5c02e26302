"""The sentence arm: a person's memories ranked by a second embedder (core/embed/sentence.py), and
the same model's similarity of each captured turn the turn ranker weighs (core/recall/ranker.py).

Each memory index and each turn index holds a `SentenceVectors`: the vectors by that model, in this
process's memory only (a forget drops the row; nothing is written anywhere). Turns keep theirs in
int8, 512 bytes a turn. A record written is `pending` until its vector is computed; the arm answers
only when none is pending, so it never ranks part of what a person holds. A few pending records (a
`remember` or a chat's last exchange just before a recall) are read inline, more (a cold index, an
import) by one background thread while recall answers without them.

Writers hold the recall index's lock. A search does not: rows are appended and never reused, and
the matrix and its id list are swapped together (`table`) when they grow or are compacted, so a
search reads them as they were when it started while writers go on.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from dataclasses import replace
from concurrent.futures import Future, TimeoutError as FutureTimeout
from functools import partial
from itertools import islice
from typing import Any, Callable, Sequence

import numpy as np

from ..embed.sentence import DIM, MEMORY_CHARS, SentenceEncoder
from .config import RecallConfig
from .fusion import Candidate

log = logging.getLogger("amber.recall")

INLINE = 32  # at most this many pending memories are read on a recall's own thread (~20 ms)
# a recall reads the candidate turns still pending itself up to this many characters (~8 ms per 600,
# a turn's most); more wait for the index's background read
TURN_INLINE_CHARS = 1200
BATCH = 32  # memories a background fill reads between two looks at whether it should go on


def reads_turns(cfg: RecallConfig, embedder: Any) -> bool:
    """Whether the turn ranker weighs this model's similarity of the turns (its weights were fitted
    with it, beside the bundled embedder); otherwise that feature reads as its mean."""
    return cfg.turn_ranker and cfg.sentence_turns and getattr(embedder, "id", None) == cfg.sentence_beside


def runs(cfg: RecallConfig, embedder: Any) -> bool:
    """Whether a recall with `cfg` uses this arm: its weight is set (weights that do not name it,
    older than the arm, leave it off) and the dense embedder is the one that weight was chosen beside."""
    return cfg.weights.get("mem_sentence", 0.0) > 0 and getattr(embedder, "id", None) == cfg.sentence_beside


class SentenceVectors:
    def __init__(self, dtype: type = np.float32) -> None:
        # int8 (a unit vector times 127) for turns, which are many and only ever read a few at a time;
        # float32 for memories, which are searched whole. int8 cost LoCoMo 0.0007 of R@10 (bench/README.md)
        self.dtype = np.dtype(dtype)
        # (matrix, row -> record id or None once dropped): replaced as one when either is
        self.table: tuple[np.ndarray, list[str | None]] = (np.zeros((8, DIM), dtype=self.dtype), [])
        self.rows: dict[str, int] = {}
        self.pending: dict[str, str] = {}  # memory id -> the words to read
        self.read: dict[str, int] = {}  # memory id -> hash of the words its row was read from
        self.filling: Future | None = None  # the background fill, queued, running or done
        self.fill_started = 0.0  # when it was queued (time.monotonic)

    def __len__(self) -> int:
        return len(self.rows)

    def add(self, memory_id: str, text: str) -> None:
        self.drop(memory_id)
        self.pending[memory_id] = text

    def drop(self, memory_id: str) -> None:
        self.pending.pop(memory_id, None)
        row = self.rows.pop(memory_id, None)
        self.read.pop(memory_id, None)
        if row is not None:
            mat, ids = self.table
            ids[row] = None
            mat[row] = 0.0
            if len(ids) > 256 and len(self.rows) < len(ids) // 2:
                self._compact()

    def adopt(self, old: "SentenceVectors") -> None:
        """Take the rows of an index this one replaces where the words are the same (a rebuild
        reads only what changed)."""
        mat, _ = old.table
        same = [(i, old.rows[i]) for i, text in self.pending.items() if i in old.rows and old.read.get(i) == hash(text)]
        if same:
            self.put([(i, self.pending[i]) for i, _ in same], mat[[r for _, r in same]])

    def take(self, n: int) -> list[tuple[str, str]]:
        return list(islice(self.pending.items(), n))  # not the whole list: a cold index holds thousands

    def put(self, items: list[tuple[str, str]], vectors: np.ndarray) -> None:
        """Install the vectors of `items`, unless a memory changed or left while they were read."""
        if self.dtype == np.int8 and vectors.dtype != np.int8:
            vectors = np.clip(np.round(vectors * 127), -127, 127).astype(np.int8)
        for (memory_id, text), vec in zip(items, vectors):
            if self.pending.get(memory_id) != text:
                continue
            del self.pending[memory_id]
            mat, ids = self.table
            row = len(ids)
            if row >= len(mat):
                grown = np.zeros((2 * len(mat), DIM), dtype=self.dtype)
                grown[:row] = mat[:row]
                mat = grown
                self.table = (mat, ids[:])
                mat, ids = self.table
            mat[row] = vec
            ids.append(memory_id)
            self.rows[memory_id] = row
            self.read[memory_id] = hash(text)

    def _compact(self) -> None:
        mat, ids = self.table
        keep = [r for r, i in enumerate(ids) if i is not None]
        fresh = np.zeros((max(8, 2 * len(keep)), DIM), dtype=self.dtype)
        fresh[: len(keep)] = mat[keep]
        self.table = (fresh, [ids[r] for r in keep])
        self.rows = {i: r for r, i in enumerate(self.table[1])}

    def similarities(self, query: np.ndarray, ids: list[str]) -> np.ndarray | None:
        """The cosine of each of `ids` to `query`; None if one has no vector (pending or unknown).
        The caller holds the index's lock: a row number means nothing across a compaction."""
        mat, _ = self.table
        rows = [self.rows.get(i) for i in ids]
        if None in rows:
            return None
        got = mat[rows].astype(np.float32)
        return got @ query / (127.0 if self.dtype == np.int8 else 1.0)

    def search(self, query: np.ndarray, k: int, allowed: set[str]) -> list[tuple[str, float]]:
        """The `k` allowed memories closest to `query`, with their cosine similarity."""
        mat, ids = self.table
        ids = ids[: len(mat)]  # a copy: rows appended from here on are not read
        if not ids or k <= 0:
            return []
        sims = mat[: len(ids)] @ query
        # the best 4k rows first (a person's rows are mostly readable); all of them if that falls short
        for depth in (min(len(ids), 4 * k), len(ids)):
            top = np.argpartition(-sims, depth - 1)[:depth] if depth < len(ids) else np.arange(len(ids))
            top = top[np.argsort(-sims[top], kind="stable")]
            out = [(ids[r], float(sims[r])) for r in top if ids[r] is not None and ids[r] in allowed][:k]
            if len(out) == k or depth == len(ids):
                return out
        return []


def readings(vectors: SentenceVectors, items: Sequence[tuple[str, str]]) -> dict[str, np.ndarray]:
    """Each of `items` (record id, words) whose row was read from those same words, as float32 (the
    correction pair model reads a shown memory's here instead of reading it again). The caller
    holds the index's lock."""
    mat, _ = vectors.table
    out = {}
    for i, text in items:
        row = vectors.rows.get(i)
        if row is not None and vectors.read.get(i) == hash(text):
            out[i] = mat[row].astype(np.float32) / (127.0 if vectors.dtype == np.int8 else 1.0)
    return out


def fill(vectors: SentenceVectors, encoder: SentenceEncoder, lock: threading.RLock, limit: int,
         stop: Callable[[], bool] = lambda: False, background: bool = True, behind: bool = False) -> None:
    """Read up to `limit` pending memories (all of them for a background fill), `BATCH` at a time,
    until `stop` says the index is gone. The index is only touched under `lock`; the model reads
    outside it (background reads one at a time in the process; `behind`: after memory indexes')."""
    done = 0
    while done < limit and not stop():
        with lock:
            items = vectors.take(min(BATCH, limit - done))
        if not items:
            return
        vecs = encoder.encode([t for _, t in items], background=background, behind=behind)
        with lock:
            vectors.put(items, vecs)
        done += len(items)


def rank(vectors: SentenceVectors, encoder: SentenceEncoder, query: Callable[[], np.ndarray], k: int, allowed: set[str],
         lock: threading.RLock, submit: Callable[[Callable[[], None]], Future], wait_s: float,
         stop: Callable[[], bool] = lambda: False) -> list[str] | None:
    """The arm's ranking, or None when it cannot answer within `wait_s` (`read`). `query`: the
    query's vector, computed when first asked for. Whatever fails here, recall goes on with the other arms."""
    try:
        if not read(vectors, encoder, lock, submit, wait_s, stop):
            return None
        return [i for i, _ in vectors.search(query(), k, allowed)]
    except Exception as e:
        log.warning("recall without the sentence arm: %s: %s", type(e).__name__, e)
        return None


def ahead(query: Callable[[], np.ndarray]) -> None:
    """Read the query now, beside e5's worker; a failure is logged where the reading is used."""
    with contextlib.suppress(Exception):
        query()


def turn_similarities(vectors: SentenceVectors | None, encoder: SentenceEncoder, query: Callable[[], np.ndarray], ids: list[str],
                      lock: threading.RLock, soon: Callable[[], Future | None], wait_s: float) -> dict[str, float] | None:
    """Each of the turns `ids`'s cosine to the query, for the turn ranker, or None and the ranker goes
    without. Only these turns must have their vectors: a few still pending (a chat's last exchange)
    are read here, more wait for the index's background read (`soon` queues it) until `wait_s` past
    when the index's build began (`fill_started`; Settings.recall_reading_wait_s, none by default:
    a cold index's first recalls must not miss the proxy's deadline for a feature they can go without)."""
    if vectors is None or len(ids) < 2:
        return None
    try:
        if not loaded(encoder, wait_s):
            return None
        with lock:
            missing = [(i, vectors.pending[i]) for i in ids if i not in vectors.rows and i in vectors.pending]
        if missing and sum(min(len(t), MEMORY_CHARS) for _, t in missing) <= TURN_INLINE_CHARS:
            vecs = encoder.encode([t for _, t in missing])
            with lock:
                vectors.put(missing, vecs)
        elif missing:  # the background read, a batch at a time, until these are read or the wait is spent
            while (fut := soon()) is not None:
                left = len(vectors.pending)
                try:
                    fut.result(timeout=max(0.0, vectors.fill_started + wait_s - time.monotonic()))
                except FutureTimeout:
                    return None
                with lock:  # these read, or no batch read anything (the index replaced meanwhile)
                    if all(i in vectors.rows or i not in vectors.pending for i in ids) or len(vectors.pending) >= left:
                        break
        q = query()
        with lock:
            sims = vectors.similarities(q, ids)
        return None if sims is None else dict(zip(ids, sims.tolist()))
    except Exception as e:
        log.warning("turns ranked without the sentence model: %s: %s", type(e).__name__, e)
        return None


def queue_fill(vectors: SentenceVectors, encoder: SentenceEncoder, lock: threading.RLock,
               submit: Callable[[Callable[[], None]], Future], stop: Callable[[], bool], turns: bool = False) -> Future | None:
    """The background read of the index's pending records: the one queued or running, or a new one
    via `submit`; None when nothing is pending or the pool is shut (this host stopping). `turns`: a
    batch at a time, each queued again behind whatever else was queued meanwhile (another person's
    new turns wait one batch, not a cold index's whole read), and behind memory indexes' reads."""
    with lock:
        if vectors.filling is not None and not vectors.filling.done():
            return vectors.filling
        if not vectors.pending:
            return None
        step = partial(_turn_batch, vectors, encoder, lock, submit, stop) if turns else partial(fill, vectors, encoder, lock, 1 << 62, stop)
        try:
            vectors.filling = submit(step)
        except RuntimeError:
            return None
        return vectors.filling


def _turn_batch(vectors: SentenceVectors, encoder: SentenceEncoder, lock: threading.RLock,
                submit: Callable[[Callable[[], None]], Future], stop: Callable[[], bool]) -> None:
    fill(vectors, encoder, lock, BATCH, stop, behind=True)
    with lock:  # the next batch, at the back of the queue (`filling` names it from now on)
        if vectors.pending and not stop():
            with contextlib.suppress(RuntimeError):
                vectors.filling = submit(partial(_turn_batch, vectors, encoder, lock, submit, stop))


def keep_for_rebuild(kept: dict[str, SentenceVectors], col: str, vectors: SentenceVectors, gone: Sequence[str], limit: int) -> None:
    """Keep a dropped turn index's vectors for its rebuild, without those of `gone` (forgotten or
    reworded turns), dropped now. At most 64 indexes and `limit` rows are kept: the oldest go first
    (their rebuild reads them again from the words)."""
    for i in gone:
        vectors.drop(i)
    kept[col] = vectors
    while len(kept) > 64 or sum(len(v) for v in kept.values()) > limit:
        kept.pop(next(iter(kept)))


def loaded(encoder: SentenceEncoder, wait_s: float) -> bool:
    """The model is loaded, or loads within `wait_s` of when its loading began (never a wait of its own per recall)."""
    return encoder.ready() or encoder.wait(max(0.0, encoder.load_started + wait_s - time.monotonic()))


def read(vectors: SentenceVectors, encoder: SentenceEncoder, lock: threading.RLock,
         submit: Callable[[Callable[[], None]], Future], wait_s: float, stop: Callable[[], bool]) -> bool:
    """Whether every record of the index has its vector, reading a few pending ones inline and more
    in the background via `submit` (the index pool), for at most `wait_s` (the model loading, a
    cold index's read). Like the turn index, the waits count from when the load or the fill began,
    not from this recall: once past them nobody waits again, and recall answers without at once."""
    if not loaded(encoder, wait_s):
        return False
    if vectors.pending:
        if len(vectors.pending) <= INLINE:
            fill(vectors, encoder, lock, INLINE, background=False)
        else:
            with lock:
                running = vectors.filling is not None and not vectors.filling.done()
                if (fut := queue_fill(vectors, encoder, lock, submit, stop)) is None:
                    return not vectors.pending  # read meanwhile by another recall, or this host stopping
                if not running:
                    vectors.fill_started = time.monotonic()
            try:
                fut.result(timeout=max(0.0, vectors.fill_started + wait_s - time.monotonic()))
            except FutureTimeout:
                return False
    return not vectors.pending


def with_similarity(ranked: list[Candidate], top: int, qvec, sims: dict[str, float],
                    read: Callable[[list[str]], dict[str, list[float]]]) -> list[Candidate]:
    """Memories among the first `top` that only this arm found carry no dense similarity, so the
    relevance floor could never weigh them on meaning: give them their own, from the vectors the
    store holds (one read), as the dense arm would have. Where the read fails they keep none."""
    missing = [c.id for c in ranked[:top] if c.source == "memory" and c.id not in sims and "mem_sentence" in c.arms]
    if not missing or qvec is None:
        return ranked
    q = np.asarray(qvec, dtype=np.float32)
    got = {}
    try:
        stored = read(missing)
    except Exception as e:  # the store busy or down: those memories are weighed on their words alone
        log.warning("recall could not read the vectors of %d memories the sentence arm found: %s", len(missing), e)
        return ranked
    for i, vec in stored.items():
        v = np.asarray(vec, dtype=np.float32)
        norm = float(np.linalg.norm(v) * np.linalg.norm(q))
        if v.shape == q.shape and norm > 0 and np.isfinite(norm):
            got[i] = float(v @ q) / norm
    return [replace(c, dense=got[c.id]) if c.id in got else c for c in ranked]
