"""What embedded Chroma does when the disk fills behind Amber's free-space check (issue 35).

Amber's DiskGuard asks the filesystem before every write; another program can still fill the disk
between that check and Chroma's own write. This measures, with chromadb as installed:

1. `gil`: does a native call hold the interpreter lock? A thread ticks every millisecond while the
   main thread runs one 5 000 x 384 upsert, then 200 queries; the longest tick gap is reported.
   (An upsert that waits forever while holding it freezes every thread: the event loop, /health.)
2. `race` (needs root to mount a 24 MB tmpfs): in a child process, plain chromadb on the tmpfs;
   the disk filled to 300 KB free; writes until the first native failure; the space freed; then
   one more write, or reads first. A heartbeat thread in the child prints every 100 ms; the parent
   says "froze" when it stops for 20 s (the interpreter lock held), "hung" when the heartbeat goes
   on but the call never returns (60 s).
3. `amber`: the same race through Amber's ChromaStore, whose guard is made to pass (it asked
   before the disk filled): after the first native failure every call must be refused at once.

    .venv/bin/python bench/disk_race.py [--runs 3] [--smoke]

A table, then one JSON line. Figures: bench/README.md, "Faults".
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
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

GIL = r"""
import json, random, sys, tempfile, threading, time
import chromadb
from chromadb.config import Settings
c = chromadb.PersistentClient(path=tempfile.mkdtemp(), settings=Settings(anonymized_telemetry=False))
col = c.get_or_create_collection("gil", embedding_function=None, configuration={"hnsw": {"space": "cosine"}})
rng = random.Random(1)
n = int(sys.argv[1]) if len(sys.argv) > 1 else 5000
batch = dict(ids=[f"id{i}" for i in range(n)], embeddings=[[rng.random() for _ in range(384)] for _ in range(n)],
             documents=[f"doc {i} " * 20 for i in range(n)], metadatas=[{"k": i} for i in range(n)])
queries = [[rng.random() for _ in range(384)] for _ in range(max(1, n // 25))]
gaps, stop = [], threading.Event()
def tick():
    last = time.perf_counter()
    while not stop.is_set():
        time.sleep(0.001)
        now = time.perf_counter(); gaps.append(now - last); last = now
t = threading.Thread(target=tick); t.start(); time.sleep(0.2); gaps.clear()
t0 = time.perf_counter(); col.upsert(**batch); up = time.perf_counter() - t0; up_gap = max(gaps); gaps.clear()
t0 = time.perf_counter(); col.query(query_embeddings=queries, n_results=50); q = time.perf_counter() - t0; q_gap = max(gaps); gaps.clear()
time.sleep(0.5); idle_gap = max(gaps)
stop.set(); t.join()
print(json.dumps({"upsert_ms": round(up * 1000), "upsert_longest_tick_gap_ms": round(up_gap * 1000),
                  "query_ms": round(q * 1000), "query_longest_tick_gap_ms": round(q_gap * 1000), "idle_longest_tick_gap_ms": round(idle_gap * 1000, 1)}))
"""

RACE = r"""
import os, random, sys, threading, time
import chromadb
from chromadb.config import Settings
disk, then = sys.argv[1], sys.argv[2]
col = chromadb.PersistentClient(path=os.path.join(disk, "chroma"), settings=Settings(anonymized_telemetry=False)).get_or_create_collection(
    "race", embedding_function=None, configuration={"hnsw": {"space": "cosine"}})
rng = random.Random(1)
def one(i, size):
    return dict(ids=[f"id{i}"], embeddings=[[rng.random() for _ in range(384)]], documents=[("w%d " % i) * (size // 4)], metadatas=[{"k": i}])
for i in range(20):
    col.upsert(**one(i, 2000))
st = os.statvfs(disk)
open(os.path.join(disk, "filler"), "wb").write(b"\0" * max(0, st.f_bavail * st.f_frsize - 300_000))
def beat():
    while True:
        print("tick", flush=True); time.sleep(0.1)
threading.Thread(target=beat, daemon=True).start()
failures = 0
for i in range(100, 160):
    try:
        col.upsert(**one(i, 20_000))
    except Exception as e:
        failures += 1
        print(f"failure {type(e).__name__}: {str(e)[:100]}", flush=True)
        break
os.unlink(os.path.join(disk, "filler"))
print("freed", flush=True)
if then == "read":
    for k in range(5):
        try:
            col.query(query_embeddings=[[rng.random() for _ in range(384)]], n_results=3); col.get(ids=["id1"])
            print("read ok", flush=True)
        except Exception as e:
            print(f"read error {type(e).__name__}", flush=True)
for i in range(200, 205):
    try:
        col.upsert(**one(i, 100))
        print("write ok", flush=True)
    except Exception as e:
        print(f"write error {type(e).__name__}", flush=True)
print("done", flush=True)
os._exit(0)
"""

AMBER = r"""
import os, sys, threading, time
from datetime import datetime, timezone
from core import Message, StoreUnavailable
from core.store.chroma import ChromaStore
disk = sys.argv[1]
store = ChromaStore(data_dir=os.path.join(disk, "data"), embedder_id="hash:v1", dim=4)
now = datetime.now(timezone.utc)
def put(i, size):
    m = Message(id=f"m{i}", role="user", content=(f"turn {i} " * size)[:size], created_at=now)
    store.put_messages("amber_msg_race", [m], [m.content], [[1.0, float(i), 0.0, 0.0]])
for i in range(5):
    put(i, 2000)
store.disk.check = lambda *a, **k: None  # it asked before the disk filled
def beat():
    while True:
        print("tick", flush=True); time.sleep(0.1)
threading.Thread(target=beat, daemon=True).start()
st = os.statvfs(disk)
open(os.path.join(disk, "filler"), "wb").write(b"\0" * max(0, st.f_bavail * st.f_frsize - 300_000))
for i in range(5, 60):
    try:
        put(i, 20_000)
    except StoreUnavailable as e:
        print(f"failure StoreUnavailable: {str(e)[:100]}", flush=True)
        break
os.unlink(os.path.join(disk, "filler"))
print("freed", flush=True)
for name, call in [("read", lambda: store.existing_ids("amber_msg_race", ["m0"])), ("write", lambda: put(99, 100))]:
    try:
        call(); print(f"{name} ok", flush=True)
    except StoreUnavailable:
        print(f"{name} refused", flush=True)
print("done", flush=True)
os._exit(0)
"""


def watch(argv: list[str], env: dict[str, str]) -> dict:
    """Run a child; 'froze' if its heartbeat stops for 20 s, 'hung' if it beats but is not done in 60 s."""
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    last, events, started = [time.monotonic()], [], time.monotonic()

    def read() -> None:
        for line in p.stdout:  # type: ignore[union-attr]
            if line.startswith("tick"):
                last[0] = time.monotonic()
            else:
                events.append(line.strip())

    threading.Thread(target=read, daemon=True).start()
    outcome = None
    while p.poll() is None:
        time.sleep(0.25)
        if "freed" in events and time.monotonic() - last[0] > 20:
            outcome = "froze"
        elif time.monotonic() - started > 90:
            outcome = "hung"
        if outcome:
            p.kill()
            break
    p.wait()
    time.sleep(0.2)
    if outcome is None:
        outcome = "finished" if "done" in events else f"exited {p.returncode}"
    after = [e for e in events[events.index("freed") + 1:] if e != "done"] if "freed" in events else []
    return {"outcome": outcome, "first_failure": next((e for e in events if e.startswith("failure")), None), "after_freeing": after}


def tmpfs() -> tuple[Path, bool]:
    where = Path(tempfile.mkdtemp(prefix="amber-disk-race-"))
    ok = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=24m", "tmpfs", str(where)], capture_output=True).returncode == 0
    return where, ok


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--smoke", action="store_true",
                    help="a 500-record upsert and Amber's store once (plain Chroma's races wait 20-60 s for a freeze)")
    args = ap.parse_args()
    env = {**os.environ, "OMP_WAIT_POLICY": "PASSIVE", "PYTHONPATH": str(ROOT)}
    n = 500 if args.smoke else 5000
    gil = subprocess.run([sys.executable, "-c", GIL, str(n)], capture_output=True, text=True, env=env, check=True)
    out: dict = {"gil": json.loads(gil.stdout.splitlines()[-1])}
    g = out["gil"]
    print(f"one {n} x 384 upsert: {g['upsert_ms']} ms, longest pause of another thread {g['upsert_longest_tick_gap_ms']} ms; "
          f"{max(1, n // 25)} queries: {g['query_ms']} ms, longest pause {g['query_longest_tick_gap_ms']} ms (idle {g['idle_longest_tick_gap_ms']} ms)")
    cases = [("chroma, write after", RACE, "write"), ("chroma, reads then write", RACE, "read"), ("amber store", AMBER, "-")]
    if args.smoke:
        cases, args.runs = cases[-1:], 1
    for case, code, then in cases:
        rows = []
        for _ in range(args.runs):
            disk, mounted = tmpfs()
            if not mounted:
                rows.append({"outcome": "skipped: cannot mount a tmpfs (needs root)"})
                break
            try:
                rows.append(watch([sys.executable, "-c", code, str(disk), then], env))
            finally:
                subprocess.run(["umount", "-l", str(disk)], capture_output=True)
        out[case] = rows
        print(f"{case:26} " + "; ".join(f"{r['outcome']} ({', '.join(r.get('after_freeing', [])[:3]) or '-'})" for r in rows))
    print(json.dumps(out))


if __name__ == "__main__":
    random.seed(0)
    main()
