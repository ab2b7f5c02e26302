"""Whose background work this is: the background embedding lane shares itself out per owner.

A person's bulk work (an import, a 1 000-turn ingest, a reindex) must not hold the lane while
everybody else's captured turns wait behind it (issue 27: one 1 000-turn ingest held it 533 s and
another person's chat turn waited 226 s to be stored). The lane (core/embed/local.py) cuts every
request into slices and takes a slice from each waiting owner in turn, so another person's turn
goes out with the next batch whatever is queued before it.

The owner is a context variable, set where the person is known (the service's ingest, an import):
embedders keep their one-argument `embed_background(texts)` (core/ports.py). Work without an owner
(jobs, reindex) counts as an owner of its own for each call.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, TypeVar

T = TypeVar("T")

_owner: ContextVar[str | None] = ContextVar("amber_background_owner", default=None)
_asker: ContextVar[str | None] = ContextVar("amber_query_asker", default=None)


def current_asker() -> str | None:
    """Whose query is being embedded (`asked_by`): the embedder keeps recent query vectors per person."""
    return _asker.get()


def asked_by(person: str | None, fn: Callable[..., T], *args: Any) -> T:
    """`fn(*args)` (an embed_query, often in a pool thread) as `person`'s query. A cache of query
    vectors shared by everyone would answer one person's query faster when another person asked the
    same words lately: a timing test of what others ask, and what they ask Amber to forget."""
    token = _asker.set(person)
    try:
        return fn(*args)
    finally:
        _asker.reset(token)


def current_owner() -> str | None:
    return _owner.get()


@contextmanager
def background_owner(owner: str) -> Iterator[None]:
    """Background embedding done inside this block is shared out as `owner`'s."""
    token = _owner.set(owner)
    try:
        yield
    finally:
        _owner.reset(token)
