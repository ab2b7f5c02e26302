"""AsyncMemory: the service's methods as coroutines, each run in a worker thread.

Async hosts (the LiteLLM proxy, the memory server) call this so that Chroma and the embedder
never block their event loop. `core.client.RemoteMemory` offers the same coroutines over HTTP.

Queries (`recall`, `search`) run on a pool of at most `QUERY_THREADS` threads of their own. While
one (or a boot pack) is in flight, background writes to an embedded store wait (store/reads_first.py). A
caller that gives up waiting (the hook's recall timeout) cannot stop a query already running, but
one still queued is dropped; so with a stalled store the threads stuck in queries stay at that
bound, later queries time out in the queue, and writes keep their own threads.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
from concurrent.futures import CancelledError, ThreadPoolExecutor
from typing import Any, Callable

import anyio.to_thread

from .errors import StoreUnavailable
from .service import MemoryService
from .store.reads_first import READS_FIRST

QUERY_THREADS = 16
QUERIES = frozenset({"recall", "search"})
READS = QUERIES | {"boot"}  # what a chat waits for before its model is called


def _settled(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """`fn`, with a wait it made cancelled (the host stopping: its pools shut, queued work dropped) raised
    as StoreUnavailable. Let through, it reached the caller as asyncio's CancelledError, which no
    `except Exception` of a face catches, and read as if the caller's own task had been cancelled."""
    try:
        return fn(*args, **kwargs)
    except CancelledError as e:
        raise StoreUnavailable("memory is stopping: work this call waited for was cancelled") from e


class AsyncMemory:
    def __init__(self, service: MemoryService, *, query_threads: int = QUERY_THREADS):
        self.service = service
        self._queries = ThreadPoolExecutor(max_workers=query_threads, thread_name_prefix="amber-recall")

    def __getattr__(self, name: str) -> Any:
        fn = getattr(self.service, name)
        if not callable(fn) or name.startswith("_"):
            return fn
        if name in QUERIES:

            @functools.wraps(fn)
            async def query(*args: Any, **kwargs: Any) -> Any:
                with READS_FIRST.reading():
                    return await asyncio.get_running_loop().run_in_executor(self._queries, functools.partial(_settled, fn, *args, **kwargs))

            return query

        @functools.wraps(fn)
        async def call(*args: Any, **kwargs: Any) -> Any:
            with READS_FIRST.reading() if name in READS else contextlib.nullcontext():
                return await anyio.to_thread.run_sync(functools.partial(_settled, fn, *args, **kwargs))

        return call
