"""REST for the operator: the jobs' run records and "run now" (admin keys only).

Runs are the host's, not one user's (a run covers every user), so only an admin key sees them.
A run started here goes on in the background under the job's lease, exactly like a scheduled one;
the caller follows it in the run records.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query, Request
from starlette.responses import JSONResponse

from core import ADMIN, Forbidden, LiteLLMClient, arun_job, list_runs

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
