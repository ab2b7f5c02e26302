"""LocalMemory: the memory port for one authenticated caller, over the in-process service.

Same coroutines and return types as `core.RemoteMemory` (both are `core.MemoryPort`s), so the REST
routes, the MCP tools, the stdio server and the proxy hook in local mode all speak one interface. Every method checks the caller's scopes and builds the
`Scope` from the identity: the user is never taken from a request body.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, AsyncIterator, Iterable, Sequence

import anyio.to_thread

from .asyncio_api import AsyncMemory
from .boot import build_boot
from .client_cache import ClientCache
from .config import Settings
from .errors import InvalidInput, NotFound
from .identity import ADMIN, READ, WRITE, Identity
from .model import Category, Kind, Memory, MemoryIn, MemoryPatch, Message, Page, Status, WriteResult
from .ports import PurgeResult
from .recall.pipeline import RecallResult
from .scope import Actor, Scope, scope_for
from .user_overview import vector_health

EXPORT_CHUNK = 200


class LocalMemory:
    def __init__(self, amem: AsyncMemory, identity: Identity, settings: Settings):
        self.amem = amem
        self.service = amem.service
        self.identity = identity
        self.settings = settings

    # ---- scope -------------------------------------------------------------------------------

    def _scope(self, need: str = READ, *, project: str | None = None, namespace: str | None = None) -> Scope:
        self.identity.require(need)
        actor = Actor(self.identity.user(), client=self.identity.client, via=self.identity.actor_via)
        return scope_for(
            actor,
            project=project,
            write_namespace=namespace if need == WRITE else None,
            extra=[namespace] if namespace and need != WRITE else (),
        )

    async def _run(self, fn, *args: Any, **kw: Any) -> Any:
        return await anyio.to_thread.run_sync(lambda: fn(*args, **kw))

    # ---- recall and capture ------------------------------------------------------------------

    async def recall(
        self,
        query: str,
        *,
        namespace: str | None = None,
        project: str | None = None,
        budget_tokens: int | None = None,
        top_k: int | None = None,
        preset: str | None = None,
        echo: Sequence[str] = (),
        why: str | None = None,
    ) -> RecallResult:
        scope = self._scope(project=project, namespace=namespace)
        overrides = {k: v for k, v in (("budget_tokens", budget_tokens), ("top_k", top_k)) if v is not None}
        # the configured preset with the operator's budget, or the named preset's own (service.recall_config):
        # the hook in local mode recalls through the same rule, so every face injects the same amount
        cfg = self.service.recall_config(preset, **overrides)
        return await self.amem.recall(scope, query, cfg, echo=echo, why=why)

    async def why(self, last: int = 1, request: str | None = None) -> list[dict[str, Any]]:
        return await self._run(self.service.why, self._scope(), last, request)

    async def search(
        self, query: str, *, top_k: int | None = None, filter: bool = True, project: str | None = None, namespace: str | None = None
    ):
        scope = self._scope(project=project, namespace=namespace)
        cfg = self.service.recall_config(None, **({"top_k": top_k} if top_k else {}))
        if not filter:
            cfg = cfg.model_copy(update={"rerank": False})
        return await self.amem.search(scope, query, cfg)

    async def ingest(self, messages: Sequence[Message | dict[str, Any]], commands: bool = True) -> dict[str, Any]:
        scope = self._scope(WRITE)
        msgs = [m if isinstance(m, Message) else Message.model_validate(m) for m in messages]
        if len({m.id for m in msgs}) != len(msgs):
            raise InvalidInput("messages", "message ids repeat within one request")
        # echoed memory blocks and turns left empty are the service's rule (core.service.as_said), for every path

        def work() -> dict[str, Any]:
            n, done = self.service.capture(scope, msgs, commands=commands)
            return {"ingested": n, "commands": [{"action": action, "memory_id": mem.id} for action, mem in done]}

        return await self._run(work)

    async def messages(
        self, *, since: datetime | None = None, until: datetime | None = None, session: str | None = None, text: str | None = None
    ) -> list[Message]:
        found = await self.amem.messages(self._scope(), since=since, until=until, session=session)
        if text:
            needle = text.casefold()
            found = [m for m in found if needle in m.content.casefold()]
        return found

    async def delete_message(self, message_id: str) -> dict[str, Any]:
        await self.amem.delete_message(self._scope(WRITE), message_id)
        return {"deleted": 1, "ids": [message_id]}

    async def delete_messages(
        self,
        *,
        ids: Sequence[str] | None = None,
        session: str | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
        everything: bool = False,
    ) -> dict[str, Any]:
        """Delete the turns that meet every criterion given; `everything` alone deletes every turn."""
        gone = await self.amem.delete_messages_matching(
            self._scope(WRITE), ids=ids, session=session, since=since, until=until, everything=everything
        )
        return {"deleted": len(gone), "ids": gone}

    async def forget(self, what: str, *, preview: bool = False) -> dict[str, Any]:
        """Forget `what` (memories that state it and the turns that say it), or with `preview`, say
        what that would remove. Returns {"what", "done", "memories", "messages", "message_ids", "rewritten",
        "uncertain"} (`uncertain`: memories it may mean but is not sure of, never erased)."""
        if preview:
            plan = await self.amem.forget_preview(self._scope(), what)
        else:
            plan = await self.amem.forget(self._scope(WRITE), what)
        return {"what": plan.what, "done": plan.done, "memories": plan.memories, "messages": len(plan.message_ids),
                "message_ids": plan.message_ids, "rewritten": [m.id for m, _ in plan.rewrites], "uncertain": plan.uncertain}

    async def remember(self, data: MemoryIn) -> WriteResult:
        return await self.amem.remember(self._scope(WRITE), data)

    # ---- memories ----------------------------------------------------------------------------

    async def list(
        self,
        *,
        namespace: str | None = None,
        kind: Kind | str | None = None,
        category: Category | str | None = None,
        status: Status | str | None = "active",
        text: str | None = None,
        limit: int = 50,
        cursor: str | None = None,
    ) -> Page:
        return await self.amem.list(
            self._scope(), namespace=namespace, kind=kind, category=category, status=status, text=text, limit=limit, cursor=cursor
        )

    async def get(self, memory_id: str) -> Memory:
        scope = self._scope()
        return await self._run(self._not_a_turn, scope, self.service.get, memory_id)

    async def update(self, memory_id: str, patch: MemoryPatch) -> Memory:
        return await self.amem.update(self._scope(WRITE), memory_id, patch)

    async def delete(self, memory_id: str) -> Memory:
        scope = self._scope(WRITE)
        return await self._run(self._not_a_turn, scope, self.service.delete, memory_id)

    def _not_a_turn(self, scope: Scope, fn, memory_id: str) -> Memory:
        """Recall and search return captured turns (ids like 'lt_…') next to memories; a turn given
        where a memory is expected is told where it can be deleted."""
        try:
            return fn(scope, memory_id)
        except NotFound:
            if self.service.has_message(scope, memory_id):
                raise NotFound(
                    f"{memory_id!r} is a captured conversation turn, not a memory: delete it with "
                    f"DELETE /v1/messages/{memory_id} (MCP: messages_delete)"
                ) from None
            raise

    async def purge_trash(self, ids: Sequence[str] | None = None) -> PurgeResult:
        """Remove deleted memories for good now: the whole trash, or only these ids among it (an id
        not in the trash is left alone, so a live memory is never purged by mistake)."""
        gone = await self.amem.purge_trash(self._scope(WRITE), list(ids) if ids is not None else None)
        return {"purged": gone, "count": len(gone)}

    async def restore(self, memory_id: str) -> Memory:
        return await self.amem.restore(self._scope(WRITE), memory_id)

    async def archive(self, memory_id: str) -> Memory:
        return await self.amem.archive(self._scope(WRITE), memory_id)

    async def pin(self, memory_id: str, pinned: bool = True) -> Memory:
        return await self.amem.pin(self._scope(WRITE), memory_id, pinned)

    async def supersede(self, memory_id: str, data: MemoryIn) -> WriteResult:
        return await self.amem.supersede(self._scope(WRITE), memory_id, data)

    async def namespaces(self) -> dict[str, int]:
        return await self.amem.namespaces(self._scope())

    async def events(self, memory_id: str | None = None, limit: int = 200):
        return await self.amem.events(self._scope(), memory_id, limit)

    # ---- boot pack, precious, glossary, digest ------------------------------------------------

    async def boot(self) -> dict[str, Any]:
        return await self._run(build_boot, self.service, self._scope(), self.settings.timezone)

    async def precious_list(self) -> list[Memory]:
        page = await self.amem.list(self._scope(), kind=Kind.precious, limit=500)
        return page.items

    async def precious_add(self, quote: str, *, source_ids: Sequence[str] = (), importance: float = 0.8) -> WriteResult:
        return await self.amem.precious_add(self._scope(WRITE), quote, source_ids=source_ids, importance=importance)

    async def glossary_get(self, term: str | None = None) -> list[Memory]:
        return await self.amem.glossary_get(self._scope(), term)

    async def glossary_set(self, term: str, definition: str, aliases: Sequence[str] = ()) -> WriteResult:
        return await self.amem.glossary_set(self._scope(WRITE), term, definition, aliases)

    async def glossary_delete(self, term: str) -> list[Memory]:
        scope = self._scope(WRITE)

        def work() -> list[Memory]:
            found = self.service.glossary_get(scope, term)
            if not found:
                raise NotFound(f"no glossary entry {term!r}")
            return [self.service.delete(scope, m.id) for m in found]

        return await self._run(work)

    async def digest_get(self) -> Memory | None:
        return await self.amem.digest_get(self._scope())

    async def digest_set(self, text: str) -> Memory:
        return await self.amem.digest_set(self._scope(WRITE), text)

    # ---- review queue ------------------------------------------------------------------------

    async def candidates(self) -> list[Memory]:
        return await self.amem.candidates(self._scope())

    async def candidate(self, memory_id: str, action: str, target_id: str | None = None) -> dict[str, Any]:
        scope = self._scope(WRITE)
        if action in ("merge", "supersede") and not target_id:
            raise InvalidInput("target_id", f"{action} needs the id of the active memory it applies to")
        if action == "approve":
            r = await self.amem.approve(scope, memory_id)
        elif action == "discard":
            r = await self.amem.discard(scope, memory_id)
        elif action == "merge":
            r = await self.amem.merge(scope, memory_id, target_id)
        elif action == "supersede":
            r = await self.amem.supersede_with_candidate(scope, memory_id, target_id)
        else:
            raise InvalidInput("action", "one of approve, discard, merge, supersede")
        if isinstance(r, WriteResult):
            return {"action": r.action, "memory": r.memory, "previous": r.previous}
        return {"action": action + ("d" if action.endswith("e") else "ed"), "memory": r, "previous": None}

    # ---- export / import, cache, admin --------------------------------------------------------

    def export(self) -> AsyncIterator[dict[str, Any]]:
        """Export lines, read from the store in chunks off the event loop. The scope is checked now,
        before the first line, so a refusal is an error answer rather than a broken stream."""
        gen = self.service.export(self._scope())

        def chunk() -> list[dict[str, Any]]:
            out = []
            for line in gen:
                out.append(line)
                if len(out) >= EXPORT_CHUNK:
                    break
            return out

        async def lines() -> AsyncIterator[dict[str, Any]]:
            while batch := await self._run(chunk):
                for line in batch:
                    yield line

        return lines()

    async def import_(self, lines: Iterable[dict[str, Any]]) -> dict[str, int]:
        return await self.amem.import_(self._scope(WRITE), list(lines))

    async def cache_get(self, namespace: str, key: str) -> dict[str, Any]:
        return await self._run(ClientCache(self.service).get, self._scope(), namespace, key)

    async def cache_put(self, namespace: str, key: str, value: Any, ttl_s: float | None = None) -> dict[str, Any]:
        return await self._run(ClientCache(self.service).put, self._scope(WRITE), namespace, key, value, ttl_s)

    async def cache_delete(self, namespace: str, key: str) -> None:
        await self._run(ClientCache(self.service).delete, self._scope(WRITE), namespace, key)

    async def vectors_health(self) -> dict[str, Any]:
        self.identity.require(ADMIN)
        return await self._run(vector_health, self.service)

    async def reindex(self, user: str | None = None) -> dict[str, Any]:
        self.identity.require(ADMIN)
        users = [user] if user else await self._run(self.service.users)
        done = {}
        for u in users:
            done[u] = await self.amem.reindex(scope_for(Actor(u, via=self.identity.actor_via)))
        return {"users": done}
