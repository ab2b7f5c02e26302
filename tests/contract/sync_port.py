"""The sync form of the port (`core.SyncMemory`) under the async contract suite.

The contract's tests await the port; `AwaitingSync` gives them that, running each blocking call of
a `SyncMemory` in a worker thread (as a script's own thread would call it), so every contract test
also holds for the sync form, down to the error classes it raises."""

from __future__ import annotations

import functools
from typing import Any

import anyio

from core import SyncMemory

_END = object()


class AwaitingSync:
    def __init__(self, sync: SyncMemory):
        self.sync = sync

    def __getattr__(self, name: str) -> Any:
        fn = getattr(self.sync, name)
        if name == "export":

            async def stream(*args: Any, **kwargs: Any):
                items = fn(*args, **kwargs)
                while (item := await anyio.to_thread.run_sync(next, items, _END)) is not _END:
                    yield item

            return stream

        async def call(*args: Any, **kwargs: Any) -> Any:
            return await anyio.to_thread.run_sync(functools.partial(fn, *args, **kwargs))

        return call

    async def aclose(self) -> None:
        await anyio.to_thread.run_sync(self.sync.close)
