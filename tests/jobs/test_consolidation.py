"""Nightly consolidation through LiteLLM and a scripted upstream."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from core import MemoryIn, Status
from core.jobs.runner import arun_job
from core.model import Memory
from tests.jobs.jobs_fake_llm import Fail
from tests.jobs.jobs_helpers import say

NIGHT = datetime(2026, 1, 2, 3, 30, tzinfo=UTC)


def plan(**over):
    base = {"retire": [], "precious": [], "digest": "", "daily_log": ""}
    return {**base, **over}


def kinds(service, scope, kind, status=Status.active):
    return service.list(scope, kind=kind, status=status, limit=500).items


async def test_digest_daily_log_precious_and_retirements_from_scripted_output(service, clock, alice, settings, llm, upstream):
    clock.set(NIGHT - timedelta(days=200))
    old_job = service.remember(alice, MemoryIn(content="Works at a bank", importance=0.7)).memory
    clock.set(NIGHT - timedelta(hours=10))  # yesterday, 17:30 UTC
    say(service, alice, clock, ("user", "Started at the data startup today. My mentor said: slow is smooth, smooth is fast."),
        ("assistant", "Congratulations on the new job!"), ("user", "Thanks. I'm nervous but happy."))
    new_job = service.remember(alice, MemoryIn(content="Works as a data engineer at a startup", importance=0.8)).memory
    clock.set(NIGHT)

    long_digest = ("Data engineer at a startup since yesterday, nervous but happy. " * 12).strip()
    assert len(long_digest) > 500
    upstream.push(plan(
        retire=[old_job.id, "no-such-id"],
        precious=[{"ref": "m1", "text": "slow is smooth, smooth is fast"},
                  {"ref": "m3", "text": "I am thrilled beyond words"},  # not in the message: not verbatim
                  {"ref": "m2", "text": "Congratulations on the new job!"}],  # the assistant's words, not the user's
        digest=long_digest,
        daily_log="Started a new job as a data engineer; recalled a mentor's advice.",
    ))
    rec = await arun_job("consolidate", service, settings, llm=llm)
    assert rec["status"] == "ok" and rec["llm_calls"] == 1 and rec["prompt_tokens"] > 0

    digest = service.digest_get(alice)
    assert digest is not None and len(digest.content) <= 500
    assert digest.content.startswith("Data engineer at a startup since yesterday") and digest.content.endswith(".")
    [log] = kinds(service, alice, "daily_log")
    assert log.content == "2026-01-01: Started a new job as a data engineer; recalled a mentor's advice."
    assert "day:2026-01-01" in log.tags
    [quote] = kinds(service, alice, "precious")
    assert quote.content == "slow is smooth, smooth is fast" and quote.source_ids
    assert service.get(alice, old_job.id).status == Status.archived
    assert service.get(alice, new_job.id).status == Status.active
    assert rec["counts"]["retired_by_model"] == 1 and rec["counts"]["precious_added"] == 1

    # what the model was shown: the memories with ids, yesterday's turns under refs
    sent = upstream.requests[0]["messages"][-1]["content"]
    assert old_job.id in sent and "m1 [17:27] user: Started at the data startup" in sent

    # a rerun the same night rewrites yesterday's log instead of adding a second one
    upstream.push(plan(digest="Data engineer at a startup.", daily_log="First day at the startup."))
    await arun_job("consolidate", service, settings, llm=llm)
    [log] = kinds(service, alice, "daily_log")
    assert log.content == "2026-01-01: First day at the startup."
    assert service.digest_get(alice).content == "Data engineer at a startup."


async def test_precious_is_capped_at_eight_a_day(service, clock, alice, settings, llm, upstream):
    clock.set(NIGHT - timedelta(hours=5))
    say(service, alice, clock, *[("user", f"Quote number {i} is worth keeping.") for i in range(12)])
    clock.set(NIGHT)
    picks = [{"ref": f"m{i + 1}", "text": f"Quote number {i} is worth keeping."} for i in range(12)]
    upstream.push(plan(precious=picks[:8], digest="Collects quotes."), plan(precious=picks[8:], digest="Collects quotes."))
    await arun_job("consolidate", service, settings, llm=llm)
    await arun_job("consolidate", service, settings, llm=llm)
    assert len(kinds(service, alice, "precious")) == 8


async def test_rules_merge_duplicates_resolve_conflicts_archive_stale(service, clock, alice, settings, llm, upstream):
    clock.set(NIGHT - timedelta(hours=3))
    a = service.remember(alice, MemoryIn(content="Likes green tea.", importance=0.6)).memory
    b = service.remember(alice, MemoryIn(content="likes green tea!!", importance=0.6, pinned=True)).memory
    ended = service.remember(alice, MemoryIn(content="Is training for the Lisbon half marathon", importance=0.6,
                                             valid_to=NIGHT - timedelta(days=1))).memory
    # two active values under one key, as a store written before supersedes were atomic can hold them
    # (an import refuses such a file, and opening a store repairs it: written here behind both)
    t1, t2 = NIGHT - timedelta(days=40), NIGHT - timedelta(days=2)
    twins = [
        Memory(id="city-old", content="Lives in Porto", user_id="alice", fact_key="profile.city",
               category="profile", created_at=t1, updated_at=t1, valid_from=t1),
        Memory(id="city-new", content="Lives in Braga", user_id="alice", fact_key="profile.city",
               category="profile", created_at=t2, updated_at=t2, valid_from=t2),
    ]
    service.writes.write(alice, twins, embed=twins)
    clock.set(NIGHT)
    upstream.push(plan(digest="Lives in Braga; likes green tea."))
    rec = await arun_job("consolidate", service, settings, llm=llm)
    assert rec["counts"]["merged"] == 1 and rec["counts"]["conflicts_resolved"] == 1 and rec["counts"]["archived"] == 1

    survivor, dup = service.get(alice, b.id), service.get(alice, a.id)  # the pinned one survives
    assert survivor.status == Status.active and survivor.seen_count == 2
    assert dup.status == Status.superseded and dup.superseded_by == b.id
    assert service.get(alice, "city-old").status == Status.superseded
    assert service.get(alice, "city-old").superseded_by == "city-new"
    assert service.get(alice, "city-new").status == Status.active
    assert service.get(alice, ended.id).status == Status.archived
    hits = {c.id for c in service.search(alice, "green tea Porto") if c.source == "memory"}
    assert a.id not in hits and "city-old" not in hits and b.id in hits
    actions = {e.action for e in service.events(alice)}
    assert {"merge", "resolve", "archive", "digest"} <= actions


async def test_model_calls_per_user_are_bounded(service, clock, alice, settings, llm, upstream):
    clock.set(NIGHT - timedelta(hours=2))
    say(service, alice, clock, ("user", "Busy day."))
    service.remember(alice, MemoryIn(content="Has a dog named Rex"))
    clock.set(NIGHT)
    upstream.push(Fail(500), "not json at all", plan(digest="never asked for"))
    rec = await arun_job("consolidate", service, settings, llm=llm)
    assert rec["llm_calls"] == 2 and len(upstream.requests) == 2 and rec["status"] == "partial"
    assert service.digest_get(alice) is None


async def test_nothing_new_means_no_model_call(service, clock, alice, settings, llm, upstream):
    clock.set(NIGHT - timedelta(days=5))
    service.remember(alice, MemoryIn(content="Has a dog named Rex"))
    clock.set(NIGHT - timedelta(days=1))
    upstream.push(plan(digest="Has a dog named Rex."))
    await arun_job("consolidate", service, settings, llm=llm)  # no digest yet: one call
    clock.set(NIGHT)
    rec = await arun_job("consolidate", service, settings, llm=llm)  # no messages, nothing changed
    assert rec["llm_calls"] == 0 and len(upstream.requests) == 1


async def test_chinese_digest_is_cut_at_a_sentence(service, clock, alice, settings, llm, upstream):
    clock.set(NIGHT - timedelta(hours=5))  # 22:30 the day before, UTC
    say(service, alice, clock, ("user", "今天带女儿去上钢琴课了。"))
    clock.set(NIGHT)
    sentence = "住在上海，只喝茶不喝咖啡，女儿小雨在学钢琴。"
    upstream.push(plan(digest=sentence * 30, daily_log="带女儿上了钢琴课。"))
    await arun_job("consolidate", service, settings, llm=llm)
    digest = service.digest_get(alice).content
    assert len(digest) <= 500 and digest.endswith("。") and digest.startswith(sentence)
    assert kinds(service, alice, "daily_log")[0].content == "2026-01-01: 带女儿上了钢琴课。"


async def test_the_destination_policy_keeps_memory_from_the_jobs_model(service, clock, alice, settings, llm, upstream):
    """Consolidation shows the model no precious, health or private memory unless it runs on the host,
    and a model that may receive no memory is not called at all (extraction neither)."""
    clock.set(NIGHT - timedelta(hours=10))
    say(service, alice, clock, ("user", "Long day at the clinic."), ("assistant", "Rest well."))
    service.remember(alice, MemoryIn(content="Takes insulin before breakfast", tags=["health"], importance=0.9))
    service.remember(alice, MemoryIn(content="Diary: I still miss Lisbon", tags=["private"], importance=0.9))
    service.remember(alice, MemoryIn(content="Works as a nurse", importance=0.8))
    clock.set(NIGHT)
    upstream.push(plan(digest="A nurse."))
    await arun_job("consolidate", service, settings, llm=llm, now=NIGHT)
    prompt = " ".join(m["content"] for m in upstream.requests[-1]["messages"])
    assert "nurse" in prompt and "insulin" not in prompt and "Lisbon" not in prompt

    on_host = settings.model_copy(update={"host_models": ["openai/fake-*"]})
    say(service, alice, clock, ("user", "Another shift tomorrow."))
    upstream.push(plan(digest="A nurse."))
    await arun_job("consolidate", service, on_host, llm=llm, now=NIGHT + timedelta(days=1))
    assert "insulin" in " ".join(m["content"] for m in upstream.requests[-1]["messages"])
    # what it wrote from them stays on the host too: the boot pack leaves it out for other models
    assert "host-only" in service.digest_get(alice).tags

    denied = settings.model_copy(update={"memory_models_deny": ["openai/*"]})
    calls = len(upstream.requests)
    say(service, alice, clock, ("user", "Night shift again."))
    await arun_job("consolidate", service, denied, llm=llm, now=NIGHT + timedelta(days=2))
    rec = await arun_job("extract", service, denied, llm=llm)
    assert len(upstream.requests) == calls and "may not receive memory" in " ".join(rec["errors"])


async def test_a_plan_made_from_what_was_forgotten_meanwhile_is_not_applied(service, clock, alice, settings, llm, upstream):
    """The person says "forget …" on another face while the nightly model answers (a minute, often):
    its plan quotes the erased turn, and its digest and daily log retell it. Applied after the forget,
    they wrote the forgotten words back. Now the plan is dropped and the next run reads again."""
    clock.set(NIGHT - timedelta(hours=10))
    say(service, alice, clock, ("user", "My sister is called Zorblatine and she is wonderful."), ("assistant", "What a lovely name."),
        ("user", "I walked by the sea today."))
    service.remember(alice, MemoryIn(content="My sister is called Zorblatine"))
    clock.set(NIGHT)

    def forgot_meanwhile(body):
        service.forget(alice, "my sister is called Zorblatine")
        return plan(precious=[{"ref": "m1", "text": "My sister is called Zorblatine and she is wonderful."}],
                    digest="Ines has a sister called Zorblatine; she likes the sea.", daily_log="Talked about her sister Zorblatine.")

    upstream.push(forgot_meanwhile, plan(digest="Ines likes the sea.", daily_log="Walked by the sea."))
    rec = await arun_job("consolidate", service, settings, llm=llm)
    assert rec["llm_calls"] == 1 and any("changed while it answered" in e for e in rec["errors"]), rec
    every = service.list(alice, status=None, limit=500).items
    assert not [m.content for m in every if "Zorblatine" in m.content]
    rec = await arun_job("consolidate", service, settings, llm=llm)  # the next run is not skipped as "done"
    assert rec["llm_calls"] == 1 and service.digest_get(alice).content == "Ines likes the sea."
    assert "Zorblatine" not in upstream.requests[-1]["messages"][-1]["content"]


async def test_what_is_said_again_after_a_forget_is_a_new_record_and_consolidation_goes_on(service, clock, alice, settings, llm, upstream):
    """Said again after a forget, a fact derives the id of the record that was forgotten: it is stored
    under a new one (the forget's tombstone would hide it from an import, a restore), and the nightly
    plan made from it is applied, not dropped night after night as if forgotten meanwhile."""
    clock.set(NIGHT - timedelta(hours=10))
    first = service.remember(alice, MemoryIn(content="My sister is called Zorblatine")).memory
    service.forget(alice, "that my sister is called Zorblatine")
    again = service.remember(alice, MemoryIn(content="My sister is called Zorblatine")).memory
    assert again.id != first.id and service.tombstones.get(alice.user_id, again.id) is None
    say(service, alice, clock, ("user", "Zorblatine visits on Sunday."))
    clock.set(NIGHT)
    upstream.push(plan(digest="Has a sister, Zorblatine, who visits on Sundays."))
    rec = await arun_job("consolidate", service, settings, llm=llm)
    assert rec["errors"] == [] and service.digest_get(alice).content == "Has a sister, Zorblatine, who visits on Sundays."
