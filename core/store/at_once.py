"""A write's Chroma calls that do not wait on each other, sent together.

On a Chroma server each call waits its turn in Chroma's queue, and under load that wait is most of
a write's time: a remember of six calls in turn waited six times behind sixteen clients' reads
(bench/README.md, "Writes ahead of reads"). Some of a write's calls need nothing from each other:
the person's registry row and the reads that find a duplicate or a taken id, before the write; the
revision and the audit row, after it. `AtOnce` sends such calls from helper threads while the
calling thread makes the last one itself, so on a busy Chroma the write waits about once for them
instead of once each: a remember under bench/scale_out.py's mix took 2.6-3.3 recalls' time against
3.7-4.6 before (bench/README.md, "Writes that do not queue behind reads"). Chroma does the same
work. On an idle Chroma short of cores the calls at once each take longer than in turn, and one
client's remember was ~10 ms slower.

The helpers carry the caller's standing: its context (a background write stays background,
reads_first.py) and its place in the store gate (a call under a person's write lock goes first,
gate.py). A store write checks the caller's fence (core/coordination.py) in the thread that holds
the person's lock: a helper holds none, so `writes=True` checks it once in the caller before the
helpers start, as each write would have.

With no threads (an embedded store: calls are short and its writes hold the interpreter's lock,
reads_first.py) the calls run one after the other, in the order given.
"""

from __future__ import annotations

import contextvars
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import nullcontext
from typing import Any, Callable

from .gate import WRITING, level, writing


class AtOnce:
    def __init__(self, threads: int = 0, fence: Callable[[], None] = lambda: None):
        self._pool = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="amber-at-once") if threads else None
        self._fence = fence

    @property
    def parallel(self) -> bool:
        """Whether calls go out together (else one after the other)."""
        return self._pool is not None

    def __call__(self, *calls: Callable[[], Any], writes: bool = False) -> list[Any]:
        """The calls' results, in order. Every call has ended when this returns; the first error
        raised (in the order given) is raised then."""
        if self._pool is None or len(calls) < 2:
            return [call() for call in calls]
        if writes:
            self._fence()
        first = level(False) == WRITING
        helpers: list[Future] = []
        for call in calls[:-1]:
            ctx = contextvars.copy_context()
            helpers.append(self._pool.submit(ctx.run, _standing, call, first))
        try:
            mine: tuple[bool, Any] = (True, calls[-1]())
        except BaseException as e:
            mine = (False, e)
        for h in helpers:  # none of the write's calls is left running, whatever failed
            h.exception()
        for h in helpers:
            h.result()  # the first error, in the order given
        if not mine[0]:
            raise mine[1]
        return [h.result() for h in helpers] + [mine[1]]

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True)


def _standing(call: Callable[[], Any], first: bool) -> Any:
    with writing() if first else nullcontext():
        return call()
