"""Claude prompt cache with memory injected: Amber's placement against "memory in the system prompt".

Runs the real LiteLLM proxy twice (with Amber's hook, and with no callback) against the caching
Anthropic fake (tests/fakes/upstreams.py: prefix hashes at marked blocks, 20-block lookback,
1024-token minimum). In the same run:

1. amber: a 10-turn conversation through /v1/messages on the proxy with the hook; the hook recalls,
   appends the patch to the last user message and adds its anchors.
2. system: the same conversation through the proxy without the hook, where the client does what
   most memory layers do: append the recalled block (fetched from the same store's /recall, for the
   same query) to the end of the system prompt, and mark the system prompt and the last message.
3. latency: the same chat completion, interleaved, through both proxies: what the hook adds (p50/p95),
   paced like a person (capture of the previous turn done) and back to back (capture competing).

Reported: the share of input tokens read from the cache over turns 2-10 (goal: >= 90 % against ~0 %)
and the latency figures. The last line printed is one JSON object.

    .venv/bin/python bench/cache_share.py [--embedder local|hash] [--latency-requests 60] [--smoke]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import anthropic  # noqa: E402
import httpx  # noqa: E402

from tests.fakes.upstreams import FakeUpstreams  # noqa: E402
from tests.hook.harness import MASTER_KEY, Proxy, proxy_config, wait_for  # noqa: E402

KEY = "sk-amber-bench"
SYSTEM = "You are Juniper, a patient travel and cooking assistant. " + " ".join(
    f"Guideline {i}: be concrete, prefer the user's known preferences, say when you are unsure, and keep answers short."
    for i in range(120)
)
SEEDS = [
    "I am vegetarian since 2019", "My partner Lea is allergic to peanuts", "I live in Lyon, near Croix-Rousse",
    "I prefer trains to planes for trips under 6 hours", "My daughter Ines is 7 and loves dinosaurs",
    "I am learning Japanese, level N4", "Budget for holidays is about 2000 euros", "I hate very spicy food",
    "We have a dog called Pistou", "I run 10k every Sunday morning", "Favourite cuisine: Sichuan minus the heat, and Lebanese",
    "I work remotely for a bank in Geneva", "Planning a trip to Kyoto in April", "My mother lives in Porto",
    "I own a cast-iron pan and a pressure cooker", "I do not drink alcohol", "Allergic to cats",
    "I prefer aisle seats", "My birthday is 12 March", "I collect vintage maps",
]
TURNS = [
    "Can you suggest a dinner for Friday with friends?",
    "What about a dessert that fits?",
    "We might travel in spring. Where could we go by train?",
    "How long is the train from Lyon to Porto?",
    "What should I pack for Kyoto?",
    "Any vegetarian restaurants near the station in Kyoto?",
    "My daughter wants an activity there. Ideas?",
    "Help me plan a Sunday run route in Lyon.",
    "What gift could I bring my mother?",
    "Summarize what we planned today.",
]


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q * (len(values) - 1))))]


def share(usages: list[dict]) -> float:
    read = sum(u["cache_read_input_tokens"] for u in usages)
    total = sum(u["cache_read_input_tokens"] + u["cache_creation_input_tokens"] + u["input_tokens"] for u in usages)
    return read / total if total else 0.0


def usage_of(r) -> dict:
    u = r.usage
    return {"input_tokens": u.input_tokens, "cache_read_input_tokens": u.cache_read_input_tokens or 0,
            "cache_creation_input_tokens": u.cache_creation_input_tokens or 0}


def seed(proxy: Proxy, user: str) -> None:
    for text in SEEDS:
        r = httpx.post(f"{proxy.base}/memory/v1/memories", headers={"Authorization": f"Bearer {KEY}", "X-Amber-User": user},
                       json={"content": text}, timeout=30)
        r.raise_for_status()


def recall_text(proxy: Proxy, user: str, query: str) -> str:
    r = httpx.post(f"{proxy.base}/memory/v1/recall", headers={"Authorization": f"Bearer {KEY}", "X-Amber-User": user},
                   json={"query": query}, timeout=30)
    r.raise_for_status()
    return r.json()["text"]


def captured(proxy: Proxy, user: str) -> int:
    r = httpx.get(f"{proxy.base}/memory/v1/messages", headers={"Authorization": f"Bearer {KEY}", "X-Amber-User": user}, timeout=30)
    body = r.json()
    return len(body["messages"] if isinstance(body, dict) else body)


def run_amber(proxy: Proxy, up: FakeUpstreams, user: str) -> tuple[list[dict], list[int]]:
    client = anthropic.Anthropic(base_url=proxy.base, api_key=MASTER_KEY, max_retries=0, timeout=60)
    history: list[dict] = []
    usages, patch_chars = [], []
    for n, text in enumerate(TURNS):
        history.append({"role": "user", "content": text})
        r = client.messages.create(model="claude-sonnet", max_tokens=200, system=SYSTEM, messages=history, metadata={"user_id": user})
        history.append({"role": "assistant", "content": r.content[0].text})
        usages.append(usage_of(r))
        sent = up.find("/v1/messages", contains=text)[-1]
        last = [m for m in sent.messages if m["role"] == "user"][-1]["content"]
        patch_chars.append(len(last[-1]["text"]) if isinstance(last, list) and len(last) > 1 else 0)
        wait_for(lambda: captured(proxy, user) >= 2 * (n + 1), timeout=20)  # next turn recalls this one, as in real use
    return usages, patch_chars


def run_system(plain: Proxy, store: Proxy, user: str) -> list[dict]:
    client = anthropic.Anthropic(base_url=plain.base, api_key=MASTER_KEY, max_retries=0, timeout=60)
    mark = {"type": "ephemeral"}
    history: list[dict] = []
    usages = []
    for text in TURNS:
        memory = recall_text(store, user, text)
        system = [{"type": "text", "text": SYSTEM + "\n\n" + memory, "cache_control": mark}]
        history.append({"role": "user", "content": text})
        sent = history[:-1] + [{"role": "user", "content": [{"type": "text", "text": text, "cache_control": mark}]}]
        r = client.messages.create(model="claude-sonnet", max_tokens=200, system=system, messages=sent)
        history.append({"role": "assistant", "content": r.content[0].text})
        usages.append(usage_of(r))
    return usages


def latency(hooked: Proxy, plain: Proxy, n: int, pace_s: float) -> dict:
    """`pace_s` between rounds lets the previous turn's capture finish, as between a person's messages;
    with 0 the next recall competes with that capture for the CPU."""
    body = {"model": "gpt-4o-mini", "user": f"bench-latency-{pace_s}", "messages": [{"role": "user", "content": "What should I cook tonight?"}]}
    times: dict[str, list[float]] = {"hook": [], "plain": []}
    with httpx.Client(timeout=60, headers={"Authorization": f"Bearer {MASTER_KEY}"}) as http:
        for i in range(n + 5):
            for name, p in (("hook", hooked), ("plain", plain)) if i % 2 == 0 else (("plain", plain), ("hook", hooked)):
                t = time.perf_counter()
                http.post(f"{p.base}/chat/completions", json=body).raise_for_status()
                if i >= 5:  # warm-up excluded
                    times[name].append((time.perf_counter() - t) * 1000)
            time.sleep(pace_s)
    out = {f"{k}_p{q}_ms": round(pct(v, q / 100), 1) for k, v in times.items() for q in (50, 95)}
    out["added_p50_ms"] = round(out["hook_p50_ms"] - out["plain_p50_ms"], 1)
    out["added_p95_ms"] = round(out["hook_p95_ms"] - out["plain_p95_ms"], 1)
    out["requests_each"] = n
    out["pace_s"] = pace_s
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--embedder", default="local", choices=["local", "hash"])
    ap.add_argument("--latency-requests", type=int, default=60)
    ap.add_argument("--pace-s", type=float, default=0.5, help="pause between latency rounds (a person's typing time)")
    ap.add_argument("--smoke", action="store_true", help="hash embedder, 3 latency requests, no pause: checks that the bench runs")
    args = ap.parse_args()
    if args.smoke:
        args.embedder, args.latency_requests, args.pace_s = "hash", 3, 0.0

    work = Path(tempfile.mkdtemp(prefix="amber-cache-bench-"))
    amber = {"jobs_enabled": False, "recall_timeout_s": 5, "api_keys": [{"name": "bench", "secret": KEY, "trusted_client": True}]}
    with FakeUpstreams(min_cache_tokens=1024, default_reply="Here is a short, concrete answer based on what you told me.") as up:
        for sub in ("hook", "plain"):
            (work / sub).mkdir()
        hooked = Proxy(proxy_config(up, amber=amber), work / "hook", env={"AMBER_EMBEDDING_MODEL": args.embedder})
        plain = Proxy(proxy_config(up, callback=False), work / "plain")
        # a loaded 2-core machine can take over the kit's 120 s to start a proxy
        threads = [threading.Thread(target=hooked.start, kwargs={"timeout": 600}),
                   threading.Thread(target=plain.start, kwargs={"wait_memory": False, "timeout": 600})]
        t0 = time.perf_counter()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        try:
            if hooked.proc is None or hooked.proc.poll() is not None or plain.proc.poll() is not None:
                raise SystemExit("a proxy did not start; see " + str(work))
            print(f"proxies up in {time.perf_counter() - t0:.1f}s ({args.embedder} embedder)", file=sys.stderr)
            seed(hooked, "bench-amber")
            seed(hooked, "bench-system")
            amber_usage, patch_chars = run_amber(hooked, up, "bench-amber")
            system_usage = run_system(plain, hooked, "bench-system")
            lat = latency(hooked, plain, args.latency_requests, args.pace_s)
            lat_busy = latency(hooked, plain, args.latency_requests, 0.0)
        finally:
            hooked.stop()
            plain.stop()

    result = {
        "bench": "cache_share",
        "turns": len(TURNS),
        "embedder": args.embedder,
        "amber_cache_read_share_t2_10": round(share(amber_usage[1:]), 4),
        "system_prompt_cache_read_share_t2_10": round(share(system_usage[1:]), 4),
        "amber_patch_chars_per_turn": patch_chars,
        "amber_usage": amber_usage,
        "system_usage": system_usage,
        "latency": lat,
        "latency_back_to_back": lat_busy,
    }
    for name, usages in (("amber", amber_usage), ("system-prompt", system_usage)):
        print(f"{name:>14}: " + " ".join(f"t{i + 1}:{u['cache_read_input_tokens']}/{u['cache_read_input_tokens'] + u['cache_creation_input_tokens'] + u['input_tokens']}"
                                           for i, u in enumerate(usages)))
    print(f"cache-read share, turns 2-10: amber {result['amber_cache_read_share_t2_10']:.1%}  "
          f"system-prompt {result['system_prompt_cache_read_share_t2_10']:.1%}")
    for label, lt in (("paced", lat), ("back-to-back", lat_busy)):
        print(f"hook latency ({label}): p50 +{lt['added_p50_ms']} ms, p95 +{lt['added_p95_ms']} ms "
              f"(with hook {lt['hook_p50_ms']}/{lt['hook_p95_ms']} ms, without {lt['plain_p50_ms']}/{lt['plain_p95_ms']} ms)")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
