"""The pure parts of the jobs: windows, parsing, decisions, consolidation planning, retention policy."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core import LLMError, Memory, Message, Role, Status
from core.jobs.consolidation import (
    parse_plan,
    plan_conflicts,
    plan_merges,
    plan_stale,
    trim_digest,
    yesterday,
)
from core.jobs.extraction import windows as W
from core.jobs.extraction.decide import Existing, Policy, decide
from core.jobs.extraction.parse import Fact, parse_facts
from core.jobs.retention import RetentionPolicy, to_expire, to_purge

T = datetime(2026, 3, 1, 12, tzinfo=UTC)


def msgs(n: int, start: datetime = T) -> list[Message]:
    return [Message(id=f"m{i:03d}", role=Role.user if i % 2 == 0 else Role.assistant, content=f"turn {i}",
                    created_at=start + timedelta(seconds=i)) for i in range(n)]


def mem(id: str, content: str = "x", **kw) -> Memory:
    base = dict(id=id, content=content, user_id="u", created_at=T, updated_at=T)
    return Memory(**{**base, **kw})


def f(key=None, *, kind="fact", importance=0.8, confidence=0.9) -> Fact:
    return Fact("a fact", key, key.split(".")[0] if key else "profile", kind, importance, confidence, "en", ("m1",))


# ---- windows ---------------------------------------------------------------------------------


def test_windows_first_run_takes_the_latest_only_and_backfill_everything():
    log = msgs(95)
    assert [len(w) for w in W.plan_windows(log, after=None)] == [40]
    assert W.plan_windows(log, after=None)[0][-1].id == "m094"
    assert [len(w) for w in W.plan_windows(log, after=None, backfill=True)] == [40, 40, 15]
    after = W.Mark.of(log[49])
    assert W.plan_windows(log, after=after)[0][0].id == "m050"


def test_windows_respect_the_character_budget_and_skip_system_turns():
    log = msgs(10) + [Message(id="sys", role=Role.system, content="be nice", created_at=T)]
    big = [m.model_copy(update={"content": "y" * 900}) for m in log[:10]]
    assert [len(w) for w in W.plan_windows(big, after=None, max_chars=2000)] == [2, 2, 2, 2, 2]
    assert all(m.role != Role.system for w in W.plan_windows(log, after=None) for m in w)


@given(st.integers(0, 200), st.integers(1, 50))
def test_windows_cover_the_log_once_in_order(n, size):
    log = msgs(n)
    planned = W.plan_windows(log, after=None, backfill=True, size=size)
    flat = [m.id for w in planned for m in w]
    assert flat == [m.id for m in log] and all(1 <= len(w) <= size for w in planned)


def test_window_state_machine_and_cursor():
    ws = [W.new_window("u", msgs(3)[i : i + 1], T) for i in range(3)]
    assert ws[0]["id"] == W.window_id("u", "m000") and ws[0]["state"] == W.PENDING
    a = W.started(ws[0], T)
    assert W.is_stuck(a, T + timedelta(minutes=31)) and not W.is_stuck(a, T + timedelta(minutes=5))
    a = W.failed_attempt(a, "boom", T)
    assert a["state"] == W.PENDING and a["retry_count"] == 1
    a = W.failed_attempt(W.failed_attempt(a, "boom", T), "boom", T)
    assert a["state"] == W.FAILED and a["retry_count"] == 3
    b = W.finished(W.started(ws[1], T), {"added": 1}, T)
    # failed and processed are both final: the cursor passes them, then stops at the first pending one
    assert W.cursor_after([a, b, ws[2]], None) == W.Mark.from_dict(b["end"])
    assert W.cursor_after([ws[0], b], None) is None


# ---- parse -----------------------------------------------------------------------------------

REFS = {"m1": "msg-a", "m2": "msg-b"}
GOOD = {"fact": "Lives in  Lisbon", "fact_key": "profile.city", "category": "profile", "kind": "fact",
        "importance": 0.8, "confidence": 0.9, "lang": "en", "evidence": ["m1", "m2", "m1"]}


def test_parse_accepts_a_well_formed_answer_even_in_a_fence():
    [fact] = parse_facts("```json\n" + json.dumps({"facts": [GOOD]}) + "\n```", REFS)
    assert fact.fact == "Lives in Lisbon" and fact.evidence == ("msg-a", "msg-b")
    assert parse_facts('{"facts": []}', REFS) == []


@pytest.mark.parametrize("bad", [
    "not json", "[]", '{"facts": {}}', '{"facts": [], "extra": 1}',
    {**GOOD, "category": "food"}, {**GOOD, "fact_key": "preference.city"}, {**GOOD, "fact_key": "Profile City"},
    {**GOOD, "kind": "precious"}, {**GOOD, "importance": 1.5}, {**GOOD, "confidence": True}, {**GOOD, "fact": " "},
    {**GOOD, "evidence": []}, {**GOOD, "evidence": ["m9"]}, {**GOOD, "lang": ""}, {**GOOD, "mood": "happy"},
    {k: v for k, v in GOOD.items() if k != "lang"},
])
def test_parse_rejects_anything_off_schema(bad):
    text = bad if isinstance(bad, str) else json.dumps({"facts": [bad]})
    with pytest.raises(LLMError):
        parse_facts(text, REFS)


# ---- decide ----------------------------------------------------------------------------------

V1, V2, V3 = [1.0, 0.0], [0.95, 0.312], [0.0, 1.0]  # cos(V1, V2) ~ 0.95, cos(V1, V3) = 0


def test_decide_rules_in_order():
    holder = Existing(mem("h", fact_key="profile.city"), V1)
    assert decide(f("profile.city", importance=0.1), V1, holder, []).action == "drop"
    assert decide(f("profile.city"), V2, holder, []).action == "seen"
    d = decide(f("profile.city"), V3, holder, [])
    assert (d.action, d.target_id) == ("supersede", "h")
    assert decide(f("profile.city", confidence=0.5), V3, holder, []).action == "candidate"
    near = Existing(mem("n"), V1)
    assert decide(f(None), V2, None, [near]).action == "seen"
    assert decide(f(None, kind="event"), V2, None, [near]).action == "new"  # dedup is within a kind
    assert decide(f(None), V3, None, [near]).action == "new"
    assert decide(f(None, confidence=0.75), V3, None, [near]).action == "candidate"
    assert decide(f(None, confidence=0.76), V3, None, [near]).action == "new"
    other_key = Existing(mem("k", fact_key="profile.job"), V1)
    assert decide(f("profile.city"), V1, None, [other_key]).action == "new"
    retired = Existing(mem("r", status=Status.superseded), V1)
    assert decide(f(None), V1, None, [retired]).action == "new"
    assert decide(f(None), V1, None, [near], Policy(seen_cosine=1.01)).action == "new"


def test_the_same_words_for_a_key_are_seen_whatever_the_vectors():
    """With an embedder off the host a host-only memory's stored vector is its kind's, not its
    words' (model.embed_text): the same value said again was a new version each night."""
    holder = Existing(mem("h", content="A  Fact", fact_key="health.medication"), V3)
    assert decide(f("health.medication"), V1, holder, []).action == "seen"
    assert decide(f("health.medication"), V1, Existing(mem("h", content="another fact", fact_key="health.medication"), V3), []).action == "supersede"


def test_decide_does_not_mutate_its_inputs():
    holder = mem("h", fact_key="profile.city")
    before = holder.model_dump()
    decide(f("profile.city"), V3, Existing(holder, V1), [Existing(holder, V1)])
    assert holder.model_dump() == before


# ---- consolidation planning --------------------------------------------------------------------


def test_yesterday_is_the_users_calendar_day():
    now = datetime(2026, 1, 2, 17, 0, tzinfo=UTC)  # 01:00 on Jan 3 in Shanghai
    day, start, end = yesterday(now, "Asia/Shanghai")
    assert day == "2026-01-02" and start == datetime(2026, 1, 1, 16, 0, tzinfo=UTC)
    assert end - start == timedelta(days=1)
    assert yesterday(now, "UTC")[0] == "2026-01-01"


def test_conflicts_keep_the_newest_and_merges_keep_the_best():
    old = mem("a", fact_key="profile.city", valid_from=T - timedelta(days=3))
    new = mem("b", fact_key="profile.city", valid_from=T)
    other_ns = mem("c", fact_key="profile.city", namespace="project:x")
    assert [(l.id, k.id) for l, k in plan_conflicts([old, new, other_ns])] == [("a", "b")]
    p = mem("p", pinned=True, seen_count=1)
    q = mem("q", seen_count=5)
    r = mem("r", seen_count=9)
    merges = plan_merges([(q, p, 0.95), (r, q, 0.93), (p, r, 0.5)], 0.92)
    assert [(d.id, s.id) for d, s in merges] == [("q", "p")]  # q is gone, so r is not merged into it
    assert plan_merges([(mem("x", fact_key="profile.a"), mem("y", fact_key="profile.b"), 0.99)], 0.92) == []


def test_stale_memories():
    ended = mem("e", valid_to=T - timedelta(days=1))
    old_event = mem("v", kind="event", importance=0.3, created_at=T - timedelta(days=120))
    trivia = mem("t", importance=0.1, created_at=T - timedelta(days=90), updated_at=T - timedelta(days=90))
    keep = [mem("k"), mem("pin", pinned=True, valid_to=T - timedelta(days=1)), mem("hit", kind="event", importance=0.3,
            created_at=T - timedelta(days=120), hit_count=2)]
    assert {m.id for m in plan_stale([ended, old_event, trivia, *keep], T)} == {"e", "v", "t"}


def test_trim_digest():
    assert trim_digest("  short   text ") == "short text"
    long = "One sentence here. " * 40
    out = trim_digest(long)
    assert len(out) <= 500 and out.endswith(".")
    assert len(trim_digest("x" * 900)) == 500


def test_parse_plan_keeps_only_verbatim_user_quotes_and_known_ids():
    m = Message(id="msg1", role=Role.user, content="Slow is smooth, smooth is fast.", created_at=T)
    a = Message(id="msg2", role=Role.assistant, content="Indeed.", created_at=T)
    text = json.dumps({"retire": ["k1", "zz"], "precious": [{"ref": "m1", "text": "smooth is fast"},
                       {"ref": "m1", "text": "fast is smooth"}, {"ref": "m2", "text": "Indeed."}, {"ref": "m7", "text": "x"}],
                       "digest": "d", "daily_log": " a  b "})
    p = parse_plan(text, {"k1"}, {"m1": "msg1", "m2": "msg2"}, {"msg1": m, "msg2": a})
    assert p.retire == ("k1",) and p.precious == (("msg1", "smooth is fast"),) and p.daily_log == "a b"
    for bad in ("{}", '{"retire": "k1", "precious": [], "digest": "", "daily_log": ""}', "nope"):
        with pytest.raises(LLMError):
            parse_plan(bad, set(), {}, {})


# ---- retention policy --------------------------------------------------------------------------


def test_retention_policy():
    pol = RetentionPolicy()
    unused = mem("u", created_at=T - timedelta(days=181), updated_at=T - timedelta(days=181))
    touched = unused.model_copy(update={"id": "t", "last_access_at": T - timedelta(days=10)})
    pinned = unused.model_copy(update={"id": "p", "pinned": True})
    precious = unused.model_copy(update={"id": "q", "kind": "precious"})
    ttl = mem("x", expire_at=T)
    assert {m.id for m in to_expire([unused, touched, pinned, precious, ttl], T, pol)} == {"u", "x"}
    d30 = mem("d", status=Status.deleted, updated_at=T - timedelta(days=30))
    d29 = mem("e", status=Status.superseded, updated_at=T - timedelta(days=29))
    arch = mem("a", status=Status.archived, updated_at=T - timedelta(days=300))
    assert [m.id for m in to_purge([d29, d30, arch], T, pol)] == ["d"]
