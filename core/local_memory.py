"""LocalMemory: the memory port for one authenticated caller, over the in-process service.

It is not a second declaration of the port, nor a second home for rules. Its methods are made
from `core.ports.MemoryPort` when this module loads, one per declared operation: each checks the
permission the port declares for it against the caller's `Identity`, builds the caller's `Scope`
from that identity (the user is never taken from a request body), and runs the service's method
of the same name in a worker thread (queries on their own pool, core/asyncio_api.py). Only the
streaming export is written out here. So the REST routes, the MCP tools, the stdio server and the
proxy hook in local mode all reach the same rules, in `core.MemoryService`.
"""

from __future__ import annotations

import functools
import inspect
from typing import Any, AsyncIterator, Callable

import anyio.to_thread

from .asyncio_api import AsyncMemory
from .identity import ADMIN, READ, Identity
from .ports import MemoryPort, operations
from .scope import Actor, Scope, scope_for

EXPORT_CHUNK = 200


class LocalMemory:
    def __init__(self, amem: AsyncMemory, identity: Identity):
        self.amem = amem
        self.service = amem.service
        self.identity = identity

    def scope(self, permission: str) -> Scope:
        """The caller's scope, once `permission` is checked. An administrator's key naming nobody
        acts in its own name for the operations that touch no one's memory (vectors, reindex)."""
        self.identity.require(permission)
        if permission == ADMIN and self.identity.user_id is None:
            user = f"admin:{self.identity.key_name}"
        else:
            user = self.identity.user()
        return scope_for(Actor(user, client=self.identity.client, via=self.identity.actor_via))

    def export(self) -> AsyncIterator[dict[str, Any]]:
        """Export lines, read from the store in chunks off the event loop. The permission is checked
        now, before the first line, so a refusal is an error answer rather than a broken stream."""
        gen = self.service.export(self.scope(operations()["export"][0]))

        def chunk() -> list[dict[str, Any]]:
            out = []
            for line in gen:
                out.append(line)
                if len(out) >= EXPORT_CHUNK:
                    break
            return out

        async def lines() -> AsyncIterator[dict[str, Any]]:
            while batch := await anyio.to_thread.run_sync(chunk):
                for line in batch:
                    yield line

        return lines()


def _operation(name: str, permission: str, reads_when: str | None) -> Callable[..., Any]:
    declared = getattr(MemoryPort, name)
    signature = inspect.signature(declared)

    @functools.wraps(declared)
    async def op(self: LocalMemory, *args: Any, **kwargs: Any) -> Any:
        need = permission
        if reads_when and signature.bind(self, *args, **kwargs).arguments.get(reads_when):
            need = READ  # e.g. a forget's preview only reads
        return await getattr(self.amem, name)(self.scope(need), *args, **kwargs)

    op.__signature__ = signature  # type: ignore[attr-defined]
    return op


for _name, (_permission, _reads_when) in operations().items():
    if _name not in vars(LocalMemory):
        setattr(LocalMemory, _name, _operation(_name, _permission, _reads_when))
