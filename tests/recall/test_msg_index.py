"""The in-process index of a person's turns: built from each turn's own words once, it holds
exactly what indexing every turn's whole window text would, however the turns arrive."""

from __future__ import annotations

import math
import random
import re
import unicodedata
from collections import Counter
from datetime import datetime, timedelta, timezone

from core.model import Message
from core.recall.lexical import CJK_RANGES, BM25Index, fold, tokenize
from core.recall.turns import LEXICAL_CONTEXT, TurnIndex, add_turns, lexical_index_text, lexical_index_tokens

T0 = datetime(2024, 3, 5, 9, 30, tzinfo=timezone.utc)

# pieces that stress the tokenizer at the joins: accents (composed and combining), full-width
# forms, CJK, kana voicing, hangul, emoji with modifiers, ligatures, punctuation that splits
PIECES = ["plan ", "Café ", "e\u0301", "\u0316\u0301", "ｉＰｈｏｎｅ１５", "中文字符", "我们 ", "ｶﾞ", "がぎ", "한국어",
          "🍕👍🏽", "ﬁne ", "İstanbul ", ": ", "—", "x̂", "Lisa和家人", "\u3099", " ", "1/2", "ǅ"]


def _text(rng: random.Random) -> str:
    return "".join(rng.choice(PIECES) for _ in range(rng.randint(1, 12))).strip() or "x"


def _turns(rng: random.Random, n: int, sessions: int = 3) -> list[Message]:
    return [Message(id=f"m{i}", role=rng.choice(["user", "assistant"]), content=_text(rng), session=f"s{rng.randrange(sessions)}",
                    author=rng.choice([None, "Lin", "小王", "José"]), created_at=T0 + timedelta(minutes=rng.randrange(10_000)))
            for i in range(n)]


def _postings(bm: BM25Index, ids) -> dict[str, dict[str, int]]:
    return {i: bm.terms(i) for i in ids}


def test_window_tokens_equal_the_window_texts_tokens():
    rng = random.Random(32)
    for _ in range(400):
        m, *rest = _turns(rng, 5)
        prev, nxt = rest[: rng.randint(0, 2)], rest[2 : 2 + rng.randint(0, 2)]
        got = lexical_index_tokens(m, prev, nxt, lambda t: tokenize(t.content))
        assert got == tokenize(lexical_index_text(m, prev, nxt)), (m, prev, nxt)


def _reference(turns: list[Message]) -> BM25Index:
    """Each turn's whole window text, as the index held it before it was built from parts."""
    chains: dict[str, list[Message]] = {}
    for m in sorted(turns, key=lambda x: (x.created_at, x.id)):
        chains.setdefault(m.session or "", []).append(m)
    ref = BM25Index()
    n = LEXICAL_CONTEXT
    for chain in chains.values():
        for i, m in enumerate(chain):
            ref.add(m.id, lexical_index_text(m, chain[max(0, i - n) : i], chain[i + 1 : i + 1 + n]))
    return ref


def test_bulk_build_and_turn_by_turn_hold_the_same_index():
    rng = random.Random(29)
    turns = _turns(rng, 120)
    ordered = sorted(turns, key=lambda x: (x.created_at, x.id))
    bulk = TurnIndex(rev=0)
    add_turns(bulk, turns)
    one_by_one = TurnIndex(rev=0)
    for m in ordered:  # as live capture brings them: a turn or a few at a time
        add_turns(one_by_one, [m])
    in_batches = TurnIndex(rev=0)
    for i in range(0, len(ordered), 7):
        add_turns(in_batches, ordered[i : i + 7] + ordered[max(0, i - 3) : i])  # repeats are skipped
    ids = [m.id for m in turns]
    ref = _postings(_reference(turns), ids)
    for idx in (bulk, one_by_one, in_batches):
        assert _postings(idx.bm25, ids) == ref
        assert len(idx.bm25) == len(turns)
        for q in ("plan café", "中文 我们", "lisa 家人", "iphone15 🍕"):
            assert idx.bm25.search(q, 10) == _reference(turns).search(q, 10)
        assert set(idx.msgs) == {m.id for m in turns}
    # neighbours and tails follow each session's order
    for s in {m.session for m in turns}:
        chain = [m for m in ordered if m.session == s]
        assert [m.id for m in bulk.tails[s]] == [m.id for m in chain[-LEXICAL_CONTEXT:]]
        for a, b in zip(chain, chain[1:]):
            assert bulk.next_of[a.id].id == b.id and bulk.prev_of[b.id].id == a.id
            assert [x.id for x in bulk.next_window(a, 2)] == [x.id for x in chain[chain.index(a) + 1 : chain.index(a) + 3]]


def _fold_whole_runs(text: str) -> str:
    """Folding as it was done before: every non-CJK run decomposed whole."""
    def strip(m: re.Match) -> str:
        run = m.group()
        return run if run.isascii() else "".join(c for c in unicodedata.normalize("NFKD", run) if not unicodedata.combining(c))
    return re.sub(rf"[^{CJK_RANGES}]+", strip, unicodedata.normalize("NFKC", text).casefold())


def test_folding_only_the_non_ascii_runs_changes_nothing():
    rng = random.Random(10)
    for _ in range(3000):
        t = _text(rng)
        assert fold(t) == _fold_whole_runs(t), t
    # every character after and before ASCII letters (combining marks, compatibility forms, ...),
    # a sample across the planes: a mark after an ASCII letter is stripped either way
    for cp in list(range(0x80, 0x3000)) + list(range(0xa000, 0xd800, 7)) + list(range(0xf900, 0x10000)) + list(range(0x10000, 0x30000, 97)):
        t = f"a{chr(cp)}b{chr(cp)} "
        assert fold(t) == _fold_whole_runs(t), hex(cp)


class _PlainBM25:
    """BM25 as a plain loop over dicts: what the compact index must equal, score for score."""

    def __init__(self, k1: float = 1.2, b: float = 0.75):
        self.k1, self.b, self.docs = k1, b, {}

    def add(self, doc_id: str, text: str) -> None:
        self.docs[doc_id] = Counter(tokenize(text))

    def remove(self, doc_id: str) -> None:
        self.docs.pop(doc_id, None)

    def search(self, query: str, k: int, allowed=None) -> list[tuple[str, float]]:
        n = len(self.docs)
        if not n:
            return []
        avgdl = sum(sum(c.values()) for c in self.docs.values()) / n
        scores: dict[str, float] = {}
        for term in Counter(tokenize(query)):
            holding = [(d, c[term]) for d, c in self.docs.items() if term in c]
            if not holding:
                continue
            idf = math.log(1 + (n - len(holding) + 0.5) / (len(holding) + 0.5))
            for d, tf in holding:
                if allowed is None or d in allowed:
                    dl = sum(self.docs[d].values())
                    scores[d] = scores.get(d, 0.0) + idf * tf * (self.k1 + 1) / (tf + self.k1 * (1 - self.b + self.b * dl / avgdl))
        return sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))[:k]


def test_compact_index_scores_as_the_plain_formula_through_replaces_removes_and_compaction():
    rng = random.Random(34)
    words = ["tulip", "garden", "kyoto", "ramen", "badminton", "tuesday", "中文", "我们", "家人", "🍕", "café", "plan"]
    compact, plain = BM25Index(), _PlainBM25()
    for step in range(6000):  # past several compactions (over 1 024 freed slots, more freed than live)
        d = f"d{rng.randrange(400)}"
        if rng.random() < 0.3:
            compact.remove(d)
            plain.remove(d)
        else:
            text = " ".join(rng.choice(words) for _ in range(rng.randint(0, 9)))
            compact.add(d, text)
            plain.add(d, text)
        if step % 500 == 0 or step == 5999:
            assert len(compact) == len(plain.docs)
            allowed = {f"d{i}" for i in range(0, 400, 3)}
            for q in ("tulip garden", "我们 家人", "ramen ramen kyoto", "nothing here", "🍕 café plan tuesday"):
                for k in (1, 5, 50):
                    assert compact.search(q, k) == plain.search(q, k)
                    assert compact.search(q, k, allowed) == plain.search(q, k, allowed)
            for i in list(plain.docs)[:20]:
                assert compact.terms(i) == dict(plain.docs[i])
    # compacted as it went: the slots held are the live ones plus at most the last stretch freed
    assert len(compact._g.ids) <= len(compact) + max(1025, len(compact) + 1) < 6000


def test_recalls_go_on_without_the_turns_while_a_long_history_is_indexed(service, alice, clock, monkeypatch, caplog):
    """A person who just imported 200 000 turns: building their turn index takes over a minute.
    Recalls meanwhile answer from their memories within the wait, one build runs (not one per
    recall), and once it is done the turns are found again."""
    import threading
    import time

    from core import MemoryIn
    from core.scope import message_collection

    service.remember(alice, MemoryIn(content="Alice keeps bees on the roof"))
    service.capture(alice, [Message(id="t1", role="user", content="We planted tulips by the beehive", session="s", created_at=clock.now())],
                    commands=False)
    service.search(alice, "bees")  # both indexes built; then only the turns' is dropped
    service.recaller.drop_indexes(message_collection(alice))
    release, reads = threading.Event(), []
    orig = service.recaller.store.each_message

    def slow(*args, **kwargs):  # as a long history reads: held until released
        reads.append(1)
        assert release.wait(30)
        yield from orig(*args, **kwargs)

    monkeypatch.setattr(service.recaller.store, "each_message", slow)
    monkeypatch.setattr(service.recaller, "index_wait_s", 0.3)
    builds = service.recaller.rebuilds
    took = []
    for _ in range(3):
        started = time.monotonic()
        items = service.recall(alice, "bees tulips beehive").items
        took.append(time.monotonic() - started)
        assert [c.source for c in items] == ["memory"]  # the memory, no turn yet
    assert took[0] >= 0.3  # the first waited for the build, up to INDEX_WAIT_S
    assert took[0] < 10 and max(took[1:]) < 0.3  # the others did not wait again for a build known to be slow
    assert len(reads) == 1  # one build for all three recalls
    assert "without its captured turns" in caplog.text
    release.set()
    deadline = time.monotonic() + 30
    while message_collection(alice) not in service.recaller._msg and time.monotonic() < deadline:
        time.sleep(0.05)
    assert "t1" in {c.id for c in service.recall(alice, "bees tulips beehive").items}
    assert service.recaller.rebuilds == builds + 1


def test_a_host_keeps_a_bounded_number_of_turns_indexed(service, clock, monkeypatch):
    """Past `recall_index_max_turns` in all, the turn index used least recently is dropped, and
    that person's next recall builds it again with the same answer."""
    from core import Actor, scope_for
    from core.scope import message_collection

    people = [scope_for(Actor(u)) for u in ("ana", "ben", "caro")]
    for n, scope in enumerate(people):
        service.capture(scope, [Message(id=f"{n}-{i}", role="user", content=f"tulips and beehive note {i}", session="s",
                                        created_at=clock.now() + timedelta(minutes=i)) for i in range(8)], commands=False)
    monkeypatch.setattr(service.recaller, "index_max_turns", 20)
    first = {c.id for c in service.search(people[0], "tulips beehive")}
    service.search(people[1], "tulips beehive")
    held = service.recaller._msg
    assert {message_collection(p) for p in people[:2]} <= set(held)  # 16 turns: both kept
    service.search(people[2], "tulips beehive")  # 24 > 20: ana's, used least recently, goes
    assert message_collection(people[0]) not in held and {message_collection(p) for p in people[1:]} <= set(held)
    builds = service.recaller.rebuilds
    assert {c.id for c in service.search(people[0], "tulips beehive")} == first
    assert service.recaller.rebuilds > builds and message_collection(people[1]) not in held


def test_a_host_keeps_the_indexes_of_a_bounded_number_of_people(service, clock, monkeypatch):
    """Past `recall_index_max_people`, the indexes (memories and turns) used least recently are
    dropped, down to nine tenths of the limit, and the host keeps nothing per person it no longer
    indexes; a person whose index went gets the same answer from a rebuilt one."""
    from core import Actor, MemoryIn, scope_for
    from core.scope import memory_collection, message_collection

    people = [scope_for(Actor(f"p{n}")) for n in range(12)]
    for n, scope in enumerate(people):
        service.remember(scope, MemoryIn(content=f"person {n} grows tulips by the beehive"))
        service.capture(scope, [Message(id=f"{n}-0", role="user", content="tulips and beehive note", session="s",
                                        created_at=clock.now())], commands=False)
    monkeypatch.setattr(service.recaller, "index_max_people", 10)
    first = [c.id for c in service.search(people[0], "tulips beehive")]
    for scope in people[1:]:
        service.search(scope, "tulips beehive")
    r = service.recaller
    held = set(r._mem) | set(r._msg)
    assert len(r._mem) + len(r._msg) <= 20 and set(r._used) == held
    assert memory_collection(people[-1]) in held and message_collection(people[-1]) in held  # the newest stay
    assert memory_collection(people[0]) not in held  # the oldest went
    assert [c.id for c in service.search(people[0], "tulips beehive")] == first


def test_searches_beside_a_writer_never_fail_through_compactions():
    """Recall searches without the index's lock while captures write: adds, replaces, removes and
    the compactions they trigger must never make a search or a coverage read fail."""
    import threading

    idx, stop, errors = BM25Index(), threading.Event(), []
    words = ["tulip", "garden", "kyoto", "ramen", "中文", "我们", "🍕", "café", "plan", "bike"]

    def write():
        rng = random.Random(1)
        for step in range(30000):
            d = f"d{rng.randrange(300)}"
            if rng.random() < 0.4:
                idx.remove(d)
            else:  # new words now and then: terms appear while searches run
                idx.add(d, " ".join(rng.choice(words) for _ in range(5)) + f" w{step % 500}")
        stop.set()

    def read():
        rng = random.Random(2)
        while not stop.is_set():
            try:
                q = f"{rng.choice(words)} {rng.choice(words)} w{rng.randrange(500)}"
                hits = idx.search(q, 10, {f"d{i}" for i in range(0, 300, 2)} if rng.random() < 0.3 else None)
                idx.coverage(q, [h for h, _ in hits] + ["d1", "nobody"])
            except Exception as e:  # noqa: BLE001 - any failure is the finding
                errors.append(repr(e))
                stop.set()

    threads = [threading.Thread(target=write), threading.Thread(target=read), threading.Thread(target=read)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert errors == []
    assert len(idx) > 0


def test_stopping_the_host_stops_a_turn_index_build(tmp_path):
    """The interpreter waits for the index pool's threads at exit, and a build of a big imported
    history takes minutes: a host asked to stop waited for it. Here the history never ends (each
    page comes slowly, for ever); closing the service must still let the process exit."""
    import subprocess
    import sys
    import textwrap
    from pathlib import Path

    code = textwrap.dedent("""
        import itertools, sys, time
        from datetime import datetime, timedelta, timezone
        from core import Actor, Message, Settings, build_service, scope_for
        from core.scope import message_collection
        from core.testing import FixedClock, HashEmbedder

        svc = build_service(Settings(data_dir=sys.argv[1]), embedder=HashEmbedder(), clock=FixedClock())
        alice = scope_for(Actor("alice"))
        svc.store_turns(alice, [Message(id="t1", role="user", content="tulips by the beehive", created_at=datetime(2026, 1, 1, tzinfo=timezone.utc))])
        svc.recaller.index_wait_s = 0.2

        def endless(*args, **kwargs):  # a history that is still being read when the host stops
            for i in itertools.count():
                time.sleep(0.01)
                yield Message(id=f"h{i}", role="user", content=f"old note {i}", created_at=datetime(2020, 1, 1, tzinfo=timezone.utc) + timedelta(minutes=i))

        svc.recaller.store.each_message = endless
        svc.recall(alice, "tulips")  # starts the build, waits 0.2 s, answers without the turns
        assert message_collection(alice) in svc.recaller._index_builds  # still building
        svc.close()
        print("closed", flush=True)
    """)
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run([sys.executable, "-c", code, str(tmp_path / "data")], cwd=root, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and "closed" in done.stdout, done.stderr[-2000:]


def test_a_long_pastes_head_is_indexed_and_its_words_read_outside_the_recall_lock(service, alice, monkeypatch):
    """The lexical index reads a turn's first LEXICAL_TURN_CHARS characters (its window reads it again
    as the next two turns arrive, under the lock every recall takes), and a captured turn's own words
    are read before that lock is taken: a 100 000-character paste of a character NFKC makes eighteen
    held everyone's recall most of a second."""
    import core.recall.turns as turns_mod
    from core.recall.turns import LEXICAL_TURN_CHARS

    service.store_turns(alice, [Message(id="a1", role="user", content="hello there", session="s1", created_at=T0)])
    service.recall(alice, "hello")  # the person's turn index is built
    recaller, under_lock = service.recaller, []
    real = turns_mod.tokenize
    monkeypatch.setattr(turns_mod, "tokenize", lambda text: under_lock.append(recaller._lock._is_owned()) or real(text))
    paste = "zebracorn " + "filler words here " * (LEXICAL_TURN_CHARS // 18) + " quokkaberry"
    assert len(paste) > LEXICAL_TURN_CHARS
    service.store_turns(alice, [Message(id="p1", role="user", content=paste, session="s2", created_at=T0 + timedelta(hours=1))])
    assert under_lock == [False]  # the new turn's words, once, before the lock
    idx = recaller._msg[next(iter(recaller._msg))]
    terms = idx.bm25.terms("p1")
    assert "zebracorn" in terms and "quokkaberry" not in terms  # past the head: not in the lexical index
