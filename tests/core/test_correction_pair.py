"""The pair model beside the correction rules (core/correction_pair.py): which verdicts it keeps, drops
and supplies, that it reads memories only and only with the embedder its weights were fitted on, what
the hot path reads for it, and, last, the shipped weights on a real store with the real local
embedder (a worker process, a few seconds)."""

from __future__ import annotations

import asyncio
import threading
from datetime import datetime, timedelta, timezone
from types import SimpleNamespace

import numpy as np
from hypothesis import given, settings, strategies as st
import pytest

import core.correcting as correcting
from core import READ, Actor, MemoryIn, Settings, build_service, scope_for
from core.changed import told
from core.correction import Correction, Shown, might_correct
from core.embed import sentence
from core.correction_pair import _SCALARS, WEIGHTS, PairModel, Reading, _load, pair_model_for, statement
from core.results import WhyRequest, WhyShown
from core.testing import HashEmbedder
from core.update import stated
from litellm_hooks.amber import AmberMemory
from litellm_hooks.host import HookMemory, local_ports
from tests.hook.test_corrections_in_turn import injected, turn
from tests.kit.config import settings_apart

LAPTOP = Shown("m-laptop", "Uses a 2019 MacBook Pro")
HOME = Shown("m-home", "Lives in Leeds")
TURN = Shown("t-1", "my laptop is a 2019 MacBook Pro", source="message")  # a captured turn
VECTORS = {LAPTOP.id: [1.0, 0.0], HOME.id: [0.0, 1.0], TURN.id: [1.0, 0.0]}
SIM = 8 + 5  # features(): the index of the pair's similarity (the second reading's three are last)
# a stub reading only the similarity: the score of an item is the logistic of 10 x (similarity - 0.5)
STUB = PairModel("stub-embedder", np.eye(1, _SCALARS + 4, SIM).ravel() * 10.0, -5.0, veto=0.3, rescue=0.7)
NEWS = "the 2019 macbook died in march, i'm on a thinkpad x1 now and weirdly loving linux"


def FLAT(texts):
    """A second reading that tells nothing apart (the stub reads only the e5 similarity)."""
    return np.ones((len(texts), 2)) / np.sqrt(2)


def rules(shown, settled=None):
    """What the rules made of a turn: nothing, or `settled`."""
    return Reading(False, (), (), None, None, None, None, settled, False, 0.5)


def test_the_shipped_weights_fit_one_embedder():
    model = _load(str(WEIGHTS))
    assert model is not None and len(model.weights) == _SCALARS + 2 * 384 and 0 < model.veto < model.rescue < 1
    assert pair_model_for(HashEmbedder()) is None  # what tests run: the rules alone
    assert pair_model_for(None) is None
    assert pair_model_for(SimpleNamespace(id=model.embedder)) is model
    assert pair_model_for(SimpleNamespace(id="openai/text-embedding-3-small")) is None


def test_where_no_rule_acted_the_memory_the_turn_is_closest_to_is_superseded_with_its_words():
    c = STUB.decide(NEWS, [HOME, LAPTOP], [1.0, 0.0], VECTORS, rules([HOME, LAPTOP]), FLAT)
    assert (c.target, c.action, c.statement) == (LAPTOP, "supersede", NEWS)
    assert STUB.decide(NEWS, [HOME, LAPTOP], [0.55, 0.45], VECTORS, rules([HOME, LAPTOP]), FLAT) is None  # unsure of either: nothing


def test_a_captured_turn_is_never_superseded_by_the_model():
    assert STUB.decide(NEWS, [TURN], [1.0, 0.0], VECTORS, rules([TURN]), FLAT) is None
    c = STUB.decide(NEWS, [TURN, HOME], [1.0, 0.0], VECTORS, rules([TURN, HOME]), FLAT)
    assert c is None  # the turn is not read; the memory beside it scores low


def test_a_rules_verdict_the_model_scores_low_is_dropped_and_one_it_believes_is_kept():
    said = Correction(LAPTOP, "supersede", "I use a ThinkPad now")
    assert STUB.decide("I use a ThinkPad now", [HOME, LAPTOP], [0.0, 1.0], VECTORS, rules([HOME, LAPTOP], settled=said), FLAT) is None
    assert STUB.decide("I use a ThinkPad now", [HOME, LAPTOP], [1.0, 0.0], VECTORS, rules([HOME, LAPTOP], settled=said), FLAT) == said


def test_a_handle_or_a_captured_turn_keeps_the_rules_verdict_whatever_the_score():
    named = Correction(LAPTOP, "forget", "")
    assert STUB.decide(f"forget {LAPTOP.handle}", [HOME, LAPTOP], [0.0, 1.0], VECTORS, rules([HOME, LAPTOP], settled=named), FLAT) == named
    on_turn = Correction(TURN, "supersede", "it's a ThinkPad")
    assert STUB.decide("no, it's a ThinkPad", [TURN, HOME], [0.0, 1.0], VECTORS, rules([TURN, HOME], settled=on_turn), FLAT) == on_turn


def test_vectors_of_another_size_or_none_leave_the_rules_alone():
    said = Correction(LAPTOP, "supersede", "I use a ThinkPad now")
    wide = {k: [*v, 0.0] for k, v in VECTORS.items()}
    assert STUB.decide("x", [HOME, LAPTOP], [0.0, 1.0, 0.0], wide, rules([HOME, LAPTOP], settled=said), FLAT) == said
    assert STUB.decide(NEWS, [HOME, LAPTOP], [1.0, 0.0], {}, rules([HOME, LAPTOP]), FLAT) is None
    assert STUB.decide(NEWS, [HOME, LAPTOP], [1.0, 0.0], {}, rules([HOME, LAPTOP], settled=said), FLAT) == said


def test_the_memories_vectors_are_taken_to_the_query_side_first():
    """With a map (the shipped model has one: a stored passage vector to its query vector), the pairs
    are read on the mapped vectors: a map that swaps the two dimensions swaps which memory is near."""
    swapped = PairModel(STUB.embedder, STUB.weights, STUB.bias, STUB.veto, STUB.rescue, to_query=np.array([[0.0, 1.0], [1.0, 0.0]]))
    assert STUB.decide(NEWS, [HOME, LAPTOP], [1.0, 0.0], VECTORS, rules([HOME, LAPTOP]), FLAT).target == LAPTOP
    assert swapped.decide(NEWS, [HOME, LAPTOP], [1.0, 0.0], VECTORS, rules([HOME, LAPTOP]), FLAT).target == HOME
    shipped = _load(str(WEIGHTS))
    assert shipped.to_query is not None and shipped.to_query.shape == (384, 384)


def test_the_statement_keeps_the_sentences_about_the_item():
    text = "Work has been mad. The 2019 MacBook died in March, I'm on a ThinkPad now! My boss quit."
    assert statement(text, LAPTOP.text) == "The 2019 MacBook died in March, I'm on a ThinkPad now!"
    assert statement("all good here", LAPTOP.text) == "all good here"  # nothing on its topic: the turn


class Port:
    """One why record of what was shown, the memories' stored vectors, and the embedder given."""

    def __init__(self, embedder, shown=(HOME, LAPTOP), fail=False, age=timedelta(seconds=30)):
        self.reads, self.vector_reads, self.fail, self.asked_last = 0, 0, fail, []
        now = datetime.now(timezone.utc)
        self.service = SimpleNamespace(embedder=embedder, reads=SimpleNamespace(memory_vectors=self._vectors),
                                       clock=SimpleNamespace(now=lambda: now))
        self.records = [WhyRequest(request="r1", at=now - age, considered=2, abstained=False, tokens=10, items=[
            WhyShown(handle=x.handle, id=x.id, source=x.source, kind="fact", created_at=now, score=1.0, dense=0.5,
                     lexical=0.5, arms=["mem_dense"], text=x.text) for x in shown])]

    def scope(self, permission):
        assert permission == READ
        return "scope"

    def _vectors(self, scope, ids):
        self.vector_reads += 1
        self.read_on = threading.current_thread().name
        if self.fail:
            raise RuntimeError("store down")
        return {i: VECTORS[i] for i in ids}

    async def why(self, last=1, request=None):
        self.reads += 1
        self.asked_last.append(last)
        return self.records[:last]


class Embedder:
    id = "stub-embedder"

    def __init__(self, vector):
        self.vector, self.asked = vector, []

    def embed_query(self, text):
        self.asked.append(text)
        return self.vector


@pytest.fixture(autouse=True, scope="module")
def second_reading():
    """The pair model's second reading (the sentence arm's model) loaded, as on a host past its first seconds."""
    assert sentence.shared().wait(120)


@pytest.fixture
def stub_pair(monkeypatch):
    monkeypatch.setattr(correcting, "pair_model_for", lambda e: STUB if getattr(e, "id", None) == STUB.embedder else None)
    monkeypatch.setattr(correcting, "classifier_for", lambda e: None)

    async def carried(port, c):
        return c

    monkeypatch.setattr(correcting, "carry_out", carried)


def test_with_the_model_a_turn_with_no_marker_is_read_against_the_shown_memories(stub_pair):
    port = Port(Embedder([1.0, 0.0]))
    c = asyncio.run(correcting.correct_in_turn(port, NEWS))
    assert (c.target, c.statement) == (LAPTOP, NEWS)
    assert (port.reads, port.vector_reads, port.service.embedder.asked) == (1, 1, [NEWS])  # the text recall embeds next
    assert port.asked_last == [1]  # no handle: the newest block only
    # on the correction's own threads: a stalled store does not hold the loop's default pool (names, DNS)
    assert port.read_on.startswith("amber-correct")


def test_a_block_from_another_conversation_or_a_handle_leaves_the_rules_alone(stub_pair):
    old = Port(Embedder([1.0, 0.0]), age=timedelta(hours=2))
    assert asyncio.run(correcting.correct_in_turn(old, NEWS)) is None  # the rules take nothing here
    assert old.vector_reads == 0 and old.service.embedder.asked == []
    stray = Port(Embedder([1.0, 0.0]))
    said = f"order #48213 shipped: {NEWS}"  # a number that is no shown handle: the rules' verdict, the model not read
    shown = correcting.shown_items(stray.records, said)
    rules_alone = correcting.reading(said, shown, might_correct(said), stated(said), told(said), None, None).settled
    assert asyncio.run(correcting.correct_in_turn(stray, said)) == rules_alone
    assert stray.asked_last == [20] and stray.vector_reads == 0
    named = Port(Embedder([1.0, 0.0]))
    c = asyncio.run(correcting.correct_in_turn(named, f"forget {HOME.handle}"))
    assert (c.target, c.action) == (HOME, "forget")  # the handle's item, not the one the turn is closest to
    assert STUB.decide(f"{HOME.handle} is right, {NEWS}", [HOME, LAPTOP], [1.0, 0.0], VECTORS, rules([HOME, LAPTOP]), FLAT) is None


def test_vectors_that_are_not_numbers_leave_the_rules_verdict():
    said = Correction(LAPTOP, "supersede", "I use a ThinkPad now")
    for stored, turn in (({**VECTORS, LAPTOP.id: [float("nan"), 0.0]}, [1.0, 0.0]), (VECTORS, [float("inf"), 0.0]),
                         (VECTORS, [float("nan"), 1.0]), ({**VECTORS, LAPTOP.id: [1.0]}, [1.0, 0.0]), ({**VECTORS, LAPTOP.id: None}, [1.0, 0.0])):
        assert STUB.decide(NEWS, [HOME, LAPTOP], turn, stored, rules([HOME, LAPTOP]), FLAT) is None
        assert STUB.decide(NEWS, [HOME, LAPTOP], turn, stored, rules([HOME, LAPTOP], settled=said), FLAT) == said


def test_without_the_model_or_past_600_characters_a_plain_turn_is_not_read(stub_pair):
    plain = "weirdly loving linux on the thinkpad x1"
    other = Port(HashEmbedder())
    assert asyncio.run(correcting.correct_in_turn(other, plain)) is None and other.reads == 0
    long = Port(Embedder([1.0, 0.0]))
    assert asyncio.run(correcting.correct_in_turn(long, plain + " ." * 300)) is None
    assert long.reads == 0 and long.service.embedder.asked == []


def test_before_the_second_reading_loads_the_rules_decide_alone(stub_pair, monkeypatch):
    loading = sentence.SentenceEncoder()
    monkeypatch.setattr(loading, "ready", lambda load=True: False)
    monkeypatch.setattr(sentence, "shared", lambda: loading)
    port = Port(Embedder([1.0, 0.0]))
    assert asyncio.run(correcting.correct_in_turn(port, NEWS)) is None  # what the model alone would have superseded
    assert port.vector_reads == 0
    c = asyncio.run(correcting.correct_in_turn(Port(Embedder([0.0, 1.0])), "I live in Hangzhou now, since March"))
    assert c.target == HOME  # the rules still act


def test_a_store_that_fails_the_vector_read_leaves_the_rules_alone(stub_pair):
    port = Port(Embedder([1.0, 0.0]), fail=True)
    assert asyncio.run(correcting.correct_in_turn(port, NEWS)) is None and port.vector_reads == 1
    c = asyncio.run(correcting.correct_in_turn(Port(Embedder([0.0, 1.0]), fail=True), "I live in Hangzhou now, since March"))
    assert c.target == HOME  # the update frames' verdict, not dropped for want of vectors


# ---- the shipped weights, a real store, the real local embedder, through the hook's pre-call -------

@pytest.fixture
def real(tmp_path):
    settings = settings_apart(tmp_path, data_dir=tmp_path / "data", embedding_model="local", recall_timeout_s=30, host_models=["local-*"])
    try:
        service = build_service(settings)
    except Exception as e:  # no model on this machine
        pytest.skip(f"no local embedder: {e}")
    if pair_model_for(service.embedder) is None:
        service.close()
        pytest.fail("the shipped pair model does not fit the local embedder")
    callback = AmberMemory(SimpleNamespace(memory=HookMemory(local_ports(service, settings)), settings=settings, vision=None))
    yield service, callback
    service.close()


async def shown_in_block(real, user: str, memories: list[str], question: str) -> None:
    """The person's memories stored, and a question whose block shows them all (what the next turn follows)."""
    service, callback = real
    for m in memories:
        service.remember(scope_for(Actor(user)), MemoryIn(content=m))
    patch, _ = await turn(callback, question, user=user)
    assert all(m in patch for m in memories), patch


async def test_real_a_change_no_rule_reads_supersedes_the_memory_in_the_same_turn(real):
    service, callback = real
    await shown_in_block(real, "ann", ["Uses a 2019 MacBook Pro", "Lives in Leeds"], "which laptop do I use, and where do I live?")
    patch, _ = await turn(callback, NEWS, user="ann")
    assert "Amber replaced it with" in patch and "thinkpad x1" in patch  # the model is told in the same turn
    assert injected(patch) and not any("2019 MacBook Pro" in line for line in injected(patch))  # nor recalled in it
    patch, _ = await turn(callback, "which laptop do I use?", user="ann")
    assert not any("2019 MacBook Pro" in line for line in injected(patch)) and "thinkpad" in patch


async def test_real_a_turn_is_read_once_in_its_pre_call_and_the_shown_memories_not_again(real, monkeypatch):
    """The pair model's second reading: the turn read once, beside its e5 vector, and that reading is
    recall's query reading in the same pre-call; the memories shown come from the person's recall
    index, read when they were stored. Read again per turn, they doubled the pre-call of a person with
    memories under load (bench/README.md, "What a chat user feels")."""
    service, callback = real
    memories = ["Uses a 2019 MacBook Pro", "Lives in Leeds"]
    await shown_in_block(real, "cy", memories, "which laptop do I use, and where do I live?")
    encoder, reads = sentence.shared(), []
    real_run = encoder._run
    monkeypatch.setattr(encoder, "_run", lambda clean: reads.append(list(clean)) or real_run(clean))
    said = "the weather in Leeds has been grim all week, any ideas for a rainy Saturday?"
    patch, _ = await turn(callback, said, user="cy")
    assert injected(patch)  # a recall ran, with the arm
    assert reads == [[said]]  # the turn once; no memory read again
    # what the index holds for each memory shown is what reading it afresh gives
    monkeypatch.setattr(encoder, "_run", real_run)
    shown = [(i.id, i.text) for i in service.why(scope_for(Actor("cy")), last=2)[-1].items if i.source == "memory"]
    kept = service.recaller.memory_readings(scope_for(Actor("cy")), shown)
    assert len(kept) == len(shown) == 2
    assert all(float(kept[i] @ encoder.encode([t])[0]) > 0.9999 for i, t in shown)
    assert "replaced" not in patch and set(memories) <= {m.content for m in service.list(scope_for(Actor("cy"))).items}


async def test_real_a_person_whose_block_held_no_memory_has_no_block_read_for_the_pair_model(real, monkeypatch):
    """Only the pair model would read a plain turn, and it reads memories: after a block of captured
    turns (a person with no memories), the block's words are not read from the store at all (that
    read was every such turn's whole correction cost); after a block with a memory, they are."""
    service, callback = real
    from core import Message

    said_at = datetime.now(timezone.utc) - timedelta(days=1)
    service.store_turns(scope_for(Actor("dee")), [
        Message(id="t1", role="user", content="I started learning the cello last spring", session="s1", created_at=said_at),
        Message(id="t2", role="assistant", content="The cello is a lovely instrument to learn.", session="s1", created_at=said_at)])
    reads, real_why = [], service.why
    monkeypatch.setattr(service, "why", lambda *a, **k: reads.append(a) or real_why(*a, **k))
    patch, _ = await turn(callback, "which instrument did I start learning?", user="dee")
    assert "cello" in patch and not any(i.source == "memory" for i in real_why(scope_for(Actor("dee")))[0].items)
    reads.clear()
    patch, _ = await turn(callback, "the weather has been grim all week, any ideas for a rainy Saturday?", user="dee")
    assert reads == []  # neither the correction nor anything else read the last block
    await shown_in_block(real, "dee", ["Plays the cello in a community orchestra"], "which orchestra do I play in?")
    reads.clear()
    await turn(callback, "the weather has been grim all week, any ideas for a rainy Saturday?", user="dee")
    assert len(reads) == 1  # a memory was in the block: the pair model reads the turn against it


def test_records_shared_in_redis_are_never_read_on_the_event_loop(tmp_path):
    """The peek that spares a person with turns only the block's read looks at this process's why
    log alone: with several hosts the records are in Redis (a hung Redis held every turn on the loop
    for its 2 s socket timeout), so it says "cannot tell" and the full read, off the loop, decides."""
    from core.why import use_why_log

    class Shared:
        def __init__(self):
            self.reads = 0

        def last(self, *a, **k):
            self.reads += 1
            raise AssertionError("read on the loop")

    service = build_service(Settings(data_dir=tmp_path / "data"), embedder=HashEmbedder())
    try:
        shared = Shared()
        use_why_log(service, shared)
        port = SimpleNamespace(service=service, scope=lambda permission: scope_for(Actor("ana")))
        assert correcting._memory_just_shown(port) is True and shared.reads == 0
    finally:
        service.close()


async def test_real_a_request_the_rules_read_as_news_is_dropped(real):
    """A resignation letter for someone else: the rules read "离职" beside the commute as the person's
    news; the pair model scores it far under its veto and the memory stays."""
    service, callback = real
    await shown_in_block(real, "bo", ["每天坐公交上班", "在一家外企做HR"], "我每天怎么上班？我做什么工作？")
    said = "帮我拟一封辞职信模板，给一个要离职的员工参考用的"
    shown = correcting.shown_items(service.why(scope_for(Actor("bo")), last=20), said)
    r = correcting.reading(said, shown, might_correct(said), stated(said), told(said), None, None)
    assert r.settled is not None and r.settled.target.text == "每天坐公交上班"  # what the rules alone would have replaced
    patch, _ = await turn(callback, said, user="bo")
    assert "replaced" not in patch
    assert "每天坐公交上班" in [m.content for m in service.list(scope_for(Actor("bo"))).items]  # still active


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=700), st.lists(st.text(max_size=200), min_size=1, max_size=4), st.integers(0, 2**32 - 1))
def test_any_turn_items_and_vectors_give_a_verdict_with_the_shipped_weights(text, texts, seed):
    """Whatever the turn and the memories (any script, control characters, empty), and vectors of any
    values, the shipped model answers None or a supersede of one of the memories shown."""
    model = _load(str(WEIGHTS))
    items = [Shown(f"m{i}", t) for i, t in enumerate(texts)]
    rng = np.random.default_rng(seed)
    vecs = {s.id: rng.normal(size=384).tolist() for s in items}
    r = correcting.reading(text, items, might_correct(text), stated(text), told(text), 0.5, None)
    c = model.decide(text, items, rng.normal(size=384).tolist(), vecs, r, sentence.shared().encode)
    assert c is None or (c.target in items and c.action in ("supersede", "forget", "retract"))
