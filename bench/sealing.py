"""What sealing costs: recall latency and capture throughput with every record sealed under its own
key (and freed memory scrubbed) against the same store in the clear, in one run.

Each mode runs in a child process of its own (the allocator setting is process-wide), alternating
over rounds, on a fresh embedded store with the deterministic hash embedder, so the figures are
Amber's own work (Chroma, sealing, recall), not the embedder's.

    .venv/bin/python bench/sealing.py                 # 2 000 memories, 300 recalls, 60 capture batches, 3 rounds
    .venv/bin/python bench/sealing.py --smoke         # tiny sizes, seconds

Last line: JSON with per-mode medians and the sealed/plain ratios.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def child(mode: str, memories: int, recalls: int, batches: int) -> dict:
    sys.path.insert(0, str(ROOT))
    from core import Actor, Message, MemoryIn, Settings, build_service, scope_for
    from core.store import chroma as chroma_module
    from core.testing import FixedClock, HashEmbedder

    if mode in ("plain", "sealed-unscrubbed"):  # no scrubbing of freed memory
        chroma_module.scrub_freed_memory = lambda: True  # type: ignore[assignment]
    if mode == "plain":  # an Amber that does not seal: no key table
        chroma_module.Sealer = lambda keys: None  # type: ignore[assignment]
    data = Path(tempfile.mkdtemp()) / "data"
    svc = build_service(Settings(data_dir=data), embedder=HashEmbedder(), clock=FixedClock())
    assert (svc.store.sealer is None) == (mode == "plain")
    scope = scope_for(Actor("bench"))
    topics = ["garden", "train", "sister", "coffee", "piano", "Lisbon", "marathon", "cat", "budget", "novel"]
    for i in range(memories):
        svc.remember(scope, MemoryIn(content=f"Note {i}: my {topics[i % 10]} plan number {i} is going well"))
    svc.recall(scope, "warm up")
    lat = []
    for i in range(recalls):
        started = time.perf_counter()
        svc.recall(scope, f"how is my {topics[i % 10]} plan going?")
        lat.append((time.perf_counter() - started) * 1000)
    t0 = datetime(2026, 1, 1, tzinfo=timezone.utc)
    started = time.perf_counter()
    n = 0
    for b in range(batches):
        turns = [Message(id=f"b{b}-{k}", role="user" if k % 2 == 0 else "assistant", session=f"s{b}",
                         content=f"turn {k} of conversation {b} about the {topics[(b + k) % 10]}", created_at=t0 + timedelta(minutes=b * 20 + k))
                 for k in range(20)]
        n += svc.ingest(scope, turns)
    capture_s = time.perf_counter() - started
    svc.close()
    return {"recall_p50_ms": statistics.median(lat), "recall_p95_ms": sorted(lat)[int(0.95 * (len(lat) - 1))],
            "capture_turns_per_s": n / capture_s}


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--memories", type=int, default=2000)
    ap.add_argument("--recalls", type=int, default=300)
    ap.add_argument("--batches", type=int, default=60)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--smoke", action="store_true")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.smoke:
        args.memories, args.recalls, args.batches, args.rounds = 40, 20, 3, 1
    if args.child:
        print(json.dumps(child(args.child, args.memories, args.recalls, args.batches)))
        return {}
    runs: dict[str, list[dict]] = {"plain": [], "sealed": [], "sealed-unscrubbed": []}
    env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    for _ in range(args.rounds):
        for mode in runs:
            out = subprocess.run([sys.executable, __file__, "--child", mode, "--memories", str(args.memories), "--recalls",
                                  str(args.recalls), "--batches", str(args.batches)], capture_output=True, text=True, env=env)
            if out.returncode != 0:
                raise SystemExit(f"the {mode} run failed:\n{out.stderr[-3000:]}")
            runs[mode].append(json.loads(out.stdout.strip().splitlines()[-1]))
    med = {mode: {k: round(statistics.median(r[k] for r in rs), 2) for k in rs[0]} for mode, rs in runs.items()}
    result = {
        "bench": "sealing", "memories": args.memories, "recalls": args.recalls, "capture_batches": args.batches, "rounds": args.rounds,
        **med,
        "recall_p50_ratio": round(med["sealed"]["recall_p50_ms"] / med["plain"]["recall_p50_ms"], 3),
        "capture_throughput_ratio": round(med["sealed"]["capture_turns_per_s"] / med["plain"]["capture_turns_per_s"], 3),
        "unscrubbed_recall_p50_ratio": round(med["sealed-unscrubbed"]["recall_p50_ms"] / med["plain"]["recall_p50_ms"], 3),
        "unscrubbed_capture_throughput_ratio": round(med["sealed-unscrubbed"]["capture_turns_per_s"] / med["plain"]["capture_turns_per_s"], 3),
    }
    print(json.dumps(result))
    return result


if __name__ == "__main__":
    main()
