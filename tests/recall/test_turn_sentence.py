"""The turn ranker's second reading of meaning (core/recall/sentence_arm.py, ranker.py): each
captured turn's similarity by the sentence model, kept in int8 in the person's turn index, read
only for that person's own turns, dropped with a forgotten turn, read in the background when a
cold index holds many, and never needed: without it the ranker counts the feature as its mean."""

from __future__ import annotations

import threading
import time
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


def _cosines(encoder, texts: list[str]) -> np.ndarray:
    return encoder.encode(texts) @ encoder.encode_query(ASK)


def test_through_the_service_each_person_gets_their_own_turns_readings(service, alice, bob, encoder, reads_turns, seen):
    """The same turn ids for two people, other words: each recall reads its own person's vectors."""
    theirs = ["I play squash on Tuesdays and my calves hurt", "Stretch them after each game.", "Thanks!", "Any time."]
    service.store_turns(alice, _turns("t", CHAT))
    service.store_turns(bob, _turns("t", theirs))
    for who, texts in ((alice, CHAT), (bob, theirs)):
        service.search(who, ASK, config=reads_turns)
        said = seen[-1]
        assert said and set(said) <= {f"t{i}" for i in range(len(texts))}
        fresh = dict(zip((f"t{i}" for i in range(len(texts))), _cosines(encoder, texts)))
        assert all(abs(v - fresh[i]) < 0.02 for i, v in said.items())  # int8 rows of this person's words
    assert max(seen[0], key=seen[0].get) == "t0"  # the sore calves after badminton: no word in common with ASK


def test_a_forget_drops_the_turns_reading_at_once_and_the_rebuild_reads_nothing_again(service, alice, encoder, reads_turns, seen):
    service.store_turns(alice, _turns("a", CHAT))
    service.search(alice, ASK, config=reads_turns)
    col = message_collection(alice)
    recaller = service.recaller
    before = recaller._msg[col].sentences
    assert "a0" in before.rows
    read: list[str] = []
    real = encoder.encode
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(encoder, "encode", lambda texts, *a, **kw: read.extend(texts) or real(texts, *a, **kw))
        service.forget(alice, "badminton")
        kept = recaller._kept[col]
        assert "a0" not in kept.rows and "a0" not in kept.pending and set(kept.rows) == {f"a{i}" for i in range(1, len(CHAT))}
        service.search(alice, ASK, config=reads_turns)
    after = recaller._msg[col].sentences
    assert after is not before and "a0" not in after.rows and col not in recaller._kept
    said = seen[-1]
    assert said and "a0" not in said
    fresh = dict(zip((f"a{i}" for i in range(len(CHAT))), _cosines(encoder, CHAT)))
    assert all(abs(v - fresh[i]) < 0.02 for i, v in said.items())  # the adopted rows are the right turns'
    assert not [t for t in read if t in CHAT]  # the turns that stayed were adopted, not read again
    service.forget(alice, "Lisbon")
    assert col in recaller._kept
    service.erase_person(alice)  # the person gone: nothing of their turns' readings stays in the host
    assert col not in recaller._kept and col not in recaller._msg


def _read_all(vectors: SentenceVectors) -> None:
    """Wait for a turn index's background read, a batch at a time, to the end."""
    deadline = time.monotonic() + 60
    while vectors.pending and time.monotonic() < deadline:
        if vectors.filling is not None:
            vectors.filling.result(60)
    assert not vectors.pending


@pytest.fixture
def held(encoder, monkeypatch):
    """Background reads wait for the event; records which threads read and what."""
    gate, threads = threading.Event(), []
    real = encoder.encode

    def encode(texts, *a, background=False, **kw):
        if background:
            threads.append(threading.current_thread().name)
            assert gate.wait(30)
        return real(texts, *a, background=background, **kw)

    monkeypatch.setattr(encoder, "encode", encode)
    yield gate, threads
    gate.set()


def test_a_cold_index_is_read_on_its_own_thread_while_recall_answers_and_new_turns_inline(service, alice, reads_turns, seen, held):
    gate, threads = held
    # long enough that a recall's candidates are more than it reads on its own thread (TURN_INLINE_CHARS)
    many = [f"note {i} about the allotment and the tomatoes: " + "beans, the shed and the rain " * 4 for i in range(sentence_arm.INLINE + 30)]
    service.store_turns(alice, _turns("n", many) + _turns("c", CHAT, session="s2"))
    recaller = service.recaller
    assert recaller.index_wait_s == 2.0 and recaller.reading_wait_s == 0.0  # the defaults
    service.recaller.warm(alice)  # the index built; its vectors queued behind the gate
    col = message_collection(alice)
    idx = recaller._msg[col]
    assert idx.sentences.filling is not None and not idx.sentences.filling.done()
    t = time.monotonic()
    got = service.search(alice, ASK, config=reads_turns)
    assert got and seen[-1] is None and time.monotonic() - t < 1.5  # at once (the index waits 2 s), without the reading
    gate.set()
    _read_all(idx.sentences)
    assert threads and set(threads) == {"amber-sentence_0"}  # its own thread: never ahead of an index build
    service.search(alice, ASK, config=reads_turns)
    assert seen[-1] and len(seen[-1]) >= 2  # every candidate turn read
    # a chat's new exchange, while the background is busy: the recall reads those two itself, no wait
    gate.clear()
    service.store_turns(alice, [Message(id="new0", role="user", content="My legs ache after the game again", session="s3", created_at=T0 + timedelta(days=1)),
                                Message(id="new1", role="assistant", content="Ice them for ten minutes after the game.", session="s3",
                                        created_at=T0 + timedelta(days=1, minutes=1))])
    busy = idx.sentences.filling
    assert busy is not None and not busy.done()  # queued at the capture, held at the gate
    service.search(alice, ASK, config=reads_turns)
    assert seen[-1] and "new0" in seen[-1] and not busy.done()


def test_the_host_start_queues_a_whole_index_and_a_drop_while_building_reads_nothing(service, alice, reads_turns, seen):
    many = [f"note {i} about the allotment and the tomatoes" for i in range(sentence_arm.INLINE + 30)]
    service.store_turns(alice, _turns("n", many) + _turns("c", CHAT, session="s2"))
    recaller, col = service.recaller, message_collection(alice)
    recaller._msg.clear()
    recaller.rebuild("turns", col)  # a warm start: the index, and its vectors queued on their own thread
    _read_all(recaller._msg[col].sentences)
    assert not recaller._msg[col].sentences.pending and len(recaller._msg[col].sentences) == len(many) + len(CHAT)
    # an index whose person was dropped while it was read is installed without vectors: nothing read for it
    recaller._msg.clear()
    real = recaller.store.each_message

    def dropped_meanwhile(c, *a, **kw):
        recaller.drop_indexes(c)
        return real(c, *a, **kw)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(recaller.store, "each_message", dropped_meanwhile)
        idx = recaller._msg_index(col)
    assert idx.rev < 0 and idx.sentences is None


def test_a_model_that_fails_leaves_the_turns_in_the_rankers_order_without_it(service, alice, reads_turns, seen, caplog):
    class Broken(SentenceEncoder):
        def ready(self, load=True):
            return True

        def encode(self, texts, *a, **kw):
            raise MemoryError("no room")

    service.store_turns(alice, _turns("a", CHAT))
    without = service.search(alice, ASK, config=reads_turns.model_copy(update={"sentence_turns": False}))
    service.recaller.sentence = Broken()
    with caplog.at_level("WARNING", logger="amber.recall"):
        got = service.search(alice, ASK, config=reads_turns)
    assert seen[-1] is None and "turns ranked without the sentence model: MemoryError" in caplog.text
    assert [c.id for c in got] == [c.id for c in without]  # the ranker's own order, the feature at its mean


def test_a_recall_waits_for_the_reading_only_as_long_as_the_setting_says(tmp_path, monkeypatch, alice, bob, seen, held):
    """`recall_reading_wait_s` (0 by default): the quality benchmarks wait the whole read out."""
    from core import Settings, build_service
    from core.testing import HashEmbedder

    monkeypatch.setenv("AMBER_RECALL_READING_WAIT_S", "60")
    svc = build_service(Settings(data_dir=tmp_path / "data"), embedder=HashEmbedder())
    try:
        assert svc.recaller.reading_wait_s == 60 and Settings.model_fields["recall_reading_wait_s"].default == 0
        cfg = svc.recall_config(sentence_beside="hash:v1", top_k=20)
        svc.recaller._sentence_turns = True
        # long enough that a recall's candidates are more than it reads on its own thread (TURN_INLINE_CHARS)
        svc.store_turns(bob, _turns("n", [f"note {i} on the allotment: " + "tomatoes, beans and the shed " * 4 for i in range(sentence_arm.INLINE + 30)]))
        svc.recaller.reading_wait_s = 0.6
        svc.recaller.warm(bob)  # held at the gate: recalls wait out what is left of 0.6 s from the build
        svc.recaller._msg[message_collection(bob)].sentences.fill_started = time.monotonic()  # the build, as if it ended now
        t = time.monotonic()
        svc.search(bob, "allotment", config=cfg)
        first = time.monotonic() - t
        t = time.monotonic()
        svc.search(bob, "allotment", config=cfg)  # the wait was counted from the build, not from each recall
        assert first >= 0.4 and time.monotonic() - t < 0.5 and seen[-1] is None
        svc.recaller.reading_wait_s = 60
        many = [f"note {i} about the allotment and the tomatoes" for i in range(sentence_arm.INLINE + 30)]
        svc.store_turns(alice, _turns("n", many) + _turns("c", CHAT, session="s2"))
        svc.recaller.warm(alice)  # its read queued, held at the gate for half a second
        gate, _ = held
        threading.Timer(0.5, gate.set).start()
        t = time.monotonic()
        svc.search(alice, ASK, config=cfg)
        assert time.monotonic() - t >= 0.4 and seen[-1] and len(seen[-1]) >= 2  # waited for the read, then had it
    finally:
        svc.close()


def test_the_readings_kept_for_rebuilds_are_bounded():
    kept: dict[str, SentenceVectors] = {}
    for n in range(70):
        sv = SentenceVectors(np.int8)
        for i in range(3):
            sv.add(f"t{i}", "words")
        sv.put(sv.take(3), np.eye(3, DIM, dtype=np.float32))
        sentence_arm.keep_for_rebuild(kept, f"col{n}", sv, ["t0"], limit=1000)
        assert "t0" not in kept[f"col{n}"].rows  # the gone turn's row dropped at once
    assert len(kept) == 64 and "col0" not in kept and "col69" in kept  # the oldest went first
    sentence_arm.keep_for_rebuild(kept, "big", kept.pop("col69"), [], limit=10)
    assert sum(len(v) for v in kept.values()) <= 10 and "big" in kept
