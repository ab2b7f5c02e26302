"""Chroma's own dialect, in one place: Amber's typed filters as Chroma `where` clauses, reads in
pages (Chroma refuses one `get` over ~100 000 records: "too many SQL variables"), writes in batches
it takes, and the empty collection a read sees where Chroma holds none yet."""

from __future__ import annotations

import logging
from typing import Any, Callable, Iterator, Sequence

import numpy as np

from ..filters import Eq, In, Range, Where

MAX_BATCH = 5000  # Chroma caps a batch at 5461
log = logging.getLogger("amber.store")


class _Missing:
    """A collection Chroma does not hold yet, as a read sees it: nothing in it (see ChromaStore._collection)."""

    def get(self, *, include: Sequence[str] = (), **_: Any) -> dict[str, list]:
        return {"ids": [], **{k: [] for k in include}}

    def query(self, *, query_embeddings: Sequence[Any], include: Sequence[str] = (), **_: Any) -> dict[str, list]:
        return {"ids": [[] for _ in query_embeddings], **{k: [[] for _ in query_embeddings] for k in include}}

    def count(self) -> int:
        return 0


MISSING = _Missing()


def chroma_where(where: Where | None) -> dict[str, Any] | None:
    """A typed filter in Chroma's `where` dialect (the only place that speaks it)."""
    if where is None:
        return None
    if not isinstance(where, Where):
        raise TypeError(f"a store filter is a core.filters.Where, not {type(where).__name__}")
    parts: list[dict[str, Any]] = []
    for c in where.clauses:
        if isinstance(c, Eq):
            parts.append({c.field: c.value})
        elif isinstance(c, In):
            parts.append({c.field: c.values[0]} if len(c.values) == 1 else {c.field: {"$in": list(c.values)}})
        elif isinstance(c, Range):
            parts += [{c.field: {op: v}} for op, v in (("$gte", c.gte), ("$lt", c.lt)) if v is not None]
        else:
            raise TypeError(f"not a store filter clause: {c!r}")
    if not parts:
        return None
    return parts[0] if len(parts) == 1 else {"$and": parts}


def pages(col: Any, where: dict[str, Any] | None, include: list[str], limit: int | None = None) -> Iterator[dict[str, Any]]:
    """`get` a page at a time, up to `limit` records in all (None: every one)."""
    offset = 0
    while limit is None or offset < limit:
        size = MAX_BATCH if limit is None else min(MAX_BATCH, limit - offset)
        r = col.get(where=where, limit=size, offset=offset, include=include)
        yield r
        if len(r["ids"]) < size:
            return
        offset += size


def get_paged(col: Any, where: dict[str, Any] | None, include: list[str], limit: int | None) -> dict[str, list]:
    """`get` in pages, gathered into one answer."""
    out: dict[str, list] = {"ids": [], **{k: [] for k in include}}
    for r in pages(col, where, include, limit):
        for k in out:
            out[k].extend(r[k] if r[k] is not None else [])  # embeddings come as an array
    return out


def upsert_rows(col: Any, ids: Sequence[str], metas: Sequence[dict[str, Any]], vector: list[float]) -> None:
    """Rows that carry no meaningful vector (registry, audit), each given `vector`, in batches Chroma takes."""
    for at in range(0, len(ids), MAX_BATCH):
        part = slice(at, at + MAX_BATCH)
        col.upsert(ids=list(ids[part]), metadatas=list(metas[part]), embeddings=[vector] * len(ids[part]))


def blank_vectors(col: Any, ids: Sequence[str], dim: int, fits: Callable[[int], bool] = lambda n: True) -> None:
    """Overwrite the vectors of `ids` (records about to be deleted) with random unit vectors.
    Chroma's vector index only marks a deleted record: its vector stays in the index file for good,
    and with the same embedding model anyone holding the file could score a guessed sentence
    against it. Overwritten first, the index file holds noise in that slot once Chroma writes it
    (at once for a person's collections, which keep their index on disk after every write).
    Ids Chroma does not hold are skipped by Chroma itself. Must not stop the delete: a disk without
    room for these writes above its reserve (`fits` says no), or a failure, leaves the vectors and logs."""
    rng = np.random.default_rng()  # seeded from the OS: the noise says nothing about the record
    ids = list(dict.fromkeys(ids))  # Chroma refuses an update that names an id twice
    if not fits(len(ids) * (512 + 8 * dim)):  # a forget must still go through on a nearly full disk
        log.warning("amber: no room above the disk's reserve to overwrite the vectors of %d deleted record(s): they stay in the index file", len(ids))
        return
    for at in range(0, len(ids), MAX_BATCH):
        part = ids[at: at + MAX_BATCH]
        noise = np.zeros((len(part), dim))  # each a random axis, either way: unit length exactly, as every stored vector
        noise[np.arange(len(part)), rng.integers(0, dim, len(part))] = rng.choice((-1.0, 1.0), len(part))
        try:
            col.update(ids=part, embeddings=noise.tolist())
        except Exception as e:  # a collection of another dimension, an outage: the delete goes on
            log.warning("amber: the vectors of %d deleted record(s) could not be overwritten first: %s", len(part), e)
