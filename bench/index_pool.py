"""Chroma's capped index pool and small collections: which collection settings survive eviction, and
what they cost a write (issue 34; core/store/guarded.py explains the failure and Amber's workaround).

A `chroma run` server with a pool of `--pool` HNSW indexes holds `--collections` collections of
`--records` records each, added one at a time (as chats are captured) and read once, per
configuration; queries go to random collections, so most find their index evicted. Chroma 1.5.9
cannot reload an index it never wrote to disk ("Nothing found on disk", chroma-core/chroma#4212):
counted here as errors; and it reloads an index as last written to disk, so changes made after that
are missing from its answers: counted as short answers. Then one
collection of `--big` records per configuration takes single-record adds: what the setting costs a
write to a big collection.

    .venv/bin/python bench/index_pool.py                  # Chroma's defaults and two candidate settings
    .venv/bin/python bench/index_pool.py --smoke

Configurations are interleaved, round by round, in one server. Last line JSON.
"""

from __future__ import annotations

import argparse
import json
import random
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import chromadb
import yaml

CONFIGS = {
    "default": {},
    "batch2_sync2": {"batch_size": 2, "sync_threshold": 2},
    "batch10_sync10": {"batch_size": 10, "sync_threshold": 10},
    "batch2": {"batch_size": 2},
    "batch1_sync1": {"batch_size": 1, "sync_threshold": 1},
}
DEFAULT_CONFIGS = "default,batch2_sync2,batch1_sync1"


def serve(work: Path, pool: int) -> tuple[subprocess.Popen, chromadb.HttpClient]:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    conf = {"port": port, "listen_address": "127.0.0.1", "persist_path": str(work), "allow_reset": False,
            "segment_manager": {"persist_path": str(work), "hnsw_index_pool_cache_config": {"memory": {"capacity": pool}}}}
    (work.parent / "chroma.yaml").write_text(yaml.safe_dump(conf))
    proc = subprocess.Popen([str(Path(sys.executable).with_name("chroma")), "run", str(work.parent / "chroma.yaml")],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(300):
        try:
            client = chromadb.HttpClient(host="127.0.0.1", port=port)
            client.heartbeat()
            return proc, client
        except Exception:
            time.sleep(0.2)
    proc.kill()
    raise SystemExit("chroma run did not answer")


def pct(xs: list[float], f: float) -> float | None:
    xs = sorted(xs)
    return round(xs[min(len(xs) - 1, int(f * len(xs)))], 2) if xs else None


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--collections", type=int, default=150)
    ap.add_argument("--records", type=int, default=5)
    ap.add_argument("--pool", type=int, default=20)
    ap.add_argument("--queries", type=int, default=120, help="per configuration and round")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--big", type=int, default=5000)
    ap.add_argument("--adds", type=int, default=60)
    ap.add_argument("--dim", type=int, default=384, help="vector size (Amber's local embedder: 384)")
    ap.add_argument("--configs", default=DEFAULT_CONFIGS, help="comma-separated, of: " + ", ".join(CONFIGS))
    ap.add_argument("--smoke", action="store_true")
    args = ap.parse_args()
    configs = {n: CONFIGS[n] for n in args.configs.split(",")}
    if args.smoke:
        args.collections, args.pool, args.queries, args.rounds, args.big, args.adds = 12, 4, 10, 1, 200, 5
    rnd = random.Random(1)
    vec = lambda: [rnd.gauss(0, 1) for _ in range(args.dim)]  # noqa: E731
    out: dict = {"bench": "index_pool", "args": vars(args), "configs": {}}
    with tempfile.TemporaryDirectory() as tmp:
        proc, client = serve(Path(tmp) / "chroma", args.pool)
        try:
            for name, cfg in configs.items():
                for i in range(args.collections):
                    col = client.create_collection(f"{name}_{i}", configuration={"hnsw": {"space": "cosine", **cfg}})
                    for j in range(args.records):  # one at a time, as chats are captured
                        col.add(ids=[f"r{j}"], embeddings=[vec()])
                    col.query(query_embeddings=[vec()], n_results=1)  # read once, as capture does
            ms: dict[str, list[float]] = {n: [] for n in configs}
            errors = {n: 0 for n in configs}
            short = {n: 0 for n in configs}  # answered, but with fewer records than the collection holds
            for r in range(args.rounds):
                for name in (list(configs) if r % 2 == 0 else list(configs)[::-1]):
                    for _ in range(args.queries):
                        col = client.get_collection(f"{name}_{rnd.randrange(args.collections)}")
                        t = time.perf_counter()
                        try:
                            got = col.query(query_embeddings=[vec()], n_results=args.records)
                            short[name] += len(got["ids"][0]) < args.records
                            ms[name].append((time.perf_counter() - t) * 1000)
                        except Exception as e:
                            if "nothing found on disk" not in str(e).casefold():
                                raise
                            errors[name] += 1
            # the write cost on a big collection: each setting's collection filled, then single adds
            # taken in turn across the settings so that the machine's noise falls on all alike
            big = {}
            for name, cfg in configs.items():
                big[name] = col = client.create_collection(f"big_{name}", configuration={"hnsw": {"space": "cosine", **cfg}})
                for b in range(0, args.big, 500):
                    n = min(500, args.big - b)
                    col.add(ids=[f"r{b + j}" for j in range(n)], embeddings=[vec() for _ in range(n)])
            adds: dict[str, list[float]] = {n: [] for n in configs}
            for j in range(args.adds):
                for name in (list(configs) if j % 2 == 0 else list(configs)[::-1]):
                    t = time.perf_counter()
                    big[name].add(ids=[f"x{j}"], embeddings=[vec()])
                    adds[name].append((time.perf_counter() - t) * 1000)
            base = pct(adds[next(iter(configs))], 0.5)
            for name, cfg in configs.items():
                total = args.rounds * args.queries
                out["configs"][name] = {"settings": cfg, "queries": total, "evicted_errors": errors[name], "short_answers": short[name],
                                        "error_share": round(errors[name] / total, 3), "query_p50_ms": pct(ms[name], 0.5),
                                        "query_p95_ms": pct(ms[name], 0.95), f"add_at_{args.big}_p50_ms": pct(adds[name], 0.5),
                                        f"add_at_{args.big}_p95_ms": pct(adds[name], 0.95),
                                        "add_p50_vs_first": round(pct(adds[name], 0.5) / base, 2) if base else None}
                print(name, json.dumps(out["configs"][name]), flush=True)
        finally:
            proc.terminate()
            proc.wait(timeout=30)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
