"""`amber serve` and `amber mcp`: the long-running commands."""

from __future__ import annotations

import argparse
import asyncio
import logging
import signal
from typing import Any

from core import AsyncMemory, DestinationPolicy, Settings, build_service, register_jobs

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
    """stdio MCP. With --url: a transport bridge to the host's own MCP endpoint (stdio_bridge.py).
    Without: this process opens the store (and holds its lock) and acts for one local user."""
    if args.url:
        from .stdio_bridge import run

        return run(args.url, args.key, args.user)

    from core import ADMIN, READ, WRITE, Identity

    from .identity import current_identity
    from core import LocalMemory
    from .mcp_tools import build_mcp

    settings = Settings()
    service = build_service(settings)
    user = args.user or settings.default_user or "local"
    identity = Identity("stdio", user, frozenset({READ, WRITE, ADMIN}), client="mcp-stdio")
    local = LocalMemory(AsyncMemory(service), identity)
    server = build_mcp(lambda: local, destinations=DestinationPolicy.from_settings(settings))

    async def own() -> None:
        current_identity.set(identity)
        await server.run_stdio_async()

    try:
        asyncio.run(own())
    finally:
        service.close()
    return 0

