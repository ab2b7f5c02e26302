"""Consolidation under the destination policy (core/destinations.py), through LiteLLM and the
scripted upstream, on a real Chroma store: what reaches the job's model, and how what it writes is marked.

The host-only words are written where each path would carry them: a health memory and the turn it
was taken from, a precious quote and its turn, a private memory, a digest a host model marked."""

from __future__ import annotations

import json
import logging
from datetime import UTC, datetime, timedelta

from core import MemoryIn, Status
from core.jobs.runner import arun_job
from tests.jobs.jobs_helpers import say

NIGHT = datetime(2026, 3, 5, 3, 30, tzinfo=UTC)
HOST_ONLY_WORDS = ("endocrinologist", "metformin", "tidepool", "Zanzibar", "glucose")
OPEN_WORDS = ("Porto", "ferry timetable", "carpentry")


def plan(**over):
    return {"retire": [], "precious": [], "digest": "", "daily_log": "", **over}


def wire(upstream) -> str:
    """Everything the model was sent, as sent."""
    return json.dumps(upstream.requests[-1])


def setup_day(service, clock, scope):
    """Yesterday's turns and the memories taken from them; returns the turns."""
    clock.set(NIGHT - timedelta(hours=9))
    turns = say(service, scope, clock,
                ("user", "My endocrinologist switched me to metformin twice a day."),       # m1: a health memory's source
                ("assistant", "Noted, that is a common change."),
                ("user", "Grandma always said: the tidepool keeps what the tide forgets."),  # m3: a precious quote's source
                ("user", "Booked the Porto trip and printed the ferry timetable."),          # m4: ordinary
                ("user", "Signed up for a carpentry course on Saturdays."))                   # m5: ordinary
    service.remember(scope, MemoryIn(content="Takes metformin twice a day", tags=["health"], importance=0.9, source_ids=[turns[0].id]))
    service.precious_add(scope, "the tidepool keeps what the tide forgets", source_ids=[turns[2].id])
    service.remember(scope, MemoryIn(content="Diary: still dreams about Zanzibar", tags=["private"], importance=0.9))
    service.remember(scope, MemoryIn(content="Is planning a trip to Porto", importance=0.8))
    service.digest_set(scope, "Checks glucose every morning; plans a Porto trip.", ["host-only"])
    clock.set(NIGHT)
    return turns


async def test_a_model_off_the_host_reads_no_host_only_item_nor_the_turns_they_came_from(service, clock, alice, settings, llm, upstream):
    setup_day(service, clock, alice)
    upstream.push(plan(precious=[{"ref": "m2", "text": "Booked the Porto trip"}], digest="Plans a Porto trip.",
                       daily_log="Booked a trip; started carpentry."))
    rec = await arun_job("consolidate", service, settings, llm=llm)
    assert rec["status"] == "ok" and len(upstream.requests) == 1
    sent = wire(upstream)
    assert all(w in sent for w in OPEN_WORDS)
    assert not [w for w in HOST_ONLY_WORDS if w in sent]
    day = upstream.requests[-1]["messages"][-1]["content"].split("Yesterday (")[1]
    assert "m3 [" in day and "m4 [" not in day  # three of the day's five turns
    # nothing it read was host-only: what it wrote is not marked
    digest = service.digest_get(alice)
    assert digest.content == "Plans a Porto trip." and "host-only" not in digest.tags
    [log] = service.list(alice, kind="daily_log", status=Status.active).items
    assert "host-only" not in log.tags
    quotes = {m.content: m for m in service.precious_list(alice)}
    assert "host-only" not in quotes["Booked the Porto trip"].tags
    # the marked digest it replaced is kept as a version, not lost
    assert any("glucose" in m.content for m in service.list(alice, kind="digest", status=Status.superseded).items)


async def test_a_model_on_the_host_reads_them_and_what_it_writes_stays_on_the_host(service, clock, alice, settings, llm, upstream):
    setup_day(service, clock, alice)
    on_host = settings.model_copy(update={"host_models": ["openai/fake-*"]})
    upstream.push(plan(precious=[{"ref": "m1", "text": "switched me to metformin"}, {"ref": "m4", "text": "Booked the Porto trip"}],
                       digest="Takes metformin; plans a Porto trip.", daily_log="Medication change; booked a trip."))
    rec = await arun_job("consolidate", service, on_host, llm=llm)
    assert rec["status"] == "ok"
    sent = wire(upstream)
    # the private memory and the precious quote's memory are not among the kinds consolidation shows;
    # the quote's turn and the health memory, its turn and the marked digest are
    for w in ("endocrinologist", "metformin", "tidepool", "glucose", *OPEN_WORDS):
        assert w in sent, w
    assert "host-only" in service.digest_get(alice).tags
    [log] = service.list(alice, kind="daily_log", status=Status.active).items
    assert "host-only" in log.tags
    quotes = {m.content: m for m in service.precious_list(alice)}
    assert "host-only" in quotes["switched me to metformin"].tags  # quoted from a host-only memory's turn
    assert "host-only" not in quotes["Booked the Porto trip"].tags


async def test_a_model_that_may_receive_no_memory_is_not_called_and_the_run_says_so(service, clock, alice, settings, llm, upstream, caplog):
    setup_day(service, clock, alice)
    ended = service.remember(alice, MemoryIn(content="Is renovating the kitchen", importance=0.6, valid_to=NIGHT - timedelta(days=1))).memory
    denied = settings.model_copy(update={"memory_models_deny": ["openai/*"]})
    with caplog.at_level(logging.WARNING, logger="amber.jobs"):
        rec = await arun_job("consolidate", service, denied, llm=llm)
    assert upstream.requests == [] and rec["llm_calls"] == 0
    assert any("consolidation model skipped" in e and "may not receive memory" in e for e in rec["errors"])
    assert "may not receive memory" in caplog.text
    assert service.get(alice, ended.id).status == Status.archived and rec["counts"]["archived"] == 1  # the rules ran


async def test_a_denied_model_is_known_by_what_its_name_lands_on(service, clock, alice, settings, upstream):
    """The job's model is read as the hook reads a request's: the deployments behind a proxy group
    ("fake-model" over openai/fake-model) and, called directly, the provider LiteLLM reads from the
    name ("gpt-4o-mini" is openai's). Before, only the name was read, and "openai/*" denied neither."""
    from litellm import Router

    from core.llm import LiteLLMClient

    setup_day(service, clock, alice)
    denied = settings.model_copy(update={"memory_models_deny": ["openai/*"]})
    group = Router(model_list=[{"model_name": "fake-model", "litellm_params": {"model": "openai/fake-model", "api_base": upstream.base_url,
                                                                                 "api_key": "sk-test-fake"}}])
    for llm in (LiteLLMClient("fake-model", router_getter=lambda: group, timeout=10),
                LiteLLMClient("gpt-4o-mini", api_base=upstream.base_url, api_key="sk-test-fake", timeout=10)):
        for job in ("consolidate", "extract"):
            rec = await arun_job(job, service, denied, llm=llm)
            assert rec["llm_calls"] == 0 and any("may not receive memory" in e for e in rec["errors"]), (llm.model, job, rec)
    assert upstream.requests == []
