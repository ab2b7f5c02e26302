"""The local embedder can neither crash nor stall the process that serves chat.

- Every text is prepared (NFKC, surrogates, controls, length) before the engine sees it; a fuzz
  corpus of adversarial Unicode runs through the real engine in a child process, so a crash fails
  the test instead of the run (tests/core/test_embed_engine.py also fuzzes the engine unprepared).
- The engine runs in a worker process: a worker that aborts or is killed mid-request costs the
  requests in flight only, and the next one is served by a fresh worker.
- Queries and interactive writes have their own lane: background batches do not hold them up.
"""

from __future__ import annotations

import json
import math
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time

import pytest

from core import EmbedderUnavailable
from core.embed.local import QUERY_BURST, LocalE5Embedder
from core.embed.text import MAX_EMBED_CHARS, prepare


def _unit(v) -> bool:
    return math.isclose(math.sqrt(sum(x * x for x in v)), 1.0, rel_tol=1e-3)


# ---- prepare: pure --------------------------------------------------------------------------


def test_prepare_expands_compatibility_characters_before_native_code():
    out = prepare("ﷺ" * 20)
    assert "ﷺ" not in out and len(out) == 18 * 20  # U+FDFA is 18 characters after NFKC


def test_prepare_replaces_lone_surrogates_and_drops_controls():
    out = prepare("a\ud800b\x00c\u202ed\u200be\nf\tg")
    assert out == "a\ufffdbcde\nf\tg"
    out.encode("utf-8")  # always encodable


def test_prepare_keeps_head_and_tail_within_the_cap():
    text = "start " + "x" * 50_000 + " end"
    out = prepare(text)
    assert len(out) <= MAX_EMBED_CHARS and out.startswith("start") and out.endswith("end")


def test_prepare_of_megabytes_of_expanding_characters_is_bounded():
    started = time.perf_counter()
    out = prepare("ﷺ" * 1_000_000)
    assert len(out) <= MAX_EMBED_CHARS
    assert time.perf_counter() - started < 30  # a guard against a hang, not a speed claim


# ---- the real engine, fuzzed, in a child process --------------------------------------------

FUZZ = textwrap.dedent(
    """
    import json, sys, unicodedata
    from core.embed.local import QUERY_BURST, LocalE5Embedder
    e = LocalE5Embedder()
    # every BMP and SMP character whose NFKC form differs from it, 100 to a text; and each one
    # that grows in bytes repeated 24 times (U+FDFA needs ~17 repeats to overflow the raw engine)
    decomposable = [chr(c) for c in range(0x20000) if not 0xD800 <= c <= 0xDFFF
                    and unicodedata.normalize("NFKC", chr(c)) != chr(c)]
    growing = [c * 24 for c in decomposable if len(unicodedata.normalize("NFKC", c).encode()) > len(c.encode())]
    corpus = ["".join(decomposable[i:i + 100]) for i in range(0, len(decomposable), 100)]
    corpus += [
        "ﷺ" * 2000, "\\ufdfa\\u3300\\u33ff" * 500,                # the worst expanders, repeated
        "e" + "\\u0301" * 5000, "a\\u0300\\u0301\\u0302" * 2000,   # combining sequences
        "\\ud800\\udc00\\udfff" * 100 + "x",                       # lone surrogates
        "".join(chr(c) for c in range(0, 32)) * 50,                # control characters
        "\\u202e\\u2066\\u2067\\u2068\\u2069\\u200f" * 300 + "abc",    # bidi controls
        "x" * 1_000_000, "汉" * 1_000_000, "😀" * 200_000,          # megabytes
        "", " ", "\\x00",
    ]
    ok = 0
    for text in corpus:
        assert len(e.embed_query(text)) == 384
        ok += 1
    vecs = e.embed_background(corpus + growing)
    assert len(e.embed_documents(corpus[:5])) == 5
    assert len(vecs) == len(corpus) + len(growing)
    ok += len(growing)
    print(json.dumps({"texts": ok, "restarts": sum(l["starts"] - 1 for l in e.status()["lanes"].values())}))
    e.close()
    """
)


@pytest.mark.timeout(1200)
def test_adversarial_unicode_never_crashes_the_host_or_a_worker():
    run = subprocess.run([sys.executable, "-c", FUZZ], capture_output=True, text=True, timeout=1100, cwd=os.getcwd())
    assert run.returncode == 0, run.stderr[-3000:]
    report = json.loads(run.stdout.strip().splitlines()[-1])
    assert report["texts"] > 900
    assert report["restarts"] == 0, run.stderr[-3000:]  # prepared text never crashed the engine


# ---- worker processes ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def embedder():
    e = LocalE5Embedder(query_timeout_s=20, document_timeout_s=60)
    yield e
    e.close()


def test_a_crashing_worker_costs_one_request_and_is_replaced(embedder):
    lane = embedder.document_lane
    embedder.embed_background(["warm up"])
    before = lane.starts
    pid = lane.proc.pid
    # the worker aborts in the middle of a request, as a native crash would end it
    long_docs = [f"document {i}: " + "the quick brown fox jumps over the lazy dog " * 120 for i in range(64)]
    killer = threading.Timer(0.3, os.kill, (pid, signal.SIGABRT))
    with pytest.raises(EmbedderUnavailable):
        with lane.lock:
            killer.start()
            lane.request("passage", long_docs, 120)
    killer.join()
    assert lane.starts == before  # the host is still here; the worker is replaced on next use
    assert _unit(embedder.embed_background(["my cat is called Miso"])[0])
    assert lane.starts == before + 1 and lane.failures >= 1
    assert embedder.status()["lanes"]["background"]["alive"]


def test_the_background_worker_is_started_ahead_of_the_first_capture():
    """Started by the first capture, the background worker loaded its model amid the next turns'
    recalls; a host (build_service) starts it beside the query worker, before anything asks for it."""
    e = LocalE5Embedder(query_timeout_s=20, document_timeout_s=60, start_background=True)
    try:
        deadline = time.monotonic() + 60
        while not e.document_lane.alive() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert e.document_lane.alive() and e.document_lane.starts == 1 and e.document_lane.requests == 0
        assert _unit(e.embed_background(["the first captured turn"])[0]) and e.document_lane.starts == 1
    finally:
        e.close()
    assert not e.document_lane.alive()


def test_a_killed_worker_is_replaced(embedder):
    embedder.embed_query("warm up")
    lane = embedder.query_lanes[0]
    starts = lane.starts
    os.kill(lane.proc.pid, signal.SIGKILL)
    lane.proc.wait(timeout=10)  # dead before the next request: it is found dead, not mid-request
    assert _unit(embedder.embed_query("asked after the worker died"))
    assert lane.starts == starts + 1 and lane.alive()


def test_a_query_and_a_saved_memory_do_not_wait_behind_background_work(embedder):
    embedder.embed_query("warm")
    long_docs = [f"document {i}: " + "the quick brown fox jumps over the lazy dog " * 120 for i in range(24)]
    done = threading.Event()
    errors: list[Exception] = []

    def background() -> None:
        try:
            embedder.embed_background(long_docs)
        except Exception as e:  # reported below
            errors.append(e)
        done.set()

    t = threading.Thread(target=background)
    t.start()
    time.sleep(0.3)  # the batch is being embedded now
    assert not done.is_set()
    vec = embedder.embed_query("what colour is the fox?")
    saved = embedder.embed_documents(["the fox is red"])[0]
    # both were answered by the interactive lane while the background lane was still busy
    assert _unit(vec) and _unit(saved) and not done.is_set()
    t.join(timeout=600)
    assert done.is_set() and not errors


def test_the_lanes_share_one_worker_and_only_the_background_lane_runs_niced(embedder):
    """One worker process holds both lanes (one tokenizer, ~280 MB, instead of one per lane); Linux
    keeps a nice value per thread, so the background lane's thread and the engine threads it made
    run at the lower priority while the interactive lane's thread does not."""
    assert _unit(embedder.embed_query("warm up the interactive lane"))
    assert _unit(embedder.embed_background(["warm up the background lane"])[0])
    pid = embedder.query_lanes[0].proc.pid
    assert embedder.document_lane.proc.pid == pid
    base = os.getpriority(os.PRIO_PROCESS, 0)
    nices = [int(open(f"/proc/{pid}/task/{t}/stat").read().rsplit(")", 1)[1].split()[16]) for t in os.listdir(f"/proc/{pid}/task")]
    assert nices.count(min(base + 10, 19)) >= 2  # the lane's thread and its session's second thread
    assert nices.count(base) >= 2  # the main thread and the interactive lane's


def test_status_reports_without_embedding(embedder):
    lanes = embedder.status()["lanes"]
    starts = {k: v["starts"] for k, v in lanes.items()}
    for _ in range(50):
        embedder.status()
    assert {k: v["starts"] for k, v in embedder.status()["lanes"].items()} == starts


def test_long_documents_embed_head_and_tail(embedder):
    head = "My sister Maud lives in Lisbon and teaches piano. " * 60
    tail = "The recipe needs three eggs, flour and a pinch of salt. " * 60
    both, only_head, only_tail = embedder.embed_background([head + tail, head, tail])
    cos = lambda a, b: sum(x * y for x, y in zip(a, b))  # noqa: E731
    # the long text is between its head and its tail, not just its first window
    assert cos(both, only_tail) > 0.8 and cos(both, only_head) > 0.8


def test_concurrent_writers_share_batches_and_get_their_own_vectors(embedder):
    texts = [f"note {i}: my neighbour's cat is called Pixel number {i}" for i in range(24)]
    alone = [embedder.embed_background([t])[0] for t in texts[:3]]
    before = embedder.document_lane.requests
    results: dict[int, list[float]] = {}
    barrier = threading.Barrier(24)

    def write(i: int) -> None:
        barrier.wait()
        results[i] = embedder.embed_background([texts[i]])[0]

    threads = [threading.Thread(target=write, args=(i,)) for i in range(24)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert embedder.document_lane.requests - before < 24  # combined
    cos = lambda a, b: sum(x * y for x, y in zip(a, b))  # noqa: E731
    for i in range(3):  # each caller got its own text's vector, as it is alone (activations are quantised per token)
        assert max(abs(x - y) for x, y in zip(results[i], alone[i])) < 1e-5
        assert max(range(3), key=lambda j: cos(results[i], alone[j])) == i


def test_queries_asked_at_once_go_together_and_each_gets_its_own_vector(embedder):
    lane = embedder.query_lanes[0]
    texts = [f"what did I tell you about my cousin number {i}?" for i in range(20)] + ["我表妹住在哪里？"] * 4
    with lane.lock:
        alone = {t: lane.request("query", [prepare(t)], 20)[0] for t in dict.fromkeys(texts)}
    sent = _recording(lane)
    results: dict[int, list[float]] = {}
    barrier = threading.Barrier(len(texts))

    def ask(i: int) -> None:
        barrier.wait()
        results[i] = embedder.embed_query(texts[i])

    threads = [threading.Thread(target=ask, args=(i,)) for i in range(len(texts))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    del lane.request  # our own lane object again
    assert len(results) == len(texts)
    for i, t in enumerate(texts):
        assert max(abs(x - y) for x, y in zip(results[i], alone[t])) < 1e-5, t
    assert len(sent) < len(texts) - 4  # combined, and a text asked four times is embedded once per request
    assert all(len(batch) == len(set(batch)) <= QUERY_BURST for batch in sent)
    assert sorted({t for batch in sent for t in batch}) == sorted(prepare(t) for t in alone)


def test_a_query_the_worker_fails_on_fails_alone_in_its_burst(embedder):
    """A request of several queries that fails is tried again text by text: the text that fails
    costs its own caller's recall only, as when every query had a request of its own."""
    lane = embedder.query_lanes[0]
    real = lane.request

    sent: list[int] = []

    def refusing(kind, texts, timeout_s):
        if any("POISON" in t for t in texts):
            sent.append(len(texts))
            raise EmbedderUnavailable("embedding worker (interactive-1): refused this text")
        return real(kind, texts, timeout_s)

    texts = [f"which bakery did I say had the best rye bread, number {i}?" for i in range(7)] + ["POISON pill"]
    with lane.lock:
        alone = {t: real("query", [prepare(t)], 20)[0] for t in texts[:-1]}
    lane.request = refusing
    out: dict[int, object] = {}

    def ask(i: int) -> None:
        try:
            out[i] = embedder.embed_query(texts[i])
        except EmbedderUnavailable as e:
            out[i] = e

    try:
        with lane.lock:  # the first query's request waits for the lane; the rest queue behind it
            threads = [threading.Thread(target=ask, args=(i,)) for i in range(len(texts))]
            for t in threads[:-1]:
                t.start()
            while len(embedder._burst._queued) < len(texts) - 2:
                time.sleep(0.005)
            threads[-1].start()  # the poisoned one joins the queue last, so it goes in a burst
            while len(embedder._burst._queued) < len(texts) - 1:
                time.sleep(0.005)
        for t in threads:
            t.join(60)
    finally:
        del lane.request
    assert max(sent) > 1  # the poisoned text did go in a request with others
    assert isinstance(out[len(texts) - 1], EmbedderUnavailable)
    for i, t in enumerate(texts[:-1]):
        assert max(abs(x - y) for x, y in zip(out[i], alone[t])) < 1e-5, t


def _recording(lane):
    """The texts of every request the background lane sends, in order (wraps our own lane object)."""
    sent: list[list[str]] = []
    real = lane.request

    def request(kind, texts, timeout_s):
        sent.append(list(texts))
        return real(kind, texts, timeout_s)

    lane.request = request
    return sent


def test_bulk_work_is_sliced_and_another_person_goes_out_with_the_next_batch(embedder):
    """Issue 27: one person's 600 texts go in slices of at most 64, and another person's turn,
    queued while the bulk is in flight, is in the very next request, long before the bulk is done."""
    from core.embed.fair import background_owner
    from core.embed.local import BATCH

    embedder.embed_background(["warm up"])
    sent = _recording(embedder.document_lane)
    bulk = [f"imported turn {i}: we talked about the garden and the cello lessons" for i in range(600)]
    out: dict[str, list] = {}

    def big() -> None:
        with background_owner("ines"):
            out["bulk"] = embedder.embed_background(bulk)

    t = threading.Thread(target=big)
    t.start()
    while not sent:
        time.sleep(0.01)
    in_flight = len(sent)
    with background_owner("otto"):
        mine = embedder.embed_background(["otto: my train leaves at nine"])
    assert "bulk" not in out  # served while the bulk is still going
    t.join(timeout=600)
    assert len(out["bulk"]) == 600 and all(_unit(v) for v in out["bulk"][:3]) and _unit(mine[0])
    assert all(len(r) <= BATCH for r in sent)
    [otto_batch] = [i for i, r in enumerate(sent) if "otto: my train leaves at nine" in r]
    assert otto_batch <= in_flight  # the request after the one in flight when he asked (or that one)
    flat = [x for r in sent for x in r if x.startswith("imported turn")]
    assert flat == bulk  # in order, each once


def test_owners_take_turns_within_a_batch(embedder):
    """Three people queue at once: each batch takes one share of each (by work, not count), nobody's
    whole queue first, and the next batch starts with the next person; one person alone fills it."""
    from core.embed.local import BATCH_COST, SHARE_COST, _Job

    jobs = {who: _Job([f"{who} {i} " + "x" * 1000 for i in range(40)], who) for who in ("a", "b", "c")}
    assert jobs["a"].costs[0] == 1000 + 4 + 64 and (SHARE_COST, BATCH_COST) == (4000, 12000)
    with embedder._pending_lock:
        for j in jobs.values():
            embedder._pending.setdefault(j.owner, []).append(j)
        first = embedder._next_batch()
        assert [(j.owner, n) for j, n in first] == [("a", 3), ("b", 3), ("c", 3)]  # 3 x 1068 <= 4000
        embedder._pending["a"] = embedder._pending.pop("a")  # what _serve_pending does after sending
        for j, n in first:
            j.sent += n
        assert [(j.owner, n) for j, n in embedder._next_batch()] == [("b", 3), ("c", 3), ("a", 3)]
        del embedder._pending["b"], embedder._pending["c"]
        assert [(j.owner, n) for j, n in embedder._next_batch()] == [("a", 11)]  # alone: 11 x 1068 <= 12 000
        embedder._pending.clear()


def test_a_batch_of_long_texts_is_cut_by_their_work_not_their_number(embedder):
    """Long texts cost the engine two windows each: a person's backlog of them goes two to a batch,
    not 64, and another person's short turn goes with one of them, so nobody waits behind a batch
    that runs for tens of seconds."""
    from core.embed.local import _Job

    big = _Job(["y" * 8000] * 10, "big")
    small = _Job(["hi"] * 3, "small")
    with embedder._pending_lock:
        embedder._pending["big"] = [big]
        assert [(j.owner, n) for j, n in embedder._next_batch()] == [("big", 2)]  # 2 x 4160 <= 12 000 < 3 x 4160
        embedder._pending["small"] = [small]
        assert [(j.owner, n) for j, n in embedder._next_batch()] == [("big", 1), ("small", 3)]
        embedder._pending.clear()


def test_a_bulk_request_that_fails_fails_at_once_and_spares_the_others(embedder):
    """The worker dies under one person's bulk request: that request fails with the slice in flight
    (it does not try its remaining slices), and another person's turn is still embedded."""
    from core.embed.fair import background_owner

    embedder.embed_background(["warm up"])
    lane = embedder.document_lane
    sent = _recording(lane)
    long_docs = [f"document {i}: " + "the quick brown fox jumps over the lazy dog " * 120 for i in range(640)]
    errors: list[Exception] = []

    def big() -> None:
        try:
            with background_owner("ines"):
                embedder.embed_background(long_docs)
        except EmbedderUnavailable as e:
            errors.append(e)

    t = threading.Thread(target=big)
    t.start()
    while not sent:
        time.sleep(0.01)
    os.kill(lane.proc.pid, signal.SIGKILL)
    t.join(timeout=600)
    assert len(errors) == 1
    assert len(sent) <= 3  # the slice that died (and at most the one before it), not the other nine
    with background_owner("otto"):
        assert _unit(embedder.embed_background(["otto: my train leaves at nine"])[0])


def test_worker_pipes_past_file_descriptor_1024():
    """A long-running host holds many sockets and files; the worker's pipe can be fd 1100."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < 1200:
        pytest.fail(f"this machine allows only {hard} open files; the test needs 1200")
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, 1200), hard))
    held = [os.open(os.devnull, os.O_RDONLY) for _ in range(1100)]
    try:
        e = LocalE5Embedder(query_timeout_s=30)
        try:
            assert min(e.query_lanes[0].pipes) > 1024
            assert _unit(e.embed_query("still works"))
        finally:
            e.close()
    finally:
        for fd in held:
            os.close(fd)


def test_recent_query_vectors_are_kept_per_person_and_hold_no_words():
    """A query vector one person's recall left in the cache never answers another person's query
    (a faster answer would tell them someone asked, or asked Amber to forget, those very words), and
    the cache is keyed by digests, not by the words."""
    from core.embed.fair import asked_by

    e = LocalE5Embedder(query_timeout_s=30)
    sent: list[str] = []
    real = e._burst.vector
    e._burst.vector = lambda text, timeout: sent.append(text) or real(text, timeout)
    try:
        said = "my HIV test came back positive, what now?"
        alice = asked_by("alice", e.embed_query, said)
        assert asked_by("alice", e.embed_query, said) == alice and len(sent) == 1  # her own recall finds it
        assert asked_by("bob", e.embed_query, said) == alice and len(sent) == 2  # bob's goes to the engine
        assert e.embed_query(said) == alice and len(sent) == 3  # nobody named: a bucket of its own
        assert not any(b"HIV" in part for k in e._cache for part in k) and all(len(part) == 32 for k in e._cache for part in k)
        # her forget drops what she asked (nobody acting as her can time whether she asked it); bob's stays
        assert e._cache.drop("alice") == 1
        assert asked_by("bob", e.embed_query, said) == alice and len(sent) == 3
        assert asked_by("alice", e.embed_query, said) == alice and len(sent) == 4
    finally:
        e.close()


def test_a_recent_query_vector_is_kept_no_longer_than_its_time():
    """A forget carried out by another host sharing the store cannot drop this process's recent
    vectors, so none answers after `TTL_S`: past it the same words from the same person are read
    again, and the stale entry is gone from the cache."""
    from core.embed.recent import TTL_S, RecentVectors

    now = [1000.0]
    cache: RecentVectors[str] = RecentVectors(8, clock=lambda: now[0])
    cache.put("alice", "where do I live now?", "v1")
    now[0] += TTL_S - 1
    assert cache.get("alice", "where do I live now?") == "v1"  # a retried turn still finds it
    now[0] += 2  # a read does not extend its time: it was embedded TTL_S + 1 ago
    assert cache.get("alice", "where do I live now?") is None
    assert list(cache) == []
    cache.put("alice", "where do I live now?", "v2")  # embedded again: a new time
    now[0] += TTL_S / 2
    assert cache.get("alice", "where do I live now?") == "v2"
    assert 60 <= TTL_S <= 600  # seconds: long enough for a retry, short enough to bound what a forget elsewhere leaves
