"""REST for the operator: the jobs' run records and "run now" (admin keys only).

Runs are the host's, not one user's (a run covers every user), so only an admin key sees them.
A run started here goes on in the background under the job's lease, exactly like a scheduled one;
the caller follows it in the run records.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query, Request
from starlette.responses import JSONResponse

from core import ADMIN, AmberError, Forbidden, InvalidInput, Journal, LiteLLMClient, arun_job, list_runs, master_key

from .llm_check import proxy_router

log = logging.getLogger("amber.server")
router = APIRouter(prefix="/v1")
Job = Literal["extract", "consolidate", "retention"]


def _admin(request: Request) -> Any:
    identity = getattr(request.state, "amber_identity", None)
    if identity is None:
        raise Forbidden("no identity on this request")
    identity.require(ADMIN)
    return identity


@router.get("/jobs/runs", tags=["admin"], summary="The latest job runs, newest first: windows, LLM calls, tokens, cost, errors (admin)")
async def runs(
    request: Request,
    job: Job | None = None,
    limit: Annotated[int, Query(ge=1, le=200)] = 30,
) -> dict:
    _admin(request)
    service = request.app.state.amber_memory.service
    return {"runs": await asyncio.to_thread(list_runs, service, limit, job)}


@router.post("/jobs/{job}/run", status_code=202, tags=["admin"], summary="Start a job now, in the background (admin)")
async def run_now(request: Request, job: Job) -> JSONResponse:
    identity = _admin(request)
    app = request.app
    running: dict[str, asyncio.Task] = app.state.__dict__.setdefault("amber_job_tasks", {})
    task = running.get(job)
    if task is not None and not task.done():
        return JSONResponse({"job": job, "started": False, "detail": f"{job} is already running (started from this page)"}, status_code=409)
    settings = app.state.amber_settings
    # the same road as the scheduled runs: inside the LiteLLM proxy, its model groups
    llm = LiteLLMClient(settings.llm_model, router_getter=proxy_router, timeout=settings.llm_timeout_s) if job != "retention" else None

    async def go() -> None:
        try:
            await arun_job(job, app.state.amber_memory.service, settings, llm=llm)
        except Exception:  # the run record holds what went wrong; the host goes on
            log.exception("job %s started by %s failed", job, identity.key_name)

    running[job] = asyncio.get_running_loop().create_task(go(), name=f"amber-job-{job}-now")
    log.info("job %s started by key %s", job, identity.key_name)
    return JSONResponse({"job": job, "started": True}, status_code=202)


# ---- captured turns set aside ------------------------------------------------------------------
# Turns memory refused by name (or failed for hours for a reason that is not an outage) are set
# aside instead of stored: in the proxy's journal (`<data_dir>/spool`, read here from its files, as
# `amber spool status` reads them) and, with several hosts, in the shared capture queue in Redis.
# Nothing replays them by itself; the page shows them with the way back.

SET_ASIDE_SHOWN = 200  # the newest; the counts cover them all


def _row(user: Any, client: Any, error: Any, at: Any, entries: Any) -> dict[str, Any]:
    entries = entries if isinstance(entries, list) else []
    turns = [m for e in entries if isinstance(e, dict) for m in (e.get("messages") or []) if isinstance(m, dict)]
    first = next((str(m.get("content") or "") for m in turns if m.get("role") == "user"), "")
    return {"user": user, "client": next((e.get("client") for e in entries if isinstance(e, dict) and e.get("client")), client),
            "error": error, "at": at, "turns": len(turns), "said": first[:160]}


def _set_aside(settings: Any, queue: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"journal": None, "queue": None}
    spool = Path(settings.data_dir) / "spool"
    if spool.is_dir():
        try:
            journal = Journal(spool, master_key=master_key(settings))
            s, aside = journal.status(), journal.quarantined()
            out["journal"] = {"dir": str(spool), "waiting": s["pending"], "count": len(aside), "replay": "amber spool replay",
                              "set_aside": [_row(e.get("user"), e.get("client"), e.get("error"), e.get("quarantined_at"), [e])
                                            for e in reversed(aside[-SET_ASIDE_SHOWN:])]}
        except (OSError, RuntimeError, AmberError) as e:  # RuntimeError: sealed under another master key
            out["journal"] = {"dir": str(spool), "error": f"{type(e).__name__}: {e}"}
    if queue is not None:
        try:
            aside = queue.set_aside()
            out["queue"] = {"waiting": queue.status().get("waiting"), "count": len(aside), "replay": "POST /v1/capture/replay",
                            "set_aside": [{**_row(i["user"], None, i["error"], i["set_aside_at"], i["entries"]), "id": i["id"]}
                                          for i in reversed(aside[-SET_ASIDE_SHOWN:])]}
        except Exception as e:  # Redis away: said, not raised
            out["queue"] = {"error": f"{type(e).__name__}: {e}"}
    return out


@router.get("/capture/set-aside", tags=["admin"], summary="Captured turns set aside: the proxy's journal and the shared capture queue (admin)")
async def set_aside(request: Request) -> dict:
    _admin(request)
    app = request.app
    return await asyncio.to_thread(_set_aside, app.state.amber_settings, getattr(app.state, "amber_capture_queue", None))


@router.post("/capture/replay", tags=["admin"], summary="Put the shared capture queue's set-aside turns back on the queue (admin)")
async def replay_set_aside(request: Request, user: str | None = None) -> dict:
    """The hosts store them like any other entry (an entry stored already is stored once). The
    proxy's journal is replayed on its machine: `amber spool replay`."""
    identity = _admin(request)
    queue = getattr(request.app.state, "amber_capture_queue", None)
    if queue is None:
        raise InvalidInput("queue", "this host has no shared capture queue (no redis_url); the proxy's journal is replayed with `amber spool replay`")
    moved = await asyncio.to_thread(queue.replay, user)
    log.info("capture queue: %d set-aside entries put back by key %s", moved, identity.key_name)
    return {"replayed": moved}
