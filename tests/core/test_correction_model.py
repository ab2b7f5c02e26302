"""The correction classifier beside the grammar (core/correction_model.py): how their verdicts
combine, that it is used only with the embedder its weights were fitted on, and how the hot path
gets the turn's vector. A stub classifier and stub vectors everywhere but the last test, which runs
the real local embedder (a worker process, a few seconds)."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from datetime import datetime, timezone
from types import SimpleNamespace

import pytest

import core.correcting as correcting
from core.correction import Shown, find_correction, might_correct, near_correction, open_correction
from core.correction_model import WEIGHTS, CorrectionClassifier, _load, classifier_for, combine
from core.results import WhyRequest, WhyShown
from core.testing import HashEmbedder

HOME = Shown("m-home", "I live in Shanghai")
JOB = Shown("m-job", "Works as a backend engineer at Acme")
SHOWN = [HOME, JOB]
STUB = CorrectionClassifier(embedder="stub-embedder", weights=(1.0, 0.0), bias=0.0, veto=0.2, rescue=0.7)

HIT = "That's wrong, I moved to Hangzhou"  # the grammar takes it
NEAR = "Hmm, can you note I live in Hangzhou now, not Shanghai?"  # a question: the grammar leaves it; a near miss
OTHER = "That's wrong, 7 times 8 is 56, not 54"  # neither


def test_the_corpus_sentences_are_what_the_tests_below_need():
    assert find_correction(HIT, SHOWN).target == HOME
    assert find_correction(NEAR, SHOWN) is None and near_correction(NEAR, SHOWN).target == HOME
    assert find_correction(OTHER, SHOWN) is None and near_correction(OTHER, SHOWN) is None


def test_without_a_score_the_grammar_decides_alone():
    for text in (HIT, NEAR, OTHER):
        assert combine(text, SHOWN, None, STUB) == find_correction(text, SHOWN)
        assert combine(text, SHOWN, 0.99, None) == find_correction(text, SHOWN)


def test_a_grammar_hit_the_classifier_scores_very_low_is_dropped():
    assert combine(HIT, SHOWN, 0.19, STUB) is None
    assert combine(HIT, SHOWN, 0.2, STUB) == find_correction(HIT, SHOWN)
    assert combine(HIT, SHOWN, 0.5, STUB).statement == "I moved to Hangzhou"


def test_a_near_miss_the_classifier_is_sure_of_is_acted_on_with_the_grammars_target():
    assert combine(NEAR, SHOWN, 0.69, STUB) is None
    c = combine(NEAR, SHOWN, 0.7, STUB)
    assert (c.target, c.action) == (HOME, "supersede") and "Hangzhou" in c.statement
    assert combine(OTHER, SHOWN, 0.999, STUB) is None  # no item to take: the classifier never picks one


OPEN = replace(STUB, open=0.8)
PLAIN = "I live in Hangzhou now, since March"  # no correction word: a new value for what HOME is about


def test_a_turn_without_a_marker_is_a_candidate_only_when_it_states_a_new_value_for_an_item():
    assert not might_correct(PLAIN) and find_correction(PLAIN, SHOWN) is None and near_correction(PLAIN, SHOWN) is None
    assert open_correction(PLAIN, SHOWN).target == HOME
    assert open_correction("我在腾讯上班", [HOME, Shown("m-work", "我在字节跳动工作")]).target.id == "m-work"
    for other in ("My sister lives in Hangzhou now, since March",  # someone else's news
                  "I'll be in Hangzhou for the conference next week",  # a plan
                  "Should I live in Hangzhou",  # a question without its mark
                  "I live in Shanghai, near the river",  # the value held, repeated
                  "下周我去杭州出差三天", "I had pasta for lunch"):  # a trip; nothing shown is about it
        assert open_correction(other, SHOWN + [Shown("m-city", "我住在北京朝阳区")]) is None, other


def test_a_turn_without_a_marker_is_acted_on_only_above_the_open_threshold():
    assert combine(PLAIN, SHOWN, 0.99, STUB) is None  # weights without an open threshold: never
    assert combine(PLAIN, SHOWN, 0.79, OPEN) is None
    c = combine(PLAIN, SHOWN, 0.8, OPEN)
    assert (c.target, c.action, c.statement) == (HOME, "supersede", PLAIN)
    assert combine(NEAR, SHOWN, 0.6, replace(OPEN, open=0.5)) is None  # a near miss stays the rescue's to take


def test_a_handle_is_the_grammars_whatever_the_score():
    c = combine(f"forget {JOB.handle}", SHOWN, 0.0, STUB)
    assert (c.target, c.action) == (JOB, "forget")


def test_the_classifier_is_used_only_with_the_embedder_it_was_fitted_on():
    model = _load(str(WEIGHTS))
    assert model is not None and len(model.weights) == 384 and 0 < model.veto < model.rescue < 1
    assert classifier_for(HashEmbedder()) is None  # what tests run: the grammar alone
    assert classifier_for(None) is None
    assert classifier_for(SimpleNamespace(id=model.embedder, dim=384)) is model
    assert classifier_for(SimpleNamespace(id=model.embedder, dim=256)) is None
    assert classifier_for(SimpleNamespace(id="openai/text-embedding-3-small", dim=384)) is None


def test_the_score_is_a_logistic_of_the_dot_product():
    assert STUB.score([0.0, 5.0]) == pytest.approx(0.5)
    assert STUB.score([2.0, 0.0]) == pytest.approx(1 / (1 + 2.718281828 ** -2), rel=1e-6)
    with pytest.raises(ValueError):
        STUB.score([1.0])


class FakePort:
    """`why` answers one record of what was shown; the service's embedder is the one given."""

    def __init__(self, embedder, shown=SHOWN):
        self.service = SimpleNamespace(embedder=embedder)
        now = datetime.now(timezone.utc)
        self.records = [WhyRequest(request="r1", at=now, considered=2, abstained=False, tokens=10, items=[
            WhyShown(handle=x.handle, id=x.id, source="memory", kind="fact", created_at=now, score=1.0, dense=0.5,
                     lexical=0.5, arms=["mem_dense"], text=x.text) for x in shown])]

    async def why(self, last=1, request=None):
        return self.records


class VectorOf:
    id = "stub-embedder"
    dim = 2

    def __init__(self, vector=None, error=None):
        self.vector, self.error, self.asked = vector, error, []

    def embed_query(self, text):
        self.asked.append(text)
        if self.error:
            raise self.error
        return self.vector


@pytest.fixture
def stub_model(monkeypatch):
    monkeypatch.setattr(correcting, "classifier_for", lambda e: STUB if getattr(e, "id", None) == STUB.embedder else None)

    async def carried(port, c):
        return c

    monkeypatch.setattr(correcting, "carry_out", carried)


def test_the_hot_path_scores_the_turn_it_embeds_for_recall(stub_model):
    low, high = VectorOf([-3.0, 0.0]), VectorOf([3.0, 0.0])
    assert asyncio.run(correcting.correct_in_turn(FakePort(low), HIT)) is None  # vetoed
    assert low.asked == [HIT]  # the text recall embeds for a one-line turn: its vector is then cached
    assert asyncio.run(correcting.correct_in_turn(FakePort(high), NEAR)).target == HOME  # rescued
    plain = "Nice, thanks"  # no marker: stops before the why read, nothing embedded here
    assert asyncio.run(correcting.correct_in_turn(FakePort(high), plain)) is None and high.asked == [NEAR]


class CountingPort(FakePort):
    def __init__(self, embedder):
        super().__init__(embedder)
        self.reads = 0

    async def why(self, last=1, request=None):
        self.reads += 1
        return self.records


def test_the_hot_path_reads_the_why_records_for_a_turn_without_a_marker_only_when_the_score_is_high(monkeypatch, stub_model):
    monkeypatch.setattr(correcting, "classifier_for", lambda e: OPEN if getattr(e, "id", None) == OPEN.embedder else None)
    low, high = CountingPort(VectorOf([-3.0, 0.0])), CountingPort(VectorOf([3.0, 0.0]))
    assert asyncio.run(correcting.correct_in_turn(low, PLAIN)) is None and low.reads == 0
    assert low.service.embedder.asked == [PLAIN]  # the text recall embeds next: a cache hit there
    assert asyncio.run(correcting.correct_in_turn(high, PLAIN)).target == HOME and high.reads == 1
    assert asyncio.run(correcting.correct_in_turn(high, "Should I live in Hangzhou?")) is None and high.reads == 1  # a question: not even embedded
    hashed = CountingPort(HashEmbedder())  # no classifier: a turn without a marker is left alone, nothing read
    assert asyncio.run(correcting.correct_in_turn(hashed, PLAIN)) is None and hashed.reads == 0


def test_the_grammar_decides_when_the_embedder_fails_or_is_another(stub_model):
    broken = VectorOf(error=RuntimeError("worker down"))
    assert asyncio.run(correcting.correct_in_turn(FakePort(broken), HIT)).target == HOME
    assert asyncio.run(correcting.correct_in_turn(FakePort(broken), NEAR)) is None
    assert asyncio.run(correcting.correct_in_turn(FakePort(HashEmbedder()), HIT)).target == HOME
    remote = FakePort(None)
    del remote.service  # RemoteMemory: no service in this process
    assert asyncio.run(correcting.correct_in_turn(remote, HIT)).target == HOME


def test_with_the_real_local_embedder(monkeypatch):
    from core.embed.local import LocalE5Embedder

    try:
        embedder = LocalE5Embedder(query_timeout_s=30)
    except Exception as e:  # no model on this machine
        pytest.skip(f"no local embedder: {e}")

    async def carried(port, c):
        return c

    monkeypatch.setattr(correcting, "carry_out", carried)
    try:
        model = classifier_for(embedder)
        assert model is not None
        # tune sentences (tests/core/correction_phrasings.py): a correction, and a correction of the answer
        good = model.score(embedder.embed_query("That's wrong, I moved to Hangzhou"))
        bad = model.score(embedder.embed_query("That's wrong, 7 times 8 is 56, not 54"))
        assert good >= model.veto and bad < good, (good, bad)
        found = asyncio.run(correcting.correct_in_turn(FakePort(embedder), "不对，我已经搬到杭州了"))
        assert found is None or found.target == HOME  # whatever the verdict, never another item
        asked = sum(lane.requests for lane in embedder.query_lanes)
        embedder.embed_query("不对，我已经搬到杭州了")  # what recall does next: a cache hit, no worker request
        assert sum(lane.requests for lane in embedder.query_lanes) == asked
    finally:
        embedder.close()
