"""The service itself under the port's contract: `ServicePort` calls `MemoryService` directly, the
scope in front and nothing else (no permission check, no translation), each call in a worker
thread. It is built from the port's declaration like `LocalMemory`, so a contract test passing here
proves the rule it checks lives in the service, where the Redis capture queue, the jobs and the
importer meet it too, not in a face."""

from __future__ import annotations

from typing import Any, AsyncIterator

import anyio.to_thread

from core import Actor, MemoryService, scope_for
from core.ports import operations


class ServicePort:
    def __init__(self, service: MemoryService, user: str):
        self.service = service
        self.scope = scope_for(Actor(user, via="contract"))

    def __getattr__(self, name: str) -> Any:
        if name not in operations():
            raise AttributeError(name)
        fn = getattr(self.service, name)

        async def call(*args: Any, **kwargs: Any) -> Any:
            return await anyio.to_thread.run_sync(lambda: fn(self.scope, *args, **kwargs))

        return call

    def export(self) -> AsyncIterator[dict[str, Any]]:
        lines = self.service.export(self.scope)

        async def each() -> AsyncIterator[dict[str, Any]]:
            for line in await anyio.to_thread.run_sync(lambda: list(lines)):
                yield line

        return each()
