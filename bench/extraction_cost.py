"""What extraction costs on a scripted 1,000-message log: model calls, prompt tokens per stored
fact, wall time per 100 messages.

The model is a scripted OpenAI-compatible upstream on 127.0.0.1 reached through LiteLLM (the
real client path); its answers are derived from the window it is shown, so decisions (new,
seen, supersede, candidate, dropped) happen as they would. Prompt tokens are counted with
LiteLLM's tokenizer on what was actually sent. The baseline, measured in the same run, is a
per-exchange extractor (one call per user+assistant pair, same prompt and store).

    .venv/bin/python bench/extraction_cost.py [--messages 1000] [--embedder hash|local] [--smoke]

The last line printed is one JSON object.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import litellm

from core import Actor, Message, Role, Settings, build_service, scope_for
from core.jobs.runner import arun_job
from core.llm import LiteLLMClient
from tests.jobs.jobs_fake_llm import FakeUpstream

CITIES = ["Lisbon", "Porto", "Berlin", "Shanghai", "Osaka"]
FOODS = ["ramen", "tacos", "dumplings", "paella"]
ZH_CITIES = ["北京", "上海", "成都"]
SMALL_TALK = ["ok thanks", "haha nice", "can you explain that again?", "what about tomorrow's weather?", "好的，谢谢"]


def script_log(n: int, start: datetime) -> list[Message]:
    """A user talking over weeks: standing facts, changes of mind, repeats, hedges and small talk."""
    out = []
    for i in range(n // 2):
        k = i % 10
        if k == 0:
            text = f"I live in {CITIES[(i // 40) % len(CITIES)]} now."
        elif k == 2:
            text = f"My favourite food is {FOODS[(i // 25) % len(FOODS)]}."
        elif k == 4:
            text = f"我住在{ZH_CITIES[(i // 60) % len(ZH_CITIES)]}。"
        elif k == 6:
            text = f"Maybe I'll learn instrument number {i % 7}, not sure."
        elif k == 8:
            text = f"I finished chapter {i} of my novel today."
        else:
            text = SMALL_TALK[i % len(SMALL_TALK)]
        t = start + timedelta(minutes=5 * i)
        out.append(Message(id=f"u{i:05d}", role=Role.user, content=text, session="s", created_at=t))
        out.append(Message(id=f"a{i:05d}", role=Role.assistant, content="Noted. " + text[:30], session="s", created_at=t + timedelta(seconds=30)))
    return out


PATTERNS = [
    (re.compile(r"I live in (\w+) now"), lambda m: ("Lives in " + m[1], "profile.city", "profile", 0.8, 0.95, "en", "fact")),
    (re.compile(r"My favourite food is (\w+)"), lambda m: ("Favourite food is " + m[1], "preference.food", "preference", 0.6, 0.9, "en", "fact")),
    (re.compile(r"我住在(\S+?)。"), lambda m: ("住在" + m[1], "profile.city_zh", "profile", 0.8, 0.95, "zh", "fact")),
    (re.compile(r"Maybe I'll learn instrument number (\d)"), lambda m: (f"Might learn instrument {m[1]}", None, "goal", 0.5, 0.5, "en", "fact")),
    (re.compile(r"I finished chapter (\d+) of my novel"), lambda m: (f"Finished chapter {m[1]} of a novel", None, "project", 0.5, 0.9, "en", "event")),
    (re.compile(r"^(ok thanks|haha nice)"), lambda m: ("Said " + m[1], None, "conversation_style", 0.1, 0.9, "en", "fact")),
]
LINE = re.compile(r"^(m\d+) \[[^\]]+\] user: (.*)$", re.MULTILINE)


def answer(body: dict) -> dict:
    """Facts for the window the model was shown, as a careful model would state them."""
    facts = []
    for ref, text in LINE.findall(body["messages"][-1]["content"]):
        for pat, make in PATTERNS:
            m = pat.search(text)
            if m:
                fact, key, cat, imp, conf, lang, kind = make(m)
                facts.append({"fact": fact, "fact_key": key, "category": cat, "kind": kind, "importance": imp,
                              "confidence": conf, "lang": lang, "evidence": [ref]})
    return {"facts": facts}


async def run(n: int, window: int, embedder: str, upstream: FakeUpstream) -> dict:
    upstream.requests.clear()
    upstream.default = answer
    start = datetime(2026, 1, 1, tzinfo=UTC)
    log = script_log(n, start)
    with tempfile.TemporaryDirectory() as d:
        emb = None
        if embedder == "hash":
            from core.testing import HashEmbedder

            emb = HashEmbedder()
        # The job reads the same Settings a host runs with (a hand-built namespace broke whenever
        # the runner read a new field).
        settings = Settings(data_dir=Path(d), embedding_model=embedder, jobs_window_size=window, timezone="UTC")
        svc = build_service(settings, embedder=emb)
        try:
            scope = scope_for(Actor("bench"))
            svc.store_turns(scope, log)
            llm = LiteLLMClient("openai/fake-model", api_base=upstream.base_url, api_key="sk-bench", timeout=30)
            t0 = time.perf_counter()
            rec = await arun_job("extract", svc, settings, llm=llm, backfill=True)
            wall = time.perf_counter() - t0
            stored = len(svc.list(scope, status=None, limit=500).items)
        finally:
            svc.close()
    prompt_tokens = sum(litellm.token_counter(model="gpt-4o-mini", messages=r["messages"]) for r in upstream.requests)
    written = rec["facts"]["added"] + rec["facts"]["superseded"] + rec["facts"]["candidates"]
    return {
        "window": window,
        "llm_calls": rec["llm_calls"],
        "prompt_tokens": prompt_tokens,
        "facts": rec["facts"],
        "records_stored": stored,
        "prompt_tokens_per_stored_fact": round(prompt_tokens / max(1, written), 1),
        "wall_s_per_100_messages": round(wall / (n / 100), 3),
        "status": rec["status"],
    }


async def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--messages", type=int, default=1000)
    ap.add_argument("--embedder", default="hash", help="hash (fast, default) or local (multilingual-e5)")
    ap.add_argument("--smoke", action="store_true", help="40 messages: checks that the bench runs")
    args = ap.parse_args()
    if args.smoke:
        args.messages = 40
    upstream = FakeUpstream().start()
    try:
        windowed = await run(args.messages, 40, args.embedder, upstream)
        per_exchange = await run(args.messages, 2, args.embedder, upstream)
    finally:
        upstream.stop()
    for name, r in (("windows of 40", windowed), ("per exchange (baseline)", per_exchange)):
        print(f"{name:>24}: {r['llm_calls']:4d} calls, {r['prompt_tokens']:7d} prompt tokens, "
              f"{r['prompt_tokens_per_stored_fact']:7.1f} tokens/stored fact, {r['wall_s_per_100_messages']:.3f} s/100 msgs, facts {r['facts']}")
    result = {
        "bench": "extraction_cost",
        "messages": args.messages,
        "embedder": args.embedder,
        "windowed": windowed,
        "baseline_per_exchange": per_exchange,
        "ratio_llm_calls": round(windowed["llm_calls"] / max(1, per_exchange["llm_calls"]), 3),
        "ratio_prompt_tokens_per_fact": round(windowed["prompt_tokens_per_stored_fact"] / max(1e-9, per_exchange["prompt_tokens_per_stored_fact"]), 3),
        "ratio_wall_time": round(windowed["wall_s_per_100_messages"] / max(1e-9, per_exchange["wall_s_per_100_messages"]), 3),
    }
    print(json.dumps(result, ensure_ascii=False))


if __name__ == "__main__":
    asyncio.run(main())
