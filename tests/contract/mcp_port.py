"""McpPort: the memory port through Amber's MCP tools, so the contract suite holds the MCP face to
the same behaviour as the others.

It holds one real MCP session (Streamable HTTP, the trusted-client key, the user in X-Amber-User)
against a host's `/mcp`, calls the tool for each port operation, reads the tool's structured result
back into core's types, and an error answer's `_meta["amber/error"]` (Amber's error body,
`{"error": code, "detail", "field"}`) back into core's error class with `error_class(code)`. What a
tool cannot express raises NotImplementedError naming the tool. The one reading beyond a type
conversion: `delete_message` is `messages_delete` with one id, whose "deleted: 0" is the port's NotFound.
"""

from __future__ import annotations

import asyncio
import dataclasses
from datetime import datetime
from typing import Any, Sequence

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from core import Candidate, InvalidInput, Memory, MemoryIn, MemoryPatch, Message, NotFound, Page, RecallResult, WriteResult
from core.errors import error_class
from core import ForgetResult, IngestResult, PurgeResult, TurnsDeleted, WhyRequest

UPSERT_FIELDS = {"content", "fact_key", "category", "kind", "importance", "namespace", "pinned", "tags"}  # memory_upsert's
UPDATE_FIELDS = {"content", "importance", "category", "tags"}  # memory_update's
SUPERSEDE_FIELDS = {"content", "importance"}  # memory_supersede's
MESSAGES_LIMIT = 200  # messages_list lists at most this many (the newest)


class McpPort:
    def __init__(self, url: str, *, api_key: str, user: str):
        self.url, self.user = url.rstrip("/"), user
        self._headers = {"Authorization": f"Bearer {api_key}", "X-Amber-User": user}
        self._client: Client | None = None
        self._closing = asyncio.Event()
        self._task: asyncio.Task | None = None

    async def open(self) -> McpPort:
        ready: asyncio.Future = asyncio.get_running_loop().create_future()
        self._task = asyncio.create_task(self._session(ready))
        await ready
        return self

    async def _session(self, ready: asyncio.Future) -> None:
        # the session lives in a task of its own: anyio leaves a scope in the task that entered it, and a
        # fixture's teardown runs in another task than the test that opened the port
        try:
            async with httpx2.AsyncClient(headers=self._headers, timeout=30) as http:
                async with Client(streamable_http_client(f"{self.url}/mcp", http_client=http)) as client:
                    self._client = client
                    ready.set_result(None)
                    await self._closing.wait()
        except BaseException as e:
            if not ready.done():
                ready.set_exception(e)
            raise

    async def aclose(self) -> None:
        self._closing.set()
        if self._task is not None:
            await self._task

    # ---- one tool call -------------------------------------------------------------------------

    async def _tool(self, name: str, **args: Any) -> dict[str, Any]:
        assert self._client is not None, "McpPort.open() first"
        r = await self._client.call_tool(name, {k: v for k, v in args.items() if v is not None})
        if r.is_error:
            raise self._error(name, r)
        assert r.structured_content is not None, name
        return r.structured_content

    @staticmethod
    def _error(name: str, r: Any) -> Exception:
        body = (r.meta or {}).get("amber/error") or {}
        assert r.structured_content is None, f"{name}: an error result carries no structured content (its schema is the result's)"
        text = " ".join(getattr(c, "text", "") for c in r.content)
        cls = error_class(str(body.get("error") or ""))
        if cls is None:
            return AssertionError(f"{name} answered an error without Amber's code: {text!r}")
        if cls is InvalidInput:
            return InvalidInput(str(body.get("field") or "arguments"), str(body.get("detail") or text))
        return cls(str(body.get("detail") or text))

    @staticmethod
    def _missing(op: str, tool: str, what: Any) -> None:
        if what:
            raise NotImplementedError(f"MCP: {tool} takes no {', '.join(sorted(what))} (port.{op})")

    # ---- core types from tool views --------------------------------------------------------------

    def _memory(self, d: dict[str, Any] | None) -> Memory | None:
        # a MemoryView leaves out the user: the session acts for one
        return None if d is None else Memory.model_validate({**d, "user_id": self.user})

    def _write(self, d: dict[str, Any]) -> WriteResult:
        return WriteResult(action=d["action"], memory=self._memory(d["memory"]), previous=self._memory(d.get("previous")))

    @staticmethod
    def _candidate(d: dict[str, Any]) -> Candidate:
        fields = {f.name: tuple(d[f.name] or ()) if f.default == () else d[f.name] for f in dataclasses.fields(Candidate) if f.name in d}
        return Candidate(**{**fields, "created_at": datetime.fromisoformat(d["created_at"])})

    @staticmethod
    def _when(at: datetime | None) -> str | None:
        return at.isoformat() if at else None

    # ---- the port ------------------------------------------------------------------------------

    async def recall(self, query: str, *, namespace: str | None = None, project: str | None = None, budget_tokens: int | None = None,
                     top_k: int | None = None, preset: str | None = None, echo: Sequence[str] = (), why: str | None = None,
                     destination: str | None = None) -> RecallResult:
        # an MCP client's model is unknown to Amber: the host names the destination itself (mcp)
        missing = (("namespace", namespace), ("top_k", top_k), ("echo", echo), ("why", why), ("destination", destination))
        self._missing("recall", "memory_recall", [n for n, v in missing if v])
        d = await self._tool("memory_recall", query=query, project=project, budget_tokens=budget_tokens, preset=preset)
        return RecallResult(items=[self._candidate(i) for i in d["items"]], text=d["text"], tokens=d["tokens"])

    async def why(self, last: int = 1, request: str | None = None) -> list[WhyRequest]:
        self._missing("why", "memory_why", ["request"] if request else [])
        return [WhyRequest.model_validate(r) for r in (await self._tool("memory_why", last=last))["requests"]]

    async def search(self, query: str, *, top_k: int | None = None, filter: bool = True, project: str | None = None,
                     namespace: str | None = None) -> list[Candidate]:
        self._missing("search", "memory_search", [n for n, v in (("filter=False", not filter), ("namespace", namespace)) if v])
        d = await self._tool("memory_search", query=query, top_k=top_k, project=project)
        return [self._candidate(h) for h in d["hits"]]

    async def remember(self, data: MemoryIn) -> WriteResult:
        self._missing("remember", "memory_upsert", data.model_fields_set - UPSERT_FIELDS)
        return self._write(await self._tool("memory_upsert", **data.model_dump(mode="json", include=data.model_fields_set)))

    async def supersede(self, memory_id: str, data: MemoryIn) -> WriteResult:
        self._missing("supersede", "memory_supersede", data.model_fields_set - SUPERSEDE_FIELDS)
        return self._write(await self._tool("memory_supersede", id=memory_id, **data.model_dump(mode="json", include=data.model_fields_set)))

    async def get(self, memory_id: str) -> Memory:
        return self._memory(await self._tool("memory_get", id=memory_id))

    async def update(self, memory_id: str, patch: MemoryPatch) -> Memory:
        self._missing("update", "memory_update", patch.model_fields_set - UPDATE_FIELDS)
        return self._memory(await self._tool("memory_update", id=memory_id, **patch.model_dump(mode="json", exclude_unset=True)))

    async def delete(self, memory_id: str) -> Memory:
        return self._memory(await self._tool("memory_delete", id=memory_id))

    async def purge_trash(self, ids: Sequence[str] | None = None) -> PurgeResult:
        return PurgeResult.model_validate(await self._tool("memory_purge_trash", ids=list(ids) if ids is not None else None))

    async def restore(self, memory_id: str) -> Memory:
        return self._memory(await self._tool("memory_restore", id=memory_id))

    async def archive(self, memory_id: str) -> Memory:
        return self._memory(await self._tool("memory_archive", id=memory_id))

    async def pin(self, memory_id: str, pinned: bool = True) -> Memory:
        return self._memory(await self._tool("memory_pin", id=memory_id, pinned=pinned))

    async def list(self, *, namespace: str | None = None, kind: Any = None, category: Any = None, status: Any = "active",
                   text: str | None = None, limit: int = 50, cursor: str | None = None) -> Page:
        status = "any" if status is None else getattr(status, "value", status)  # the tool says "any" for every status
        d = await self._tool("memory_list", namespace=namespace, kind=getattr(kind, "value", kind), category=getattr(category, "value", category),
                             status=status, text=text, limit=limit, cursor=cursor)
        return Page(items=[self._memory(m) for m in d["items"]], next_cursor=d.get("next_cursor"))

    async def forget(self, what: str, *, preview: bool = False) -> ForgetResult:
        d = await self._tool("memory_forget", what=what, preview=preview)
        return ForgetResult.model_validate({**d, "memories": [self._memory(m) for m in d["memories"]],
                                            "uncertain": [self._memory(m) for m in d.get("uncertain") or []]})

    async def ingest(self, messages: Sequence[Message | dict[str, Any]], commands: bool = True) -> IngestResult:
        turns = [(m if isinstance(m, Message) else Message.model_validate(m)) for m in messages]
        sent = [m.model_dump(mode="json", include={"id", "role", "content", "created_at", "session"}) for m in turns]
        return IngestResult.model_validate(await self._tool("memory_ingest", messages=sent, commands=commands))

    async def messages(self, *, since: datetime | None = None, until: datetime | None = None, session: str | None = None,
                       text: str | None = None) -> list[Message]:
        d = await self._tool("messages_list", since=self._when(since), until=self._when(until), session=session, text=text,
                             limit=MESSAGES_LIMIT)
        if d["total"] > len(d["turns"]):
            raise NotImplementedError(f"MCP: messages_list lists the newest {MESSAGES_LIMIT} of {d['total']} turns, no more")
        return [Message.model_validate({k: v for k, v in t.items() if v is not None}) for t in d["turns"]]

    async def delete_messages(self, *, ids: Sequence[str] | None = None, session: str | None = None, since: datetime | None = None,
                              until: datetime | None = None, everything: bool = False) -> TurnsDeleted:
        return TurnsDeleted.model_validate(await self._tool("messages_delete", ids=list(ids) if ids is not None else None, session=session,
                                since=self._when(since), until=self._when(until), all=everything))

    async def delete_message(self, message_id: str) -> TurnsDeleted:
        # messages_delete by ids answers what it deleted; none deleted is the port's NotFound
        out = await self.delete_messages(ids=[message_id])
        if not out.deleted:
            raise NotFound(f"no captured turn {message_id!r}")
        return out

