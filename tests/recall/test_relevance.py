"""What is worth injecting (relevance.py): pure rules, checked one by one."""

from __future__ import annotations

from datetime import datetime, timezone

from hypothesis import given
from hypothesis import strategies as st

from core import fingerprint, fingerprints
from core.recall.fusion import Candidate
from core.recall.relevance import Floor, is_filler, relevant, select

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


def test_a_prompt_is_answered_from_memory_only_when_a_candidate_clears_a_floor():
    floor = Floor(memory=0.81, message=0.84, lexical=0.3, cjk_offset=0.05)
    weak = [turn("t1", "we talked about pottery", dense=0.83, lexical=0.2), fact("m1", "likes jazz", dense=0.80, lexical=0.0)]
    assert not relevant(weak, "explain TCP and UDP", floor)
    assert relevant([*weak, fact("m2", "plays the cello", dense=0.82, lexical=0.0)], "what instrument do I play", floor)  # a memory's floor is lower
    assert relevant([*weak, turn("t2", "my sister Inès", dense=0.5, lexical=0.6)], "who is Inès", floor)  # rare words shared
    assert not relevant([fact("m3", "喜欢爵士乐", dense=0.84, lexical=0.0)], "解释一下TCP和UDP的区别", floor)  # CJK scores run higher
    assert relevant([fact("m3", "喜欢爵士乐", dense=0.87, lexical=0.0)], "我喜欢什么音乐", floor)
    assert relevant(weak, "anything", Floor())  # all floors 0: never abstain


@given(st.lists(st.sampled_from(["ok", "I live in Lyon", "my dog is Rex", "thanks", "Rex is three"]), max_size=8),
       st.sets(st.sampled_from(["I live in Lyon", "my dog is Rex"])))
def test_select_keeps_order_and_only_drops(texts, shown):
    items = [turn(f"t{i}", t) for i, t in enumerate(texts)]
    out = select(items, echo=fingerprints(shown))
    assert [c for c in items if c in out] == out
    assert not any(fingerprint(c.text) in fingerprints(shown) for c in out)


def test_a_cjk_query_trusts_a_lexical_arm_only_as_far_as_its_best_hit_covers_the_query():
    from core.recall.pipeline import lexical_trust
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
