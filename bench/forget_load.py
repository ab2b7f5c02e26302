"""Does a forget on a large store stall other people? Another user's recall latency while one
person with a large store forgets something, against the same user's recall with nothing else
going on, in one run.

One embedded store (sealed, as every embedded store is), the deterministic hash embedder so the
build is fast: a person with `--records` captured turns (plus `--memories`, 200), a few dozen of which
say the word to forget, and another person with as many memories. The other person recalls in a loop
while idle, then while the first one's forget (plan, erase, tombstones, key destruction) runs in
another thread, then idle again.

    .venv/bin/python bench/forget_load.py                   # 100 000 turns
    .venv/bin/python bench/forget_load.py --records 20000
    .venv/bin/python bench/forget_load.py --smoke           # 2 000 turns, seconds

Three forgets, of three things each said by `--saying` turns, in the same run: a first one to warm
the store up, then one with an erased record's vector left where Chroma keeps it (delete only, as
before 2026-12-07), then one as Amber erases now (each vector overwritten with noise before the
delete: core/store/chroma_query.py `blank_vectors`). Then what the daily retention job adds: Chroma's
log table rewritten, its free pages zeroed and its write-ahead log emptied (core/store/scrub.py),
timed the same way.

Last line: JSON with the build time and, per step, its time and what it erased, and the other
person's recall p50/p95 idle and during it (`p95_ratio`: during/idle); `forget_ratio`: the forget's
time now over the delete-only one's.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import threading
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# what each forget names, said by turns that share no word with the other's (a forget takes any turn
# holding 60 % of its words: "my code word X" would take "my code word Y" too)
WORDS = {"warm_up": "bike lock Plimbertash", "vectors_left": "code word Zanzibarquist", "vectors_erased": "spare key Quorblemantis"}
TOPICS = ["garden", "train", "sister", "coffee", "piano", "Lisbon", "marathon", "cat", "budget", "novel"]


def pct(xs: list[float], q: float) -> float:
    s = sorted(xs)
    return round(s[min(len(s) - 1, int(q * (len(s) - 1)))], 2)


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--records", type=int, default=100_000)
    ap.add_argument("--batch", type=int, default=1000, help="turns per ingest while building")
    ap.add_argument("--saying", type=int, default=40, help="turns that say the word to forget")
    ap.add_argument("--memories", type=int, default=200, help="memories of each person")
    ap.add_argument("--idle-recalls", type=int, default=60)
    ap.add_argument("--smoke", action="store_true")
    args = ap.parse_args(argv)
    if args.smoke:
        args.records, args.batch, args.saying, args.idle_recalls, args.memories = 2000, 500, 10, 15, 20
    sys.path.insert(0, str(ROOT))
    from core import Actor, MemoryIn, Message, Settings, build_service, scope_for
    from core.testing import FixedClock, HashEmbedder

    data = Path(tempfile.mkdtemp()) / "data"
    svc = build_service(Settings(data_dir=data), embedder=HashEmbedder(), clock=FixedClock())
    big, other = scope_for(Actor("big")), scope_for(Actor("other"))
    started = time.perf_counter()
    t0 = datetime(2025, 1, 1, tzinfo=timezone.utc)
    every = max(1, args.records // max(1, len(WORDS) * args.saying))
    n = 0
    while n < args.records:
        turns = []
        for k in range(n, min(args.records, n + args.batch)):
            says = list(WORDS.values())[(k // every) % len(WORDS)] if k % every == 0 else None
            text = f"turn {k} about the {TOPICS[k % 10]} and plan {k % 97}" + (", my {} is {}".format(*says.rsplit(" ", 1)) if says else "")
            turns.append(Message(id=f"t{k}", role="user" if k % 2 == 0 else "assistant", session=f"s{k // 20}", content=text,
                                 created_at=t0 + timedelta(minutes=k)))
        n += svc.store_turns(big, turns, redacted=True)
    turns_s = time.perf_counter() - started
    for i in range(args.memories):
        svc.remember(big, MemoryIn(content=f"Big note {i}: my {TOPICS[i % 10]} plan number {i}"))
        svc.remember(other, MemoryIn(content=f"Note {i}: my {TOPICS[i % 10]} plan number {i} is going well"))
    build_s = time.perf_counter() - started
    svc.recall(big, "warm up")  # both people's warm indexes exist, as on a host in use
    svc.recall(other, "warm up")

    def recall_once(i: int) -> float:
        s = time.perf_counter()
        svc.recall(other, f"how is my {TOPICS[i % 10]} plan going?")
        return (time.perf_counter() - s) * 1000

    from core.store import chroma
    from core.store.scrub import scrub_erased

    out: dict = {"bench": "forget_load", "records": args.records, "build_s": round(build_s, 1), "turns_build_s": round(turns_s, 1)}
    real = chroma.blank_vectors
    for way, word in WORDS.items():
        chroma.blank_vectors = (lambda *a, **k: None) if way == "vectors_left" else real  # delete only: the vector stays
        out[way] = under_load(lambda: forget_result(svc.forget(big, f"my {word}")), recall_once, args.idle_recalls)
    chroma.blank_vectors = real
    out["daily_scrub"] = under_load(lambda: {"free_pages_zeroed": scrub_erased(svc.store)}, recall_once, args.idle_recalls)
    svc.close()
    out["forget_ratio"] = round(out["vectors_erased"]["step_s"] / max(out["vectors_left"]["step_s"], 1e-3), 2)
    print(json.dumps(out))
    return out


def forget_result(plan) -> dict:
    return {"erased_turns": len(plan.message_ids), "erased_memories": len(plan.memories)}


def under_load(step, recall_once, idle_recalls: int) -> dict:
    """The other person's recalls idle, during `step` (in another thread; what it returns is kept), then idle again."""
    idle = [recall_once(i) for i in range(idle_recalls)]
    result: dict = {}

    def run() -> None:
        s = time.perf_counter()
        done = step()
        result.update(step_s=round(time.perf_counter() - s, 3), **done)

    worker = threading.Thread(target=run)
    during: list[float] = []
    worker.start()
    i = 0
    while worker.is_alive():
        during.append(recall_once(i))
        i += 1
    worker.join()
    idle_all = idle + [recall_once(i) for i in range(idle_recalls)]
    return {
        **result, "idle_recalls": len(idle_all), "during_recalls": len(during),
        "idle_p50_ms": pct(idle_all, 0.5), "idle_p95_ms": pct(idle_all, 0.95),
        "during_p50_ms": pct(during, 0.5) if during else None, "during_p95_ms": pct(during, 0.95) if during else None,
        "during_max_ms": round(max(during), 1) if during else None,
        "p95_ratio": round(pct(during, 0.95) / pct(idle_all, 0.95), 2) if during else None,
        "idle_mean_ms": round(statistics.mean(idle_all), 2),
    }


if __name__ == "__main__":
    main()
