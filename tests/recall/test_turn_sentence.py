"""The turn ranker's second reading of meaning (core/recall/sentence_arm.py, ranker.py): each
captured turn's similarity by the sentence model, kept in int8 in the person's turn index, read
only for that person's own turns, dropped with a forgotten turn, read in the background when a
cold index holds many, and never needed: without it the ranker counts the feature as its mean."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import numpy as np
import pytest

from core import Message
from core.embed.sentence import DIM, SentenceEncoder
from core.recall import ranker, sentence_arm
from core.recall.fusion import Candidate
from core.recall.sentence_arm import SentenceVectors
from tests.kit.sentence import encoder  # noqa: F401 (a fixture)
from core.recall.turns import TurnIndex, add_turns, message_candidate
from core.scope import message_collection

T0 = datetime(2024, 5, 1, 18, 0, tzinfo=timezone.utc)
ASK = "What did I say about my legs after the game?"
COL = {name: i for i, name in enumerate(ranker.FEATURES)}
CHAT = [
    "Can you suggest a stretch for my calves? Tuesday's badminton left them sore",
    "Try a wall calf stretch: 30 seconds each side, twice a day.",
    "What's a good recipe for dinner tonight?",
    "A quick stir-fry: vegetables, tofu, soy sauce and rice.",
    "My sister Lan just moved to Lisbon",
    "Lisbon is lovely in spring; she'll enjoy the trams.",
]


def _turns(prefix: str, texts: list[str], session: str = "s1") -> list[Message]:
    return [Message(id=f"{prefix}{i}", role="user" if i % 2 == 0 else "assistant", content=t, session=session,
                    created_at=T0 + timedelta(minutes=i)) for i, t in enumerate(texts)]


@pytest.fixture
def reads_turns(service, monkeypatch):
    """The service's recaller as beside the bundled embedder: its turn indexes keep the model's vectors."""
    monkeypatch.setattr(service.recaller, "_sentence_turns", True)
    return service.recall_config(sentence_beside="hash:v1", top_k=20)


@pytest.fixture
def seen(monkeypatch):
    """What each search handed the ranker as the turns' similarities."""
    got: list = []
    real = ranker.reorder

    def spy(*args, sentence=None, **kw):
        got.append(sentence)
        return real(*args, sentence=sentence, **kw)

    monkeypatch.setattr(ranker, "reorder", spy)
    return got


def test_int8_rows_keep_the_cosine_and_a_drop_leaves_nothing():
    sv = SentenceVectors(np.int8)
    rng = np.random.default_rng(3)
    vecs = rng.normal(size=(40, DIM)).astype(np.float32)
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    for i in range(40):
        sv.add(f"t{i}", f"words {i}")
    sv.put(sv.take(40), vecs)
    assert sv.table[0].dtype == np.int8 and sv.table[0].nbytes <= 64 * DIM  # 512 bytes a turn
    q = vecs[7]
    got = sv.similarities(q, [f"t{i}" for i in range(40)])
    assert np.allclose(got, vecs @ q, atol=0.02) and int(np.argmax(got)) == 7
    assert sv.similarities(q, ["t1", "nobody"]) is None  # one missing: none, never a partial reading
    for n in range(300):  # a compaction moves every row: their readings stay theirs
        sv.add(f"tmp{n}", "y")
        sv.put(sv.take(1), vecs[n % 40:n % 40 + 1])
    for n in range(300):
        sv.drop(f"tmp{n}")
    assert len(sv.table[1]) < 300 and np.allclose(sv.similarities(q, [f"t{i}" for i in range(40)]), got)
    row = sv.rows["t7"]
    sv.drop("t7")
    assert not np.any(sv.table[0][row]) and sv.similarities(q, ["t7"]) is None
    again = SentenceVectors(np.int8)
    for i in range(40):
        again.add(f"t{i}", f"words {i}")
    again.adopt(sv)  # a rebuild after a forget takes the unchanged rows as they are, never quantised twice
    assert set(again.rows) == {f"t{i}" for i in range(40)} - {"t7"} and list(again.pending) == ["t7"]
    assert np.array_equal(again.table[0][again.rows["t3"]], sv.table[0][sv.rows["t3"]])


def _index() -> TurnIndex:
    idx = TurnIndex(rev=1, sentences=SentenceVectors(np.int8))
    add_turns(idx, _turns("a", ["one", "two", "three"]))
    return idx


def _cands(idx: TurnIndex) -> list[Candidate]:
    return [Candidate(**{**message_candidate(idx.msgs[i]).__dict__, "score": 0.1 - n / 100}) for n, i in enumerate(["a0", "a1", "a2"])]


def test_the_feature_is_the_gap_to_the_best_turn_and_missing_reads_as_its_mean():
    idx = _index()
    turns = _cands(idx)
    rows = ranker.features("q", turns, idx, {}, 10, {"a0": 0.2, "a1": 0.5, "a2": 0.4})
    assert rows[:, COL["sentence_gap"]] == pytest.approx([-3.0, 0.0, -1.0])
    for partial in (None, {"a0": 0.2, "a1": 0.5}):  # not read, or not for every turn: not read at all
        rows = ranker.features("q", turns, idx, {}, 10, partial)
        assert np.isnan(rows[:, COL["sentence_gap"]]).all()
        assert np.isfinite(np.delete(rows, COL["sentence_gap"], axis=1)).all()
    shipped = ranker.shipped()
    filled = rows.copy()
    filled[:, COL["sentence_gap"]] = shipped.mean[COL["sentence_gap"]]
    assert np.allclose(shipped.score(rows), shipped.score(filled)) and np.isfinite(shipped.score(rows)).all()
    # the fit found what bench/README.md reports: a turn the model reads as nearer counts for more
    assert shipped.weights[COL["sentence_gap"]] > 0
    out = ranker.reorder("q", turns, idx, [], 10, ranker.TurnRanker(np.zeros(len(COL)), np.ones(len(COL)), np.eye(len(COL))[COL["sentence_gap"]]),
                         sentence={"a0": 0.2, "a1": 0.5, "a2": 0.4})
    assert [c.id for c in out] == ["a1", "a2", "a0"]


def test_through_the_service_only_the_persons_own_turns_are_read_and_a_forget_drops_one(service, alice, bob, encoder, reads_turns, seen):
    service.store_turns(alice, _turns("a", CHAT))
    service.store_turns(bob, _turns("b", ["I play squash on Tuesdays and my calves hurt", "Stretch them after each game."]))
    service.search(alice, ASK, config=reads_turns)
    said = seen[-1]
    assert said and set(said) <= {f"a{i}" for i in range(len(CHAT))} and all(np.isfinite(list(said.values())))
    assert max(said, key=said.get) == "a0"  # the sore calves after badminton: no word in common
    service.search(bob, ASK, config=reads_turns)
    assert seen[-1] and set(seen[-1]) <= {"b0", "b1"}
    col = message_collection(alice)
    before = service.recaller._msg[col].sentences
    read = []
    real = encoder.encode
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(encoder, "encode", lambda texts, *a, **kw: read.extend(texts) or real(texts, *a, **kw))
        service.forget(alice, "badminton")
        service.search(alice, ASK, config=reads_turns)
    after = service.recaller._msg[col].sentences
    assert after is not before and "a0" not in after.rows and "a0" not in (seen[-1] or {})
    assert not [t for t in read if t in CHAT]  # the turns that stayed were adopted, not read again
    off = service.search(alice, ASK, config=reads_turns.model_copy(update={"sentence_turns": False}))
    assert off and seen[-1] is None


def test_a_cold_index_is_read_in_the_background_and_the_host_start_reads_it_whole(service, alice, encoder, reads_turns, seen):
    many = [f"note {i} about the allotment and the tomatoes" for i in range(sentence_arm.INLINE + 30)]
    service.store_turns(alice, _turns("n", many) + _turns("c", CHAT, session="s2"))
    recaller = service.recaller
    recaller.index_wait_s = 0.0
    recaller._msg.clear()  # as after a restart: the index is built again from the store
    service.search(alice, ASK, config=reads_turns)
    col = message_collection(alice)
    idx = recaller._msg.get(col)
    if idx is not None and idx.sentences.filling is not None:  # queued on its own thread, while recall answered without
        assert seen[-1] is None
        idx.sentences.filling.result(60)
        service.search(alice, ASK, config=reads_turns)
        assert seen[-1] and "c0" in seen[-1]
    recaller._msg.clear()
    recaller.rebuild("turns", col)  # a warm start: the index, and its vectors queued on their own thread
    assert recaller._msg[col].sentences.filling is not None
    recaller._msg[col].sentences.filling.result(60)
    assert not recaller._msg[col].sentences.pending and len(recaller._msg[col].sentences) == len(many) + len(CHAT)


def test_a_model_that_fails_leaves_the_turns_in_the_rankers_order_without_it(service, alice, reads_turns, seen, caplog):
    class Broken(SentenceEncoder):
        def ready(self, load=True):
            return True

        def encode(self, texts, *a, **kw):
            raise MemoryError("no room")

    service.recaller.sentence = Broken()
    service.store_turns(alice, _turns("a", CHAT))
    with caplog.at_level("WARNING", logger="amber.recall"):
        got = service.search(alice, ASK, config=reads_turns)
    assert got and seen[-1] is None and "turns ranked without the sentence model: MemoryError" in caplog.text
