"""What sealing costs: recall latency and capture throughput with every record sealed under its own
key (and freed memory scrubbed), with and without a master key, against the same store in the
clear, in one run.

The machine this runs on is shared and noisy, so the modes are not run one after the other: each
round is one process holding one store per mode (a fresh embedded store, the deterministic hash
embedder, so the figures are Amber's own work: Chroma, sealing, recall), and every operation is
done on each store in turn, in an order that rotates, before the next one. A burst of load from
elsewhere lands on every mode alike. The allocator scrub (glibc M_PERTURB) is process-wide but
only a setting: it is switched on for the sealed modes' operations and off for the others'.

Modes: `plain` (an Amber that does not seal: no key table, no scrub), `sealed` (per-record keys,
no master key: the default of an embedded store), `sealed-master` (encryption at rest on: keys
wrapped by a master key), `sealed-unscrubbed` (per-record keys without the scrub).

    .venv/bin/python bench/sealing.py                 # 1 000 memories, 200 recalls, 40 capture batches of 20 turns, 3 rounds
    .venv/bin/python bench/sealing.py --smoke         # tiny sizes, seconds

Last line: JSON with per-mode medians over rounds, the ratios against plain per round and their
medians (`recall_p50_ratio`: sealed/plain recall p50, above 1 is slower; `capture_throughput_ratio`:
sealed/plain turns per second over all batches, below 1 is slower; `capture_median_batch_ratio`:
the same from each mode's median batch, which a burst of load elsewhere moves less; `master_*` and
`unscrubbed_*` the same for the other modes).
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
MODES = ("plain", "sealed", "sealed-master", "sealed-unscrubbed")
_M_PERTURB = -6


def child(memories: int, recalls: int, batches: int) -> dict:
    sys.path.insert(0, str(ROOT))
    import ctypes
    import ctypes.util

    from core import Actor, Message, MemoryIn, Settings, build_service, scope_for
    from core.store import chroma as chroma_module
    from core.testing import FixedClock, HashEmbedder

    libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
    chroma_module.scrub_freed_memory = lambda: True  # type: ignore[assignment]  # switched per operation below
    real_sealer = chroma_module.Sealer
    services = {}
    for mode in MODES:
        chroma_module.Sealer = (lambda keys: None) if mode == "plain" else real_sealer  # type: ignore[assignment]
        extra = {"master_key": os.urandom(32).hex()} if mode == "sealed-master" else {}
        data = Path(tempfile.mkdtemp()) / "data"
        svc = build_service(Settings(data_dir=data, **extra), embedder=HashEmbedder(), clock=FixedClock())
        assert (svc.store.sealer is None) == (mode == "plain")
        assert (mode == "sealed-master") == bool(svc.store.sealer and svc.store.sealer.keys.encrypted)
        services[mode] = svc
    chroma_module.Sealer = real_sealer  # type: ignore[assignment]
    scrubbed = {"sealed", "sealed-master"}
    scope = scope_for(Actor("bench"))
    order = list(MODES)

    def each(step: int, op) -> dict[str, float]:
        """Run `op(svc)` on every mode's store, in an order that rotates with `step`; seconds each."""
        took = {}
        for mode in order[step % len(order):] + order[: step % len(order)]:
            libc.mallopt(_M_PERTURB, 0xA5 if mode in scrubbed else 0)
            started = time.perf_counter()
            op(services[mode])
            took[mode] = time.perf_counter() - started
        libc.mallopt(_M_PERTURB, 0)
        return took

    topics = ["garden", "train", "sister", "coffee", "piano", "Lisbon", "marathon", "cat", "budget", "novel"]
    for i in range(memories):
        each(i, lambda svc: svc.remember(scope, MemoryIn(content=f"Note {i}: my {topics[i % 10]} plan number {i} is going well")))
    each(0, lambda svc: svc.recall(scope, "warm up"))
    lat: dict[str, list[float]] = {m: [] for m in MODES}
    for i in range(recalls):
        for mode, s in each(i, lambda svc: svc.recall(scope, f"how is my {topics[i % 10]} plan going?")).items():
            lat[mode].append(s * 1000)
    t0 = datetime(2026, 1, 1, tzinfo=timezone.utc)
    spent = {m: 0.0 for m in MODES}
    stored = {m: 0 for m in MODES}
    per_batch: dict[str, list[float]] = {m: [] for m in MODES}
    for b in range(batches):
        turns = [Message(id=f"b{b}-{k}", role="user" if k % 2 == 0 else "assistant", session=f"s{b}",
                         content=f"turn {k} of conversation {b} about the {topics[(b + k) % 10]}", created_at=t0 + timedelta(minutes=b * 20 + k))
                 for k in range(20)]
        counts: dict[str, int] = {}
        for mode, s in each(b, lambda svc: counts.__setitem__(svc.store.location, svc.store_turns(scope, turns))).items():
            spent[mode] += s
            stored[mode] += counts[services[mode].store.location]
            per_batch[mode].append(counts[services[mode].store.location] / s)
    for svc in services.values():
        svc.close()
    return {mode: {"recall_p50_ms": statistics.median(lat[mode]), "recall_p95_ms": sorted(lat[mode])[int(0.95 * (len(lat[mode]) - 1))],
                   "capture_turns_per_s": stored[mode] / spent[mode],
                   "capture_median_batch_turns_per_s": statistics.median(per_batch[mode])} for mode in MODES}


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--memories", type=int, default=1000)
    ap.add_argument("--recalls", type=int, default=200)
    ap.add_argument("--batches", type=int, default=40)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--smoke", action="store_true")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.smoke:
        args.memories, args.recalls, args.batches, args.rounds = 30, 20, 3, 1
    if args.child:
        print(json.dumps(child(args.memories, args.recalls, args.batches)))
        return {}
    runs: list[dict] = []
    env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    for _ in range(args.rounds):
        out = subprocess.run([sys.executable, __file__, "--child", "--memories", str(args.memories), "--recalls",
                              str(args.recalls), "--batches", str(args.batches)], capture_output=True, text=True, env=env)
        if out.returncode != 0:
            raise SystemExit(f"a round failed:\n{out.stderr[-3000:]}")
        runs.append(json.loads(out.stdout.strip().splitlines()[-1]))
    med = {mode: {k: round(statistics.median(r[mode][k] for r in runs), 2) for k in runs[0][mode]} for mode in MODES}

    def ratios(mode: str, key: str) -> list[float]:
        return [round(r[mode][key] / r["plain"][key], 3) for r in runs]

    result: dict = {"bench": "sealing", "memories": args.memories, "recalls": args.recalls, "capture_batches": args.batches,
                    "rounds": args.rounds, **med}
    for prefix, mode in (("", "sealed"), ("master_", "sealed-master"), ("unscrubbed_", "sealed-unscrubbed")):
        for name, key in (("recall_p50_ratio", "recall_p50_ms"), ("capture_throughput_ratio", "capture_turns_per_s"),
                          ("capture_median_batch_ratio", "capture_median_batch_turns_per_s")):
            per_round = ratios(mode, key)
            result[f"{prefix}{name}"] = round(statistics.median(per_round), 3)
            result[f"{prefix}{name}_rounds"] = per_round
    print(json.dumps(result))
    return result


if __name__ == "__main__":
    main()
