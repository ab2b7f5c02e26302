"""What the local embedder's worker costs a host, and what a query waits while the background lane
is busy: this tree against another (`--base PATH`, a worktree of an earlier commit), run in turn.

    .venv/bin/python bench/embed_lanes.py --base /tmp/wbase --rounds 2
    .venv/bin/python bench/embed_lanes.py --smoke

Each run is a child process with the tree on its path: it starts `LocalE5Embedder` with both lanes
(query cache off), embeds a query and a background batch, then measures
- the workers' memory: RSS and PSS summed over the embedder's child processes (smaps_rollup);
- query latency, idle (`--queries` queries) and while a thread keeps the background lane busy with
  batches of 32 ~120-token documents (the same number of queries, 50 ms apart).
Reported as medians over rounds, and this tree's figures over the base's. Last line JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CHILD = r"""
import json, os, sys, threading, time
from core.embed.local import LocalE5Embedder

def mem(pid):
    out = {"Rss": 0, "Pss": 0}
    try:
        for line in open(f"/proc/{pid}/smaps_rollup"):
            key = line.split(":")[0]
            if key in out:
                out[key] = int(line.split()[1]) // 1024
    except FileNotFoundError:
        pass
    return out

def children(pid):
    kids = []
    for p in os.listdir("/proc"):
        if p.isdigit():
            try:
                if int(open(f"/proc/{p}/stat").read().rsplit(")", 1)[1].split()[1]) == pid:
                    kids.append(int(p))
            except (OSError, ValueError):
                pass
    return kids

def timed(e, n, pause):
    lat = []
    for i in range(n):
        t0 = time.perf_counter()
        e.embed_query(f"question {i}: what did my sister say about the holiday in Lisbon?")
        lat.append((time.perf_counter() - t0) * 1000)
        time.sleep(pause)
    lat.sort()
    return lat

n = int(sys.argv[1])
e = LocalE5Embedder(start_background=True, cache_size=0)
e.embed_query("warm up"); e.embed_background(["warm up the background lane"])
workers = children(os.getpid())
idle = timed(e, n, 0.0)
docs = [f"document {i}: " + "we talked about the garden, the tomatoes and the trip to Lisbon " * 10 for i in range(32)]
stop = threading.Event()
def busy():
    while not stop.is_set():
        e.embed_background(docs)
t = threading.Thread(target=busy); t.start(); time.sleep(0.5)
loaded = timed(e, n, 0.05)
stop.set(); t.join()
m = [mem(w) for w in workers]
e.close()
q = lambda xs, f: round(xs[min(len(xs) - 1, int(f * len(xs)))], 2)
print(json.dumps({"workers": len(workers), "rss_mb": sum(x["Rss"] for x in m), "pss_mb": sum(x["Pss"] for x in m),
                  "idle_p50_ms": q(idle, 0.5), "idle_p95_ms": q(idle, 0.95), "busy_p50_ms": q(loaded, 0.5), "busy_p95_ms": q(loaded, 0.95)}))
"""


def run(tree: Path, queries: int) -> dict:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    done = subprocess.run([sys.executable, "-c", CHILD, str(queries)], cwd=tree, env=env, capture_output=True, text=True, timeout=900)
    if done.returncode != 0:
        raise SystemExit(f"run in {tree} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--base", type=Path, help="a worktree of the commit to compare with")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--queries", type=int, default=60)
    ap.add_argument("--smoke", action="store_true", help="one round, 5 queries, no base")
    args = ap.parse_args()
    if args.smoke:
        args.rounds, args.queries, args.base = 1, 5, None
    trees = {"now": ROOT, **({"base": args.base.resolve()} if args.base else {})}
    runs: dict[str, list[dict]] = {k: [] for k in trees}
    for r in range(args.rounds):
        order = list(trees) if r % 2 == 0 else list(trees)[::-1]  # alternate who goes first
        for name in order:
            runs[name].append(run(trees[name], args.queries))
            print(name, json.dumps(runs[name][-1]), flush=True)
    med = {name: {k: statistics.median(x[k] for x in rs) for k in rs[0]} for name, rs in runs.items()}
    out: dict = {"rounds": args.rounds, "queries": args.queries, **{name: m for name, m in med.items()}}
    if "base" in med:
        out["ratio"] = {k: round(med["now"][k] / med["base"][k], 3) for k in med["now"] if med["base"][k]}
    print(json.dumps(out))


if __name__ == "__main__":
    main()
