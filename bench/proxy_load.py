"""What a chat user feels: the latency Amber adds through the real LiteLLM proxy, with others chatting.

Two real proxies in front of one fake upstream that "thinks" for `--upstream-latency` seconds and
answers with a realistic paragraph: one with Amber's hook (local mode, the real offline embedder,
capture on), one with no callback. The same load runs through each, in alternating phases
(plain, amber, plain, amber), so both see the same machine:

- `--users` simulated people chat concurrently, multi-turn (each request carries the conversation
  so far), pausing `--think` seconds between turns; some users (`--big-users`) start with
  `--big-items` stored turns each, and `--big-memories` saved memories (0 by default: then the
  memory arms, the sentence model's among them, have nothing to read);
- in the middle of the second amber phase one user pastes a `--paste-kb` KB message.

Reported: client-side latency p50/p95/p99 for each proxy and the difference (what Amber adds);
the hook's own pre-call time from its log lines; recall timeouts (all users, and others' during
the paste); turns lost (sent but not stored once the capture journal drained); peak RSS of each
proxy with its children (the embedding workers). The last line printed is one JSON object.

    .venv/bin/python bench/proxy_load.py [--users 8] [--turns 24] [--big-items 10000]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import sys
import tempfile
import threading
import time
from datetime import datetime
from pathlib import Path

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import httpx  # noqa: E402

from core import user_hash  # noqa: E402
from tests.fakes.upstreams import FakeUpstreams  # noqa: E402
from tests.hook.harness import Proxy, proxy_config, start_together, wait_for  # noqa: E402

ADMIN = "sk-amber-bench-admin"
REPLY = (
    "Here is a plan that should work: start with the simplest option, check it against what you told me "
    "before, and keep a fallback ready. If the weather turns, move the picnic indoors; the recipe scales "
    "to eight people if you double the lentils and keep the spices as they are. Let me know how it goes."
)
TOPICS = [
    "my sister's wedding in June", "the garden and the tomatoes", "learning Portuguese", "our trip to Kyoto",
    "the new job at the library", "my knee after running", "the dog's vet appointment", "a birthday cake for Ines",
    "switching banks", "the book club's next pick", "fixing the bike's brakes", "my mother's visit",
]
PHRASES = [
    "Can you help me plan {t}?", "What did I say last time about {t}?", "Any ideas for {t} this weekend?",
    "Remind me what matters for {t}.", "I changed my mind about {t}, what now?", "Give me three options for {t}.",
]


def percentile(xs: list[float], p: float) -> float:
    if not xs:
        return float("nan")
    xs = sorted(xs)
    k = max(0, min(len(xs) - 1, round(p / 100 * (len(xs) - 1))))
    return xs[k]


def summary(xs: list[float]) -> dict[str, float]:
    return {"n": len(xs), "p50": round(percentile(xs, 50), 1), "p95": round(percentile(xs, 95), 1), "p99": round(percentile(xs, 99), 1)}


class RSS:
    """Peak resident memory of a process and its children, sampled twice a second."""

    def __init__(self, pid: int):
        self.pid, self.peak_kb, self._stop = pid, 0, threading.Event()
        threading.Thread(target=self._run, daemon=True).start()

    def _tree(self) -> list[int]:
        pids, todo = [], [self.pid]
        while todo:
            p = todo.pop()
            pids.append(p)
            try:
                for task in os.listdir(f"/proc/{p}/task"):
                    todo.extend(int(c) for c in Path(f"/proc/{p}/task/{task}/children").read_text().split())
            except OSError:
                pass
        return pids

    def now_kb(self) -> int:
        total = 0
        for p in self._tree():
            try:
                total += int(re.search(r"VmRSS:\s+(\d+)", Path(f"/proc/{p}/status").read_text()).group(1))
            except (OSError, AttributeError):
                pass
        return total

    def _run(self) -> None:
        while not self._stop.is_set():
            self.peak_kb = max(self.peak_kb, self.now_kb())
            time.sleep(0.5)

    def stop(self) -> int:
        self._stop.set()
        return self.peak_kb


def preload(p: Proxy, user: str, items: int, rng: random.Random, batch: int = 250) -> float:
    """`items` captured turns for `user`, through the memory server's REST API (document lane), `batch` a request
    (the commit before the ONNX engine answers 503 to 250 turns at once on a busy machine: its lane timed out)."""
    started = time.perf_counter()
    h = {"Authorization": f"Bearer {ADMIN}", "X-Amber-User": user}
    t0 = time.time() - items * 60
    with httpx.Client(base_url=p.base + "/memory", timeout=600) as http:
        for b in range(0, items, batch):
            msgs = []
            for i in range(b, min(items, b + batch)):
                topic = rng.choice(TOPICS)
                text = f"{rng.choice(PHRASES).format(t=topic)} (note {i}: {rng.randint(1, 10**6)})"
                at = datetime.fromtimestamp(t0 + i * 60).astimezone().isoformat()
                msgs.append({"id": f"pre-{user}-{i}", "role": "user" if i % 2 == 0 else "assistant", "content": text,
                             "session": f"pre-{i // 20}", "created_at": at})
            http.post("/v1/messages", json={"messages": msgs, "commands": False}, headers=h).raise_for_status()
    return time.perf_counter() - started


def preload_memories(p: Proxy, user: str, n: int, rng: random.Random) -> float:
    """`n` memories saved for `user` one by one through the memory server's REST API, as a person's
    "remember ..." does."""
    started = time.perf_counter()
    h = {"Authorization": f"Bearer {ADMIN}", "X-Amber-User": user}
    with httpx.Client(base_url=p.base + "/memory", timeout=120) as http:
        for i in range(n):
            text = f"{rng.choice(PHRASES).format(t=rng.choice(TOPICS))} (memory {i})"
            http.post("/v1/memories", json={"content": text}, headers=h).raise_for_status()
    return time.perf_counter() - started


class Load:
    def __init__(self, args: argparse.Namespace):
        self.args = args
        self.samples: dict[str, list[tuple[str, float, float]]] = {"plain": [], "amber": []}  # (user, start, ms)
        self.sent: dict[str, list[str]] = {}
        self.paste: dict[str, float] = {}
        self.lock = threading.Lock()

    def run_phase(self, p: Proxy, label: str, turns: int, phase_seed: int, paste_at: int | None) -> None:
        threads = [threading.Thread(target=self._user, args=(p, label, u, turns, phase_seed, paste_at)) for u in range(self.args.users)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()

    def _user(self, p: Proxy, label: str, u: int, turns: int, seed: int, paste_at: int | None) -> None:
        rng = random.Random(seed * 1000 + u)
        user = f"user{u}"
        history: list[dict[str, str]] = []
        time.sleep(rng.random() * self.args.think)  # users do not start in lockstep
        with httpx.Client(timeout=300) as http:
            for n in range(turns):
                text = f"{rng.choice(PHRASES).format(t=rng.choice(TOPICS))} [{label} {seed}.{n}]"
                is_paste = paste_at is not None and u == 0 and n == paste_at
                if is_paste:
                    line = "Row {i}: order 4471-{i} shipped to warehouse {w}, weight {k} kg, status ok.\n"
                    text = "Please check this export for anomalies:\n" + "".join(
                        line.format(i=i, w=i % 9, k=i % 40) for i in range(self.args.paste_kb * 1024 // 70))
                history = (history + [{"role": "user", "content": text}])[-9:]
                started = time.time()
                t0 = time.perf_counter()
                r = http.post(p.base + "/v1/chat/completions", headers=p.headers,
                              json={"model": "gpt-4o-mini", "user": user, "messages": history})
                ms = (time.perf_counter() - t0) * 1000
                r.raise_for_status()
                history.append({"role": "assistant", "content": r.json()["choices"][0]["message"]["content"]})
                with self.lock:
                    if is_paste:
                        self.paste = {"user": user, "sent_at": started, "ms": ms}
                    else:
                        self.samples[label].append((user, started, ms))
                    if label == "amber":
                        self.sent.setdefault(user, []).append(text)
                time.sleep(rng.uniform(0.5, 1.5) * self.args.think)


PRECALL = re.compile(r"^(\S+ \S+) INFO amber\.litellm: amber pre-call \S+ user=(\w+) (.*) (\d+)ms( \((.*)\))?$")
STAGE = re.compile(r"\b(correct|recall|boot)=(\d+)ms")


def hook_lines(log: str) -> list[tuple[float, str, float, str]]:
    out = []
    for line in log.splitlines():
        m = PRECALL.match(line)
        if m:
            at = datetime.strptime(m.group(1), "%Y-%m-%d %H:%M:%S,%f").timestamp()
            stages = " ".join(f"{k}={v}" for k, v in STAGE.findall(m.group(3)))  # where the time went
            out.append((at, m.group(2), float(m.group(4)), " ".join(x for x in (stages, m.group(6) or "") if x)))
    return out


def slowest(hooks: list[tuple[float, str, float, str]], n: int = 8) -> list[list]:
    """The `n` slowest pre-calls: [seconds since the first, the user's turn index, ms, note]."""
    if not hooks:
        return []
    start = min(h[0] for h in hooks)
    seen: dict[str, int] = {}
    rows = []
    for at, user, ms, note in sorted(hooks):
        rows.append([round(at - start, 1), seen.get(user, 0), ms, note])
        seen[user] = seen.get(user, 0) + 1
    return sorted(rows, key=lambda r: -r[2])[:n]


def stage_times(hooks: list[tuple[float, str, float, str]]) -> dict[str, dict]:
    """Per stage of the pre-call (the correction read, recall, the boot pack): its p50 / p95 over the
    pre-calls that ran it."""
    per: dict[str, list[float]] = {}
    for *_, note in hooks:
        for k, v in re.findall(r"\b(correct|recall|boot)=(\d+)", note):
            per.setdefault(k, []).append(float(v))
    return {k: summary(v) for k, v in sorted(per.items())}


def after_first(hooks: list[tuple[float, str, float, str]]) -> list[float]:
    """Pre-call ms of every turn but each person's first in this proxy process: that one builds their
    recall indexes (a person who spoke since the start has them kept current), so in a short run
    where everyone starts together it is a burst of cold builds the rest of a day does not see."""
    seen: set[str] = set()
    out = []
    for _, user, ms, _ in sorted(hooks):
        if user in seen:
            out.append(ms)
        seen.add(user)
    return out


def journal_empty(p: Proxy) -> bool:
    d = p.workdir / "data" / "spool"
    return not d.is_dir() or not any(x for x in d.iterdir() if x.name != "quarantine.ndjson")


def stored(p: Proxy, user: str) -> list[str]:
    h = {"Authorization": f"Bearer {ADMIN}", "X-Amber-User": user}
    r = httpx.get(p.base + "/memory/v1/messages", headers=h, timeout=120)
    r.raise_for_status()
    return [m["content"] for m in r.json()["messages"]]


class EngineProbe:
    """The embedding engine on its own, in the same run: while the amber phases run, one question
    every half second is embedded by the ONNX engine in this process (one thread, as the hook's
    interactive worker runs it), so "the hook's pre-call p50 against the engine's own query p50"
    compares two figures taken under the same load. Costs ~2 % of a core."""

    QUESTIONS = ["What did I say about the trip to Lisbon next spring?", "我上次说的那家餐厅叫什么名字？",
                 "Which book was I reading when we talked about the garden?", "我妹妹的生日是哪一天来着？"]

    def __init__(self) -> None:
        from core.embed.model_cache import ensure_model
        from core.embed.onnx_engine import E5Onnx
        self.engine = E5Onnx(ensure_model()[0], threads=1)
        self.engine.encode(["warm up"], is_query=True)
        self.ms: list[float] = []
        self.on = threading.Event()
        self.done = threading.Event()
        threading.Thread(target=self._run, daemon=True).start()

    def _run(self) -> None:
        n = 0
        while not self.done.is_set():
            if self.on.wait(0.5):
                t = time.perf_counter()
                self.engine.encode([self.QUESTIONS[n % len(self.QUESTIONS)] + f" ({n})"], is_query=True)
                self.ms.append((time.perf_counter() - t) * 1000)
                n += 1
                time.sleep(0.5)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--users", type=int, default=8)
    ap.add_argument("--turns", type=int, default=24, help="turns per user per proxy (split over two phases)")
    ap.add_argument("--think", type=float, default=1.0, help="mean pause between a user's turns, seconds")
    ap.add_argument("--upstream-latency", type=float, default=0.8, help="seconds the fake model takes per answer")
    ap.add_argument("--paste-kb", type=int, default=60)
    ap.add_argument("--big-users", type=int, default=2, help="users that start with --big-items stored turns")
    ap.add_argument("--big-items", type=int, default=10000)
    ap.add_argument("--big-memories", type=int, default=0, help="memories saved for each big user before the load")
    ap.add_argument("--embedder", default="local")
    ap.add_argument("--amber-set", action="append", default=[], metavar="NAME=VALUE",
                    help="a setting of the Amber proxy, as its environment variable without AMBER_ (e.g. EMBED_QUERY_WORKERS=2)")
    ap.add_argument("--restart", action="store_true",
                    help="each person chats once, then the Amber proxy is stopped and started again on the same data "
                         "before the load: what returning people feel after a restart")
    ap.add_argument("--preload-batch", type=int, default=250, help="stored turns per request while preloading")
    args = ap.parse_args()

    work = Path(tempfile.mkdtemp(prefix="amber-proxy-load-"))
    with FakeUpstreams(default_reply=REPLY) as up:
        up.latency_s = args.upstream_latency
        amber_cfg = {"jobs_enabled": False, "recall_timeout_s": 1.5,
                     "api_keys": [{"name": "admin", "secret": ADMIN, "scopes": ["memory:read", "memory:write", "memory:admin"]}]}
        for d in ("amber", "plain"):
            (work / d).mkdir()
        settings = {f"AMBER_{k.upper()}": v for k, v in (x.split("=", 1) for x in args.amber_set)}
        if args.restart:  # whose indexes are held is noted every 2 s, so the stop below finds it noted
            settings.setdefault("AMBER_RECALL_WARM_SAVE_S", "2")
        amber = Proxy(proxy_config(up, amber=amber_cfg), work / "amber", env={"AMBER_EMBEDDING_MODEL": args.embedder, **settings})
        plain = Proxy(proxy_config(up, callback=False), work / "plain")
        # a loaded 2-core machine took over the kit's 120 s to start the plain proxy
        start_together((amber, {"timeout": 600}), (plain, {"wait_memory": False, "timeout": 600}))
        rss_amber, rss_plain = RSS(amber.proc.pid), RSS(plain.proc.pid)
        try:
            rng = random.Random(7)
            preload_s = sum(preload(amber, f"user{u}", args.big_items, rng, args.preload_batch) for u in range(min(args.big_users, args.users)))
            if args.big_users:
                print(f"preloaded {args.big_users} users x {args.big_items} turns in {preload_s:.0f}s", file=sys.stderr)
                assert wait_for(lambda: journal_empty(amber), timeout=600)
            if args.big_users and args.big_memories:
                mem_s = sum(preload_memories(amber, f"user{u}", args.big_memories, rng) for u in range(min(args.big_users, args.users)))
                print(f"saved {args.big_memories} memories for each of {args.big_users} users in {mem_s:.0f}s", file=sys.stderr)
            if args.restart:
                t = time.perf_counter()
                with httpx.Client(timeout=300) as http:
                    for u in range(args.users):
                        http.post(amber.base + "/v1/chat/completions", headers=amber.headers, json={
                            "model": "gpt-4o-mini", "user": f"user{u}", "messages": [{"role": "user", "content": "Good morning!"}]
                        }).raise_for_status()
                time.sleep(5)
                amber.stop()
                amber.start(timeout=600)
                rss_amber.stop()
                rss_amber = RSS(amber.proc.pid)
                print(f"each person chatted once, the proxy restarted: {time.perf_counter() - t:.0f}s", file=sys.stderr)
            load = Load(args)
            probe = None
            if args.embedder == "local":
                try:
                    probe = EngineProbe()
                except ImportError as e:  # run against a tree before the ONNX engine: no probe to compare with
                    print(f"no engine probe: {e}", file=sys.stderr)
            half = max(1, args.turns // 2)
            for i, (p, label) in enumerate([(plain, "plain"), (amber, "amber"), (plain, "plain"), (amber, "amber")]):
                t = time.perf_counter()
                if probe is not None and label == "amber":
                    probe.on.set()
                elif probe is not None:
                    probe.on.clear()
                load.run_phase(p, label, half, i, paste_at=half // 2 if i == 3 else None)
            if probe is not None:
                probe.done.set()
                print(f"phase {i + 1}/4 {label}: {time.perf_counter() - t:.0f}s", file=sys.stderr)
            drain_started = time.perf_counter()
            drained = wait_for(lambda: journal_empty(amber), timeout=900, interval=1.0)
            drain_s = time.perf_counter() - drain_started
            peak_amber, peak_plain = rss_amber.stop(), rss_plain.stop()

            lost = 0
            sent_total = 0
            for user, texts in load.sent.items():
                have = set(stored(amber, user))
                sent_total += len(texts)
                lost += sum(1 for t in texts if t not in have and not any(t[:2000] in h for h in have))
            hooks = hook_lines(amber.log())
            ahead = re.findall(r"recall indexes built ahead at start: (\d+) of (\d+) in ([\d.]+)s", amber.log())
            timeouts = [h for h in hooks if "timed out" in h[3]]
            paste_user = user_hash(load.paste.get("user", "user0"))
            paste_from = load.paste.get("sent_at", 0.0)
            paste_to = paste_from + 120.0  # the paste's embedding and the two minutes after it
            others_in_paste = [h for h in timeouts if h[1] != paste_user and paste_from <= h[0] <= paste_to]
            quarantined = (amber.workdir / "data" / "spool" / "quarantine.ndjson")
        finally:
            amber.stop()
            plain.stop()

    ms_plain = [ms for _, _, ms in load.samples["plain"]]
    ms_amber = [ms for _, _, ms in load.samples["amber"]]
    sp, sa = summary(ms_plain), summary(ms_amber)
    added = {k: round(sa[k] - sp[k], 1) for k in ("p50", "p95", "p99")}
    hook_ms = summary([h[2] for h in hooks])
    result = {
        "bench": "proxy_load",
        "users": args.users, "turns_per_user": 2 * half, "think_s": args.think, "upstream_latency_s": args.upstream_latency,
        "big_users": args.big_users, "big_items": args.big_items, "big_memories": args.big_memories, "embedder": args.embedder, "restart": args.restart,
        "latency_ms": {"plain": sp, "amber": sa, "added": added},
        "hook_precall_ms": hook_ms,
        # the tail, to tell a burst from a slow path: seconds since the first pre-call, the turn's
        # index in its user's turns (0: the first), ms and the hook's note
        "hook_precall_slowest": slowest(hooks),
        "hook_stages_ms": stage_times(hooks),
        "hook_precall_after_first_ms": summary(after_first(hooks)),
        # after --restart: indexes built ahead at the start [built, listed, seconds] (none: a tree without it)
        "built_ahead": [float(x) for x in ahead[-1]] if ahead else None,
        "engine_query_ms": summary(probe.ms) if probe is not None else None,
        "precall_p50_over_engine_p50": round(hook_ms["p50"] / summary(probe.ms)["p50"], 2) if probe is not None and probe.ms else None,
        "paste": {"kb": args.paste_kb, "ms": round(load.paste.get("ms", float("nan")), 1)},
        "recall_timeouts": {"all": len(timeouts), "others_during_paste": len(others_in_paste)},
        "turns": {"sent": sent_total, "lost": lost, "quarantined": len(quarantined.read_text().splitlines()) if quarantined.exists() else 0},
        "journal_drained": bool(drained), "drain_after_load_s": round(drain_s, 1),
        "peak_rss_mb": {"amber": round(peak_amber / 1024), "plain": round(peak_plain / 1024)},
    }
    print(f"latency through the proxy (ms)   plain {sp}   amber {sa}   added {added}")
    print(f"engine alone, same run (ms) {result['engine_query_ms']}; pre-call p50 / engine p50 {result['precall_p50_over_engine_p50']}")
    print(f"hook pre-call after each person's first (ms) {result['hook_precall_after_first_ms']}")
    print(f"hook pre-call by stage (ms) {result['hook_stages_ms']}")
    print(f"hook pre-call (ms) {hook_ms}; recall timeouts {result['recall_timeouts']}; turns {result['turns']}")
    print(f"paste {args.paste_kb} KB answered in {result['paste']['ms']} ms; journal drained {drain_s:.0f}s after the load; "
          f"peak RSS amber {result['peak_rss_mb']['amber']} MB, plain {result['peak_rss_mb']['plain']} MB")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
