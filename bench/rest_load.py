"""REST under load: `amber serve` (the real server, the local embedder) with 20 threads of mixed work.

Each thread acts for one of `--users` people and does `--ops` operations drawn from a chat-like mix:
recall 40 %, search 15 %, remember 15 %, ingest of an exchange 15 %, list 10 %, get 5 %. In the same
run, the same threads first hit `/health` (the HTTP stack alone, embeds nothing) as the baseline.

Reported: operations per second, latency p50/p95/p99 overall and per operation, errors, and the
ratio of p50 to the baseline's. The last line printed is one JSON object.

    .venv/bin/python bench/rest_load.py [--threads 20] [--ops 50] [--users 5] [--smoke]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import threading
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import httpx  # noqa: E402

from tests.fakes.upstreams import free_port  # noqa: E402

ADMIN = "sk-amber-rest-bench"
FACTS = ["likes {x}", "works on {x} on Tuesdays", "is learning {x}", "bought a {x} last week", "wants to visit {x}"]
THINGS = ["Kyoto", "the cello", "sourdough", "a cargo bike", "Portuguese", "the allotment", "chess", "Lisbon", "climbing"]
ASK = ["What do I like?", "Where did I want to go?", "What am I learning these days?", "What did I buy?", "Tell me about {x}"]


def percentile(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[max(0, min(len(xs) - 1, round(p / 100 * (len(xs) - 1))))] if xs else float("nan")


def stats(xs: list[float]) -> dict[str, float]:
    return {"n": len(xs), "p50": round(percentile(xs, 50), 1), "p95": round(percentile(xs, 95), 1), "p99": round(percentile(xs, 99), 1)}


def op(http: httpx.Client, rng: random.Random, user: str, n: int) -> str:
    h = {"Authorization": f"Bearer {ADMIN}", "X-Amber-User": user}
    x = rng.choice(THINGS)
    r = rng.random()
    if r < 0.40:
        http.post("/v1/recall", json={"query": rng.choice(ASK).format(x=x)}, headers=h).raise_for_status()
        return "recall"
    if r < 0.55:
        http.post("/v1/search", json={"query": rng.choice(ASK).format(x=x), "top_k": 5}, headers=h).raise_for_status()
        return "search"
    if r < 0.70:
        http.post("/v1/memories", json={"content": f"{user} {rng.choice(FACTS).format(x=x)} ({n})"}, headers=h).raise_for_status()
        return "remember"
    if r < 0.85:
        at = datetime.now(timezone.utc)
        msgs = [{"id": f"{user}-{n}-u", "role": "user", "content": f"I spent the evening on {x} again", "session": f"{user}-s", "created_at": at.isoformat()},
                {"id": f"{user}-{n}-a", "role": "assistant", "content": f"Nice! How is {x} going compared to last month?", "session": f"{user}-s",
                 "created_at": (at + timedelta(milliseconds=5)).isoformat()}]
        http.post("/v1/messages", json={"messages": msgs, "commands": False}, headers=h).raise_for_status()
        return "ingest"
    if r < 0.95:
        http.get("/v1/memories", params={"limit": 20}, headers=h).raise_for_status()
        return "list"
    page = http.get("/v1/memories", params={"limit": 1}, headers=h).json()["items"]
    if page:
        http.get(f"/v1/memories/{page[0]['id']}", headers=h).raise_for_status()
    return "get"


def run(base: str, threads: int, ops: int, users: int, health_only: bool) -> tuple[list[tuple[str, float]], int, float]:
    out: list[tuple[str, float]] = []
    errors = [0]
    lock = threading.Lock()

    def worker(t: int) -> None:
        rng = random.Random(t)
        user = f"u{t % users}"
        with httpx.Client(base_url=base, timeout=60) as http:
            for n in range(ops):
                started = time.perf_counter()
                try:
                    name = "health" if health_only else op(http, rng, user, t * 1000 + n)
                    if health_only:
                        http.get("/health").raise_for_status()
                except httpx.HTTPError:
                    name = "error"
                    with lock:
                        errors[0] += 1
                with lock:
                    out.append((name, (time.perf_counter() - started) * 1000))

    started = time.perf_counter()
    ts = [threading.Thread(target=worker, args=(t,)) for t in range(threads)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    return out, errors[0], time.perf_counter() - started


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--threads", type=int, default=20)
    ap.add_argument("--ops", type=int, default=50)
    ap.add_argument("--users", type=int, default=5)
    ap.add_argument("--embedder", default="local")
    ap.add_argument("--smoke", action="store_true", help="4 threads x 5 operations, hash embedder: checks that the bench runs")
    args = ap.parse_args()
    if args.smoke:
        args.threads, args.ops, args.users, args.embedder = 4, 5, 2, "hash"

    work = Path(tempfile.mkdtemp(prefix="amber-rest-load-"))
    cfg = work / "config.yaml"
    cfg.write_text(json.dumps({"amber": {"data_dir": str(work / "data"), "embedding_model": args.embedder,
                                         "api_keys": [{"name": "admin", "secret": ADMIN, "scopes": ["memory:read", "memory:write", "memory:admin"]}]}}))
    port = free_port()
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("AMBER_")}, "OMP_WAIT_POLICY": "PASSIVE"}
    amber = Path(sys.executable).parent / "amber"
    proc = subprocess.Popen([str(amber), "--config", str(cfg), "serve", "--port", str(port), "--no-jobs"], env=env,
                            stdout=subprocess.DEVNULL, stderr=open(work / "serve.log", "wb"))
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                if httpx.get(base + "/health", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline or proc.poll() is not None:
                raise SystemExit(f"amber serve did not start:\n{(work / 'serve.log').read_text()[-3000:]}")
            time.sleep(0.3)
        run(base, 4, 5, args.users, False)  # warm: collections, indexes, workers
        baseline, _, base_s = run(base, args.threads, args.ops, args.users, True)
        mixed, errors, mixed_s = run(base, args.threads, args.ops, args.users, False)
    finally:
        proc.terminate()
        proc.wait(timeout=30)

    base_ms = [ms for _, ms in baseline]
    all_ms = [ms for name, ms in mixed if name != "error"]
    per_op = {name: stats([ms for n, ms in mixed if n == name]) for name in sorted({n for n, _ in mixed})}
    result = {
        "bench": "rest_load", "threads": args.threads, "ops_per_thread": args.ops, "users": args.users, "embedder": args.embedder,
        "ops_per_s": round(len(mixed) / mixed_s, 1), "errors": errors,
        "latency_ms": stats(all_ms), "per_op_ms": per_op,
        "baseline_health": {"ops_per_s": round(len(baseline) / base_s, 1), **stats(base_ms)},
        "p50_vs_baseline": round(percentile(all_ms, 50) / max(0.1, percentile(base_ms, 50)), 1),
    }
    print(f"mixed: {result['ops_per_s']} ops/s, latency {result['latency_ms']}, errors {errors}")
    for name, s in per_op.items():
        print(f"  {name:8s} {s}")
    print(f"baseline /health: {result['baseline_health']}")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
