"""Scheduling on a real APScheduler, the sync entry point, and LLM calls through a LiteLLM Router."""

from __future__ import annotations

import asyncio
import os
from datetime import UTC, datetime
from pathlib import Path

import litellm
import pytest
from apscheduler.schedulers.asyncio import AsyncIOScheduler
from litellm.integrations.custom_logger import CustomLogger

from core import InvalidInput, LLMError, Settings
from core.jobs.runner import list_runs, register_jobs, run_job
from core.llm import LiteLLMClient
from tests.jobs.jobs_helpers import fact, facts, say

ROOT = Path(__file__).resolve().parents[2]


async def test_register_jobs_on_an_asyncio_scheduler_and_fire_one(service, clock, alice, tmp_path):
    settings = Settings(data_dir=tmp_path / "x", timezone="Asia/Shanghai", consolidate_cron="0 2 * * *")
    scheduler = AsyncIOScheduler(timezone="UTC")
    ids = register_jobs(scheduler, service, settings)
    assert ids == ["amber-extract", "amber-consolidate", "amber-retention"]
    assert register_jobs(scheduler, service, settings) == ids  # replace_existing: no duplicates
    scheduler.start()
    try:
        jobs = {j.id: j for j in scheduler.get_jobs()}
        assert set(jobs) == set(ids)
        assert str(jobs["amber-extract"].trigger.timezone) == "Asia/Shanghai"
        assert "hour='*/4'" in str(jobs["amber-extract"].trigger) and "hour='2'" in str(jobs["amber-consolidate"].trigger)
        # fire retention now (it needs no model) and wait for its run record
        scheduler.modify_job("amber-retention", next_run_time=datetime.now(UTC))
        for _ in range(200):
            runs = list_runs(service, 5, "retention")
            if runs and runs[0]["status"] != "running":
                break
            await asyncio.sleep(0.05)
        assert runs and runs[0]["status"] == "ok"
    finally:
        scheduler.shutdown(wait=False)


def test_run_job_by_hand_with_progress(service, clock, alice, settings, llm, upstream):
    say(service, alice, clock, ("user", "I teach maths at a high school."))
    upstream.push(facts(fact("Teaches maths at a high school", "profile.job")))
    events = []
    rec = run_job("extract", service, settings, llm=llm, user="alice", progress=events.append)
    assert rec["status"] == "ok" and rec["facts"]["added"] == 1
    stages = [e["stage"] for e in events]
    assert stages[0] == "user" and "planned" in stages and "fact" in stages and stages[-1] == "done"
    with pytest.raises(InvalidInput):
        run_job("dream", service, settings)


async def test_run_job_from_inside_a_running_loop(service, settings):
    rec = run_job("retention", service, settings)  # the CLI helper must not trip over a host's loop
    assert rec["status"] == "ok"


class _Seen(CustomLogger):
    def __init__(self):
        super().__init__()
        self.metadata = []

    async def async_log_success_event(self, kwargs, response_obj, start_time, end_time):
        self.metadata.append((kwargs.get("litellm_params") or {}).get("metadata") or {})


async def test_calls_go_through_the_proxy_router_tagged_internal(upstream):
    router = litellm.Router(model_list=[{"model_name": "amber-jobs", "litellm_params": {
        "model": "openai/fake-model", "api_base": upstream.base_url, "api_key": "sk-test-fake"}}])
    client = LiteLLMClient("amber-jobs", router_getter=lambda: router, timeout=10)
    seen = _Seen()
    litellm.callbacks.append(seen)
    try:
        upstream.push({"facts": []})
        text, usage = await client.complete([{"role": "user", "content": "hello"}], json_schema={"type": "object"}, purpose="amber-extract")
        assert text == '{"facts": []}' and usage["prompt_tokens"] > 0 and usage["cost"] == 0.0
        assert upstream.requests[-1]["model"] == "fake-model"
        for _ in range(100):
            if seen.metadata:
                break
            await asyncio.sleep(0.02)
        assert seen.metadata and seen.metadata[0].get("amber_internal") is True
        assert seen.metadata[0].get("amber_purpose") == "amber-extract"
    finally:
        litellm.callbacks.remove(seen)


async def test_llm_errors_are_transient_amber_errors(upstream):
    dead = LiteLLMClient("openai/fake-model", api_base="http://127.0.0.1:9/v1", api_key="sk-x", timeout=2)
    with pytest.raises(LLMError):
        await dead.complete([{"role": "user", "content": "hi"}])
    no_router = LiteLLMClient("openai/fake-model", router_getter=lambda: None, api_base=upstream.base_url, api_key="sk-x")
    upstream.push("plain text is fine without a schema")
    text, _ = await no_router.complete([{"role": "user", "content": "hi"}])
    assert text.startswith("plain text")


async def test_a_model_the_proxy_does_not_serve_is_called_directly(upstream):
    router = litellm.Router(model_list=[{"model_name": "other-group", "litellm_params": {
        "model": "openai/other", "api_base": "http://127.0.0.1:9/v1", "api_key": "sk-x"}}])
    client = LiteLLMClient("openai/fake-model", router_getter=lambda: router, api_base=upstream.base_url, api_key="sk-x")
    upstream.push("direct")
    text, _ = await client.complete([{"role": "user", "content": "hi"}])
    assert text == "direct" and upstream.requests[-1]["model"] == "fake-model"


async def test_a_dead_workers_lease_expires(service, clock, settings):
    from datetime import timedelta

    from core.jobs.runner import arun_job
    from core.jobs.registry import acquire_lease

    # another worker took the lease and died without releasing it
    assert acquire_lease(service.store, "retention", "other-host:1", clock.now(), timedelta(minutes=15))
    rec = await arun_job("retention", service, settings)
    assert rec["status"] == "skipped" and "lease" in rec["reason"]
    clock.advance(minutes=16)
    assert (await arun_job("retention", service, settings))["status"] == "ok"
    assert [r["status"] for r in list_runs(service, 5, "retention")] == ["ok", "skipped"]


async def test_a_run_whose_worker_died_shows_interrupted_once_its_lease_lapses(service, clock, settings):
    """A worker killed mid-run leaves its record `running` and its lease held. While the lease holds,
    the run may still be going (it shows running, a new run is skipped); once it lapses, the record
    shows as `interrupted`, so the admin page's "run now" is not disabled for good (a record from
    before runs named their lease counts as holding the job's)."""
    from datetime import timedelta

    from core.jobs import registry
    from core.jobs.runner import RunRecord, arun_job, person_lease

    started = clock.now()
    for lease in ("retention", person_lease("retention", "ann")):  # what a killed worker leaves behind
        assert registry.acquire_lease(service.store, lease, "gone-host:4242:abc", started, timedelta(minutes=15))
        registry.save_run(service.registry, RunRecord(id=registry.new_run_id("retention", started), job="retention",
                                                      worker="gone-host:4242:abc", started_at=started.isoformat(), lease=lease).model_dump(mode="json"))
    assert [r["status"] for r in list_runs(service, 5, "retention")] == ["running", "running"]
    assert (await arun_job("retention", service, settings))["status"] == "skipped"
    clock.advance(minutes=16)
    runs = list_runs(service, 5, "retention")
    dead = [r for r in runs if r["worker"].startswith("gone-host")]
    assert [r["status"] for r in dead] == ["interrupted", "interrupted"] and all("worker stopped" in r["reason"] for r in dead)
    old = registry.new_run_id("retention", started)  # written before runs named their lease
    registry.save_run(service.registry, {**RunRecord(id=old, job="retention", worker="gone-host:1:x", started_at=started.isoformat()).model_dump(mode="json"),
                                         "lease": None})
    assert [r["status"] for r in list_runs(service, 5, "retention") if r["id"] == old] == ["interrupted"]
    assert (await arun_job("retention", service, settings))["status"] == "ok"
    assert [r["status"] for r in list_runs(service, 5, "retention")][0] == "ok"


async def test_a_run_that_ended_while_the_list_was_read_keeps_its_own_status(service, clock, settings, monkeypatch):
    """The list is read, then the run saves its last record and lets its lease go: the free lease
    must not turn the finished run into an interrupted one (the record is read again first)."""
    from core.jobs import registry
    from core.jobs.runner import arun_job

    rec = await arun_job("retention", service, settings)
    assert rec["status"] == "ok"
    read = registry.list_runs
    monkeypatch.setattr(registry, "list_runs", lambda *a, **k: [{**r, "status": "running"} if r["id"] == rec["id"] else r for r in read(*a, **k)])
    assert list_runs(service, 5, "retention")[0]["status"] == "ok"
    monkeypatch.undo()
    assert registry.list_runs(service.registry, 5, "retention")[0]["status"] == "ok"


async def test_the_runs_are_listed_as_stored_when_the_leases_cannot_be_read(service, clock, settings, monkeypatch):
    """Redis away: the jobs page still lists the runs (a running one as running), with a log line."""
    from datetime import timedelta

    from core import StoreUnavailable
    from core.jobs import registry
    from core.jobs.runner import RunRecord

    started = clock.now()
    registry.acquire_lease(service.store, "retention", "w:1:x", started, timedelta(minutes=15))
    registry.save_run(service.registry, RunRecord(id=registry.new_run_id("retention", started), job="retention", worker="w:1:x",
                                                  started_at=started.isoformat(), lease="retention").model_dump(mode="json"))

    def away(*a, **k):
        raise StoreUnavailable("Redis is not answering")

    monkeypatch.setattr(service.coordination, "leases_held", away)
    assert [r["status"] for r in list_runs(service, 5, "retention")] == ["running"]


@pytest.mark.parametrize("tz", ["CST-8", "UTC+3"])
def test_a_posix_tz_rule_in_the_environment_starts_the_jobs(tmp_path, tz):
    """`TZ=CST-8` (a valid libc zone, common on servers in China) stopped `amber serve` and every
    `amber` command: the crontab lines were checked in the process's zone, which tzlocal cannot read,
    and the error blamed the lines. They are checked in UTC and the jobs run in `timezone`."""
    import subprocess
    import sys
    import textwrap

    code = textwrap.dedent("""
        import asyncio
        from apscheduler.schedulers.asyncio import AsyncIOScheduler
        from core import Settings
        from core.jobs.runner import register_jobs

        settings = Settings(data_dir=%r, extract_cron="0 */4 * * *")

        async def main():
            scheduler = AsyncIOScheduler(event_loop=asyncio.get_running_loop(), timezone=settings.timezone)
            print(register_jobs(scheduler, None, settings))

        asyncio.run(main())
    """ % str(tmp_path))
    env = {k: v for k, v in os.environ.items() if not k.startswith("AMBER_")}
    out = subprocess.run([sys.executable, "-c", code], env={**env, "TZ": tz}, capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert out.returncode == 0, out.stderr[-2000:]
    assert "amber-extract" in out.stdout and "amber-retention" in out.stdout
