"""Amber inside the LiteLLM proxy: the memory the hook talks to (one memory port per user), and the hosting duties.

At proxy start (the callback module is imported while the proxy's loop runs its startup) this opens
the store, mounts the memory server app at /memory with its lifespan running, and registers the
jobs. In remote mode (`amber.server_url`) it opens nothing and talks to that host over REST.

Until the start finishes, or if it fails, `Host.memory` is None and the hook passes requests
through untouched: memory is optional, the proxy is not.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import time
from pathlib import Path
from typing import Any, Callable, Sequence

from core import (
    READ,
    WRITE,
    Actor,
    AsyncMemory,
    Corrected,
    CaptureQueue,
    DestinationPolicy,
    Identity,
    LiteLLMClient,
    LocalMemory,
    MemoryPort,
    RecallResult,
    Redactor,
    RemoteMemory,
    Settings,
    StoreUnavailable,
    background_writes,
    boot_text_without,
    build_service,
    config_file,
    correct_in_turn,
    entry_messages,
    forget_request,
    master_key,
    parse_command,
    register_jobs,
    user_hash,
)

from .bootpack import BootPacks
from .vision import VisionRelay
from .spool import Spool

log = logging.getLogger("amber.litellm")

MOUNT_PATH = "/memory"


class HookMemory:
    """What the hook asks of memory (recall, the boot pack, capture), through one `core.MemoryPort`
    per user: `LocalMemory` over the service in this process, or `RemoteMemory` acting for the user
    on the memory host(s). Every face reaches memory through that port, so the hook recalls with
    the same budget and stores turns by the same rules as REST and MCP.

    Its own duties: boot packs are kept per user for a short while (bootpack.py); in remote mode
    with a shared capture queue (`redis_url`), captured turns go there and whichever host is free
    stores them."""

    def __init__(self, port_for: Callable[[Actor], MemoryPort], queue: CaptureQueue | None = None):
        self.port_for = port_for
        self.queue = queue
        self.packs = BootPacks()

    async def recall(self, actor: Actor, query: str, echo: Sequence[str] = (), why: str | None = None,
                     destination: str | None = None) -> RecallResult:
        return await self.port_for(actor).recall(query, echo=echo, why=why, destination=destination)

    async def correct(self, actor: Actor, said: str, shown_here: bool = True) -> Corrected | None:
        """Carry out the correction `said` makes to what was just injected, if any (core/correcting.py);
        `shown_here` False: this chat receives no memory, so only a turn naming a handle is read."""
        return await correct_in_turn(self.port_for(actor), said, shown_here)

    async def forget_preview(self, actor: Actor, what: str, off_host: DestinationPolicy | None = None) -> tuple[int, int, list[str]]:
        """What a forget of `what` would erase now (memories, turns) and the words of the memories
        it may mean but is not sure of (kept); for a model off the host (`off_host`), not the words
        of those that stay on it."""
        plan = await self.port_for(actor).forget(what, preview=True)
        return len(plan.memories), plan.messages, [m.content for m in plan.uncertain if off_host is None or not off_host.stays(m)]

    async def boot_pack(self, actor: Actor, off_host: DestinationPolicy | None = None) -> str:
        """The boot pack's text; for a model off the host (`off_host`, the policy that says what stays)
        without the host-only items, kept apart from the full text."""
        async def build() -> str:
            boot = await self.port_for(actor).boot()
            return boot.text if off_host is None else boot_text_without(boot, off_host.stays)

        return await self.packs.get(actor.user_id if off_host is None else f"{actor.user_id}\0off-host", build)

    async def capture(self, actor: Actor, entries: Sequence[dict[str, Any]]) -> None:
        """Store one user's journal entries: all their turns in one ingest (one embedding batch),
        their commands carried out in order."""
        commands = any(e.get("command") for e in entries)  # the user turns to read commands in
        if self.queue is not None:
            await self.queue.put(actor.user_id, entries)  # journal entries carry their user and client
        else:
            await self.port_for(actor).ingest(entry_messages(entries), commands=commands)
        if any(isinstance(e.get("command"), str) and parse_command(e["command"]) for e in entries):
            self.packs.drop(actor.user_id)  # a "forget …" or "remember …": the next request's boot pack is built anew


def local_ports(service: Any, settings: Settings) -> Callable[[Actor], MemoryPort]:
    """Each user's port over the in-process service; the audit trail names the hook as the actor."""
    memory = AsyncMemory(service)

    def port_for(actor: Actor) -> MemoryPort:
        return LocalMemory(memory, Identity("litellm", actor.user_id, frozenset({READ, WRITE}), actor.client, via="litellm"))

    return port_for


def _proxy_server() -> Any:
    try:
        from litellm.proxy import proxy_server
    except Exception:  # not inside a proxy (unit tests, scripts)
        return None
    return proxy_server


def router() -> Any:
    ps = _proxy_server()
    return getattr(ps, "llm_router", None) if ps else None


class Host:
    def __init__(self) -> None:
        self.settings: Settings | None = None
        self.memory: HookMemory | None = None
        self.service: Any = None
        self.remote: RemoteMemory | None = None  # remote mode: the memory host(s)
        self.started: asyncio.Task | None = None
        self._lifespan_task: asyncio.Task | None = None
        self.spool = Spool(Path("./data/spool"))
        self.redact = Redactor()
        self._drainer: asyncio.Task | None = None
        self._watch: asyncio.Task | None = None  # several memory hosts: their health probe
        self.scheduler: Any = None
        self.jobs: list[str] = []
        self.vision: VisionRelay | None = None  # set when `vision_model` is configured
        self.gate: Any = None  # what answers at /memory until (or instead of) the memory server

    def start_soon(self) -> None:
        """Called at import inside the proxy: start on its running loop; elsewhere do nothing."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        if self.started is None:
            try:
                self._open_gate()
            except Exception as e:  # the gate is a courtesy; the proxy must start without it
                log.error("amber: /memory gate not mounted: %s: %s", type(e).__name__, e)
            self.started = loop.create_task(self.start(), name="amber-start")

    def _open_gate(self) -> None:
        """/memory answers from the first moment the proxy serves: 503 "starting", then the memory
        server, or 503 with the reason memory is off (never a bare 404)."""
        ps = _proxy_server()
        if ps is None or getattr(ps, "app", None) is None:
            return
        from starlette.routing import Mount

        from mcp_server.app import MemoryGate

        self.gate = MemoryGate()
        # First in line: LiteLLM serves its own MCP servers at /{name}/mcp, which would take /memory/mcp.
        ps.app.router.routes.insert(0, Mount(MOUNT_PATH, app=self.gate))

    async def start(self) -> None:
        _quiet_logging()
        try:
            ps = _proxy_server()
            config_path = getattr(ps, "user_config_file_path", None) if ps else None
            # Amber's section lives in the proxy's own config (unless AMBER_CONFIG names another)
            with config_file(config_path if config_path and "AMBER_CONFIG" not in os.environ else None):
                self.settings = settings = Settings()
            self.redact = Redactor(settings.redact_secrets, settings.redact_patterns, settings.redact_phone_numbers)
            self.spool = Spool(Path(settings.data_dir) / "spool", batch_max=settings.capture_batch_max,
                               retry_hours=settings.capture_retry_hours, max_mb=settings.spool_max_mb,
                               retention_days=settings.jobs_messages_days, redact=self.redact.text, master_key=master_key(settings))
            if settings.vision_model:
                # through the proxy's router like the jobs' calls: its keys, tagged internal, never captured
                llm = LiteLLMClient(settings.vision_model, router_getter=router, timeout=settings.vision_timeout_s)
                self.vision = VisionRelay(llm, settings.vision_model)
            if settings.server_url:
                if self.gate is not None:
                    self.gate.elsewhere(settings.server_url)
                queue = CaptureQueue(settings.redis_url) if settings.redis_url else None
                self.remote = remote = self._remote(settings)
                self.memory = HookMemory(lambda actor: remote.for_user(actor.user_id), queue)
                self._start_drainer()
                if len(remote.hosts) > 1:
                    self._watch = asyncio.get_running_loop().create_task(self._watch_hosts(), name="amber-hosts")
                log.info("amber: remote mode, memory host(s) %s%s", settings.server_url, ", shared capture queue" if queue else "")
                return
            self.service = await asyncio.to_thread(build_service, settings)
            # a forget through REST, MCP or a handle also takes what this journal still holds that says it
            self.service.forget_elsewhere.append(self.spool.forget)
            self.memory = HookMemory(local_ports(self.service, settings))
            self.service.forget_elsewhere.append(self.memory.packs.drop)  # and the boot pack kept for the person
            self._start_drainer()
        except Exception as e:  # never take the proxy down: chat goes on without memory
            log.error("amber: memory is off for this process: %s: %s", type(e).__name__, e)
            if self.gate is not None:
                self.gate.off(f"{type(e).__name__}: {e}", type(e).__name__)
            return
        # chat has memory from here on; the server and the jobs are extras that may fail alone
        try:
            await self._mount(settings)
            log.info("amber: memory ready, server at %s (store %s)", MOUNT_PATH, self.service.health()["store"].get("location"))
        except Exception as e:
            log.error("amber: memory server not mounted at %s: %s: %s", MOUNT_PATH, type(e).__name__, e)
            if self.gate is not None:
                self.gate.off(f"the memory server did not start: {type(e).__name__}: {e}", type(e).__name__)
        try:
            await self._schedule(settings)
        except Exception as e:
            log.error("amber: jobs not scheduled: %s: %s", type(e).__name__, e)

    def _start_drainer(self) -> None:
        """Captured turns are journaled by the hook and stored from here, in the background."""
        self._drainer = asyncio.get_running_loop().create_task(self.spool.drain(self._store_entries), name="amber-capture")

    async def _store_entries(self, user: str, entries: Sequence[dict[str, Any]]) -> None:
        memory = self.memory
        if memory is None:
            raise StoreUnavailable("memory is not ready")  # waited out like any outage
        client = next((e.get("client") for e in entries if e.get("client")), None)
        started = time.perf_counter()
        with background_writes():  # nobody waits for these: they give way to the recalls in flight (core/store/reads_first.py)
            await memory.capture(Actor(user, client=client, via="litellm"), entries)
        log.info("amber capture user=%s exchanges=%d stored in %.0fms", user_hash(user), len(entries), (time.perf_counter() - started) * 1000)
        # a forget carried out: turns still waiting here (or set aside) that say it go too
        for e in entries:
            says_it = forget_request(str(e.get("command") or ""))
            if says_it is not None:
                removed = await asyncio.to_thread(self.spool.forget, user, says_it)
                if removed:
                    log.info("amber capture user=%s: %d journaled exchanges removed by a forget", user_hash(user), removed)

    async def _watch_hosts(self, every_s: float = 10.0) -> None:
        """Several memory hosts: probe each one's /health now and then, so a host that went down is
        skipped before a user's request finds out, and one that came back is used again."""
        remote = self.remote
        while True:
            try:
                await remote.check_hosts()
            except asyncio.CancelledError:
                raise
            except Exception as e:  # the probe must outlive anything
                log.warning("amber: memory hosts not checked: %s: %s", type(e).__name__, e)
            await asyncio.sleep(every_s)

    def _remote(self, settings: Settings) -> RemoteMemory:
        # a trusted-client key of the memory host: it acts for the user each request names
        return RemoteMemory(settings.server_url, api_key=settings.server_key, timeout=max(1.0, settings.recall_timeout_s * 2), client_name="litellm")

    async def _mount(self, settings: Settings) -> None:
        from starlette.routing import Mount

        from mcp_server.app import create_app

        ps = _proxy_server()
        sub = create_app(self.service, settings)
        # Starlette does not run a mounted app's lifespan (MCP session manager, background work): hold it open here.
        entered = asyncio.get_running_loop().create_future()
        self._lifespan_task = asyncio.create_task(self._hold_lifespan(sub, entered), name="amber-lifespan")
        await entered
        if self.gate is not None:
            self.gate.open(sub)
            return
        # First in line: LiteLLM serves its own MCP servers at /{name}/mcp, which would take /memory/mcp.
        ps.app.router.routes.insert(0, Mount(MOUNT_PATH, app=sub))

    async def _hold_lifespan(self, sub: Any, entered: asyncio.Future) -> None:
        try:
            async with sub.router.lifespan_context(sub):
                entered.set_result(None)
                await asyncio.Event().wait()  # until the proxy's loop cancels us at shutdown
        except asyncio.CancelledError:
            raise
        except Exception as e:
            if not entered.done():
                entered.set_exception(e)
            log.error("amber: memory server lifespan failed: %s", e)
        finally:
            if self.service is not None:
                with contextlib.suppress(Exception):
                    await asyncio.to_thread(self.service.close)

    async def _schedule(self, settings: Settings) -> None:
        if not settings.jobs_enabled:
            return
        ps = _proxy_server()
        scheduler = await self._proxy_scheduler(ps)
        if scheduler is None:
            from apscheduler.schedulers.asyncio import AsyncIOScheduler

            # in the jobs' time zone, not the process's TZ (which tzlocal cannot read when it is "CST-8")
            scheduler = AsyncIOScheduler(event_loop=asyncio.get_running_loop(), timezone=settings.timezone)
            scheduler.start()
        self.scheduler = scheduler
        llm = LiteLLMClient(settings.llm_model, router_getter=router, timeout=settings.llm_timeout_s)
        self.jobs = list(register_jobs(scheduler, self.service, settings, llm=llm) or [])
        log.info("amber: jobs scheduled: %s", ", ".join(self.jobs) or "none")

    async def _proxy_scheduler(self, ps: Any) -> Any:
        """LiteLLM's scheduler exists only with a database, and only once its startup is done."""
        if ps is None or getattr(ps, "prisma_client", None) is None:
            return None
        for _ in range(120):
            if getattr(ps, "scheduler", None) is not None:
                return ps.scheduler
            await asyncio.sleep(0.5)
        return None


def _quiet_logging() -> None:
    """One INFO line per request on stderr next to LiteLLM's own, unless the host configured logging."""
    amber = logging.getLogger("amber")
    if not amber.handlers and not logging.getLogger().handlers:
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
        amber.addHandler(handler)
        amber.setLevel(logging.INFO)
        amber.propagate = False


def describe(actor: Any) -> str:
    return f"user={user_hash(actor.user_id)} client={actor.client or '-'}"

