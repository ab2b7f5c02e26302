"""Fusion, neighbour credit, boosts and dedup: pure functions, values in and out."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from hypothesis import given
from hypothesis import strategies as st

from core.recall.fusion import BoostConfig, Candidate, boost, dedup, fuse, rrf, spread

NOW = datetime(2026, 1, 1, tzinfo=timezone.utc)


def cand(i: str, **kw) -> Candidate:
    return Candidate(id=i, text=kw.pop("text", f"text {i}"), source=kw.pop("source", "message"), created_at=kw.pop("created_at", NOW), **kw)


def test_rrf_sums_weighted_reciprocal_ranks():
    scores = rrf({"a": ["x", "y"], "b": ["y"]}, {"a": 1.0, "b": 2.0}, k=10)
    assert scores["x"] == 1 / 11
    assert scores["y"] == 1 / 12 + 2 / 11


def test_an_item_found_by_two_arms_beats_one_found_by_one_at_the_same_rank():
    ranked = fuse({i: cand(i) for i in "xyz"}, {"a": ["x", "y"], "b": ["y", "z"]}, {}, NOW, BoostConfig())
    assert ranked[0].id == "y"
    assert set(ranked[0].arms) == {"a", "b"}


def test_spread_credits_neighbours_one_hop_only():
    out = spread({"t2": 1.0}, {"t2": ["t1", "t3"], "t3": ["t2", "t4"]}, 0.25)
    assert out == {"t2": 1.0, "t1": 0.25, "t3": 0.25}


def test_spread_off_is_identity_and_input_is_not_mutated():
    scores = {"a": 0.5}
    assert spread(scores, {"a": ["b"]}, 0.0) == scores
    spread(scores, {"a": ["b"]}, 0.5)
    assert scores == {"a": 0.5}


def test_neighbour_only_candidates_are_marked_as_such():
    ranked = fuse({i: cand(i) for i in "abc"}, {"lex": ["b"]}, {}, NOW, BoostConfig(), neighbours={"b": ["a", "c"]}, neighbour_factor=0.3)
    by_id = {c.id: c for c in ranked}
    assert ranked[0].id == "b"
    assert by_id["a"].arms == ("neighbour",)


def test_boosts_order_pinned_important_recent_keyed():
    cfg = BoostConfig()
    base = cand("x", source="memory", kind="fact")
    assert boost(cand("p", source="memory", pinned=True), 1.0, NOW, cfg) > boost(base, 1.0, NOW, cfg)
    assert boost(cand("i", source="memory", importance=0.9), 1.0, NOW, cfg) > boost(base, 1.0, NOW, cfg)
    assert boost(cand("k", source="memory", keyed=True), 1.0, NOW, cfg) > boost(base, 1.0, NOW, cfg)
    old = cand("o", source="memory", created_at=NOW - timedelta(days=400))
    assert boost(base, 1.0, NOW, cfg) > boost(old, 1.0, NOW, cfg)
    assert boost(base, 1.0, NOW, cfg) > boost(cand("m", source="message"), 1.0, NOW, cfg)


@given(
    importance=st.floats(0, 1),
    pinned=st.booleans(),
    keyed=st.booleans(),
    age=st.floats(0, 3650),
)
def test_boost_is_a_bounded_nudge(importance, pinned, keyed, age):
    cfg = BoostConfig()
    c = cand("x", source="memory", importance=importance, pinned=pinned, keyed=keyed, created_at=NOW - timedelta(days=age))
    factor = boost(c, 1.0, NOW, cfg)
    ceiling = 1 + cfg.importance + cfg.pinned + cfg.keyed_fact + cfg.memory_over_message + cfg.recency_weight
    assert 1 - cfg.importance <= factor <= ceiling + 1e-9


arms = st.dictionaries(st.sampled_from(["mem_dense", "mem_lexical", "msg_dense", "msg_lexical"]),
                       st.lists(st.sampled_from([f"d{i}" for i in range(12)]), unique=True, max_size=12), max_size=4)


@given(arms)
def test_fuse_returns_each_ranked_known_candidate_once_best_first(rankings):
    cands = {f"d{i}": cand(f"d{i}") for i in range(12)}
    out = fuse(cands, rankings, {}, NOW, BoostConfig())
    ids = [c.id for c in out]
    assert len(ids) == len(set(ids))
    assert set(ids) == {d for r in rankings.values() for d in r}
    assert all(a.score >= b.score for a, b in zip(out, out[1:]))


@given(arms)
def test_fuse_never_invents_a_record_it_was_not_given(rankings):
    known = {f"d{i}": cand(f"d{i}") for i in range(0, 12, 2)}  # odd ids: filtered out upstream (other user, deleted)
    out = fuse(known, rankings, {}, NOW, BoostConfig(), neighbours={"d2": ["d1", "d3"]}, neighbour_factor=0.5)
    assert {c.id for c in out} <= set(known)


def test_dedup_keeps_the_better_ranked_of_near_identical_texts():
    items = [cand("a", text="I love hiking in the Alps"), cand("b", text="i love hiking in the alps!"), cand("c", text="Tea with oat milk")]
    assert [c.id for c in dedup(items)] == ["a", "c"]


def test_dedup_handles_chinese():
    items = [cand("a", text="我喜欢在山里徒步"), cand("b", text="我喜欢在山里徒步。"), cand("c", text="我每天喝咖啡")]
    assert [c.id for c in dedup(items)] == ["a", "c"]


@given(st.lists(st.sampled_from(["tea", "green tea", "tea green", "coffee", "我喜欢茶", "我喜欢茶。"]), max_size=12), st.integers(0, 12))
def test_dedup_with_limit_is_a_prefix_of_dedup(texts, limit):
    items = [cand(str(i), text=t) for i, t in enumerate(texts)]
    assert dedup(items, limit=limit) == dedup(items)[:limit]
