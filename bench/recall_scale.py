"""Recall latency at scale: one user with 1k / 10k / (100k) memories.

For each size, a fresh store is filled with realistic synthetic memories (facts, events,
preferences; about a fifth in Chinese) through `MemoryService.import_`, the lexical index is
warmed, and then, in the same run and on the same queries:
- `amber`: `MemoryService.recall` end to end (query embedding, dense + lexical arms, fusion,
  boosts, dedup, budget, render);
- `bare`: what a minimal vector memory does: embed the query, one Chroma top-k query on the
  same collection (no filter, no rendering);
- `chroma_only`: the Chroma query alone, for reference;
- `floor_alone`: `recall` without weighing records against their background (RecallConfig
  floor_margin and floor_distinct None), so what that costs (a store read of the vectors of records
  recall has not weighed before, kept by the index after) is `margin_cost_p50`;
- `no_sentence`: `recall` without the sentence arm (`mem_sentence` 0), so what that arm costs a
  recall is `sentence_cost_p50` / `_p95`. Its vectors are read before the queries, as a warm start
  does (`sentence_fill_s`).
Reported: p50/p95 in ms and the ratio amber/bare at p50 and p95.

    .venv/bin/python bench/recall_scale.py [--sizes 1000,10000] [--queries 200] [--turns] [--smoke]

`--turns` fills the store with captured turns (the same texts, said by the user in sessions of ten)
instead of memories.

100k is accepted (`--sizes 1000,10000,100000`) but embedding 100k texts takes ~30 min here.
The last line printed is one JSON object with the results.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from core import Actor, Message, Settings, build_embedder, build_service, scope_for  # noqa: E402
from core.embed import sentence  # noqa: E402

T0 = datetime(2025, 1, 1, tzinfo=timezone.utc)

PEOPLE = "Ana Ben Chloe Dario Elif Farah Goran Hana Ivo Jia Kofi Lena Marek Nia Omar Priya Quinn Rosa Sami Tomas Uma Vera Wen Xavi Yuki Zoe".split()
PLACES = "Lisbon Porto Kyoto Osaka Berlin Hamburg Oslo Bergen Lima Cusco Austin Denver Nairobi Accra Hanoi Hue Seoul Busan Quito Cairo Tunis Zagreb Split Riga Tartu Graz Lyon Nantes Turin Bari".split()
FOODS = "ramen pho tacos paella dumplings curry risotto falafel sushi bibimbap borscht ceviche pierogi goulash tagine laksa shakshuka gnocchi".split()
HOBBIES = "bouldering pottery birdwatching sailing chess baking cycling woodworking knitting photography salsa kayaking gardening calligraphy climbing origami".split()
THINGS = "bike laptop guitar camera kettle tent keyboard scooter piano telescope drone sewing-machine espresso-maker".split()
PROJECTS = "invoice-parser garden-planner recipe-bot budget-sheet photo-archive thesis podcast website home-lab family-tree".split()
ZH_PEOPLE = "小王 小李 阿明 晓雨 志强 美玲 建国 丽华 子涵 浩然".split()
ZH_PLACES = "北京 上海 成都 杭州 西安 厦门 昆明 青岛 大连 苏州".split()
ZH_THINGS = "火锅 拉面 饺子 书法 围棋 登山 摄影 钢琴 瑜伽 骑行".split()

EN = [
    "{p} moved to {pl} in {y} and works at a small {h} studio there",
    "I prefer {f} over {f2}, especially when it is cold outside",
    "My sister {p} is allergic to peanuts; her kids love {f}",
    "Bought a second-hand {t} in {pl} for {n} euros",
    "Started {h} lessons every {d}; the teacher is called {p}",
    "The {pr} project deadline moved to {y}-{m:02d}-{dd:02d}",
    "{p} recommended a {f} place near the station in {pl}",
    "Trip to {pl} with {p} planned for {y}: book the train early",
    "My {t} broke again; warranty ends in {y}",
    "I am learning {h} to relax after work; goal: {n} sessions this year",
    "Met {p} at the {h} club; we talked about moving to {pl}",
    "Dentist appointment every {d} morning; bring the insurance card",
]
ZH = [
    "{zp}上个月搬到了{zpl}，在一家公司做设计",
    "我最喜欢吃{zt}，尤其是冬天",
    "每周{wd}和{zp}一起去{zt}",
    "计划{y}年去{zpl}旅行，要提前订票",
    "{zp}推荐了{zpl}的一家{zt}店",
]
QUERIES_EN = [
    "where does {p} live now?", "what food do I like when it's cold", "any plans to visit {pl}?", "when is the {pr} deadline",
    "what did I buy in {pl}", "who teaches my {h} lessons", "is my sister allergic to anything", "what happened to my {t}",
]
QUERIES_ZH = ["{zp}现在住在哪里？", "我喜欢吃什么", "我什么时候去{zpl}旅行", "谁推荐了{zt}店"]


def fill(tpl: str, rnd: random.Random) -> str:
    return tpl.format(
        p=rnd.choice(PEOPLE), pl=rnd.choice(PLACES), f=rnd.choice(FOODS), f2=rnd.choice(FOODS), h=rnd.choice(HOBBIES),
        t=rnd.choice(THINGS), pr=rnd.choice(PROJECTS), y=rnd.randint(2019, 2027), m=rnd.randint(1, 12), dd=rnd.randint(1, 28),
        n=rnd.randint(5, 900), d=rnd.choice(["Monday", "Tuesday", "Friday", "Sunday"]), zp=rnd.choice(ZH_PEOPLE),
        zpl=rnd.choice(ZH_PLACES), zt=rnd.choice(ZH_THINGS), wd=rnd.choice("一二三四五六日"),
    )


def memories(n: int, rnd: random.Random) -> list[dict]:
    out, seen = [], set()
    while len(out) < n:
        text = fill(rnd.choice(ZH if rnd.random() < 0.2 else EN), rnd)
        if text in seen:
            text = f"{text} (note {len(out)})"
        seen.add(text)
        at = (T0 + timedelta(minutes=37 * len(out))).isoformat()
        out.append({"type": "memory", "id": f"s{len(out)}", "content": text, "user_id": "scale", "kind": "fact",
                    "importance": round(rnd.uniform(0.2, 0.9), 2), "created_at": at, "updated_at": at, "valid_from": at})
    return out


def pct(values: list[float], p: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(round(p / 100 * (len(s) - 1))))] if s else 0.0


def stats(ms: list[float]) -> dict:
    return {"p50_ms": round(pct(ms, 50), 2), "p95_ms": round(pct(ms, 95), 2)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", default="1000,10000")
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--turns", action="store_true", help="captured turns instead of memories")
    ap.add_argument("--smoke", action="store_true", help="60 memories, 10 queries: checks that the bench runs")
    args = ap.parse_args()
    if args.smoke:
        args.sizes, args.queries = "60", 10
    rnd = random.Random(7)
    embedder = build_embedder("local")
    embedder.cache_size = 0  # every query pays its embedding, in both arms: the cache would hide it
    sentence.shared().recent.size = 0  # and its reading by the sentence model
    queries = [fill(rnd.choice(QUERIES_ZH if rnd.random() < 0.2 else QUERIES_EN), rnd) for _ in range(args.queries)]
    result: dict = {"bench": "recall_scale", "records": "turns" if args.turns else "memories", "embedder": embedder.id, "cores": os.cpu_count(), "queries": len(queries), "sizes": {}}
    for size in [int(s) for s in args.sizes.split(",")]:
        with tempfile.TemporaryDirectory(prefix="amber-scale-") as tmp:
            svc = build_service(Settings(data_dir=Path(tmp)), embedder=embedder)
            try:
                user = scope_for(Actor(user_id="scale", via="bench"))
                t = time.perf_counter()
                if args.turns:
                    texts = [m["content"] for m in memories(size, rnd)]
                    msgs = [Message(id=f"t{k}", role="user", content=text, session=f"s{k // 10}", created_at=T0 + timedelta(minutes=37 * k))
                            for k, text in enumerate(texts)]
                    for start in range(0, len(msgs), 500):
                        svc.store_turns(user, msgs[start : start + 500])
                else:
                    svc.import_(user, memories(size, rnd))
                fill_s = time.perf_counter() - t
                col = svc.store.client.get_collection(_col(user, args.turns))  # the raw Chroma collection
                cfg, alone = svc.recall_config(), svc.recall_config(floor_margin=None, floor_distinct=None)
                plain = svc.recall_config(weights={**cfg.weights, "mem_sentence": 0.0})
                t = time.perf_counter()
                if not args.turns:  # as a warm start does: the index, then its sentence vectors
                    svc.recaller.rebuild("memories", _col(user, False))
                sentence_fill_s = time.perf_counter() - t
                for q in queries[:5]:  # warm: lexical index built, caches hot
                    svc.recall(user, q, config=cfg)
                    col.query(query_embeddings=[embedder.embed_query(q)], n_results=cfg.top_k)
                rebuilds = svc.recaller.rebuilds
                amber, bare, chroma_only, floor_alone, no_sentence = [], [], [], [], []
                for i, q in enumerate(queries):
                    # interleaved, rotating which goes first, so all see the same machine state;
                    # recall's access bookkeeping runs in the background and is waited for, untimed
                    for which in (0, 1, 2, 3)[i % 4:] + (0, 1, 2, 3)[: i % 4]:
                        if which:
                            t = time.perf_counter()
                            svc.recall(user, q, config=(cfg, alone, plain)[which - 1])
                            (amber, floor_alone, no_sentence)[which - 1].append((time.perf_counter() - t) * 1000)
                            svc.flush()
                        else:
                            t = time.perf_counter()
                            vec = embedder.embed_query(q)
                            t2 = time.perf_counter()
                            col.query(query_embeddings=[vec], n_results=cfg.top_k)
                            end = time.perf_counter()
                            bare.append((end - t) * 1000)
                            chroma_only.append((end - t2) * 1000)
                svc.flush()
                row = {"amber": stats(amber), "bare": stats(bare), "chroma_only": stats(chroma_only), "floor_alone": stats(floor_alone),
                       "no_sentence": stats(no_sentence), "margin_cost_p50": round(pct(amber, 50) / pct(floor_alone, 50), 2),
                       "sentence_cost_p50": round(pct(amber, 50) / pct(no_sentence, 50), 2),
                       "sentence_cost_p95": round(pct(amber, 95) / pct(no_sentence, 95), 2), "sentence_fill_s": round(sentence_fill_s, 2),
                       "ratio_p50": round(pct(amber, 50) / pct(bare, 50), 2), "ratio_p95": round(pct(amber, 95) / pct(bare, 95), 2),
                       "fill_s": round(fill_s, 1), "index_rebuilds_during_queries": svc.recaller.rebuilds - rebuilds}
                result["sizes"][str(size)] = row
                print(f"{size:>7} {result['records']}: amber {row['amber']}  bare {row['bare']}  chroma {row['chroma_only']}  "
                      f"ratio p50 {row['ratio_p50']} p95 {row['ratio_p95']}  floor alone {row['floor_alone']}  "
                      f"without the sentence arm {row['no_sentence']} (read in {row['sentence_fill_s']} s)", flush=True)
            finally:
                svc.close()
    print(json.dumps(result))


def _col(user, turns: bool) -> str:
    from core.scope import memory_collection, message_collection

    return message_collection(user) if turns else memory_collection(user)


if __name__ == "__main__":
    main()
