"""The correction classifier beside the grammar (core/correction_model.py): how their verdicts
combine, that it is used only with the embedder its weights were fitted on, and how the hot path
gets the turn's vector. A stub classifier and stub vectors everywhere but the last test, which runs
the real local embedder (a worker process, a few seconds)."""

from __future__ import annotations

import asyncio
from datetime import datetime, timezone
from types import SimpleNamespace

import pytest

import core.correcting as correcting
from core.correction import Shown, find_correction, near_correction
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
VETOED = "That's wrong, Hangzhou is my city now"  # the grammar takes it; no frame of core/update.py reads it


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
    assert asyncio.run(correcting.correct_in_turn(FakePort(low), VETOED)) is None  # vetoed
    assert low.asked == [VETOED]  # the text recall embeds for a one-line turn: its vector is then cached
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


def test_a_turn_without_a_marker_is_neither_embedded_nor_read_however_sure_the_classifier(stub_model):
    sure = CountingPort(VectorOf([30.0, 0.0]))
    plain = "Hangzhou was lovely this spring"  # no correction word, no frame giving a value: nothing to do
    assert asyncio.run(correcting.correct_in_turn(sure, plain)) is None
    assert sure.reads == 0 and sure.service.embedder.asked == []


def test_a_new_value_without_a_marker_is_read_for_and_acted_on_by_the_frames_alone(stub_model):
    """"I live in Hangzhou now" right after "I live in Shanghai" was shown supersedes it (core/update.py),
    whatever the classifier would say: the turn is not embedded for it."""
    doubtful = CountingPort(VectorOf([-30.0, 0.0]))
    c = asyncio.run(correcting.correct_in_turn(doubtful, "I live in Hangzhou now, since March"))
    assert (c.target, c.action) == (HOME, "supersede")
    assert doubtful.reads == 1 and doubtful.service.embedder.asked == []
    same = CountingPort(VectorOf([30.0, 0.0]))
    assert asyncio.run(correcting.correct_in_turn(same, "I live in Shanghai, love it")) is None  # the value held: a restatement


def test_with_nothing_shown_lately_a_marked_turn_is_read_for_but_not_embedded(stub_model):
    """A new person's "that's wrong, ..." refers to nothing Amber showed: no query for the embedder
    (a burst of new people's first turns queued behind such embeddings), and no correction."""
    sure = CountingPort(VectorOf([30.0, 0.0]))
    sure.records = []
    assert asyncio.run(correcting.correct_in_turn(sure, HIT)) is None
    assert sure.reads == 1 and sure.service.embedder.asked == []


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
