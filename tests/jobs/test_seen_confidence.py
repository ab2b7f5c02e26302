"""A fact gets surer (seen count, confidence) only when the person states it again themselves:
never on an assistant's retelling, nor on the person quoting or pasting back earlier turns. Real
Chroma, real LiteLLM, a scripted upstream on 127.0.0.1."""

from __future__ import annotations

from core.jobs.extraction.decide import independent_statement
from core.jobs.runner import arun_job
from tests.jobs.jobs_helpers import fact, facts, say


def city(service, scope):
    [m] = [m for m in service.list(scope, status=None, limit=50).items if m.fact_key == "profile.city"]
    return m


async def test_only_the_persons_own_restatement_raises_a_facts_confidence(service, clock, alice, settings, llm, upstream):
    say(service, alice, clock, ("user", "I live in Hangzhou."), ("assistant", "Hangzhou is lovely."))
    upstream.push(facts(fact("Lives in Hangzhou", "profile.city", confidence=0.8)))
    await arun_job("extract", service, settings, llm=llm)
    assert (city(service, alice).seen_count, city(service, alice).confidence) == (1, 0.8)

    retellings = [
        (("user", "What do you know about me?"), ("assistant", "You live in Hangzhou and like tea."), "m2"),  # the assistant says it
        (("user", 'You wrote "you live in Hangzhou with a view of the lake". Is that from my notes?'), ("assistant", "Yes."), "m1"),  # a quote
        (("assistant", "Summary: You live in Hangzhou."), ("user", "Summary: You live in Hangzhou."), "m2"),  # pasted back
    ]
    for i, (a, b, ref) in enumerate(retellings):
        clock.advance(hours=4)
        say(service, alice, clock, a, b, prefix=f"retell{i}")
        upstream.push(facts(fact("Lives in Hangzhou", "profile.city", evidence=(ref,))))
        rec = await arun_job("extract", service, settings, llm=llm)
        assert rec["facts"]["seen"] == 1
        assert (city(service, alice).seen_count, city(service, alice).confidence) == (1, 0.8), a

    clock.advance(hours=4)
    say(service, alice, clock, ("user", "Still living in Hangzhou, near the West Lake."), prefix="again")
    upstream.push(facts(fact("Lives in Hangzhou", "profile.city")))
    await arun_job("extract", service, settings, llm=llm)
    assert (city(service, alice).seen_count, city(service, alice).confidence) == (2, 0.9)


def test_independent_statement_in_english_and_chinese():
    assert independent_statement("Lives in Hangzhou", [("user", "I live in Hangzhou now")], [])
    assert independent_statement("用户住在杭州", [("user", "我现在住在杭州")], [])
    assert not independent_statement("Lives in Hangzhou", [("assistant", "You live in Hangzhou")], [])
    assert not independent_statement("用户住在杭州", [("user", "你之前说「你住在杭州西湖边」，对吗")], [])
    assert not independent_statement("Lives in Hangzhou", [("user", "> You live in Hangzhou.\nok")], [])
    assert not independent_statement("Lives in Hangzhou", [("user", "So you live in Hangzhou.")], ["So you live in Hangzhou."])


async def test_a_memory_says_whose_words_it_holds_and_becomes_the_persons_when_they_say_it(service, clock, alice, settings, llm, upstream):
    """Extracted from an assistant's reply: tagged and shown as "assistant said"; the person stating it
    themselves later makes it "user said"."""
    say(service, alice, clock, ("user", "Which tea should I buy?"), ("assistant", "You like oolong tea from Fujian."))
    upstream.push(facts(fact("Likes oolong tea from Fujian", "preference.tea", evidence=("m2",))))
    await arun_job("extract", service, settings, llm=llm)
    [tea] = [m for m in service.list(alice, limit=50).items if m.fact_key == "preference.tea"]
    assert "said:assistant" in tea.tags
    assert "(fact, assistant said" in service.recall(alice, "oolong tea Fujian").text

    clock.advance(hours=4)
    say(service, alice, clock, ("user", "I really like oolong tea from Fujian."), prefix="own")
    upstream.push(facts(fact("Likes oolong tea from Fujian", "preference.tea")))
    await arun_job("extract", service, settings, llm=llm)
    tea = service.get(alice, tea.id)
    assert "said:user" in tea.tags and "said:assistant" not in tea.tags
    assert "(fact, user said" in service.recall(alice, "oolong tea Fujian").text
