"""LoCoMo retrieval: does recall find the turns that answer a question?

Each conversation is ingested through `MemoryService.ingest` (speaker as author, session date as
time, one user per conversation, a fresh store per conversation), then every question of
categories 1-4 is asked through `MemoryService.search` with three configurations measured in the
same run: BM25 only, dense only, and Amber's default preset. R@k = |evidence ∩ top-k| / |evidence|
averaged over questions, MRR of the first evidence hit, latency p50/p95 of `search`.

    .venv/bin/python bench/locomo_recall.py [--data ../shared/eval/locomo/locomo_dev.json] [--smoke]

The last line printed is one JSON object with the results.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
import time
from contextlib import contextmanager
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Iterator

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
os.environ.setdefault("AMBER_RECALL_INDEX_WAIT_S", "3600")  # recall quality: every query waits for the whole turn index
os.environ.setdefault("AMBER_RECALL_READING_WAIT_S", "3600")  # and for the sentence model's reading of the turns
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from core import Actor, Message, Role, Settings, build_embedder, build_service, scope_for  # noqa: E402
from core.recall import ranker  # noqa: E402
from injected import Injected  # noqa: E402

HERE = Path(__file__).resolve().parent
DEFAULT_DATA = HERE.parent.parent / "shared" / "eval" / "locomo" / "locomo_dev.json"
KS = (5, 10, 20)

# The three methods, as overrides of the default preset. An arm weighted 0 is not queried.
METHODS = {
    "bm25": {"weights": {"mem_lexical": 1.0, "msg_lexical": 1.0, "mem_dense": 0.0, "msg_dense": 0.0}, "neighbours": 0.0},
    "dense": {"weights": {"mem_lexical": 0.0, "msg_lexical": 0.0, "mem_dense": 1.0, "msg_dense": 1.0}, "neighbours": 0.0},
    "amber": {},
}
# Ablations, run only when named in --methods (e.g. --methods amber,amber_rrf60,amber_neighbours).
ABLATIONS = {
    "amber_rrf60": {"rrf_k": 60},  # the textbook RRF constant instead of the default
    "amber_neighbours": {"neighbours": 0.15},  # credit adjacent turns with part of a hit's score
    "amber_trust": {"lexical_evidence": 0.3},  # lexical arms weighted by their best hit's coverage of the query
    "amber_fusion": {"turn_ranker": False},  # fusion's order of the turns, without the turn ranker
}


def parse_date(text: str) -> datetime:
    """LoCoMo session stamps look like '1:56 pm on 8 May, 2023'."""
    return datetime.strptime(text.replace(",", ""), "%I:%M %p on %d %B %Y").replace(tzinfo=timezone.utc)


def turn_text(turn: dict) -> str:
    # A shared photo reaches a chat client as its caption next to the words: keep it, like a capture would.
    text = turn["text"]
    if turn.get("blip_caption"):
        text += f" [shares {turn['blip_caption']}]"
    return text


def conversation_messages(conv: dict) -> list[Message]:
    out: list[Message] = []
    sessions = sorted((k for k in conv if re.fullmatch(r"session_\d+", k)), key=lambda k: int(k.split("_")[1]))
    for key in sessions:
        start = parse_date(conv[f"{key}_date_time"])
        for i, turn in enumerate(conv[key]):
            out.append(
                Message(
                    id=turn["dia_id"],
                    role=Role.user if turn["speaker"] == conv["speaker_a"] else Role.assistant,
                    content=turn_text(turn),
                    author=turn["speaker"],
                    session=key,
                    # turns of a session share its stamp; half a minute apart keeps their order
                    created_at=start + timedelta(seconds=30 * i),
                )
            )
    return out


def questions_of(sample: dict) -> list[dict]:
    """The questions recall is measured on: categories 1-4, with evidence."""
    return [q for q in sample["qa"] if q.get("category") in (1, 2, 3, 4) and q.get("evidence")]


def ingest_all(svc, scope, msgs: list[Message]) -> None:
    for i in range(0, len(msgs), 256):  # batches, as a long capture backlog would arrive
        svc.store_turns(scope, msgs[i : i + 256])


@contextmanager
def stored(sample: dict, embedder, user_id: str) -> Iterator[tuple]:
    """A fresh store holding every turn of one conversation as one person's: (service, scope, turns)."""
    msgs = conversation_messages(sample["conversation"])
    with tempfile.TemporaryDirectory(prefix="amber-locomo-") as tmp:
        svc = build_service(Settings(data_dir=Path(tmp)), embedder=embedder)
        try:
            scope = scope_for(Actor(user_id=user_id, via="bench"))
            ingest_all(svc, scope, msgs)
            yield svc, scope, msgs
        finally:
            svc.close()


def pct(values: list[float], p: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(round(p / 100 * (len(s) - 1))))] if s else 0.0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default=str(DEFAULT_DATA))
    ap.add_argument("--limit", type=int, default=0, help="only the first N conversations")
    ap.add_argument("--methods", default=",".join(METHODS))
    ap.add_argument("--ranker-folds", type=Path, default=None,
                    help="score conversation n with the turn ranker fitted without it (DIR/<data file>-<n>.json, from turn_ranker_fit.py --folds DIR)")
    ap.add_argument("--smoke", action="store_true", help="a tiny made-up conversation (bench/synthetic.py): checks that the bench runs")
    args = ap.parse_args()
    if args.smoke:
        import synthetic

        args.data = str(synthetic.locomo(Path(tempfile.mkdtemp(prefix="amber-smoke-")) / "locomo.json", conversations=1))
    samples = json.loads(Path(args.data).read_text())
    if args.limit:
        samples = samples[: args.limit]
    methods = args.methods.split(",")
    embedder = build_embedder("local")
    embedder.cache_size = 0  # each method pays its own query embedding (the cache would hide it)
    recall_at = {m: {k: [] for k in KS} for m in methods}
    rr = {m: [] for m in methods}
    lat = {m: [] for m in methods}
    ingest_s = 0.0
    n_turns = 0
    block = Injected()  # what the default recall injects, at the default budget
    for n, sample in enumerate(samples):
        msgs = conversation_messages(sample["conversation"])
        questions = questions_of(sample)
        if args.ranker_folds:  # held out: this conversation never taught the ranker
            ranker.shipped.cache_clear()
            ranker.WEIGHTS = args.ranker_folds / f"{Path(args.data).stem}-{n}.json"
        with tempfile.TemporaryDirectory(prefix="amber-locomo-") as tmp:
            svc = build_service(Settings(data_dir=Path(tmp)), embedder=embedder)
            try:
                scope = scope_for(Actor(user_id=f"locomo-{sample.get('sample_id', n)}", via="bench"))
                t0 = time.perf_counter()
                ingest_all(svc, scope, msgs)
                ingest_s += time.perf_counter() - t0
                n_turns += len(msgs)
                for m in methods:
                    cfg = svc.recall_config(top_k=max(KS), **{**METHODS, **ABLATIONS}[m])
                    svc.search(scope, "warm up", config=cfg)
                    for q in questions:
                        t = time.perf_counter()
                        got = [c.id for c in svc.search(scope, q["question"], config=cfg)]
                        lat[m].append((time.perf_counter() - t) * 1000)
                        ev = set(q["evidence"])
                        for k in KS:
                            recall_at[m][k].append(len(ev & set(got[:k])) / len(ev))
                        rr[m].append(next((1 / r for r, g in enumerate(got, 1) if g in ev), 0.0))
                whole = {m.id: m.content for m in msgs}.get
                for q in questions:
                    block.ask(svc, scope, q["question"], q["evidence"], answer=str(q.get("answer", "")), whole=whole)
            finally:
                svc.close()
        row = {m: round(sum(recall_at[m][10]) / len(recall_at[m][10]), 4) for m in methods}
        print(f"conversation {n + 1}/{len(samples)}: {len(msgs)} turns, {len(questions)} questions, R@10 so far {row}", flush=True)

    result: dict = {"bench": "locomo_recall", "data": Path(args.data).name, "conversations": len(samples),
                    "questions": len(rr[methods[0]]), "turns": n_turns, "embedder": embedder.id,
                    "ingest_ms_per_turn": round(ingest_s * 1000 / max(1, n_turns), 2), "methods": {},
                    "injected": block.summary()}
    for m in methods:
        result["methods"][m] = {
            **{f"R@{k}": round(sum(v) / len(v), 4) for k, v in recall_at[m].items()},
            "MRR": round(sum(rr[m]) / len(rr[m]), 4),
            "p50_ms": round(pct(lat[m], 50), 2),
            "p95_ms": round(pct(lat[m], 95), 2),
        }
        print(f"{m:>6}: " + "  ".join(f"{k} {v}" for k, v in result["methods"][m].items()))
    print("injected block (default recall and budget): " + "  ".join(f"{k} {v}" for k, v in result["injected"].items()))
    print(json.dumps(result))


if __name__ == "__main__":
    main()
