"""What is worth injecting (relevance.py): pure rules, checked one by one."""

from __future__ import annotations

from datetime import datetime, timezone

from hypothesis import given
from hypothesis import strategies as st

from core import fingerprint, fingerprints
from core.recall.fusion import Candidate
from core.recall.relevance import Floor, is_filler, select

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


def test_below_both_floors_nothing_is_injected_but_pinned_facts_stay():
    floor = Floor(dense=0.85, lexical=0.5)
    weak = [turn("t1", "we talked about pottery", dense=0.80, lexical=0.2), fact("m1", "likes jazz", dense=0.81, lexical=0.0)]
    assert select(weak, floor=floor) == []
    pinned = fact("m2", "Call me Sam", dense=0.1, lexical=0.0, pinned=True)
    assert [c.id for c in select([*weak, pinned], floor=floor)] == ["m2"]


def test_either_arm_clearing_its_floor_is_enough():
    floor = Floor(dense=0.85, lexical=0.5)
    items = [turn("a", "dense only", dense=0.86, lexical=0.0), turn("b", "words only", dense=0.0, lexical=0.6),
             turn("c", "neither", dense=0.84, lexical=0.49)]
    assert [c.id for c in select(items, floor=floor)] == ["a", "b"]
    assert len(select(items, floor=Floor())) == 3  # both floors 0: abstention off


@given(st.lists(st.sampled_from(["ok", "I live in Lyon", "my dog is Rex", "thanks", "Rex is three"]), max_size=8),
       st.sets(st.sampled_from(["I live in Lyon", "my dog is Rex"])))
def test_select_keeps_order_and_only_drops(texts, shown):
    items = [turn(f"t{i}", t) for i, t in enumerate(texts)]
    out = select(items, echo=fingerprints(shown))
    assert [c for c in items if c in out] == out
    assert not any(fingerprint(c.text) in fingerprints(shown) for c in out)
