"""Scale-out: one or two Amber hosts on one Chroma server, coordinated by Redis.

The topology of deploy/README.md, started piece by piece on 127.0.0.1 (tests/kit/topology.py):
`chroma run` + `redis-server` + two `amber serve` hosts with AMBER_CHROMA_URL and AMBER_REDIS_URL.
1. Fill through host 1's `/v1/import`: `--users` users with `--memories` memories and `--turns`
   chat turns each, then one big user with `--big` memories.
2. A warm pass with one host listed, then with both (a user's first recall builds their lexical
   index on their home host), then a wait until Chroma is idle. `single_client`: the mix from one
   client. Then `--rounds` of ONE host listed, TWO hosts listed (same Chroma, same data; each mix
   measured one, two, two, one hosts for half of `--seconds` each, the reverse in odd rounds, so
   the store's growth over the run weighs on both alike; `two_vs_one_by_round` gives each round's
   ratio), each scenario `--seconds` long in all: `--clients` closed-loop clients through `core.RemoteMemory` (the
   real client's routing). Mix: recall 70 %, search 10 %, remember 10 %, capture 5 %, list 5 %
   (`--writes` 0.15 = remember + capture). `uniform`: ops for random small users; `hot`:
   `--hot-share` of them for the big user.
3. RSS of Chroma (empty, after the small users, after the big one, ...), of each host and Redis;
   CPU per op of each process and of everything else on the (shared) machine.

`--shards N`: N Chroma servers (`chroma_shards`, core/store/shards.py), every user pinned to the
first in Redis before the fill, so the rounds above run on one shard; then the uniform mix with both
hosts once more on one shard, every other user moved to the other shards (`amber shards move`'s
code, in process), and the same mix on N shards: `shards_vs_one` is that ratio (`--shard-rounds R`:
R such pairs, the users moved back to the first shard between them; the rows add up).

Hosts embed with `--embedder hash` (no model: what Chroma, BM25, HTTP and coordination cost);
`--embedder local` runs the real one (~50 ms CPU per item). `--chroma-index-cache N` caps the HNSW
indexes Chroma keeps in memory (its default: 65 536).

`--index-on-disk`: the hosts are given the Chroma servers' persist directories (`chroma_data_path`,
on this box they can reach them), so people's indexes are kept on disk after every write
(core/store/index_pool.py); without it the servers' collections keep Chroma's defaults.

`--embedded`: one host on its own data dir, Chroma in its process (`make run`'s topology; no Redis,
no second host): fill, warm pass, single client, then `--rounds` of the mixes. `--chroma-index-cache`
is then the host's `chroma_index_pool`, and "chroma" RSS and CPU are the host's. `--code DIR` runs the
hosts on another tree's Amber (a worktree of a base commit) with this bench, for a same-run ratio.

    .venv/bin/python bench/scale_out.py [--users 1000] [--big 20000] [--clients 16] [--seconds 20]

The last line printed is one JSON object with every figure.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from datetime import timedelta
from pathlib import Path

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import chromadb  # noqa: E402
import redis  # noqa: E402

from bench.recall_scale import EN, QUERIES_EN, QUERIES_ZH, T0, fill, memories  # noqa: E402
from bench.rest_load import percentile  # noqa: E402
from core import MMAP_FIXED, TCACHE_OFF  # noqa: E402
from core.client import RemoteMemory  # noqa: E402
from core.errors import AmberError  # noqa: E402
from core.hosts import HostPool  # noqa: E402
from core.model import MemoryIn  # noqa: E402
from core.scope import user_key  # noqa: E402
from tests.kit.servers import free_port, stop_process, wait_answering  # noqa: E402
from tests.kit.topology import BIN, RELAY_KEY, AmberHost, redis_server  # noqa: E402

TICK = os.sysconf("SC_CLK_TCK")
MB_PER_COLLECTION = 2.8  # Chroma RSS per collection measured at 256 dims, default index cache (guard below)


# ---- processes: RSS and CPU from /proc (psutil is not installed) ---------------------------------

def _tree(pid: int) -> list[int]:
    kids: dict[int, list[int]] = defaultdict(list)
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            with contextlib.suppress(OSError, IndexError, ValueError):
                kids[int((d / "stat").read_text().rsplit(")", 1)[1].split()[1])].append(int(d.name))
    out, todo = [], [pid]
    while todo:
        out.append(todo.pop())
        todo += kids.get(out[-1], [])
    return out


def rss_mb(pid: int) -> float:
    """VmRSS of a process and its descendants, MB."""
    kb = 0
    for p in _tree(pid):
        with contextlib.suppress(OSError, StopIteration):
            kb += next(int(line.split()[1]) for line in open(f"/proc/{p}/status") if line.startswith("VmRSS:"))
    return round(kb / 1024, 1)


def cpu_s(pid: int | None) -> float:
    """user + system CPU seconds of a process and its descendants; pid None: the whole machine (busy time)."""
    if pid is None:
        f = [int(x) for x in open("/proc/stat").readline().split()[1:]]
        return (sum(f[:8]) - f[3] - f[4]) / TICK  # all but idle and iowait
    ticks = 0
    for p in _tree(pid):
        with contextlib.suppress(OSError):
            f = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()
            ticks += int(f[11]) + int(f[12])
    return ticks / TICK


@contextlib.contextmanager
def chroma(path: Path, index_cache: int):
    """`chroma run` from a config file (127.0.0.1, a free port; with `index_cache`, at most that many
    HNSW indexes kept in memory); yields (url, pid). Given two minutes to stop: with GBs of indexes
    it may need more than tests.kit's chroma_server waits."""
    port, cfg = free_port(), path.with_suffix(".yaml")
    conf = {"port": port, "listen_address": "127.0.0.1", "persist_path": str(path)}
    if index_cache:
        conf["segment_manager"] = {"persist_path": str(path), "hnsw_index_pool_cache_config": {"memory": {"capacity": index_cache}}}
    cfg.write_text(json.dumps(conf))
    proc = subprocess.Popen([str(BIN / "chroma"), "run", str(cfg)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_answering(url + "/api/v2/heartbeat", proc, what="chroma run", timeout=60)
        yield url, proc.pid
    finally:
        stop_process(proc, timeout=120)


# ---- data ----------------------------------------------------------------------------------------

def user_lines(n_mem: int, n_turns: int, rnd: random.Random) -> list[dict]:
    """An import file for one user: `n_mem` memories and `n_turns` turns of one session."""
    lines = memories(n_mem, rnd)
    for k in range(n_turns):
        at = T0 + timedelta(days=400, minutes=k)
        lines.append({"type": "message", "id": f"t{k}", "role": "user" if k % 2 == 0 else "assistant",
                      "content": fill(rnd.choice(EN), rnd), "session": "s1", "created_at": at.isoformat()})
    return lines


def query(rnd: random.Random) -> str:
    return fill(rnd.choice(QUERIES_ZH if rnd.random() < 0.2 else QUERIES_EN), rnd)


def stats(ms: list[float]) -> dict:
    return {"n": len(ms), **{f"p{p}": round(percentile(ms, p), 1) for p in (50, 95, 99)}}


def figures(a: dict) -> dict:
    """One phase's figures from what `measure` accumulated: throughput, latency per op and CPU per
    process (the machine's busy time less every measured process's: everything else on the box)."""
    ops = sum(len(v) for v in a["ms"].values())
    cpu = dict(a["cpu"])
    cpu["others_on_machine"] = cpu.pop("machine") - sum(cpu.values())
    return {
        "ops_per_s": round(ops / a["seconds"], 1), "ops": ops, "errors": dict(a["errors"]),
        "all_ms": stats([x for v in a["ms"].values() for x in v]), **{f"{k}_ms": stats(v) for k, v in sorted(a["ms"].items())},
        "cpu_ms_per_op": {k: round(v * 1000 / max(1, ops), 1) for k, v in cpu.items()},
        "busy_cores": {k: round(v / a["seconds"], 2) for k, v in cpu.items()},
    }


async def bounded(coros, limit: int) -> None:
    sem = asyncio.Semaphore(limit)

    async def one(c):
        async with sem:
            await c

    await asyncio.gather(*(one(c) for c in coros))


# ---- load ----------------------------------------------------------------------------------------

async def one_op(mem: RemoteMemory, rnd: random.Random, user: str, n: int, writes: float) -> str:
    """`writes` of the ops write (two thirds remember, one third a captured exchange), 10 % search,
    5 % list, the rest recall (70 % with the default 15 % of writes)."""
    m, r = mem.for_user(user), rnd.random()
    if r >= writes + 0.15:
        await m.recall(query(rnd))
        return "recall"
    if r >= writes + 0.05:
        await m.search(query(rnd), top_k=5)
        return "search"
    if r < writes * 2 / 3:
        await m.remember(MemoryIn(content=fill(rnd.choice(EN), rnd) + f" ({n})"))
        return "remember"
    if r < writes:
        at = T0 + timedelta(days=800, seconds=n)
        await m.ingest([{"id": f"L{n}u", "role": "user", "content": fill(rnd.choice(EN), rnd), "session": "load", "created_at": at.isoformat()},
                        {"id": f"L{n}a", "role": "assistant", "content": "Noted, thanks.", "session": "load",
                         "created_at": (at + timedelta(milliseconds=5)).isoformat()}], commands=False)
        return "capture"
    await m.list(limit=20)
    return "list"


async def closed_loop(mem: RemoteMemory, users: list[str], big: str | None, args, seed: int, acc: dict) -> None:
    """`args.clients` clients, each doing one op after another for `args.seconds`; adds to `acc`."""
    stop = time.perf_counter() + args.seconds

    async def client(i: int) -> None:
        rnd, n = random.Random(seed * 1000 + i), 0
        while time.perf_counter() < stop:
            n += 1
            user = big if big and rnd.random() < args.hot_share else rnd.choice(users)
            t = time.perf_counter()
            try:
                name = await one_op(mem, rnd, user, seed * 10**7 + i * 10**5 + n, args.writes)
            except AmberError as e:
                acc["errors"][type(e).__name__] += 1
                continue
            acc["ms"][name].append((time.perf_counter() - t) * 1000)

    t = time.perf_counter()
    await asyncio.gather(*(client(i) for i in range(args.clients)))
    acc["seconds"] += time.perf_counter() - t


async def warm(mem: RemoteMemory, users: list[str], clients: int) -> dict:
    """One recall per user: each user's first recall on their home host (builds their indexes there)."""
    ms: list[float] = []
    errors: Counter = Counter()
    rnd = random.Random(1)

    async def one(u: str) -> None:
        t = time.perf_counter()
        try:
            await mem.for_user(u).recall(query(rnd))
        except AmberError as e:
            errors[type(e).__name__] += 1
            return
        ms.append((time.perf_counter() - t) * 1000)

    t = time.perf_counter()
    await bounded((one(u) for u in users), clients)
    return {"seconds": round(time.perf_counter() - t, 1), "first_recall_ms": stats(ms), "errors": dict(errors)}


async def settle(pid: int, limit: float = 180) -> float:
    """Wait until the Chroma server is idle: the hosts write the warm pass's access counts (one
    write per user) in the background, which would otherwise land in the next measurement."""
    t = time.monotonic()
    while time.monotonic() - t < limit:
        before = cpu_s(pid)
        await asyncio.sleep(1)
        if cpu_s(pid) - before < 0.05:
            break
    return round(time.monotonic() - t, 1)


# ---- the run -------------------------------------------------------------------------------------

def settings(args) -> dict:
    """`--set KEY=VALUE` as host settings."""
    import yaml

    pairs = [kv.split("=", 1) for kv in args.set]
    if any(len(p) != 2 for p in pairs):
        raise SystemExit("--set takes KEY=VALUE")
    return {k.strip(): yaml.safe_load(v) for k, v in pairs}


def warnings_of(log: str, keep: int = 12) -> list[str]:
    """A host's last warnings and errors, each error with the traceback logged under it (its last lines)."""
    out: list[str] = []
    lines = log.splitlines()
    for i, line in enumerate(lines):
        if " WARNING " in line or " ERROR " in line:
            tail = []
            if " ERROR " in line:
                for nxt in lines[i + 1 :]:
                    if nxt[:4].isdigit() and " amber" in nxt[:60]:  # the next log line
                        break
                    tail.append(nxt)
            out.append(line[-400:] + ("\n" + "\n".join(tail[-8:]) if tail else ""))
    return out[-keep:]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--users", type=int, default=1000, help="small users")
    ap.add_argument("--memories", type=int, default=5, help="memories per small user")
    ap.add_argument("--turns", type=int, default=4, help="chat turns per small user")
    ap.add_argument("--big", type=int, default=20000, help="memories of the big user (0: none)")
    ap.add_argument("--chunk", type=int, default=5000, help="memories per import request for the big user")
    ap.add_argument("--clients", type=int, default=16, help="concurrent closed-loop clients")
    ap.add_argument("--seconds", type=float, default=20, help="per scenario, host count and round")
    ap.add_argument("--rounds", type=int, default=2, help="rounds of (one host, two hosts)")
    ap.add_argument("--writes", type=float, default=0.15, help="share of ops that write (remember, capture)")
    ap.add_argument("--hot-share", type=float, default=0.5, help="share of ops for the big user in the hot scenario")
    ap.add_argument("--fill-concurrency", type=int, default=4)
    ap.add_argument("--embedder", default="hash", help="hash (no model) or local")
    ap.add_argument("--chroma-index-cache", type=int, default=0, help="HNSW indexes Chroma keeps in memory (0: its default)")
    ap.add_argument("--shards", type=int, default=1, help="Chroma servers; >1 adds the shards phase (module docstring)")
    ap.add_argument("--shard-rounds", type=int, default=1, help="rounds of (one shard, N shards), the users moved back between")
    ap.add_argument("--force", action="store_true", help="run even if Chroma may need most of the free memory")
    ap.add_argument("--index-on-disk", action="store_true",
                    help="the hosts reach the Chroma servers' files (chroma_data_path): people's indexes kept on disk after every write")
    ap.add_argument("--embedded", action="store_true", help="one host with embedded Chroma (module docstring)")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                    help="a setting of every host (the value read as YAML), e.g. --set chroma_call_slots=8")
    ap.add_argument("--code", default=None, help="the hosts run this tree's Amber (PYTHONPATH), e.g. a base commit's worktree")
    ap.add_argument("--big-home", choices=["any", "second"], default="any",
                    help="second: name the big user so that with both hosts listed their home is host 2, whose index is then "
                         "behind host 1's writes of the one-host rounds (rendezvous routing over random ports otherwise picks either)")
    args = ap.parse_args()
    avail = next(int(x.split()[1]) for x in open("/proc/meminfo") if x.startswith("MemAvailable:")) / 1024
    need = min(3 * args.users, args.chroma_index_cache or 10**9) * MB_PER_COLLECTION
    if need > 0.6 * avail and not args.force:
        raise SystemExit(f"Chroma would need ~{need:.0f} MB of {avail:.0f} MB available: lower --users, "
                         "cap --chroma-index-cache, or --force")
    asyncio.run(run_embedded(args) if args.embedded else run(args))


async def run(args) -> None:
    rnd = random.Random(17)
    users = [f"user{i:05d}" for i in range(args.users)]
    big = "big-user" if args.big else None
    scenarios = ["uniform", "hot"] if big else ["uniform"]
    res: dict = {"bench": "scale_out", "cores": os.cpu_count(), "embedder": args.embedder, "args": vars(args), "rss_mb": {}}
    with tempfile.TemporaryDirectory(prefix="amber-scale-out-") as tmp, contextlib.ExitStack() as stack:
        work = Path(tmp)
        chroma_url, chroma_pid = stack.enter_context(chroma(work / "chroma", args.chroma_index_cache))
        redis_url = stack.enter_context(redis_server(work / "redis"))
        rds = redis.Redis.from_url(redis_url)
        shards = {"s1": (chroma_url, chroma_pid)} | {f"s{i}": stack.enter_context(chroma(work / f"chroma{i}", args.chroma_index_cache))
                                                     for i in range(2, args.shards + 1)}
        sharding = {"chroma_shards": {name: url for name, (url, _) in shards.items()}} if args.shards > 1 else {}
        files = {} if not args.index_on_disk else (
            {"chroma_shard_data_paths": {name: str(work / ("chroma" if name == "s1" else f"chroma{name[1:]}")) for name in shards}}
            if sharding else {"chroma_data_path": str(work / "chroma")})
        hosts = [AmberHost(work / f"host{i}", chroma_url=None if sharding else chroma_url, redis_url=redis_url, name=f"host{i}",
                           amber={"jobs_enabled": False, **sharding, **files, **settings(args)}) for i in (1, 2)]
        if big and args.big_home == "second":
            both = HostPool([h.base for h in hosts])
            big = next(b for b in (f"big-user-{i}" for i in itertools.count()) if both.order(b)[0].url == hosts[1].base)
        for u in (users + ([big] if big else [])) if sharding else []:
            rds.set(f"amber:shard:{user_key(u)}", "s1")  # the rounds run on one shard; the shards phase moves users
        for h in hosts:
            h.env["AMBER_EMBEDDING_MODEL"] = args.embedder  # AmberHost sets "hash"
            if args.code:
                h.env["PYTHONPATH"] = str(Path(args.code).resolve())
            stack.callback(h.stop)
            stack.push(lambda exc_type, *_, h=h: exc_type and print(f"--- {h.name} log ---\n{h.log()[-3000:]}", file=sys.stderr))
        hosts[0].start(timeout=180)
        rss = res["rss_mb"]

        def snapshot(label: str) -> None:
            rss[label] = {"chroma": rss_mb(chroma_pid), "redis": round(rds.info("memory")["used_memory_rss"] / 2**20, 1),
                          **{h.name: rss_mb(h.proc.pid) for h in hosts if h.alive}}
            print(f"RSS MB {label}: {rss[label]}", flush=True)

        snapshot("start")
        filler = RemoteMemory([hosts[0].base], RELAY_KEY, timeout=600)
        t = time.perf_counter()
        await bounded((filler.for_user(u).import_(user_lines(args.memories, args.turns, rnd)) for u in users), args.fill_concurrency)
        res["fill_small_s"] = round(time.perf_counter() - t, 1)
        res["collections_after_small"] = chromadb.HttpClient(host="127.0.0.1", port=int(chroma_url.rsplit(":", 1)[1])).count_collections()
        print(f"filled {len(users)} users in {res['fill_small_s']} s; {res['collections_after_small']} collections", flush=True)
        snapshot("after_small")
        if big:
            t, lines = time.perf_counter(), memories(args.big, rnd)
            for i in range(0, args.big, args.chunk):  # one import per chunk, one after the other
                await filler.for_user(big).import_(lines[i : i + args.chunk])
            res["fill_big_s"] = round(time.perf_counter() - t, 1)
            print(f"filled the big user ({args.big} memories) in {res['fill_big_s']} s", flush=True)
            snapshot("after_big")
        await filler.aclose()
        res["chroma_disk_mb"] = round(int(subprocess.run(["du", "-sk", str(work / "chroma")], capture_output=True, text=True).stdout.split()[0]) / 1024, 1)

        hosts[1].start(timeout=180)
        clients = {n: RemoteMemory([h.base for h in hosts[:n]], RELAY_KEY, timeout=120) for n in (1, 2)}
        res["phases"] = {}
        for n, mem in clients.items():
            pool = HostPool(mem.hosts)
            home = Counter(pool.order(u)[0].url for u in users)
            res["phases"][n] = {"home_users": {h.name: home[h.base] for h in hosts[:n]},
                                **({"big_user_home": next(h.name for h in hosts if h.base == pool.order(big)[0].url)} if big else {}),
                                "warm": await warm(mem, users + ([big] if big else []), args.clients),
                                "settle_s": await settle(chroma_pid)}
            print(f"{n} host(s): {res['phases'][n]}", flush=True)
        snapshot("after_warm")

        procs = {"chroma": chroma_pid, **{f"chroma_{n}": pid for n, (_, pid) in list(shards.items())[1:]},
                 **{h.name: h.proc.pid for h in hosts}, "machine": None}
        acc = {k: {"ms": defaultdict(list), "errors": Counter(), "seconds": 0.0, "cpu": Counter()}
               for k in [(1, "single_client")] + [(n, s) for n in clients for s in scenarios]}

        async def measure(n: int, s: str, seed: int, a: argparse.Namespace) -> float:
            """Run one scenario; its ops/s this time."""
            before = {k: cpu_s(p) for k, p in procs.items()} | {"bench_client": time.process_time()}
            ops_before = sum(map(len, acc[(n, s)]["ms"].values()))
            await closed_loop(clients[n], users, big if s == "hot" else None, a, seed, acc[(n, s)])
            after = {k: cpu_s(p) for k, p in procs.items()} | {"bench_client": time.process_time()}
            acc[(n, s)]["cpu"].update({k: after[k] - before[k] for k in after})
            ops = sum(map(len, acc[(n, s)]["ms"].values()))
            print(f"{n} host(s), {s}: {ops} ops so far", flush=True)
            return round((ops - ops_before) / a.seconds, 1)

        # the same mix from one client, one host listed: each op's latency without queueing
        await measure(1, "single_client", 1, argparse.Namespace(**{**vars(args), "clients": 1, "seconds": min(args.seconds, 15)}))
        # Within a round each mix is measured A B B A (one, two, two, one hosts, or the reverse in odd
        # rounds), each part half of `--seconds`: the users' memories and logs grow with every
        # remember and capture through a run (one host's uniform mix fell from 110 to 81 ops/s over
        # eight rounds), and a linear drift then weighs on both sides alike, so a round's ratio says
        # what hosts do, not which went second.
        per_round: list[dict] = []  # each round's ops/s by "hosts/scenario"
        half = argparse.Namespace(**{**vars(args), "seconds": args.seconds / 2})
        for rnd_no in range(args.rounds):
            per_round.append({})
            a, b = list(clients) if rnd_no % 2 == 0 else list(clients)[::-1]
            for s in scenarios:
                for part, n in enumerate((a, b, b, a)):
                    got = await measure(n, s, rnd_no * 100 + n * 10 + len(s) + part * 1000, half)
                    per_round[-1][f"{n}/{s}"] = round(per_round[-1].get(f"{n}/{s}", 0.0) + got / 2, 1)
        res["rounds"] = per_round
        if 2 in clients:  # two hosts / one host, round by round (the same minutes of the run)
            res["two_vs_one_by_round"] = {s: [round(r["2/" + s] / r["1/" + s], 2) for r in per_round if r.get("1/" + s)] for s in scenarios}
        if sharding:
            res["shards"] = await shard_phase(args, shards, sharding, redis_url, users, big, measure, acc, snapshot)
        for mem in clients.values():
            await mem.aclose()
        snapshot("end")
        # each host's log: full reads of a person's index that took a second or more, and catch-ups
        res["index_log"] = {h.name: [line.split("amber.recall", 1)[-1].strip() for line in h.log().splitlines()
                                     if "built from the store" in line or "caught up from revision" in line][-8:] for h in hosts}
        # and what a host answered 503 for (an operation that failed says why in the host's log)
        res["host_warnings"] = {h.name: warnings_of(h.log()) for h in hosts}

    for (n, s), a in acc.items():
        res["phases"][n][s] = figures(a)
    one, two = res["phases"][1], res["phases"][2]
    res["two_vs_one"] = {s: {"ops_per_s": round(two[s]["ops_per_s"] / one[s]["ops_per_s"], 2),
                             **{f"recall_{p}": round(two[s]["recall_ms"][p] / one[s]["recall_ms"][p], 2) for p in ("p50", "p95", "p99")}}
                         for s in scenarios}
    small_mb = rss["after_small"]["chroma"] - rss["start"]["chroma"]
    res["collections_per_user"] = round(res["collections_after_small"] / max(1, len(users)), 2)
    res["chroma_mb_per_user"] = round(small_mb / max(1, len(users)), 3)
    res["chroma_mb_per_collection"] = round(small_mb / max(1, res["collections_after_small"]), 3)
    if big:
        res["chroma_mb_per_1k_memories_big_user"] = round((rss["after_big"]["chroma"] - rss["after_small"]["chroma"]) * 1000 / args.big, 2)
    if "shards" in res:
        one_shard, n_shards = res["phases"][2]["uniform_1_shard"], res["phases"][2][f"uniform_{args.shards}_shards"]
        res["shards"]["shards_vs_one"] = round(n_shards["ops_per_s"] / one_shard["ops_per_s"], 2)
    report(res)
    print(json.dumps(res))


async def run_embedded(args) -> None:
    """`--embedded`: the same fill, warm pass and mixes against one host whose Chroma is in process."""
    rnd = random.Random(17)
    users = [f"user{i:05d}" for i in range(args.users)]
    big = "big-user" if args.big else None
    scenarios = ["uniform", "hot"] if big else ["uniform"]
    res: dict = {"bench": "scale_out", "embedded": True, "cores": os.cpu_count(), "embedder": args.embedder, "args": vars(args),
                 "rss_mb": {}, "phases": {1: {}}}
    with tempfile.TemporaryDirectory(prefix="amber-scale-out-") as tmp, contextlib.ExitStack() as stack:
        work = Path(tmp)
        host = AmberHost(work / "host1", name="host1", amber={"jobs_enabled": False, **(
            {"chroma_index_pool": args.chroma_index_cache} if args.chroma_index_cache else {}), **settings(args)})
        host.env["AMBER_EMBEDDING_MODEL"] = args.embedder
        host.env["GLIBC_TUNABLES"] = os.environ.get("GLIBC_TUNABLES", f"{TCACHE_OFF}:{MMAP_FIXED}")  # what make run sets
        if args.code:
            host.env["PYTHONPATH"] = str(Path(args.code).resolve())
        stack.callback(host.stop)
        stack.push(lambda exc_type, *_: exc_type and print(f"--- host log ---\n{host.log()[-3000:]}", file=sys.stderr))
        host.start(timeout=180)
        pid, rss = host.proc.pid, res["rss_mb"]

        def snapshot(label: str) -> None:
            rss[label] = {"host1": rss_mb(pid)}
            print(f"RSS MB {label}: {rss[label]}", flush=True)

        snapshot("start")
        mem = RemoteMemory([host.base], RELAY_KEY, timeout=600)
        t = time.perf_counter()
        await bounded((mem.for_user(u).import_(user_lines(args.memories, args.turns, rnd)) for u in users), args.fill_concurrency)
        res["fill_small_s"] = round(time.perf_counter() - t, 1)
        snapshot("after_small")
        if big:
            t, lines = time.perf_counter(), memories(args.big, rnd)
            for i in range(0, args.big, args.chunk):
                await mem.for_user(big).import_(lines[i : i + args.chunk])
            res["fill_big_s"] = round(time.perf_counter() - t, 1)
            snapshot("after_big")
        res["phases"][1]["warm"] = await warm(mem, users + ([big] if big else []), args.clients)
        res["phases"][1]["settle_s"] = await settle(pid)
        print(f"filled and warmed: {res}", flush=True)
        snapshot("after_warm")
        acc = {s: {"ms": defaultdict(list), "errors": Counter(), "seconds": 0.0, "cpu": Counter()} for s in ["single_client", *scenarios]}

        async def measure(s: str, seed: int, a: argparse.Namespace) -> None:
            before = {"host1": cpu_s(pid), "machine": cpu_s(None)}
            await closed_loop(mem, users, big if s == "hot" else None, a, seed, acc[s])
            acc[s]["cpu"].update({"host1": cpu_s(pid) - before["host1"], "machine": cpu_s(None) - before["machine"]})
            print(f"{s}: {sum(map(len, acc[s]['ms'].values()))} ops so far", flush=True)

        await measure("single_client", 1, argparse.Namespace(**{**vars(args), "clients": 1, "seconds": min(args.seconds, 15)}))
        for rnd_no in range(args.rounds):
            for s in scenarios:
                await measure(s, rnd_no * 100 + len(s), args)
        await mem.aclose()
        snapshot("end")
    for s, a in acc.items():
        r = res["phases"][1][s] = figures(a)
        print(f"{s:13} {r['ops_per_s']:>6} ops/s, recall p50/p95/p99 {r['recall_ms']['p50']}/{r['recall_ms']['p95']}/"
              f"{r['recall_ms']['p99']} ms, remember p50 {r.get('remember_ms', {}).get('p50', '-')} ms, capture p50 "
              f"{r.get('capture_ms', {}).get('p50', '-')} ms, errors {r['errors']}, CPU ms/op {r['cpu_ms_per_op']}")
    res["host_mb_per_user"] = round((rss["after_small"]["host1"] - rss["start"]["host1"]) / max(1, len(users)), 3)
    print(f"host RSS: {res['rss_mb']}; {res['host_mb_per_user']} MB per user after the fill")
    print(json.dumps(res))


async def shard_phase(args, shards: dict, sharding: dict, redis_url: str, users: list[str], big: str | None,
                      measure, acc: dict, snapshot) -> dict:
    """The uniform mix with both hosts on one shard, then every other user moved (round-robin over
    the other shards) and the same mix again; both rows land in phases[2]."""
    from core import Settings, shard_mover

    n = len(shards)
    for label in ("uniform_1_shard", f"uniform_{n}_shards"):
        acc[(2, label)] = {"ms": defaultdict(list), "errors": Counter(), "seconds": 0.0, "cpu": Counter()}
    # the hosts notice a move within 0.5 s, and nothing reads these users meanwhile: a short grace
    mover, close = shard_mover(Settings(**sharding, redis_url=redis_url), grace_s=0.6)
    targets = [name for name in shards if name != "s1"]
    moving, moves = users[1::2], []

    async def move_all(where) -> None:
        t = time.perf_counter()
        for i, u in enumerate(moving):
            await asyncio.to_thread(mover.move, u, where(i))
        moves.append(round(time.perf_counter() - t, 1))
        settled = [await settle(pid) for _, pid in shards.values()]
        print(f"moved {len(moving)} users in {moves[-1]} s (grace 0.6 s each); shards idle after {settled} s", flush=True)

    try:
        for r in range(args.shard_rounds):
            if r:
                await move_all(lambda i: "s1")
            await measure(2, "uniform_1_shard", 901 + 10 * r, args)
            await move_all(lambda i: targets[i % len(targets)])
            await measure(2, f"uniform_{n}_shards", 902 + 10 * r, args)
    finally:
        close()
    snapshot("after_moves")
    rds = redis.Redis.from_url(redis_url)  # what Redis holds per user: routes, fencing counters, ...
    keys = Counter(k.decode().split(":")[1] for k in rds.scan_iter(count=1000))
    return {"redis_keys": dict(keys), "redis_used_mb": round(rds.info("memory")["used_memory"] / 2**20, 2),
            "n": n, "rounds": args.shard_rounds, "users_moved": len(moving), "move_s": moves,
            "move_s_per_user_less_grace": round(sum(moves) / len(moves) / max(1, len(moving)) - 0.6, 2)}


def report(res: dict) -> None:
    a = res["args"]
    print(f"\n== {a['users']} users x ({a['memories']} memories + {a['turns']} turns), big user {a['big']} memories, "
          f"embedder {res['embedder']}, Chroma index cache {a['chroma_index_cache'] or 'default'}, {a['clients']} clients, "
          f"{a['rounds']} x {a['seconds']} s per row, {res['cores']} cores")
    print(f"fill: small users {res['fill_small_s']} s, big user {res.get('fill_big_s', '-')} s; {res['collections_after_small']} "
          f"collections after the small users ({res['collections_per_user']} per user); Chroma on disk {res['chroma_disk_mb']} MB")
    print(f"Chroma RSS: {res['chroma_mb_per_user']:.2f} MB per user, {res['chroma_mb_per_collection']:.2f} MB per collection; "
          f"per 1k memories of the big user {res.get('chroma_mb_per_1k_memories_big_user', '-')} MB")
    for k, d in res["rss_mb"].items():
        print(f"  RSS MB {k:12s} " + ", ".join(f"{p} {v}" for p, v in d.items()))
    print(f"index reads logged (a second or more): {res.get('index_log')}")
    for n, phase in res["phases"].items():
        print(f"  {n} host(s): home users {phase['home_users']}, big user on {phase.get('big_user_home', '-')}, "
              f"warm pass {phase['warm']}, then Chroma idle after {phase['settle_s']} s")
    print(f"\n{'hosts':>5} {'load':13} {'ops/s':>6} {'recall p50':>10} {'p95':>6} {'p99':>6} {'remember p50':>12} {'err':>4}  busy cores")
    for n, phase in res["phases"].items():
        for s in ("single_client", "uniform", "hot"):
            if s in phase:
                r, rc = phase[s], phase[s]["recall_ms"]
                print(f"{n:>5} {s:13} {r['ops_per_s']:>6} {rc['p50']:>10} {rc['p95']:>6} {rc['p99']:>6} "
                      f"{r.get('remember_ms', {}).get('p50', '-'):>12} {sum(r['errors'].values()):>4}  {r['busy_cores']}")
    for s, q in res["two_vs_one"].items():
        print(f"two / one host, {s}: {q}")
    if "shards" in res:
        for label in ("uniform_1_shard", f"uniform_{res['shards']['n']}_shards"):
            r = res["phases"][2][label]
            print(f"two hosts, {label:17} {r['ops_per_s']:>6} ops/s, recall p50/p95 {r['recall_ms']['p50']}/{r['recall_ms']['p95']} ms, "
                  f"remember p50 {r.get('remember_ms', {}).get('p50', '-')} ms, errors {r['errors']}, busy cores {r['busy_cores']}, "
                  f"CPU ms per op {r['cpu_ms_per_op']}")
        print(f"{res['shards']['n']} shards / one: x{res['shards']['shards_vs_one']} ops/s ({res['shards']})")


if __name__ == "__main__":
    main()
