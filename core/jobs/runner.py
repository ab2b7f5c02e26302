"""The jobs: extraction (every 4 h), consolidation (nightly), retention (daily).

`register_jobs` puts them on an APScheduler `AsyncIOScheduler` (LiteLLM's, or one the host
started); `run_job` / `arun_job` run one by hand (`amber jobs run extract --user U`). Every run
takes the job's lease first, so two workers never run the same job at once, and leaves a run
record in the registry (`list_runs`). Store work runs in threads: the host's loop never blocks.

Every tunable is a setting (`jobs_window_size`, `jobs_importance_floor`, ..., the crons and the
time zone: core/config.py), read from the Settings the caller passes.
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
import threading
import time
import uuid
from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from typing import Any

from pydantic import BaseModel, Field

from . import registry, writes
from ..config import Settings
from ..destinations import DestinationPolicy
from .consolidation import ConsolidateOptions, ConsolidateStats, consolidate_user
from ..errors import InvalidInput
from .extraction.decide import Policy
from .extraction.pipeline import ExtractOptions, ExtractStats, extract_user
from ..ports import LLM
from .retention import RetentionPolicy, RetentionStats, apply_retention
from ..scope import Actor, scope_for, user_hash, user_key

log = logging.getLogger("amber.jobs")

JOBS = ("extract", "consolidate", "retention")
Progress = Callable[[dict[str, Any]], None]


class RunRecord(BaseModel):
    """What one run did; stored in the registry and shown by REST and the CLI."""

    id: str
    job: str
    status: str = "running"  # running | ok | partial | skipped | error | interrupted (its worker stopped: list_runs)
    worker: str = ""
    lease: str = ""  # the lease the run held: while it is held, the run is running
    started_at: str
    finished_at: str | None = None
    duration_s: float = 0.0
    users: int = 0
    windows: dict[str, int] = Field(default_factory=dict)
    facts: dict[str, int] = Field(default_factory=dict)
    counts: dict[str, int] = Field(default_factory=dict)
    llm_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float = 0.0
    errors: list[str] = Field(default_factory=list)
    reason: str | None = None


def default_llm(settings: Settings) -> LLM:
    from ..llm import LiteLLMClient

    return LiteLLMClient(settings.llm_model, timeout=settings.llm_timeout_s)


def worker_id() -> str:
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:6]}"


async def arun_job(
    name: str,
    service: Any,
    settings: Settings,
    *,
    llm: LLM | None = None,
    user: str | None = None,
    progress: Progress | None = None,
    now: datetime | None = None,
    backfill: bool = False,
) -> dict[str, Any]:
    """Run one job now, under its lease. Returns the run record (status `skipped` if another worker holds the lease)."""
    if name not in JOBS:
        raise InvalidInput("job", f"{name!r} is not one of {', '.join(JOBS)}")
    clock = (lambda: now) if now is not None else service.clock.now
    emit = progress or (lambda e: None)
    me = worker_id()
    started = clock()
    ttl = timedelta(minutes=settings.jobs_lease_minutes)
    leases = service.coordination  # in process, registry rows, or Redis with several hosts (core/coordination.py)
    lease = name if user is None else person_lease(name, user)
    rec = RunRecord(id=registry.new_run_id(name, started), job=name, worker=me, started_at=started.isoformat(), lease=lease)
    if not await asyncio.to_thread(_take_lease, leases, name, lease, me, started, ttl):
        rec.status, rec.reason, rec.finished_at = "skipped", "another worker holds the lease", clock().isoformat()
        await asyncio.to_thread(registry.save_run, service.registry, rec.model_dump(mode="json"))
        emit({"stage": "skipped", "job": name, "reason": rec.reason})
        return rec.model_dump(mode="json")
    t0 = time.monotonic()
    try:
        await asyncio.to_thread(registry.save_run, service.registry, rec.model_dump(mode="json"))
        users = [user] if user else await asyncio.to_thread(_not_running_alone, leases, name, await asyncio.to_thread(service.users), clock)
        rec.users = len(users)
        heartbeat = lambda: leases.renew_lease(lease, me, clock(), ttl)
        if name == "extract":
            await _extract(service, settings, llm or default_llm(settings), users, clock, emit, heartbeat, rec, backfill)
        elif name == "consolidate":
            await _consolidate(service, settings, llm or default_llm(settings), users, clock, emit, heartbeat, rec)
        else:
            await _retention(service, settings, users, clock, emit, heartbeat, rec)
        rec.status = "partial" if rec.errors else "ok"
    except Exception as e:
        rec.status = "error"
        rec.errors.append(f"{type(e).__name__}: {e}")
        log.exception("job %s failed", name)
    finally:
        rec.duration_s = round(time.monotonic() - t0, 3)
        rec.finished_at = clock().isoformat()
        rec.errors = rec.errors[:50]
        try:
            await asyncio.to_thread(registry.save_run, service.registry, rec.model_dump(mode="json"))
        finally:
            await asyncio.to_thread(leases.release_lease, lease, me)
    emit({"stage": "done", "job": name, "status": rec.status})
    log.info("job %s %s: users=%d windows=%s facts=%s calls=%d tokens=%d cost=%.4f %.1fs", name, rec.status, rec.users,
             rec.windows, rec.facts or rec.counts, rec.llm_calls, rec.prompt_tokens + rec.completion_tokens, rec.cost, rec.duration_s)
    return rec.model_dump(mode="json")


def person_lease(job: str, user: str) -> str:
    return f"{job}:person:{user_key(user)}"  # not the logs' short pseudonym, which can be made to collide


def _take_lease(leases: Any, job: str, lease: str, me: str, now: datetime, ttl: timedelta) -> bool:
    """A run for everybody holds the job's lease; a run for one person (an import's extraction now,
    the admin's "run now" for someone) holds that person's (`person_lease`), and starts only while
    no run for everybody does, so it never holds back everybody else's run however long it takes.
    A run for everybody leaves out the people a run of their own holds (`_not_running_alone`):
    whichever of the two takes its lease second sees the other's, so no person is worked on twice
    at once."""
    if not leases.acquire_lease(lease, me, now, ttl):
        return False
    if lease != job and leases.leases_held([job], now):
        leases.release_lease(lease, me)
        return False
    return True


def _not_running_alone(leases: Any, job: str, users: list[str], clock: Callable[[], datetime]) -> list[str]:
    """Everybody but the people a run of their own is working on now (their leases read at once):
    their next run takes them."""
    keys = {u: person_lease(job, u) for u in users}
    alone = leases.leases_held(list(keys.values()), clock())
    if alone:
        log.info("job %s: %d person(s) left to the run each has of their own", job, len(alone))
    return [u for u in users if keys[u] not in alone]


def _job_scope(user_id: str, job: str):
    return scope_for(Actor(user_id, via=f"job:{job}"))


def _add_llm(rec: RunRecord, llm_stats: dict[str, float]) -> None:
    rec.llm_calls += int(llm_stats["calls"])
    rec.prompt_tokens += int(llm_stats["prompt_tokens"])
    rec.completion_tokens += int(llm_stats["completion_tokens"])
    rec.cost += float(llm_stats["cost"])


def _refused(rec: RunRecord, job: str, model: str, outcome: str) -> None:
    """A job's model that may receive no memory is not called: said in the log and on the run record."""
    note = f"{job} skipped: model {model} may not receive memory (memory_models_allow / memory_models_deny); {outcome}"
    log.warning("%s", note)
    rec.errors.append(note)


def _may_read_memory(settings, llm) -> tuple[DestinationPolicy, str, bool, tuple[str, ...]]:
    """The destination policy, the job model's name, whether that model may receive memory at all,
    and the deployments behind the name (a group "gpt-4o-mini" over openai/gpt-4o-mini is denied by "openai/*")."""
    policy = DestinationPolicy.from_settings(settings)
    model = str(getattr(llm, "model", "") or settings.llm_model)
    deployments = tuple(getattr(llm, "deployments", lambda: [])()) if llm is not None else ()
    return policy, model, policy.receives_memory(model, deployments), deployments


async def _extract(service, settings, llm, users, clock, emit, heartbeat, rec: RunRecord, backfill: bool) -> None:
    _, model, allowed, _ = _may_read_memory(settings, llm)
    if llm is not None and not allowed:
        _refused(rec, "extraction", model, "windows stay pending for a model that may")
        return
    opts = ExtractOptions(
        window_size=settings.jobs_window_size,
        max_retries=settings.jobs_max_retries,
        stuck_after=timedelta(minutes=settings.jobs_stuck_minutes),
        policy=Policy(
            seen_cosine=settings.jobs_seen_cosine,
            candidate_below=settings.jobs_candidate_below,
            importance_floor=settings.jobs_importance_floor,
        ),
        backfill=backfill,
    )
    stats = ExtractStats()
    for u in users:
        emit({"stage": "user", "job": "extract", "user": user_hash(u)})
        try:
            await extract_user(service, _job_scope(u, "extract"), llm, now=clock, opts=opts, stats=stats,
                               progress=lambda e, u=u: emit({"job": "extract", "user": user_hash(u), **e}), heartbeat=heartbeat)
        except Exception as e:  # one user's trouble must not stop the others
            stats.errors.append(f"user {user_hash(u)}: {type(e).__name__}: {e}")
            log.exception("extraction failed for user %s", user_hash(u))
    rec.windows, rec.facts, rec.errors = stats.windows, stats.facts, rec.errors + stats.errors
    _add_llm(rec, stats.llm)


async def _consolidate(service, settings, llm, users, clock, emit, heartbeat, rec: RunRecord) -> None:
    policy, model, allowed, deployments = _may_read_memory(settings, llm)
    if llm is not None and not allowed:  # the rules still run; they call no model
        _refused(rec, "consolidation model", model, "rules only")
        llm = None
    opts = ConsolidateOptions(max_llm_calls=settings.jobs_consolidate_max_llm_calls, destinations=policy, model=model,
                              deployments=deployments)
    stats = ConsolidateStats()
    tz = settings.timezone
    for u in users:
        emit({"stage": "user", "job": "consolidate", "user": user_hash(u)})
        try:
            await consolidate_user(service, _job_scope(u, "consolidate"), llm, now=clock(), tz=tz, opts=opts, stats=stats,
                                   progress=lambda e, u=u: emit({"job": "consolidate", "user": user_hash(u), **e}))
        except Exception as e:
            stats.errors.append(f"user {user_hash(u)}: {type(e).__name__}: {e}")
            log.exception("consolidation failed for user %s", user_hash(u))
        await asyncio.to_thread(heartbeat)
    rec.counts, rec.errors = stats.counts, rec.errors + stats.errors
    _add_llm(rec, stats.llm)


async def _retention(service, settings, users, clock, emit, heartbeat, rec: RunRecord) -> None:
    policy = RetentionPolicy(
        messages_days=settings.jobs_messages_days,
        imported_days=settings.jobs_imported_days,
        events_days=settings.jobs_events_days,
        unused_days=settings.jobs_unused_days,
        purge_after_days=settings.jobs_purge_after_days,
    )
    stats = RetentionStats()
    for u in users:
        emit({"stage": "user", "job": "retention", "user": user_hash(u)})
        try:
            await asyncio.to_thread(apply_retention, service, _job_scope(u, "retention"), clock(), writes, policy, stats)
            await asyncio.to_thread(_prune_windows, service, u, clock(), policy)
        except Exception as e:
            stats.errors.append(f"user {user_hash(u)}: {type(e).__name__}: {e}")
            log.exception("retention failed for user %s", user_hash(u))
        await asyncio.to_thread(heartbeat)
    runs = await asyncio.to_thread(_prune_runs, service, clock(), policy, rec.id)
    zeroed = await asyncio.to_thread(service.writes.scrub_erased)  # what the day's erasures left in Chroma's file (store/scrub.py)
    rec.counts = {k: v for k, v in vars(stats).items() if isinstance(v, int)} | {"runs_deleted": runs, "free_pages_zeroed": zeroed}
    rec.errors = rec.errors + stats.errors


def _prune_windows(service: Any, user_id: str, now: datetime, policy: RetentionPolicy) -> None:
    """Done windows older than the event horizon go; the cursor keeps the position."""
    cutoff = now - timedelta(days=policy.events_days)
    old = [w["id"] for w in registry.get_windows(service.registry, user_id)
           if w["state"] in ("processed", "failed") and w.get("finished_at") and datetime.fromisoformat(w["finished_at"]) < cutoff]
    registry.delete_windows(service.registry, old)


def _prune_runs(service: Any, now: datetime, policy: RetentionPolicy, current: str) -> int:
    cutoff = (now - timedelta(days=policy.events_days)).isoformat()
    old = [r["id"] for r in registry.list_runs(service.registry, limit=100_000) if r["id"] != current and (r.get("started_at") or "") < cutoff]
    registry.delete_runs(service.registry, old)
    return len(old)


def run_job(
    name: str,
    service: Any,
    settings: Settings,
    *,
    llm: LLM | None = None,
    user: str | None = None,
    progress: Progress | None = None,
    now: datetime | None = None,
    backfill: bool = False,
) -> dict[str, Any]:
    """Synchronous `arun_job` for the CLI and scripts. Called from inside a running loop, it runs
    on a fresh loop in a helper thread (async hosts should await `arun_job` instead)."""
    coro = lambda: arun_job(name, service, settings, llm=llm, user=user, progress=progress, now=now, backfill=backfill)
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro())
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["result"] = asyncio.run(coro())
        except BaseException as e:  # handed back to the caller's thread
            box["error"] = e

    t = threading.Thread(target=target, name=f"amber-job-{name}")
    t.start()
    t.join()
    if "error" in box:
        raise box["error"]
    return box["result"]


INTERRUPTED = "its worker stopped before the run finished (a host killed or restarted); the next run takes up its work"


def list_runs(service: Any, limit: int = 20, job: str | None = None) -> list[dict[str, Any]]:
    """The latest run records, newest first. A record still `running` whose lease nobody holds is
    of a worker that died (a run saves its last record before it lets the lease go): it is shown as
    `interrupted`, so no page waits for it to end. Shown, not stored: a run that only lost its lease
    for a while (a missed renewal, Redis restarted empty) still writes its own last record."""
    runs = registry.list_runs(service.registry, limit, job)
    # records from before runs named their lease held the job's
    stale = {r["id"]: r.get("lease") or r["job"] for r in runs if r.get("status") == "running"}
    if not stale:
        return runs
    try:
        held = service.coordination.leases_held(sorted(set(stale.values())), service.clock.now())
        again = service.registry.reg_get_many([f"run:{i}" for i, lease in stale.items() if lease not in held])
    except Exception as e:  # the leases cannot be read (Redis away): the records as they are
        log.warning("job runs listed without their leases: %s: %s", type(e).__name__, e)
        return runs
    for r in runs:
        if r["id"] in stale and stale[r["id"]] not in held:
            now = again.get(f"run:{r['id']}") or r  # read again after the leases: it may have ended since
            r.update(now if now.get("status") != "running" else {"status": "interrupted", "reason": INTERRUPTED})
    return runs


def register_jobs(scheduler: Any, service: Any, settings: Settings, llm: LLM | None = None) -> list[str]:
    """Schedule the three jobs on an APScheduler (AsyncIOScheduler-like) object. Returns their ids."""
    from apscheduler.triggers.cron import CronTrigger

    crons = {
        "extract": settings.extract_cron,
        "consolidate": settings.consolidate_cron,
        "retention": settings.retention_cron,
    }
    tz = settings.timezone
    ids = []
    for name, cron in crons.items():
        job_id = f"amber-{name}"
        trigger = CronTrigger.from_crontab(cron, timezone=tz)
        scheduler.add_job(
            _scheduled,
            trigger,
            args=[name, service, settings, llm, trigger],
            id=job_id,
            name=f"Amber {name}",
            replace_existing=True,
            coalesce=True,
            max_instances=1,
            misfire_grace_time=3600,
        )
        ids.append(job_id)
    return ids


def due_time(trigger: Any, now: datetime) -> datetime:
    """The fire time a scheduler firing now is serving: the latest one not after now (+5 s of clock
    skew between hosts), looking back as far as a late run may start (an hour)."""
    due = trigger.get_next_fire_time(None, now - timedelta(hours=1))
    if due is None or due > now + timedelta(seconds=5):  # fired by hand, or later than any grace
        return now.replace(second=0, microsecond=0)
    while True:
        after = trigger.get_next_fire_time(due, due + timedelta(microseconds=1))
        if after is None or after > now + timedelta(seconds=5):
            break
        due = after
    return due


async def _scheduled(name: str, service: Any, settings: Settings, llm: LLM | None, trigger: Any = None) -> None:
    """A scheduled run must never take the host down: errors end up in the run record and the log.
    With several hosts, each fires at the same time and only the first to claim the fire time runs."""
    try:
        coordination = service.coordination
        if trigger is not None and coordination.shared:
            due = due_time(trigger, service.clock.now()).astimezone(timezone.utc)
            if not await asyncio.to_thread(coordination.claim_slot, name, due.isoformat(), worker_id(), timedelta(days=2)):
                log.info("job %s due %s: another host runs it", name, due.isoformat())
                return
        await arun_job(name, service, settings, llm=llm)
    except Exception:
        log.exception("scheduled job %s failed", name)
