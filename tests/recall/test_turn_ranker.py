"""The turn ranker (core/recall/ranker.py): what each feature reads, that only the turns move and
only among the turns' places, that the shipped weights match the features recall computes, and
that hostile text gives finite rows."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from core import MemoryIn, Message, Settings, build_service
from core.recall import ranker
from core.recall.fusion import Candidate
from core.recall.turns import TurnIndex, add_turns, message_candidate
from core.testing import FixedClock, HashEmbedder

T0 = datetime(2024, 5, 1, 18, 0, tzinfo=timezone.utc)
COL = {name: i for i, name in enumerate(ranker.FEATURES)}


def _index(rows: list[tuple[str, str, str, str]]) -> TurnIndex:
    """(id, session, author, words) in time order."""
    idx = TurnIndex(rev=1)
    add_turns(idx, [Message(id=i, role="user", content=w, session=s, author=a, created_at=T0 + timedelta(minutes=n))
                    for n, (i, s, a, w) in enumerate(rows)])
    return idx


def _cand(idx: TurnIndex, i: str, score: float, dense: float = 0.0, lexical: float = 0.0) -> Candidate:
    c = message_candidate(idx.msgs[i])
    return Candidate(**{**c.__dict__, "score": score, "dense": dense, "lexical": lexical})


IDX = _index([
    ("a1", "s1", "Hannah", "How was your weekend?"),
    ("a2", "s1", "Tom", "Great, I flew to Rome for the marathon"),
    ("a3", "s1", "Hannah", "Rome in spring is lovely"),
    ("b1", "s2", "Tom", "The printer at work jammed again"),
])


def test_each_feature_reads_what_it_says():
    turns = [_cand(IDX, "a2", 0.08, dense=0.86, lexical=0.6), _cand(IDX, "a3", 0.05, dense=0.82, lexical=0.3),
             _cand(IDX, "a1", 0.02, dense=0.0, lexical=0.0), _cand(IDX, "b1", 0.01, dense=0.80, lexical=0.0)]
    rows = ranker.features("Did Tom run the marathon in Rome?", turns, IDX, {"a2": 1, "a3": 2}, rrf_k=10)
    f = {c.id: dict(zip(ranker.FEATURES, r)) for c, r in zip(turns, rows)}
    assert f["a2"]["fused"] == pytest.approx(0.8) and f["a2"]["lexical_rank"] == pytest.approx(10 / 11)
    assert f["b1"]["lexical_rank"] == pytest.approx(10 / 110)  # not found by the lexical arm: rank 100
    assert f["a2"]["dense_gap"] == 0 and f["a3"]["dense_gap"] == pytest.approx(-0.4)
    assert f["a1"]["dense_gap"] < f["b1"]["dense_gap"]  # missed by the dense arm: under the worst it found
    assert f["a2"]["cover_share"] == 1 and f["a3"]["cover_share"] == pytest.approx(0.5)
    assert f["a2"]["author_named"] == 1 and f["a3"]["author_named"] == 0
    assert f["a2"]["own_words"] > f["a3"]["own_words"] > 0 == f["b1"]["own_words"]  # a3 holds "rome", a2 "rome" and "marathon"
    assert f["a3"]["neighbour"] == pytest.approx(0.8)  # a2, next to it, scored 0.08
    assert f["a1"]["neighbour"] == pytest.approx(0.8) and f["b1"]["neighbour"] == 0
    assert f["a1"]["session"] == pytest.approx(0.8) and f["a2"]["session"] == pytest.approx(0.5)
    assert f["b1"]["session"] == 0  # alone in its session


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["s1", "s2", "s3", ""]), st.sampled_from([0.0, 0.01, 0.02, 0.05, 0.3])), min_size=1, max_size=12))
def test_the_session_feature_is_the_best_score_of_another_candidate_of_the_session(cands):
    """Read from each session's two best (a recall's 80 candidates are mostly one session's: every
    pair was compared before), it equals the definition, ties and lone candidates included."""
    idx = _index([(f"t{n}", s, "Tom", f"turn {n}") for n, (s, _) in enumerate(cands)])
    turns = [_cand(idx, f"t{n}", score) for n, (_, score) in enumerate(cands)]
    rows = ranker.features("turn", turns, idx, {}, rrf_k=10)
    for c, row, (session, _) in zip(turns, rows, cands):
        mates = [o.score for o, (s, _) in zip(turns, cands) if s == session and o.id != c.id]
        assert row[COL["session"]] == pytest.approx(10 * max(mates, default=0.0))


def test_a_chinese_author_is_named_without_spaces():
    idx = _index([("z1", "s", "小王", "我上周去了杭州"), ("z2", "s", "老李", "杭州的西湖很美")])
    turns = [_cand(idx, "z1", 0.05), _cand(idx, "z2", 0.05)]
    rows = ranker.features("小王去了哪里？", turns, idx, {}, rrf_k=10)
    assert rows[:, COL["author_named"]].tolist() == [1.0, 0.0]


def _only(feature: str) -> ranker.TurnRanker:
    w = np.zeros(len(ranker.FEATURES))
    w[COL[feature]] = 1.0
    return ranker.TurnRanker(np.zeros(len(w)), np.ones(len(w)), w)


def test_turns_move_only_among_the_turns_places():
    memory = Candidate(id="mem1", text="Tom runs marathons", source="memory", created_at=T0, score=0.09)
    ranked = [memory, _cand(IDX, "a3", 0.08), _cand(IDX, "a2", 0.07),
              Candidate(id="mem2", text="Tom lives in Leeds", source="memory", created_at=T0, score=0.06), _cand(IDX, "b1", 0.05)]
    out = ranker.reorder("What did Tom do in Rome?", ranked, IDX, [], 10, _only("author_named"))
    assert [c.id for c in out] == ["mem1", "a2", "b1", "mem2", "a3"]  # Tom's turns first, fusion's order among them
    assert out[0] is memory and out[3].id == "mem2"
    # nothing to reorder: no turn index, or a single turn
    assert ranker.reorder("x", ranked, None, [], 10, _only("author_named")) == ranked
    assert ranker.reorder("Tom?", ranked[:2], IDX, [], 10, _only("author_named")) == ranked[:2]


def test_ties_keep_fusions_order():
    ranked = [_cand(IDX, i, 0.1 - n / 100) for n, i in enumerate(["a1", "a2", "a3", "b1"])]
    out = ranker.reorder("weather", ranked, IDX, [], 10, _only("author_named"))  # nobody named: all tie
    assert [c.id for c in out] == ["a1", "a2", "a3", "b1"]


def test_the_shipped_weights_are_for_these_features(tmp_path):
    shipped = ranker.TurnRanker.load()
    assert shipped.weights.shape == shipped.mean.shape == shipped.scale.shape == (len(ranker.FEATURES),)
    assert np.all(shipped.scale > 0)
    # the directions the fit found and bench/README.md reports: fusion's own score and a named author count for a turn
    assert shipped.weights[COL["fused"]] > 0 and shipped.weights[COL["author_named"]] > 0
    spec = json.loads(ranker.WEIGHTS.read_text())
    spec["features"] = spec["features"][::-1]
    stale = tmp_path / "turn_ranker.json"
    stale.write_text(json.dumps(spec))
    with pytest.raises(ValueError, match="turn_ranker.json was fitted on features"):
        ranker.TurnRanker.load(stale)


HOSTILE = st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=400) | st.sampled_from(
    ["?", "？？", "\u200b" * 50, "ｉＰｈｏｎｅ拍照" * 40, "🍕" * 300, "a" * 5000, "Rome? " * 200])


@settings(max_examples=150, deadline=None)
@given(words=st.lists(HOSTILE, min_size=2, max_size=6), query=HOSTILE | st.just(""), author=st.none() | HOSTILE)
def test_hostile_text_gives_finite_rows(words, query, author):
    idx = _index([(f"t{i}", "s", author, w) for i, w in enumerate(words)])
    turns = [_cand(idx, f"t{i}", 0.01 * (i + 1), dense=0.8 if i % 2 else 0.0) for i in range(len(words))]
    said = {c.id: 0.1 * i for i, c in enumerate(turns)}
    rows = ranker.features(query, turns, idx, {}, rrf_k=10, sentence=said)
    assert rows.shape == (len(words), len(ranker.FEATURES)) and np.isfinite(rows).all()
    assert np.isfinite(ranker.shipped().score(ranker.features(query, turns, idx, {}, rrf_k=10))).all()  # the sentence model not read
    out = ranker.reorder(query, turns, idx, [], 10)
    assert sorted(c.id for c in out) == sorted(c.id for c in turns)


def test_search_on_a_real_store_reorders_turns_and_leaves_memories_where_fusion_put_them(tmp_path, alice):
    svc = build_service(Settings(data_dir=tmp_path / "data"), embedder=HashEmbedder(), clock=FixedClock(T0 + timedelta(days=1)))
    try:
        svc.store_turns(alice, [Message(id=f"t{i}", role="user" if i % 2 else "assistant", content=w, session="s1", author=a,
                                        created_at=T0 + timedelta(minutes=i))
                                for i, (a, w) in enumerate([("Tom", "Did you run the Rome marathon?"), ("Hannah", "Yes, Rome in April, my first marathon"),
                                                            ("Tom", "What was your time in Rome?"), ("Hannah", "Four hours and ten minutes in Rome"),
                                                            ("Tom", "My marathon in Berlin was slower"), ("Hannah", "Berlin is flat though")])])
        for text in ("Hannah trains for marathons", "Hannah's first marathon was in Rome"):
            svc.remember(alice, MemoryIn(content=text))
        q = "How did Hannah's Rome marathon go?"
        on = svc.search(alice, q, config=svc.recall_config(top_k=20))
        off = svc.search(alice, q, config=svc.recall_config(top_k=20, turn_ranker=False))
        assert sorted(c.id for c in on) == sorted(c.id for c in off)
        assert [i for i, c in enumerate(on) if c.source == "memory"] == [i for i, c in enumerate(off) if c.source == "memory"]
        assert [c.id for c in on if c.source == "memory"] == [c.id for c in off if c.source == "memory"]
        assert {c.id for c in on if c.source == "message"} >= {"t1", "t3"}
    finally:
        svc.close()


def test_weights_that_cannot_be_read_leave_fusions_order(tmp_path, monkeypatch, caplog):
    """Recall goes on: a missing or stale weights file costs the reordering, with a log line, not the search."""
    ranked = [_cand(IDX, i, 0.1 - n / 100) for n, i in enumerate(["a1", "a2", "a3", "b1"])]
    for broken in (tmp_path / "missing.json", tmp_path / "stale.json"):
        if broken.name == "stale.json":
            broken.write_text(json.dumps({"features": ["fused"], "mean": [0], "scale": [1], "weights": [1]}))
        monkeypatch.setattr(ranker, "WEIGHTS", broken)
        ranker.shipped.cache_clear()
        with caplog.at_level("WARNING", logger="amber.recall.ranker"):
            assert ranker.reorder("What did Tom do in Rome?", ranked, IDX, [], 10) == ranked
        assert "turn ranker cannot score" in caplog.text
    monkeypatch.undo()
    ranker.shipped.cache_clear()
