"""Faults an operator's bad day brings, under a steady mix of work, and what was acknowledged and lost.

Real processes on 127.0.0.1 (tests/kit/topology.py): `chroma run`, `redis-server`, one `amber serve`
host on both, and a LiteLLM proxy in remote mode in front of fake upstreams. For each fault,
`--threads` threads loop over remember, capture, recall and a chat through the proxy, each write
marked uniquely; the fault starts after a short warm-up, lasts `--outage` seconds, then is undone:

- chroma: `chroma run` stopped, started again on its port and directory
- redis: `redis-server` stopped, started again (its append-only file kept)
- host: the Amber host SIGKILLed, started again on its port
- disk: a separate embedded host whose data directory is a small tmpfs, filled up and freed (needs
  root to mount; reported as skipped otherwise); remember, capture and recall only
- clock: no outage; captures and chats state times 30 days slow, two years ahead, or naive; then
  retention runs, and must delete none of them

After recovery the bench waits (polling, at most 90 s) until nothing acknowledged waits any more:
the proxy's capture journal is empty and the shared capture queue has no entry (their backoffs
are up to 30 s and 10 s, so counting sooner counts turns still on their way as lost). Then every
marker is looked up in the store (memories by text, turns by text) until the counts stop changing:
acked (the client got a success), lost (acked and not stored), duplicated (stored more than once),
refused (a 503 the client saw: not acknowledged, its to retry). Each row says whether it drained
and how long that took. A table, then one JSON line.

    .venv/bin/python bench/faults.py [--outage 10] [--threads 3] [--only chroma,redis]
    .venv/bin/python bench/faults.py --smoke      # 2 s faults, 2 threads, chroma and clock only
    .venv/bin/python bench/faults.py --direct     # no Redis: the proxy's own journal is the only road
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Callable, Iterator

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import httpx  # noqa: E402

from core import Journal  # noqa: E402
from tests.kit import topology as kit  # noqa: E402
from tests.kit.servers import free_port, stop_process, wait_answering  # noqa: E402
from tests.kit.topology import ADMIN_KEY, AmberHost, Topology  # noqa: E402

FAULTS = ["chroma", "redis", "host", "disk", "clock"]
MB = 1 << 20


class Restartable:
    """A server process that can be stopped and started again on the same port and directory."""

    def __init__(self, argv: Callable[[int], list[str]], probe: Callable[[str], bool], url: Callable[[int], str]):
        self.port = free_port()
        self.url = url(self.port)
        self._argv, self._probe = argv, probe
        self.proc: subprocess.Popen | None = None

    def start(self) -> None:
        self.proc = subprocess.Popen(self._argv(self.port), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 300  # a loaded 2-core machine: `chroma run` took over 30 s to start again
        while not self._probe(self.url):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"{self._argv(self.port)[0]} did not start")
            time.sleep(0.1)

    def stop(self) -> None:
        if self.proc is not None:
            stop_process(self.proc, timeout=10)


def chroma_proc(path: Path) -> Restartable:
    exe = shutil.which("chroma", path=str(Path(sys.executable).parent))
    return Restartable(lambda p: [exe, "run", "--path", str(path), "--host", "127.0.0.1", "--port", str(p)],
                       lambda u: _answers(f"{u}/api/v2/heartbeat"), lambda p: f"http://127.0.0.1:{p}")


def redis_proc(path: Path) -> Restartable:
    import redis

    path.mkdir(parents=True, exist_ok=True)

    def ping(url: str) -> bool:
        try:
            return bool(redis.Redis.from_url(url, socket_timeout=1, socket_connect_timeout=1).ping())
        except redis.RedisError:
            return False

    exe = shutil.which("redis-server") or "/usr/bin/redis-server"
    return Restartable(lambda p: [exe, "--port", str(p), "--bind", "127.0.0.1", "--save", "", "--appendonly", "yes", "--dir", str(path)],
                       ping, lambda p: f"redis://127.0.0.1:{p}/0")


def _answers(url: str) -> bool:
    try:
        return httpx.get(url, timeout=2).status_code == 200
    except httpx.HTTPError:
        return False


class Load:
    """Threads doing the mix against one host (and the proxy), recording every marker acknowledged."""

    def __init__(self, host: AmberHost, chat: Callable[[str, str], httpx.Response] | None, user: str, tag: str,
                 threads: int, skew: Callable[[random.Random], str] | None = None):
        self.host, self.chat, self.user, self.tag, self.n_threads, self.skew = host, chat, user, tag, threads, skew
        self.acked: dict[str, list[str]] = {"remember": [], "capture": [], "chat": []}
        self.outcomes: Counter = Counter()
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._threads = [threading.Thread(target=self._run, args=(i,), daemon=True) for i in range(threads)]

    def __enter__(self) -> "Load":
        for t in self._threads:
            t.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._stop.set()
        for t in self._threads:
            t.join(timeout=90)

    def _note(self, kind: str, marker: str | None, r: httpx.Response | Exception) -> None:
        with self._lock:
            if isinstance(r, Exception):
                self.outcomes[f"{kind} error"] += 1
            elif r.status_code == 200:
                self.outcomes[f"{kind} ok"] += 1
                if marker is not None:
                    self.acked[kind].append(marker)
            elif r.status_code == 503:
                self.outcomes[f"{kind} refused"] += 1
            else:
                self.outcomes[f"{kind} {r.status_code}"] += 1

    def _run(self, tid: int) -> None:
        rng = random.Random(tid)
        n = 0
        while not self._stop.is_set():
            marker = f"{self.tag}x{tid}x{n}x{uuid.uuid4().hex[:8]}"
            n += 1
            kinds = ["remember", "capture", "recall"] + (["chat"] if self.chat else [])
            kind = kinds[n % len(kinds)]
            try:
                if kind == "remember":
                    r = self.host.rest("POST", "/v1/memories", user=self.user, json={"content": f"note {marker}"}, timeout=30)
                elif kind == "capture":
                    at = self.skew(rng) if self.skew else datetime.now(timezone.utc).isoformat()
                    turn = {"id": f"t-{marker}", "role": "user", "content": f"turn {marker}", "created_at": at}
                    r = self.host.rest("POST", "/v1/messages", user=self.user, json={"messages": [turn]}, timeout=30)
                elif kind == "recall":
                    r = self.host.rest("POST", "/v1/recall", user=self.user, json={"query": "what did I note?"}, timeout=30)
                    marker = None
                else:
                    assert self.chat is not None
                    r = self.chat(self.user, f"chat {marker}")
            except Exception as e:
                r = e
            self._note(kind, marker, r)
            time.sleep(0.05)


def stored(host: AmberHost, user: str, tag: str) -> dict[str, Counter]:
    """How many times each marker of `tag` is stored: memories (every page), user turns."""
    mem: Counter = Counter()
    cursor = None
    while True:
        r = host.rest("GET", "/v1/memories", user=user, params={"text": tag, "limit": 500, **({"cursor": cursor} if cursor else {})})
        r.raise_for_status()
        page = r.json()
        for m in page["items"]:
            mem.update(w for w in m["content"].split() if w.startswith(tag))
        cursor = page.get("next_cursor")
        if not cursor:
            break
    r = host.rest("GET", "/v1/messages", user=user, params={"text": tag})
    r.raise_for_status()
    cap, chat = Counter(), Counter()
    for m in r.json()["messages"]:
        if m["role"] != "user":
            continue
        words = [w for w in m["content"].split() if w.startswith(tag)]
        (chat if m["content"].startswith("chat ") else cap).update(words)
    return {"remember": mem, "capture": cap, "chat": chat}


DRAIN_S = 90.0  # at most this long for the proxy's journal and the capture queue to empty after a fault
STILL_S = 5.0  # once drained: counts unchanged this long are final


def waiting(host: AmberHost, spool: Path | None) -> dict[str, Any]:
    """What is acknowledged and not stored yet: turns in the proxy's journal (its files, read as
    `amber spool status` reads them) and entries in the shared capture queue (the host's /health).
    None where it cannot be told right now (the host or Redis not answering)."""
    out: dict[str, Any] = {"spool": Journal(spool).status()["pending"] if spool is not None else 0, "queue": 0}
    try:
        queue = (host.rest("GET", "/health", timeout=5).json().get("coordination") or {}).get("capture_queue")
    except (httpx.HTTPError, ValueError):
        out["queue"] = None
    else:
        out["queue"] = queue.get("waiting") if queue else 0
    return out


def drain(host: AmberHost, spool: Path | None, timeout: float = DRAIN_S) -> dict[str, Any]:
    """Poll until nothing acknowledged waits (twice in a row, 2 s apart: a chat's capture callback
    runs just after its answer) or `timeout`; the journal's backoff is at most 30 s and the queue's
    10 s, so a count taken before this counted turns still on their way as lost."""
    started, calm = time.monotonic(), 0
    while True:
        w = waiting(host, spool)
        calm = calm + 1 if w["spool"] == 0 and w["queue"] == 0 else 0
        if calm >= 2 or time.monotonic() - started > timeout:
            return {"drained": calm >= 2, "drain_s": round(time.monotonic() - started, 1), "left": w}
        time.sleep(2)


def settle(host: AmberHost, load: Load, timeout: float, spool: Path | None = None) -> dict[str, Any]:
    """Wait for the journal and the queue to drain (bounded), then count every acked marker, reading
    again until every one is found or the counts stay the same for STILL_S."""
    drained = drain(host, spool, min(DRAIN_S, timeout))
    deadline, last, still = time.monotonic() + timeout, None, time.monotonic()
    while True:
        try:
            counts = stored(host, load.user, load.tag)
        except httpx.HTTPError:
            counts = None
        if counts is not None:
            missing = sum(1 for k, ms in load.acked.items() for m in ms if counts[k][m] == 0)
            key = tuple(sorted((k, sum(c.values())) for k, c in counts.items()))
            if key != last:
                last, still = key, time.monotonic()
            if missing == 0 or time.monotonic() - still > STILL_S or time.monotonic() > deadline:
                break
        elif time.monotonic() > deadline:
            raise RuntimeError(f"{host.name} did not answer after the fault")
        time.sleep(1)
    row: dict[str, Any] = {}
    for kind, markers in load.acked.items():
        row[kind] = {"acked": len(markers), "lost": sum(1 for m in markers if counts[kind][m] == 0),
                     "duplicated": sum(1 for m in markers if counts[kind][m] > 1),
                     "refused": load.outcomes[f"{kind} refused"], "errors": sum(v for k, v in load.outcomes.items()
                                                                              if k.startswith(kind) and not k.endswith((" ok", " refused")))}
    row["recall"] = {"ok": load.outcomes["recall ok"], "failed": sum(v for k, v in load.outcomes.items() if k.startswith("recall") and k != "recall ok")}
    row.update(drained)
    return row


def wait_healthy(host: AmberHost, timeout: float = 300) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with contextlib.suppress(httpx.HTTPError):
            if host.rest("GET", "/health", timeout=5).json().get("status") == "ok":
                return
        time.sleep(0.5)
    raise RuntimeError(f"{host.name} not healthy again within {timeout} s")


def run_fault(fault: str, topo: Topology, chroma: Restartable, redis: Restartable, args: argparse.Namespace, work: Path) -> dict[str, Any]:
    tag = f"f{fault}{uuid.uuid4().hex[:6]}"
    user = f"faults-{fault}"
    host = topo.hosts[0]
    if fault == "disk":
        return disk_fault(args, work, tag)
    skew = None
    if fault == "clock":
        def skew(rng: random.Random) -> str:
            now = datetime.now(timezone.utc)
            return rng.choice([(now - timedelta(days=30)).isoformat(), (now + timedelta(days=730)).isoformat(),
                               now.replace(tzinfo=None).isoformat(), (now - timedelta(days=400)).isoformat()])
    started = time.monotonic()
    with Load(host, topo.chat if topo.proxy else None, user, tag, args.threads, skew) as load:
        time.sleep(args.warmup)
        if fault == "chroma":
            chroma.stop(); time.sleep(args.outage); chroma.start()
        elif fault == "redis":
            redis.stop(); time.sleep(args.outage); redis.start()
        elif fault == "host":
            host.kill(); time.sleep(args.outage); host.start(timeout=300)  # a loaded 2-core box restarts slowly
        else:
            time.sleep(args.outage)
        time.sleep(args.warmup)
    wait_healthy(host)
    if fault == "clock":  # retention now: nothing just acknowledged may go, whatever time it stated
        r = host.rest("POST", "/v1/jobs/retention/run", key=ADMIN_KEY)
        r.raise_for_status()
        time.sleep(3)
    row = settle(host, load, args.settle, topo.proxy.workdir / "data" / "spool" if topo.proxy else None)
    row["seconds"] = round(time.monotonic() - started, 1)
    return row


def disk_fault(args: argparse.Namespace, work: Path, tag: str) -> dict[str, Any]:
    mnt = work / "disk"
    mnt.mkdir(exist_ok=True)
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=32m", "tmpfs", str(mnt)], capture_output=True).returncode != 0:
        return {"skipped": "cannot mount a tmpfs (needs root)"}
    host = AmberHost(mnt / "host", name="disk-host")
    try:
        host.start()
        started = time.monotonic()
        with Load(host, None, "faults-disk", tag, args.threads) as load:
            time.sleep(args.warmup)
            st = os.statvfs(mnt)
            with open(mnt / "filler", "wb") as f:
                f.write(b"\0" * max(0, st.f_bavail * st.f_frsize - 4 * MB))
            time.sleep(args.outage)
            health = host.rest("GET", "/health", timeout=10)
            (mnt / "filler").unlink()
            time.sleep(args.warmup)
        wait_healthy(host)
        row = settle(host, load, args.settle)
        row["health_while_full"] = f"{health.status_code} {health.json().get('status')} {health.json().get('down')}"
        row["seconds"] = round(time.monotonic() - started, 1)
        return row
    finally:
        host.stop()
        subprocess.run(["umount", "-l", str(mnt)], capture_output=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--outage", type=float, default=10.0, help="seconds each fault lasts")
    ap.add_argument("--threads", type=int, default=3)
    ap.add_argument("--warmup", type=float, default=3.0)
    ap.add_argument("--settle", type=float, default=150.0, help="at most this long for what was acked to land")
    ap.add_argument("--only", default=",".join(FAULTS))
    ap.add_argument("--smoke", action="store_true", help="2 s faults, 2 threads, no proxy: chroma and clock")
    ap.add_argument("--direct", action="store_true", help="no Redis: the proxy's journal waits for the host itself (chroma, host, disk, clock)")
    args = ap.parse_args()
    if args.smoke:
        args.outage, args.threads, args.warmup, args.settle, args.only = 2.0, 2, 1.0, 45.0, "chroma,clock"
    if args.direct and "redis" in args.only.split(","):
        args.only = ",".join(f for f in args.only.split(",") if f != "redis")
    faults = [f for f in args.only.split(",") if f]
    work = Path(tempfile.mkdtemp(prefix="amber-faults-"))
    chroma, redis = chroma_proc(work / "chroma"), redis_proc(work / "redis")

    @contextlib.contextmanager
    def keep(server: Restartable) -> Iterator[str]:
        server.start()
        try:
            yield server.url
        finally:
            server.stop()

    # on a loaded 2-core machine LiteLLM's proxy and the hosts take over the kit's 120 s and 90 s to start
    proxy_start, host_start = kit.Proxy.start, kit.AmberHost.start
    kit.Proxy.start = lambda self, **kw: proxy_start(self, **{"timeout": 600, **kw})
    kit.AmberHost.start = lambda self, timeout=600: host_start(self, timeout=timeout)
    kit.chroma_server = lambda path: keep(chroma)  # the topology's servers, kept at hand to stop and start
    kit.redis_server = lambda path: keep(redis)
    results: dict[str, Any] = {}
    wall = time.monotonic()
    try:
        with Topology(work / "topo", hosts=1, workers=1, proxy=not args.smoke, redis=not args.direct,
                      host_env={"AMBER_CAPTURE_CLAIM_IDLE_S": "3"}) as topo:
            for fault in faults:
                try:
                    results[fault] = run_fault(fault, topo, chroma, redis, args, work)
                except Exception as e:  # one fault's harness failing keeps the others' figures
                    results[fault] = {"skipped": f"the run failed: {type(e).__name__}: {str(e)[:300]}"}
    finally:
        shutil.rmtree(work, ignore_errors=True)
    kinds = ["remember", "capture", "chat"]
    print(f"{'fault':8} " + " ".join(f"{k + ' acked/lost/dup/refused':>32}" for k in kinds) + f" {'recall ok/failed':>18}  drained")
    for fault, row in results.items():
        if "skipped" in row:
            print(f"{fault:8} skipped: {row['skipped']}")
            continue
        cells = [f"{row[k]['acked']}/{row[k]['lost']}/{row[k]['duplicated']}/{row[k]['refused']}" if row[k]["acked"] or row[k]["refused"] else "-" for k in kinds]
        drained = f"{row['drain_s']} s" if row["drained"] else f"NOT drained in {row['drain_s']} s: {row['left']}"
        print(f"{fault:8} " + " ".join(f"{c:>32}" for c in cells) + f" {str(row['recall']['ok']) + '/' + str(row['recall']['failed']):>18}  {drained}")
    lost = sum(row[k]["lost"] for row in results.values() if "skipped" not in row for k in kinds)
    dup = sum(row[k]["duplicated"] for row in results.values() if "skipped" not in row for k in kinds)
    print(json.dumps({"faults": results, "lost": lost, "duplicated": dup, "outage_s": args.outage, "threads": args.threads, "redis": not args.direct,
                      "seconds": round(time.monotonic() - wall, 1)}))


if __name__ == "__main__":
    main()
