"""AsyncMemory: the service's methods as coroutines, each run in a worker thread.

Async hosts (the LiteLLM proxy, the memory server) call this so that Chroma and the embedder
never block their event loop. `core.client.RemoteMemory` offers the same coroutines over HTTP.
"""

from __future__ import annotations

import functools
from typing import Any

import anyio.to_thread

from .service import MemoryService


class AsyncMemory:
    def __init__(self, service: MemoryService):
        self.service = service

    def __getattr__(self, name: str) -> Any:
        fn = getattr(self.service, name)
        if not callable(fn) or name.startswith("_"):
            return fn

        @functools.wraps(fn)
        async def call(*args: Any, **kwargs: Any) -> Any:
            return await anyio.to_thread.run_sync(functools.partial(fn, *args, **kwargs))

        return call
