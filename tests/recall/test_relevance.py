"""What is worth injecting (relevance.py): pure rules, checked one by one."""

from __future__ import annotations

from datetime import datetime, timezone

from hypothesis import given
from hypothesis import strategies as st

from core import fingerprint, fingerprints
from core.recall.fusion import Candidate
from core.recall.relevance import Floor, admitted, is_filler, select

NOW = datetime(2026, 3, 4, tzinfo=timezone.utc)


def turn(i: str, text: str, dense: float = 0.9, lexical: float = 0.9, role: str = "user") -> Candidate:
    return Candidate(id=i, text=text, source="message", created_at=NOW, kind=role, dense=dense, lexical=lexical)


def fact(i: str, text: str, dense: float = 0.9, lexical: float = 0.9, **kw) -> Candidate:
    return Candidate(id=i, text=text, source="memory", created_at=NOW, kind="fact", dense=dense, lexical=lexical, **kw)


def test_turns_the_request_already_carries_are_not_injected_back():
    items = [turn("t1", "I adopted a cat last week"), turn("t2", "Her name is Miso", role="assistant"), turn("t3", "She likes tuna")]
    echo = fingerprints(["i adopted a  CAT last week", "Her name is Miso"])  # case and spacing do not matter
    assert [c.id for c in select(items, echo=echo)] == ["t3"]


def test_filler_turns_are_never_injected():
    items = [turn("a", "ok"), turn("b", "Noted."), turn("c", "Thanks!"), turn("d", "好的"), turn("e", "I'm vegan"), turn("f", "no")]
    assert [c.id for c in select(items)] == ["e"]
    assert is_filler("OK, thanks!") and not is_filler("ok, my flight is at 7")


def test_a_turn_yields_to_the_fact_made_from_it():
    items = [fact("m1", "I work at Acme"), turn("t1", "Remember that I work at Acme."), turn("t2", "Acme is hiring"),
             fact("m2", "Favourite colour is teal", sources=("t9",)), turn("t9", "teal, definitely, since I was small")]
    assert [c.id for c in select(items)] == ["m1", "t2", "m2"]


def relevant(items, query, floor, held=None):
    from core.recall.relevance import is_cjk

    return [c.id for c in admitted(items, is_cjk(query), floor, held or {"memory": 1, "message": 1})]


def test_an_item_is_injected_only_when_its_own_evidence_clears_a_floor():
    floor = Floor(memory=0.81, message=0.84, lexical=0.3, cjk_offset=0.05)
    weak = [turn("t1", "we talked about pottery", dense=0.83, lexical=0.2), fact("m1", "likes jazz", dense=0.80, lexical=0.0)]
    assert not relevant(weak, "explain TCP and UDP", floor)
    # the item that clears the floor is injected, and carries neither weaker one in with it
    assert relevant([*weak, fact("m2", "plays the cello", dense=0.82, lexical=0.0)], "what instrument do I play", floor) == ["m2"]
    assert relevant([*weak, turn("t2", "my sister Inès", dense=0.5, lexical=0.6)], "who is Inès", floor) == ["t2"]  # rare words shared
    assert not relevant([fact("m3", "喜欢爵士乐", dense=0.84, lexical=0.0)], "解释一下TCP和UDP的区别", floor)  # CJK scores run higher
    assert relevant([fact("m3", "喜欢爵士乐", dense=0.87, lexical=0.0)], "我喜欢什么音乐", floor) == ["m3"]
    assert relevant(weak, "anything", Floor()) == ["t1", "m1"]  # all floors 0: never abstain


def test_the_similarity_floor_rises_with_the_records_a_person_holds():
    floor = Floor(memory=0.79, message=0.82, lexical=0.3, per_decade=0.01)
    only = fact("m1", "I play badminton every Tuesday", dense=0.80, lexical=0.0)
    assert relevant([only], "What sport do I play?", floor, {"memory": 1}) == ["m1"]  # their one memory
    assert not relevant([only], "What sport do I play?", floor, {"memory": 10_000})  # the best of many, by chance
    assert floor.dense_floor("memory", 100) == 0.79 + 0.02 and floor.dense_floor("message", 0) == 0.82


def test_a_block_opens_on_the_floor_for_what_the_person_holds_and_each_item_then_clears_the_one_record_floor():
    floor = Floor(memory=0.79, message=0.82, lexical=0.3, per_decade=0.02)
    held = {"memory": 1000, "message": 1000}  # floors for as many records: memory 0.85, message 0.88
    manager = fact("m1", "My manager is Priyanka", dense=0.86, lexical=0.0)
    team = turn("t1", "Priyanka moved me to the payments team", dense=0.83, lexical=0.0)  # clears 0.82, not 0.88
    jazz = fact("m2", "likes jazz", dense=0.78, lexical=0.0)  # under even the one-record floor
    assert relevant([team, jazz, manager], "Who do I report to at work?", floor, held) == ["t1", "m1"]
    # no item says the prompt is about the person: the one-record floor alone opens nothing
    assert relevant([team, jazz], "Tell me a joke", floor, held) == []
    assert relevant([team, jazz], "Tell me a joke", floor, {"memory": 1, "message": 1}) == ["t1"]  # their one turn
    # rare words shared open the block like similarity does, and the weak item still stays out
    assert relevant([turn("t2", "my sister Inès", dense=0.5, lexical=0.6), jazz, team], "who is Inès", floor, held) == ["t2", "t1"]


@given(st.lists(st.sampled_from(["ok", "I live in Lyon", "my dog is Rex", "thanks", "Rex is three"]), max_size=8),
       st.sets(st.sampled_from(["I live in Lyon", "my dog is Rex"])))
def test_select_keeps_order_and_only_drops(texts, shown):
    items = [turn(f"t{i}", t) for i, t in enumerate(texts)]
    out = select(items, echo=fingerprints(shown))
    assert [c for c in items if c in out] == out
    assert not any(fingerprint(c.text) in fingerprints(shown) for c in out)


def test_a_cjk_query_trusts_a_lexical_arm_only_as_far_as_its_best_hit_covers_the_query():
    from core.recall.fusion import lexical_trust
    from core.recall.relevance import is_cjk

    w = {"mem_dense": 1.0, "mem_lexical": 0.5, "msg_dense": 0.8, "msg_lexical": 1.0}
    out = lexical_trust(w, {"mem_lexical": ["a", "b"], "msg_lexical": ["c"]}, {"a": 0.03, "b": 0.06, "c": 0.45}, 0.3)
    assert out["mem_lexical"] == 0.5 * 0.06 / 0.3 and out["msg_lexical"] == 1.0 and out["mem_dense"] == 1.0
    assert lexical_trust(w, {"mem_lexical": ["a"]}, {"a": 0.0}, 0.0) == w  # 0: off
    assert is_cjk("我上周去看了医生，他说我 need more sleep") and not is_cjk("Met 王芳 at the café") and not is_cjk("2026-01-01 !!")


def test_an_earlier_asking_of_the_same_question_is_not_injected():
    items = [turn("q1", "What's my passport number?"), turn("a1", "It is P-99812345.", role="assistant"),
             turn("q2", "What is my favourite passport cover colour?"), turn("s1", "My passport number is P-99812345")]
    kept = [c.id for c in select(items, query="what is my passport number?")]
    assert kept == ["a1", "q2", "s1"]  # a different question stays: it may be what the user means


def test_a_memory_needs_its_margin_over_its_background():
    """Floor.margin: a memory over the similarity floor also needs to be `margin` closer to the
    prompt than to its background (+ per_decade for every tenfold more memories); a turn, a memory
    with no known background and the lexical route do not."""
    from core.recall.fusion import Candidate
    from core.recall.relevance import Floor, admitted

    t = datetime(2026, 1, 1, tzinfo=timezone.utc)
    near = Candidate(id="m1", text="", source="memory", created_at=t, dense=0.78)
    far = Candidate(id="m2", text="", source="memory", created_at=t, dense=0.86)
    turn = Candidate(id="t1", text="", source="message", created_at=t, dense=0.82)
    floor = Floor(memory=0.77, message=0.81, lexical=0.3, per_decade=0.02, margin=-0.04)
    bg = {"m1": 0.83, "m2": 0.84}
    assert admitted([near], False, floor, {"memory": 1}, bg) == []  # 0.78 - 0.83 = -0.05 < -0.04
    assert admitted([near], False, floor, {"memory": 1}, {}) == [near]  # no background known: the floor alone
    assert admitted([far], False, floor, {"memory": 1}, bg) == [far]  # +0.02
    assert admitted([far], False, floor, {"memory": 10000}, bg) == []  # needs -0.04 + 4 x 0.02 = +0.04 (dense floor 0.85: met)
    assert admitted([turn, near], False, floor, {"message": 1, "memory": 1}, bg) == [turn]
    lexical = Candidate(id="m1", text="", source="memory", created_at=t, dense=0.78, lexical=0.5)
    assert admitted([lexical], False, floor, {"memory": 1}, bg) == [lexical]
    assert admitted([near], False, Floor(memory=0.77, message=0.81, lexical=0.3), {"memory": 1}, bg) == [near]  # margin None: off


def test_a_record_distinct_from_its_background_is_evidence_on_its_own():
    """Floor.distinct: a memory or a turn at least this much closer to the prompt than to its
    background opens the block and is injected, under a floor raised by a big store; without a known
    background, or with the route off, the floors decide as before."""
    from core.recall.fusion import Candidate
    from core.recall.relevance import Floor, admitted

    t = datetime(2026, 1, 1, tzinfo=timezone.utc)
    turn = Candidate(id="t1", text="", source="message", created_at=t, dense=0.84)  # floor for 500 turns: 0.81 + 2.7 x 0.025 = 0.877
    floor = Floor(memory=0.77, message=0.81, lexical=0.3, per_decade=0.025, margin=-0.04, distinct=0.03)
    assert admitted([turn], False, floor, {"message": 500}, {"t1": 0.80}) == [turn]  # 0.04 over its background
    assert admitted([turn], False, floor, {"message": 500}, {"t1": 0.82}) == []  # 0.02: not distinct enough
    assert admitted([turn], False, floor, {"message": 500}, {}) == []
    assert admitted([turn], False, Floor(memory=0.77, message=0.81, lexical=0.3, per_decade=0.025), {"message": 500}, {"t1": 0.80}) == []


def test_each_weighed_item_gets_the_verdict_that_let_it_in_or_kept_it_out():
    from core.recall.relevance import PASSING, VERDICTS, verdicts

    floor = Floor(memory=0.79, message=0.82, lexical=0.3, margin=-0.04, distinct=0.03)
    close = fact("m1", "plays the cello", dense=0.85, lexical=0.0)
    generic = fact("m2", "likes sunny days", dense=0.80, lexical=0.0)  # over 0.79, but its background is 0.86
    distinct = turn("t1", "Priyanka moved me to payments", dense=0.75, lexical=0.0)  # 0.05 over its background
    words = turn("t2", "my sister Inès", dense=0.5, lexical=0.6)
    weak = fact("m3", "likes jazz", dense=0.6, lexical=0.0)
    bg = {"m1": 0.70, "m2": 0.86, "t1": 0.70, "t2": 0.9, "m3": 0.65}
    said = verdicts([close, generic, distinct, words, weak], False, floor, {"memory": 1, "message": 1}, bg)
    assert said == {"m1": "close", "m2": "near_everything", "t1": "distinct", "t2": "words", "m3": "below_floor"}
    assert set(said.values()) <= set(VERDICTS) and {v for v in said.values() if v in PASSING} == {"close", "distinct", "words"}
    # what admitted keeps is exactly what the verdicts let in
    assert [c.id for c in admitted([close, generic, distinct, words, weak], False, floor, {"memory": 1, "message": 1}, bg)] == ["m1", "t1", "t2"]
    # no item clears the floor for what the person holds: each says why at that floor
    assert verdicts([generic, weak], False, floor, {"memory": 10_000}, bg) == {"m2": "near_everything", "m3": "below_floor"}
    assert verdicts([weak], False, Floor(), {}) == {"m3": "no_floor"}
