"""The memory server app: REST under /v1, MCP (Streamable HTTP) at /mcp, /health, the admin page at /admin, OpenAPI.

`create_app(service, settings)` is the one factory: `amber serve` runs it with uvicorn and the
LiteLLM hook mounts it at /memory on the proxy (entering `app.router.lifespan_context(app)` itself).
All paths are relative to wherever the app is mounted.
"""

from __future__ import annotations

import asyncio
import logging
from contextlib import asynccontextmanager
from typing import Any

import anyio.to_thread
from fastapi import FastAPI, Request, Security
from fastapi.security import HTTPBearer
from mcp.server.streamable_http_manager import StreamableHTTPASGIApp
from mcp.server.transport_security import TransportSecuritySettings
from starlette.responses import JSONResponse
from starlette.routing import Route

from core import AsyncMemory, CaptureConsumer, DestinationPolicy, Forbidden, MemoryService, Settings

from . import admin, rest_admin, rest_cache, rest_curated, rest_import, rest_memory, rest_transfer
from .body_check import JsonBodyCheck
from .body_limit import BodyLimitMiddleware
from .errors import HANDLERS
from .http_auth import AuthMiddleware
from .identity import KeyRing, current_identity
from .llm_check import llm_status
from core import LocalMemory
from .mcp_tools import build_mcp

log = logging.getLogger("amber.server")
VERSION = "0.1.0"


def transport_security(settings: Settings) -> TransportSecuritySettings:
    """The MCP DNS-rebinding guard, from `allowed_hosts` ("*" turns it off, e.g. behind a proxy)."""
    hosts = list(settings.allowed_hosts)
    if "*" in hosts:
        return TransportSecuritySettings(enable_dns_rebinding_protection=False)
    origins = [f"{scheme}://{h}" for h in hosts for scheme in ("http", "https")]
    return TransportSecuritySettings(enable_dns_rebinding_protection=True, allowed_hosts=hosts, allowed_origins=origins)


async def identity_middleware(ctx: Any, call_next: Any) -> Any:
    """MCP messages are handled in the session's task, not the HTTP request's: take the identity from
    the HTTP request that carried this message, so each message acts with its own key."""
    request = getattr(ctx, "request", None)
    identity = getattr(getattr(request, "state", None), "amber_identity", None) if request is not None else None
    if identity is None:
        return await call_next(ctx)
    reset = current_identity.set(identity)
    try:
        return await call_next(ctx)
    finally:
        current_identity.reset(reset)


class MemoryGate:
    """What a host mounts at /memory before the memory server exists: from the moment the host loads
    Amber until the store is open it answers 503 "starting"; if the store never opens (held by another
    process, bad settings) it answers 503 with the reason, for good. Without it the path would be a bare
    404, which reads as "wrong URL" when the truth is "wait" or "memory is off, because ...".
    Once `open(app)` is called every request goes to the memory server itself."""

    def __init__(self) -> None:
        self.app: Any = None
        self.status, self.body = 503, {"error": "memory_starting", "detail": "Amber's memory is starting (opening the store); retry in a few seconds", "field": None}

    def open(self, app: Any) -> None:
        self.app = app

    def off(self, reason: str, cause: str | None = None) -> None:
        """`cause` names the error class, so a client (`amber doctor`) can say how to fix it."""
        self.body = {"error": "memory_off", "detail": f"memory is off in this process: {reason}"[:600], "field": None, "cause": cause}

    def elsewhere(self, url: str) -> None:
        """Remote mode: this process keeps no memory; its clients belong at the memory host."""
        self.status = 404
        self.body = {"error": "memory_elsewhere", "detail": f"this proxy keeps no memory itself; its memory host is {url}",
                     "field": None, "memory_host": url}

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if self.app is not None:
            await self.app(scope, receive, send)
            return
        if scope["type"] != "http":
            return
        starting = self.body["error"] == "memory_starting"
        await JSONResponse(self.body, status_code=self.status, headers={"Retry-After": "2"} if starting else None)(scope, receive, send)


def create_app(service: MemoryService, settings: Settings) -> FastAPI:
    amem = AsyncMemory(service)
    ring = KeyRing.from_settings(settings)

    def port_for_request() -> LocalMemory:
        identity = current_identity.get()
        if identity is None:
            raise Forbidden("no identity for this MCP request")
        return LocalMemory(amem, identity)

    mcp = build_mcp(port_for_request, destinations=DestinationPolicy.from_settings(settings))
    mcp.middleware.append(identity_middleware)
    mcp.streamable_http_app(transport_security=transport_security(settings), host=settings.host)  # creates the session manager
    session_manager = mcp.session_manager

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        # several hosts: this one also stores turns any proxy put on the shared capture queue
        queue = None
        if settings.redis_url:
            queue = CaptureConsumer(service, settings.redis_url, claim_idle_s=settings.capture_claim_idle_s,
                                    batch_max=settings.capture_batch_max, retry_hours=settings.capture_retry_hours,
                                    retention_days=settings.jobs_messages_days).start()
        app.state.amber_capture_queue = queue
        try:
            async with session_manager.run():
                # not "ready": the host binds its port after this (`amber serve` says ready once it has)
                log.debug("memory server app started (REST /v1, MCP /mcp)")
                yield
        finally:
            if queue is not None:
                await asyncio.to_thread(queue.stop)

    app = FastAPI(
        title="Amber memory server",
        version=VERSION,
        description="One long-term memory for all your AI chats. Authenticate with `Authorization: Bearer <key>`.",
        lifespan=lifespan,
    )
    app.state.amber_memory = amem
    app.state.amber_settings = settings
    app.state.amber_mcp = mcp
    bearer = HTTPBearer(auto_error=False, description="An Amber API key")
    app.include_router(rest_memory.router, dependencies=[Security(bearer)])
    app.include_router(rest_curated.router, dependencies=[Security(bearer)])
    app.include_router(rest_transfer.router, dependencies=[Security(bearer)])
    app.include_router(rest_import.router, dependencies=[Security(bearer)])
    app.include_router(rest_cache.router, dependencies=[Security(bearer)])
    app.include_router(rest_admin.router, dependencies=[Security(bearer)])
    app.include_router(admin.router)  # the admin page: static, public, strict CSP
    for exc, handler in HANDLERS.items():
        app.add_exception_handler(exc, handler)

    @app.get("/health", tags=["health"], summary="Store, embedder and LLM status")
    async def health(request: Request, check_llm: bool = False, ready: bool = False) -> JSONResponse:
        """Public. Liveness by default: embeds nothing, answers at once. `ready=true` also embeds one
        query (bounded by `ready_timeout_s`). `check_llm=true` with an admin key also makes one tiny
        LLM call (it costs tokens). The shared capture queue's counts and errors need an admin key.

        `status` is "ok", "degraded" or "down", and `down` names the parts that fail ("store",
        "embedder", "disk", "redis"). 503 only when this host cannot serve recall (store or embedder
        down), so a load balancer takes it out; "degraded" (a full disk, Redis away: writes answer
        503 with Retry-After and wait in their spool or queue, recall and chats go on) stays 200."""
        h: dict[str, Any] = {}
        with anyio.move_on_after(settings.ready_timeout_s if ready else 5.0):
            h = await anyio.to_thread.run_sync(service.ready if ready else service.health, abandon_on_cancel=True)
        if not h:
            h = {"ok": False, "store": {"ok": False, "error": "no answer in time"}, "embedder": {"ok": False, "error": "no answer in time"}}
        identity = getattr(request.state, "amber_identity", None)
        llm = await llm_status(settings) if check_llm and identity is not None and identity.is_admin else {"model": settings.llm_model, "checked": False}
        body = {
            "ok": bool(h.get("ok")),
            "store": {k: v for k, v in h.get("store", {}).items() if k != "location"},
            "embedder": h.get("embedder", {}),
            "llm": llm,
            "auth": "local" if ring.local_mode else "keys",
            "version": VERSION,
        }
        if settings.redis_url:  # several hosts: can this one reach Redis (writes need it; recall does not)
            queue = getattr(app.state, "amber_capture_queue", None)
            coordination: dict[str, Any] = {"shared": True, "ok": False, "error": "Redis did not answer in time"}
            with anyio.move_on_after(2.0):
                coordination = await anyio.to_thread.run_sync(service.coordination.status, abandon_on_cancel=True)
                coordination["capture_queue"] = await anyio.to_thread.run_sync(queue.status, abandon_on_cancel=True) if queue else None
            if not (ring.local_mode or (identity is not None and identity.is_admin)):
                # counts that move with every person's writes and chat turns (polled, they show when others
                # talk) and errors that can quote a record: an operator's, read with an admin key
                queue_state = coordination.get("capture_queue")
                coordination = {k: v for k, v in coordination.items() if k in ("shared", "ok", "error")}
                if queue_state:
                    coordination["capture_queue"] = {k: queue_state.get(k) for k in ("down_since", "backing_off_s")}
            body["coordination"] = coordination
        disk = h.get("disk")
        if disk is not None:
            body["disk"] = disk
        down = [p for p in ("store", "embedder") if not body[p].get("ok", True)]
        down += ["disk"] if disk is not None and not disk["ok"] else []
        down += ["redis"] if not body.get("coordination", {}).get("ok", True) else []
        body["status"] = "down" if not body["ok"] else "degraded" if down else "ok"
        body["down"] = down
        return JSONResponse(body, status_code=200 if body["ok"] else 503)

    app.router.routes.append(Route("/mcp", endpoint=StreamableHTTPASGIApp(session_manager), methods=["GET", "POST", "DELETE"]))
    app.add_middleware(JsonBodyCheck)  # inside auth: only an authenticated body is parsed
    app.add_middleware(AuthMiddleware, ring=ring, allowed_hosts=list(settings.allowed_hosts))
    app.add_middleware(BodyLimitMiddleware)  # outermost: nothing reads a body past the limit
    return app
