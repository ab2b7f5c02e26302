"""`amber serve` and `amber mcp`: the long-running commands."""

from __future__ import annotations

import argparse
import asyncio
import logging
import signal
import sys
from typing import Any

from core import AsyncMemory, RemoteMemory, Settings, build_service, register_jobs

from .identity import ADMIN, READ, WRITE, Identity, current_identity
from .local import LocalMemory
from .mcp_tools import build_mcp

log = logging.getLogger("amber.cli")


def start_jobs(service: Any, settings: Settings) -> Any | None:
    """Schedule the background jobs on this loop."""
    from apscheduler.schedulers.asyncio import AsyncIOScheduler

    scheduler = AsyncIOScheduler(event_loop=asyncio.get_running_loop(), timezone=settings.timezone)
    ids = register_jobs(scheduler, service, settings)
    scheduler.start()
    log.info("jobs scheduled: %s", ", ".join(ids or []) or "none")
    return scheduler


def serve(args: argparse.Namespace) -> int:
    import uvicorn

    from .app import create_app

    overrides = {k: v for k, v in (("host", args.host), ("port", args.port)) if v}
    settings = Settings(**overrides)
    service = build_service(settings)  # StoreLocked: main() prints how to connect instead
    app = create_app(service, settings)

    async def run() -> None:
        scheduler = None if args.no_jobs or not settings.jobs_enabled else start_jobs(service, settings)
        server = uvicorn.Server(uvicorn.Config(app, host=settings.host, port=settings.port, log_level="warning"))

        async def announce() -> None:  # only once the port is bound: a clash must not be preceded by "ready"
            while not server.started and not server.should_exit:
                await asyncio.sleep(0.05)
            if server.started:
                log.info("Amber memory server ready on http://%s:%d (REST /v1, MCP /mcp)", settings.host, settings.port)

        announcer = asyncio.ensure_future(announce())
        try:
            await server.serve()
        finally:
            announcer.cancel()
            if scheduler is not None:
                scheduler.shutdown(wait=False)

    def stop(*_: Any) -> None:
        raise SystemExit(0)

    # uvicorn handles the signal (graceful shutdown), then re-raises it: end with a clean exit, store closed
    signal.signal(signal.SIGTERM, stop)
    try:
        asyncio.run(run())
    except KeyboardInterrupt:
        pass
    finally:
        service.close()
    return 0


def mcp_stdio(args: argparse.Namespace) -> int:
    """stdio MCP. With --url: a thin bridge, each tool call a REST call to the host. Without: this process
    opens the store (and holds its lock) and acts for one local user."""
    if args.url:
        problem = bridge_problem(args.url, args.key, args.user)
        if problem:  # an MCP host shows a bridge's stderr; a bridge that lists tools and then fails every call hides it
            print(f"amber mcp: {problem}", file=sys.stderr)
            return 2
        remote = RemoteMemory(args.url, api_key=args.key, user=args.user, timeout=30.0, client_name="mcp-stdio")
        server = build_mcp(lambda: remote)

        async def bridge() -> None:
            try:
                await server.run_stdio_async()
            finally:
                await remote.aclose()

        asyncio.run(bridge())
        return 0

    settings = Settings()
    service = build_service(settings)
    user = args.user or settings.default_user or "local"
    identity = Identity("stdio", user, frozenset({READ, WRITE, ADMIN}), client="mcp-stdio")
    local = LocalMemory(AsyncMemory(service), identity, settings)
    server = build_mcp(lambda: local)

    async def own() -> None:
        current_identity.set(identity)
        await server.run_stdio_async()

    try:
        asyncio.run(own())
    finally:
        service.close()
    return 0


def bridge_problem(url: str, key: str | None, user: str | None) -> str | None:
    """Check the bridge's URL and key before serving (one health call, one authenticated call):
    what to change, in one sentence, or None. A wrong URL or key fails here, at start, where the
    MCP host shows it, instead of on every tool call later."""
    import httpx

    base = url.rstrip("/")
    if base.endswith("/mcp"):
        return (f"--url {url} is the MCP endpoint HTTP clients use; the bridge wants the memory base URL: "
                f"--url {base[:-4]}")
    try:
        health = httpx.get(f"{base}/health", timeout=5.0)
    except httpx.HTTPError as e:
        # a host that is not up yet is no misconfiguration (an MCP host may start before it): serve, and
        # each call says it is unavailable until it answers
        print(f"amber mcp: warning: nothing answers at {base} yet ({type(e).__name__}); "
              "start Amber (`make run` or `amber serve`) or correct --url", file=sys.stderr)
        return None
    body = _json(health)
    if body.get("error") in ("memory_off", "memory_starting", "memory_elsewhere"):
        return f"{base}: {body.get('detail')}"
    if "store" not in body:
        return (f"{base} is not an Amber memory host (GET /health answered {health.status_code}); "
                "the proxy's memory base URL is http://127.0.0.1:4000/memory, `amber serve`'s is http://127.0.0.1:4100")
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    if user:
        headers["X-Amber-User"] = user
    try:
        resp = httpx.get(f"{base}/v1/namespaces", headers=headers, timeout=10.0)
    except httpx.HTTPError as e:
        return f"{base} stopped answering ({type(e).__name__})"
    detail = _json(resp).get("detail") or resp.reason_phrase
    if resp.status_code == 401:
        how = "pass --key or set AMBER_KEY" if not key else "the host does not know this key; use one from its config.yaml (`amber keys create` makes one)"
        return f"{base} refuses the request ({detail}): {how}"
    if resp.status_code == 422 and _json(resp).get("field") == "X-Amber-User":
        return f"this key acts for a user it is told: pass --user NAME ({detail})"
    if resp.status_code >= 400:
        return f"{base} refuses this key ({resp.status_code}: {detail}); check the key's user and scopes, or --user"
    return None


def _json(resp: Any) -> dict[str, Any]:
    try:
        body = resp.json()
    except ValueError:
        return {}
    return body if isinstance(body, dict) else {}
