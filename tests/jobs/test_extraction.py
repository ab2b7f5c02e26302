"""Extraction end to end: real Chroma, real LiteLLM, a scripted upstream on 127.0.0.1."""

from __future__ import annotations

import pytest

from core import Status
from core.jobs.runner import arun_job, list_runs
from core.jobs.registry import get_cursor, get_windows
from tests.jobs.jobs_fake_llm import Fail
from tests.jobs.jobs_helpers import fact, facts, say


class Crash(BaseException):
    """Stands in for the worker dying (like KeyboardInterrupt, it is not caught as an error)."""


def windows_of(service, user):
    return sorted(get_windows(service.store, user), key=lambda w: w["start"]["ts"])


def all_memories(service, scope):
    return service.list(scope, status=None, limit=500).items


async def test_extract_twice_on_the_same_log_makes_no_duplicates(service, clock, alice, settings, llm, upstream):
    say(service, alice, clock, ("user", "I'm Ana, a nurse in Lisbon."), ("assistant", "Nice to meet you, Ana!"),
        ("user", "I drink my coffee black."))
    upstream.push(facts(fact("Name is Ana", "profile.name"), fact("Works as a nurse", "profile.job"),
                        fact("Drinks coffee black", "preference.coffee", evidence=("m3",))))
    rec = await arun_job("extract", service, settings, llm=llm)
    assert rec["status"] == "ok" and rec["facts"]["added"] == 3 and rec["llm_calls"] == 1
    assert rec["prompt_tokens"] > 0 and rec["windows"]["processed"] == 1
    # window <-> memory links, both ways
    [w] = windows_of(service, "alice")
    mems = all_memories(service, alice)
    assert set(w["links"].values()) == {m.id for m in mems}
    assert all(f"window:{w['id']}" in m.source_ids and set(m.source_ids) & set(w["message_ids"]) for m in mems)

    again = await arun_job("extract", service, settings, llm=llm)  # nothing new past the cursor
    assert again["llm_calls"] == 0 and len(upstream.requests) == 1
    # the same turns re-sent by a client are not new messages either
    say(service, alice, clock, ("user", "I'm Ana, a nurse in Lisbon."), prefix="msg")
    assert len(all_memories(service, alice)) == 3

    # a later window that restates the same facts marks them seen instead of copying them
    clock.advance(hours=4)
    say(service, alice, clock, ("user", "As I said, I'm Ana and I drink coffee black."), prefix="later")
    upstream.push(facts(fact("Name is Ana", "profile.name"), fact("Drinks coffee black", "preference.coffee")))
    rec = await arun_job("extract", service, settings, llm=llm)
    assert rec["facts"] == {"added": 0, "seen": 2, "superseded": 0, "candidates": 0, "dropped": 0}
    mems = all_memories(service, alice)
    assert len(mems) == 3 and {m.seen_count for m in mems if m.fact_key == "profile.name"} == {2}
    assert [r["id"] for r in list_runs(service, 10, "extract")][0] == rec["id"]


async def test_first_run_reads_only_the_current_window_unless_backfill(service, clock, alice, settings, llm, upstream):
    say(service, alice, clock, *[("user", f"note {i}") for i in range(100)])
    upstream.push(facts())
    await arun_job("extract", service, settings, llm=llm)
    wins = windows_of(service, "alice")
    assert len(wins) == 1 and len(wins[0]["message_ids"]) == 40 and wins[0]["message_ids"][-1] == "msg-0099"
    assert "note 59" not in upstream.requests[0]["messages"][-1]["content"]
    assert "note 60" in upstream.requests[0]["messages"][-1]["content"]


async def test_crash_mid_window_then_rerun_converges(service, clock, alice, settings, llm, upstream):
    say(service, alice, clock, *[("user", f"Line {i}: I keep bees and brew mead.") for i in range(50)])
    answer = facts(fact("Keeps bees", "project.bees", category="project"), fact("Brews mead", "skill.mead", category="skill"),
                   fact("Enjoys early mornings", None, category="preference", evidence=("m2",)))
    upstream.push(answer)
    seen_facts = []

    def die_after_first_fact(event):
        if event.get("stage") == "fact":
            seen_facts.append(event)
            raise Crash()

    with pytest.raises(Crash):
        await arun_job("extract", service, settings, llm=llm, progress=die_after_first_fact, backfill=True)
    first = windows_of(service, "alice")
    assert [w["state"] for w in first] == ["processing", "pending"]
    assert get_cursor(service.store, "extract", "alice") is None
    assert len(all_memories(service, alice)) == 1

    # the window is not abandoned yet: a run right away leaves it alone (the worker might still be alive)
    rec = await arun_job("extract", service, settings, llm=llm)
    assert rec["llm_calls"] == 0 and windows_of(service, "alice")[0]["state"] == "processing"

    clock.advance(minutes=31)
    upstream.push(answer, facts(fact("Keeps bees", "project.bees", category="project")))
    rec = await arun_job("extract", service, settings, llm=llm)
    assert rec["windows"]["recovered"] == 1 and rec["windows"]["processed"] == 2 and rec["llm_calls"] == 2
    wins = windows_of(service, "alice")
    assert [w["state"] for w in wins] == ["processed", "processed"] and wins[0]["retry_count"] == 1
    mems = all_memories(service, alice)
    assert sorted(m.content for m in mems) == ["Brews mead", "Enjoys early mornings", "Keeps bees"]
    bees = next(m for m in mems if m.fact_key == "project.bees")
    assert bees.seen_count == 2  # once more from window 2, not again from the retried window 1
    assert get_cursor(service.store, "extract", "alice")["id"] == "msg-0049"
    # every message was offered to the model: window 2 starts right after window 1
    assert "Line 40:" in upstream.requests[-1]["messages"][-1]["content"]


async def test_model_error_leaves_cursor_and_counts_retries_then_fails(service, clock, alice, settings, llm, upstream):
    say(service, alice, clock, ("user", "I'm allergic to peanuts."))
    upstream.push(Fail(500))
    rec = await arun_job("extract", service, settings, llm=llm)
    assert rec["status"] == "partial" and rec["windows"]["retried"] == 1 and rec["errors"]
    [w] = windows_of(service, "alice")
    assert w["state"] == "pending" and w["retry_count"] == 1
    assert get_cursor(service.store, "extract", "alice") is None

    upstream.push("Sure! Here are the facts: peanuts.")  # not JSON: a model error too
    await arun_job("extract", service, settings, llm=llm)
    [w] = windows_of(service, "alice")
    assert w["state"] == "pending" and w["retry_count"] == 2

    upstream.push(facts(fact("Allergic to peanuts", "profile.allergy", category="health")))  # not a category
    rec = await arun_job("extract", service, settings, llm=llm)
    [w] = windows_of(service, "alice")
    assert w["state"] == "failed" and w["retry_count"] == 3 and "category" in w["error"]
    assert rec["windows"]["failed"] == 1
    assert all_memories(service, alice) == []
    # a failed window is final: the log moves on, the next run does not call the model for it again
    assert get_cursor(service.store, "extract", "alice")["id"] == w["message_ids"][-1]
    assert (await arun_job("extract", service, settings, llm=llm))["llm_calls"] == 0
    assert len(upstream.requests) == 3


async def test_evidence_must_point_into_the_window(service, clock, alice, settings, llm, upstream):
    say(service, alice, clock, ("user", "I play the cello."))
    upstream.push(facts(fact("Plays the cello", "skill.music", category="skill", evidence=("m7",))))
    await arun_job("extract", service, settings, llm=llm)
    [w] = windows_of(service, "alice")
    assert w["retry_count"] == 1 and "m7" in w["error"]


async def test_moving_city_supersedes_and_old_city_is_never_recalled(service, clock, alice, settings, llm, upstream):
    say(service, alice, clock, ("user", "I live in Beijing, near the Temple of Heaven."))
    upstream.push(facts(fact("Lives in Beijing", "profile.city")))
    await arun_job("extract", service, settings, llm=llm)
    old = service.list(alice).items[0]

    clock.advance(days=30)
    say(service, alice, clock, ("user", "I moved from Beijing to Shanghai last week."))
    upstream.push(facts(fact("Lives in Shanghai (moved from Beijing)", "profile.city")))
    rec = await arun_job("extract", service, settings, llm=llm)
    assert rec["facts"]["superseded"] == 1

    retired = service.get(alice, old.id)
    assert retired.status == Status.superseded and retired.superseded_by
    current = service.get(alice, retired.superseded_by)
    assert current.status == Status.active and current.fact_key == "profile.city"
    for q in ("Which city does the user live in?", "Beijing", "Lives in Beijing"):
        hits = [c for c in service.search(alice, q) if c.source == "memory"]
        assert old.id not in {c.id for c in hits}
        assert all(c.text != "Lives in Beijing" for c in hits)
    assert current.id in {c.id for c in service.search(alice, "Which city does the user live in? Shanghai")}
    assert "Lives in Beijing" not in service.recall(alice, "where do I live").text


async def test_chinese_facts_stay_chinese(service, clock, alice, settings, llm, upstream):
    say(service, alice, clock, ("user", "我搬到上海了，现在每天坐地铁上班。"))
    upstream.push(facts(fact("住在上海", "profile.city", lang="zh"), fact("每天坐地铁上班", None, category="profile", lang="zh")))
    await arun_job("extract", service, settings, llm=llm)
    mems = service.list(alice).items
    assert {m.content for m in mems} == {"住在上海", "每天坐地铁上班"} and {m.lang for m in mems} == {"zh"}
    sent = upstream.requests[0]["messages"]
    assert "我搬到上海了" in sent[-1]["content"] and "女儿叫小雨" in sent[0]["content"]  # zh example in the prompt
    assert upstream.requests[0]["response_format"]["type"] == "json_schema"


async def test_low_confidence_goes_to_review_then_approve_merge_discard(service, clock, alice, settings, llm, upstream):
    say(service, alice, clock, ("user", "I live in Porto."), ("user", "maybe I'll get a cat, who knows"),
        ("user", "I might be vegetarian now? not sure"), ("user", "I guess I like jazz"))
    upstream.push(facts(
        fact("Lives in Porto", "profile.city"),
        fact("Lives in Porto city", None, category="profile", confidence=0.5),
        fact("Is vegetarian", "preference.diet", confidence=0.6, evidence=("m3",)),
        fact("Likes jazz", "preference.music", confidence=0.7, evidence=("m4",)),
        fact("Said hello", None, importance=0.1),
    ))
    rec = await arun_job("extract", service, settings, llm=llm)
    assert rec["facts"]["candidates"] == 3 and rec["facts"]["added"] == 1 and rec["facts"]["dropped"] == 1
    queue = {m.content: m for m in service.candidates(alice)}
    assert set(queue) == {"Lives in Porto city", "Is vegetarian", "Likes jazz"}
    assert {m.content for m in service.list(alice).items} == {"Lives in Porto"}

    approved = service.candidate(alice, queue["Likes jazz"].id, "approve")
    assert approved.memory.status == Status.active and approved.memory.fact_key == "preference.music"
    porto = service.list(alice, text="Lives in Porto").items[0]
    merged = service.candidate(alice, queue["Lives in Porto city"].id, "merge", porto.id).memory
    assert merged.seen_count == 2
    service.candidate(alice, queue["Is vegetarian"].id, "discard")
    assert service.candidates(alice) == []
    assert {m.content for m in service.list(alice).items} == {"Lives in Porto", "Likes jazz"}


async def test_low_confidence_new_value_does_not_retire_the_stated_one(service, clock, alice, settings, llm, upstream):
    say(service, alice, clock, ("user", "I work at the bakery."))
    upstream.push(facts(fact("Works at the bakery", "profile.job")))
    await arun_job("extract", service, settings, llm=llm)
    say(service, alice, clock, ("user", "haha maybe I'll become an astronaut"), prefix="joke")
    upstream.push(facts(fact("Works as an astronaut", "profile.job", confidence=0.3)))
    await arun_job("extract", service, settings, llm=llm)
    assert [m.content for m in service.list(alice).items] == ["Works at the bakery"]
    [cand] = service.candidates(alice)
    assert cand.content == "Works as an astronaut"
    service.candidate(alice, cand.id, "supersede", service.list(alice).items[0].id)
    assert [m.content for m in service.list(alice).items] == ["Works as an astronaut"]


async def test_two_workers_one_run(service, clock, alice, settings, llm, upstream):
    import asyncio

    say(service, alice, clock, ("user", "I run marathons."))
    upstream.push(facts(fact("Runs marathons", "skill.running", category="skill")))
    a, b = await asyncio.gather(arun_job("extract", service, settings, llm=llm), arun_job("extract", service, settings, llm=llm))
    assert sorted([a["status"], b["status"]]) == ["ok", "skipped"]
    assert len(upstream.requests) == 1 and len(service.list(alice).items) == 1
    # the lease is released at the end: the next run goes ahead
    assert (await arun_job("extract", service, settings, llm=llm))["status"] == "ok"


async def test_users_are_extracted_separately(service, clock, alice, bob, settings, llm, upstream):
    say(service, alice, clock, ("user", "I'm a pilot."))
    say(service, bob, clock, ("user", "I'm a baker."))

    def answer(body):
        text = body["messages"][-1]["content"]
        return facts(fact("Is a pilot" if "pilot" in text else "Is a baker", "profile.job"))

    upstream.default = answer
    rec = await arun_job("extract", service, settings, llm=llm)
    assert rec["users"] == 2 and rec["facts"]["added"] == 2
    assert [m.content for m in service.list(alice).items] == ["Is a pilot"]
    assert [m.content for m in service.list(bob).items] == ["Is a baker"]
    # one user named by hand
    say(service, bob, clock, ("user", "Actually I'm a pastry chef now."), prefix="bob2")
    upstream.default = lambda body: facts(fact("Is a pastry chef", "profile.job"))
    rec = await arun_job("extract", service, settings, llm=llm, user="bob")
    assert rec["users"] == 1 and rec["facts"]["superseded"] == 1


async def test_a_fact_repeated_in_one_answer_is_stored_once_and_counted_seen(service, clock, alice, settings, llm, upstream):
    say(service, alice, clock, ("user", "I live in Lisbon."), ("user", "Yes, Lisbon, I live there."))
    upstream.push(facts(fact("Lives in Lisbon", "profile.city"), fact("Lives in Lisbon", "profile.city", evidence=("m2",))))
    rec = await arun_job("extract", service, settings, llm=llm)
    assert rec["facts"]["added"] == 1 and rec["facts"]["seen"] == 1
    [m] = all_memories(service, alice)
    assert m.seen_count == 2


async def test_crash_after_a_seen_fact_does_not_count_it_twice(service, clock, alice, settings, llm, upstream):
    say(service, alice, clock, ("user", "I'm a violinist."))
    upstream.push(facts(fact("Plays the violin", "skill.violin", category="skill")))
    await arun_job("extract", service, settings, llm=llm)
    clock.advance(hours=4)
    say(service, alice, clock, ("user", "Violin practice again, and I started learning Greek."), prefix="later")
    answer = facts(fact("Plays the violin", "skill.violin", category="skill"), fact("Learning Greek", "skill.greek", category="skill"))
    upstream.push(answer, answer)

    def die_after_first_fact(event):
        if event.get("stage") == "fact":
            raise Crash()

    with pytest.raises(Crash):
        await arun_job("extract", service, settings, llm=llm, progress=die_after_first_fact)
    clock.advance(minutes=31)
    rec = await arun_job("extract", service, settings, llm=llm)
    assert rec["facts"] == {"added": 1, "seen": 0, "superseded": 0, "candidates": 0, "dropped": 0}
    violin = service.list(alice, text="violin").items[0]
    assert violin.seen_count == 2 and len(all_memories(service, alice)) == 2


async def test_a_run_for_one_person_never_holds_back_everybody_elses(service, clock, alice, bob, settings, llm, upstream):
    """An import's extraction now (a run for one person, maybe hours long) holds that person's lease,
    not the job's: a run for everybody meanwhile goes ahead without that person; and a run for one
    person does not start while a run for everybody holds the job."""
    from datetime import timedelta

    from core.jobs.registry import acquire_lease, release_lease
    from core.jobs.runner import person_lease

    say(service, alice, clock, ("user", "I'm a pilot."))
    say(service, bob, clock, ("user", "I'm a baker."))
    upstream.default = lambda body: facts(fact("Is a pilot" if "pilot" in body["messages"][-1]["content"] else "Is a baker", "profile.job"))
    # alice's own run is in progress (another worker holds her lease)
    assert acquire_lease(service.store, person_lease("extract", alice.user_id), "import-host:1", clock.now(), timedelta(minutes=15))
    rec = await arun_job("extract", service, settings, llm=llm)
    assert rec["status"] == "ok" and rec["users"] == 1
    assert [m.content for m in service.list(bob).items] == ["Is a baker"] and service.list(alice).items == []
    assert (await arun_job("extract", service, settings, llm=llm, user=alice.user_id))["status"] == "skipped"  # hers is running
    release_lease(service.store, person_lease("extract", alice.user_id), "import-host:1")
    # everybody's run in progress: a run for alice alone waits for the next chance, and gives her lease back
    assert acquire_lease(service.store, "extract", "scheduled-host:1", clock.now(), timedelta(minutes=15))
    rec = await arun_job("extract", service, settings, llm=llm, user=alice.user_id)
    assert rec["status"] == "skipped" and service.list(alice).items == []
    release_lease(service.store, "extract", "scheduled-host:1")
    assert (await arun_job("extract", service, settings, llm=llm, user=alice.user_id))["status"] == "ok"
    assert [m.content for m in service.list(alice).items] == ["Is a pilot"]
    # and neither lease is left held
    assert (await arun_job("extract", service, settings, llm=llm))["status"] == "ok"


async def test_a_fact_from_turns_forgotten_while_the_model_answers_is_not_written(service, clock, alice, settings, llm, upstream):
    """The forget lands while the model is answering (it reads the window, then waits seconds to
    minutes): the fact taken from the erased turn was written anyway, with that turn as its evidence,
    and the forgotten words came back. Facts from turns still there are written as before."""
    say(service, alice, clock, ("user", "My passport number is Zorblax-4417."), ("assistant", "Noted."),
        ("user", "I drink my coffee black."))

    def forgot_meanwhile(body):
        service.forget(alice, "my passport number is Zorblax-4417")
        return facts(fact("Passport number is Zorblax-4417", "profile.passport", evidence=("m1",)),
                     fact("Drinks coffee black", "preference.coffee", evidence=("m3",)))

    upstream.push(forgot_meanwhile)
    rec = await arun_job("extract", service, settings, llm=llm, backfill=True)
    assert rec["status"] == "ok" and rec["facts"]["added"] == 1 and rec["facts"]["dropped"] == 1
    assert [m.content for m in all_memories(service, alice)] == ["Drinks coffee black"]


async def test_a_fact_whose_turn_is_forgotten_while_it_is_embedded_is_not_written(service, clock, alice, settings, llm, upstream):
    """The evidence check and the writes are one step under the person's lock: a forget landing after
    the model answered, while the facts are embedded, cannot slip between them."""
    say(service, alice, clock, ("user", "My sister is called Zorblatine."), ("assistant", "Nice."), ("user", "I drink my coffee black."))
    embed = service.embed_background

    def embed_then_forget(texts):
        out = embed(texts)
        if any("Zorblatine" in t for t in texts):
            service.forget(alice, "my sister is called Zorblatine")  # the person, meanwhile, on another face
        return out

    service.embed_background = embed_then_forget
    upstream.push(facts(fact("Has a sister called Zorblatine", "relationship.sister_name", evidence=("m1",)),
                        fact("Drinks coffee black", "preference.coffee", evidence=("m3",))))
    rec = await arun_job("extract", service, settings, llm=llm, backfill=True)
    assert rec["status"] == "ok" and rec["facts"]["added"] == 1 and rec["facts"]["dropped"] == 1, rec
    assert [m.content for m in all_memories(service, alice)] == ["Drinks coffee black"]
