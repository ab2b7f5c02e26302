"""Explicit commands in user messages take effect at once, without an LLM."""

from __future__ import annotations

import importlib.util
import json
import random
from pathlib import Path

import pytest

from core import NotFound
from core.commands import Command, parse_command

from forget_phrasings import FORGET, NOT_FORGET, NOT_REMEMBER, REMEMBER


@pytest.mark.parametrize(
    "text, action, body",
    [
        ("Remember that my cat is called Miso.", "remember", "my cat is called Miso"),
        ("please remember: I'm allergic to peanuts", "remember", "I'm allergic to peanuts"),
        ("记住：我对花生过敏", "remember", "我对花生过敏"),
        ("请记住我下周去上海出差", "remember", "我下周去上海出差"),
        ("forget that I live in Beijing", "forget", "I live in Beijing"),
        ("忘掉我住在北京这件事", "forget", "我住在北京这件事"),
        ("Note to self: buy milk", "remember", "buy milk"),
        ("note that my train is at 9", "remember", "my train is at 9"),
        ("Make a note: dentist on Friday", "remember", "dentist on Friday"),
        ("Remember: what matters most to me is family", "remember", "what matters most to me is family"),
        ("Remember that when it rains I get migraines", "remember", "when it rains I get migraines"),
    ],
)
def test_commands_are_recognised(text, action, body):
    cmd = parse_command(text)
    assert cmd is not None and (cmd.action, cmd.text) == (action, body)


@pytest.mark.parametrize(
    "text",
    ["Do you remember my cat?", "I remember the trip", "remember me", "", "你还记得我的猫吗？",
     "Remember when we went hiking in Wales last summer", "remember the time we met in Paris", "记得我们去年去爬山吗"],
)
def test_questions_and_mentions_are_not_commands(text):
    assert parse_command(text) is None


# Issue 26: each of these did nothing, silently, and the model answered "OK, forgotten".
@pytest.mark.parametrize(
    "text, body",
    [
        ("forget my address", "my address"),
        ("Can you forget my passport number?", "my passport number"),
        ("Forget my phone number please.", "my phone number"),
        ("把我的地址忘掉", "我的地址"),
        ("忘掉我的电话号码吧", "我的电话号码"),
        ("Delete my car plate from your memory.", "my car plate"),
        ("don't remember that I live in Beijing", "I live in Beijing"),
        ("别再记着我的地址了", "我的地址"),
        ("Hey, could you please forget my ex's name?", "my ex's name"),
        ("能忘掉我的地址吗", "我的地址"),
        ("请忘了我的地址好吗", "我的地址"),
        ("把我的地址从记忆里删掉", "我的地址"),
        ("Erase what I said about my divorce.", "my divorce"),
        ("Please forget my address, I moved to Shanghai.", "my address"),  # Shanghai is not to be forgotten
    ],
)
def test_the_ways_people_say_forget(text, body):
    assert parse_command(text) == Command("forget", body)


@pytest.mark.parametrize(
    "text",
    ["I forgot my keys", "don't forget to call mum", "忘了带伞", "Did you forget what I said?", "forget it, let's move on",
     "delete the file from the repo", "remove the item from my cart", "Remember to buy milk", "我忘记密码了", "别忘了明天开会",
     "你忘了我的生日吗？", "Forget about my feelings, just answer the question.", "忘记过去才能向前看"],
)
def test_statements_reminders_and_dismissals_are_not_forgets(text):
    assert parse_command(text) is None


def _right(case) -> bool:
    cmd = parse_command(case.text)
    return cmd is not None and (cmd.action, cmd.text) == (case.action, case.subject)


def test_the_phrasing_corpus_is_acted_on():
    """Issue 26: ≥ 95 % of the ways to ask are acted on, with the right subject, and
    no statement that is not a request is (bench/commands.py reports tune and held-out apart)."""
    for asks in (FORGET, REMEMBER):
        missed = [c.text for c in asks if not _right(c)]
        assert len(missed) <= 0.05 * len(asks), missed
    acted = [(c.text, parse_command(c.text)) for c in NOT_FORGET + NOT_REMEMBER if parse_command(c.text) is not None]
    assert acted == []


def test_the_grammar_stays_linear_on_long_and_odd_input():
    """No timing assertion: patterns that backtrack badly would make this test hang for minutes."""
    rng = random.Random(26)
    alphabet = "forget rememb my 我的把忘掉记住别从记忆 ,.?!:，。？吧了'’-\n\t\u200b\u202e\U0001f600\ufdfa\ud800"
    long = 100_000
    texts = [
        "forget my " + " " * long + "x", "把" + "我" * long, "我" + "的" * long + "，请忘掉吧", "forget my address" + "." * long + "x",
        "forget my address" + ", " * (long // 2), "forget my from" + " " * long + "x", "hey" + " " * long, "please " * (long // 7),
        "forget " + "a" * long + "'s", "forget my address" + "?!" * (long // 2), "remember that " + "x y " * (long // 4),
        "删除关于" + "的" * long + "的记忆", "forget " + "about " * (long // 6) + "my x", "别再记着" + "我" * long + "了" * long,
    ]
    texts += ["".join(rng.choice(alphabet) for _ in range(rng.choice([10, 1_000, long]))) for _ in range(12)]
    for text in texts:
        cmd = parse_command(text)
        assert cmd is None or (cmd.action in ("forget", "remember") and cmd.text)


def test_the_bench_reports_both_splits():
    path = Path(__file__).resolve().parents[2] / "bench" / "commands.py"
    spec = importlib.util.spec_from_file_location("bench_commands", path)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    result = bench.main(["--corpus-only"])  # no evaluation data in tests
    assert json.loads(json.dumps(result)) == result
    for action in ("forget", "remember"):
        for split in ("tune", "held_out"):
            r = result[action][split]
            assert r["requests"]["n"] and r["non_requests"]["n"]
            assert r["non_requests"]["acted_on"] == 0
        asked = sum(result[action][s]["requests"]["n"] for s in ("tune", "held_out"))
        right = sum(result[action][s]["requests"]["right_subject"] for s in ("tune", "held_out"))
        assert right >= 0.95 * asked


def test_remember_then_forget_through_the_service(service, alice):
    done = service.apply_commands(alice, "Remember that I am allergic to peanuts", source_id="msg-1")
    assert [(a, m.content, m.source_ids) for a, m in done] == [("remember", "I am allergic to peanuts", ["msg-1"])]
    assert any("peanuts" in c.text for c in service.search(alice, "allergies"))
    forgotten = service.apply_commands(alice, "forget that I am allergic to peanuts")
    assert [a for a, _ in forgotten] == ["forget"]
    assert service.list(alice).items == []
    assert service.apply_commands(alice, "what do you know about me") == []


def test_a_remember_longer_than_a_memory_keeps_its_exchange(service, alice):
    """"Remember this: <a paste of 10 000 characters>": longer than a memory may be. It raised out
    of the capture before the turns were stored, so the exchange was retried for days and then set
    aside, and every capture behind it waited. Now the turns are stored whole, no memory is made."""
    paste = "Remember this: " + " ".join(f"line {i} of the incident report, the pump failed at noon." for i in range(200))
    stored, done = service.capture(alice, [_turn(1, "user", paste), _turn(2, "assistant", "Noted, the whole report.")])
    assert stored == 2 and done == []
    assert [t.content for t in service.messages(alice)] == [paste, "Noted, the whole report."]
    assert service.list(alice).items == []


def _turn(i: int, role: str, text: str, session: str = "s1"):
    from datetime import datetime, timedelta, timezone

    from core import Message

    at = datetime(2026, 1, 1, 12, tzinfo=timezone.utc) + timedelta(minutes=i)
    return Message(id=f"t{i}", role=role, content=text, session=session, created_at=at)


PROBES = [
    "What is my passport number?", "passport", "P-99812345", "99812345", "my passport number is",
    "travel documents", "Which number did I give you?", "passport number please", "do you know my ID?",
    "what did I ask you to remember?", "Remember anything about passports?", "passport P-99812345",
    "number", "my documents", "ID number", "the number starting with P", "What's my passport?",
    "passports", "identity papers", "tell me what you know",
]


@pytest.mark.parametrize("same_batch", [False, True])
def test_forget_reaches_the_raw_turns(service, alice, same_batch):
    """Once, the memory went but the raw turns that said it kept being recalled."""
    said = [_turn(0, "user", "Remember that my passport number is P-99812345."),
            _turn(1, "assistant", "Got it: your passport number is P-99812345."),
            _turn(2, "user", "Also, I like hiking in the Alps."), _turn(3, "assistant", "Noted.")]
    forget = [_turn(4, "user", "Forget that my passport number is P-99812345"), _turn(5, "assistant", "Done, P-99812345 is forgotten.")]
    if same_batch:
        service.capture(alice, said + forget)
    else:
        service.capture(alice, said)
        assert any("P-99812345" in c.text for c in service.search(alice, "passport number"))
        service.capture(alice, forget)
    kept = [m.content for m in service.messages(alice)]
    assert kept == ["Also, I like hiking in the Alps.", "Noted."]  # the forget exchange is not stored either
    for probe in PROBES:
        assert not any("99812345" in c.text for c in service.search(alice, probe)), probe
        assert "99812345" not in service.recall(alice, probe).text
    events = [e for e in service.events(alice) if e.action == "forget"]
    assert events and "99812345" not in repr(events)  # the audit says forget, with ids, never words


def test_forget_in_chinese_reaches_the_raw_turns(service, alice):
    service.capture(alice, [_turn(0, "user", "记住我的生日是五月三日"), _turn(1, "assistant", "好的，你的生日是五月三日。")])
    service.capture(alice, [_turn(2, "user", "忘记我的生日是五月三日")])
    assert not any("五月三日" in m.content for m in service.messages(alice))
    assert "五月三日" not in service.recall(alice, "我的生日是哪天？").text


def test_forgetting_by_a_few_words_also_takes_the_turns_that_say_the_memory(service, alice):
    """"forget my passport number" names the fact by three words; the reply that echoed the
    number ("Saved: passport P-99812345") shares only one of them, but says the memory itself."""
    said = [_turn(0, "user", "Remember that my passport number is P-99812345."), _turn(1, "assistant", "Saved: passport P-99812345")]
    service.capture(alice, said)
    service.capture(alice, [_turn(2, "user", "forget my passport number")])
    assert service.list(alice).items == []
    assert not any("99812345" in m.content for m in service.messages(alice))


def test_forget_rewrites_the_digest_and_daily_logs_and_drops_waiting_candidates(service, alice):
    from core import Kind, MemoryIn, Status

    service.digest_set(alice, "Alice is a nurse in Edinburgh. She works at Acme on weekends. She loves cats.")
    log = service.remember(alice, MemoryIn(content="Talked about her weekend job at Acme.\nPlanned a trip to Skye.", kind=Kind.daily_log)).memory
    cand = service.remember(alice, MemoryIn(content="She works at Acme on weekends", status=Status.candidate)).memory
    fact = service.remember(alice, MemoryIn(content="I work at Acme on weekends")).memory

    preview = service.forget(alice, "I work at Acme on weekends", preview=True)
    assert {m.id for m in preview.memories} == {fact.id, cand.id} and len(preview.rewritten) == 2
    assert "Acme" in service.digest_get(alice).content  # a preview changes nothing

    service.capture(alice, [_turn(0, "user", "Forget that I work at Acme on weekends")])
    assert service.digest_get(alice).content == "Alice is a nurse in Edinburgh. She loves cats."
    assert service.get(alice, log.id).content == "Planned a trip to Skye."
    for gone in (cand.id, fact.id):  # erased, not trashed
        with pytest.raises(NotFound, match="forgotten"):
            service.get(alice, gone)
    assert not [c for c in service.search(alice, "Acme weekends job") if "Acme" in c.text]


@pytest.mark.parametrize("asked", ["forget #45840", "Please forget #45840, thanks", "删除 #45840"])
def test_a_forget_by_handle_alone_is_not_kept_as_a_turn_nor_is_its_reply(service, alice, asked):
    """"forget #45840" (a handle from the memory block) was stored as a turn and later recalled as
    `(user said) "forget #45840"`, and its reply, which may repeat what it erased, with it. The
    correction carries it out before the call (core/correcting.py); like a forget in words, neither
    the command nor its reply is kept. A handle with words of the person's is kept: they said something."""
    service.capture(alice, [_turn(0, "user", "I live in Lisbon."), _turn(1, "assistant", "Noted.")])
    service.capture(alice, [_turn(2, "user", asked), _turn(3, "assistant", "Done: I no longer hold that you live in Lisbon.")])
    service.capture(alice, [_turn(4, "user", asked)])  # a forget said last: its reply comes in the next call
    service.capture(alice, [_turn(5, "assistant", "Forgotten: Lisbon is gone.")])
    service.capture(alice, [_turn(6, "user", "forget #45840, I moved to Porto"), _turn(7, "assistant", "Porto, noted.")])
    kept = [m.content for m in service.messages(alice)]
    assert kept == ["I live in Lisbon.", "Noted.", "forget #45840, I moved to Porto", "Porto, noted."]
