"""Recall constants chosen on one fold, reported on the other: MADial split halves, LoCoMo dev.

Each dataset is stored once per tokenizer, through the product's own path (`MemoryService.remember`
for MADial memories, `store_turns` for LoCoMo turns, as the other recall benches do): `old` is the
tokenizer before 2026-12-03 (a Latin run swallowed the CJK after it), `new` is today's. Passage
vectors are shared between the two (same texts, same embedder), so the second store costs no
embedding. Then every configuration of the grid is asked every question, in the same run.

MADial, per language: the dialogues are shuffled with a fixed seed and cut in two halves; the
grid's configuration with the best R@10 on the tuning half (ties: the first in grid order) is
reported on the held-out half, next to dense only, the default before (old tokenizer, old
constants) and today's default, on the same half. The halves are printed (dialogue line numbers in the file, 0-based).
Beside it, `cross_validated`: the same choice repeated over `--cv-splits` random halvings, each half
held out once (repeated two-fold cross-validation), averaged over every held-out half.

    .venv/bin/python bench/recall_folds.py [--seed 32] [--locomo] [--locomo-limit N] [--smoke]

The last line printed is one JSON object with the results.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import re
import sys
import tempfile
import unicodedata
from pathlib import Path

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
os.environ.setdefault("AMBER_RECALL_INDEX_WAIT_S", "3600")  # recall quality: every query waits for the whole turn index
os.environ.setdefault("AMBER_RECALL_READING_WAIT_S", "3600")  # and for the sentence model's reading of the memories
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from core import Actor, Kind, MemoryIn, Settings, build_embedder, build_service, scope_for  # noqa: E402
from core.recall import lexical  # noqa: E402

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import locomo_recall  # noqa: E402
import madial_recall  # noqa: E402

DENSE = {"weights": {"mem_lexical": 0.0, "msg_lexical": 0.0, "mem_dense": 1.0, "msg_dense": 1.0}, "neighbours": 0.0}
# The grid for the CJK lexical-trust gate: `lexical_evidence` 0 turns the gate off (full trust);
# `mem_lexical` is the memory lexical arm's weight (0.5 the default).
# `mem_sentence` is the sentence arm's weight (core/recall/sentence_arm.py; 0 leaves it off).
GRID = [
    {"lexical_evidence": e, "weights": {"mem_dense": 1.0, "mem_lexical": w, "msg_dense": 0.8, "msg_lexical": 1.0, "mem_sentence": u}}
    for u in (0.0, 0.25, 0.5, 1.0)
    for w in (0.5, 1.0)
    for e in (0.0, 0.05, 0.1, 0.2, 0.3)
]
# The default before 2026-12-03 (run with the old tokenizer): the gate at 0.30, memory words at 0.5.
BEFORE = {"lexical_evidence": 0.3, "weights": {"mem_dense": 1.0, "mem_lexical": 0.5, "msg_dense": 0.8, "msg_lexical": 1.0}}

_OLD_CJK = r"\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"


def _old_fold(text: str) -> str:
    text = unicodedata.normalize("NFKD", text.casefold())
    return "".join(ch for ch in text if not unicodedata.combining(ch))


@contextlib.contextmanager
def tokenizer(which: str):
    """The lexical tokenizer in force while a store is built and searched."""
    saved = lexical._TOKEN_RE, lexical._CJK_RE, lexical.fold
    if which == "old":
        lexical._TOKEN_RE = re.compile(rf"[{_OLD_CJK}]+|[^\W_]+")
        lexical._CJK_RE = re.compile(rf"^[{_OLD_CJK}]+$")
        lexical.fold = _old_fold
    try:
        yield
    finally:
        lexical._TOKEN_RE, lexical._CJK_RE, lexical.fold = saved


def shared_passages(embedder) -> None:
    """Passage vectors kept by text, so the second store of the same data embeds nothing."""
    for name in ("embed_documents", "embed_background"):
        orig, cache = getattr(embedder, name), {}

        def cached(texts, orig=orig, cache=cache):
            missing = [t for t in dict.fromkeys(texts) if t not in cache]
            if missing:
                cache.update(zip(missing, orig(missing)))
            return [cache[t] for t in texts]

        setattr(embedder, name, cached)


def name_of(cfg: dict) -> str:
    if cfg is DENSE:
        return "dense"
    return f"ev{cfg['lexical_evidence']}_ml{cfg['weights']['mem_lexical']}_ms{cfg['weights'].get('mem_sentence', 0.0)}"


def madial(lang: str, embedder, tok: str, configs: dict[str, dict]) -> dict[str, list[tuple[float, float]]]:
    """Per configuration, per dialogue (file order): (R@10, reciprocal rank)."""
    mems = madial_recall.load_memories(madial_recall.DATA / f"{lang}-memory.jsonl")
    owner = {k: v.get("user-id") for k, v in madial_recall.load_memories(madial_recall.DATA / "zh-memory.jsonl").items()}
    dialogues = [json.loads(x) for x in (madial_recall.DATA / f"{lang}-dialogue-dev.jsonl").read_text(encoding="utf-8").splitlines() if x.strip()]
    out: dict[str, list[tuple[float, float]]] = {}
    from datetime import datetime, timezone

    with tokenizer(tok), tempfile.TemporaryDirectory(prefix="amber-folds-") as tmp:
        svc = build_service(Settings(data_dir=Path(tmp)), embedder=embedder)
        try:
            ids: dict[str, str] = {}
            for mid, rec in mems.items():
                scope = scope_for(Actor(user_id=f"madial-{rec.get('user-id', owner.get(mid))}", via="bench"))
                when = datetime.strptime(rec["time"], "%Y-%m-%d").replace(tzinfo=timezone.utc)
                ids[svc.remember(scope, MemoryIn(content=rec["event"], kind=Kind.event, valid_from=when)).memory.id] = mid
            for name, over in configs.items():
                cfg = svc.recall_config(top_k=10, **over)
                rows = []
                for d in dialogues:
                    scope = scope_for(Actor(user_id=f"madial-{d['user-id']}", via="bench"))
                    got = [ids.get(c.id) for c in svc.search(scope, madial_recall.dialogue_query(d), config=cfg)]
                    rel = {str(r) for r in d["relevant-id"]}
                    rows.append((len(rel & set(got[:10])) / len(rel), next((1 / r for r, g in enumerate(got, 1) if g in rel), 0.0)))
                out[name] = rows
        finally:
            svc.close()
    return out


def locomo(embedder, tok: str, configs: dict[str, dict], limit: int) -> dict[str, list[float]]:
    samples = json.loads(locomo_recall.DEFAULT_DATA.read_text())[: limit or None]
    out: dict[str, list[float]] = {n: [] for n in configs}
    with tokenizer(tok):
        for n, sample in enumerate(samples):
            with tempfile.TemporaryDirectory(prefix="amber-folds-") as tmp:
                svc = build_service(Settings(data_dir=Path(tmp)), embedder=embedder)
                try:
                    scope = scope_for(Actor(user_id=f"locomo-{n}", via="bench"))
                    locomo_recall.ingest_all(svc, scope, locomo_recall.conversation_messages(sample["conversation"]))
                    for name, over in configs.items():
                        cfg = svc.recall_config(top_k=10, **over)
                        for q in locomo_recall.questions_of(sample):
                            got = [c.id for c in svc.search(scope, q["question"], config=cfg)]
                            out[name].append(len(set(q["evidence"]) & set(got)) / len(q["evidence"]))
                finally:
                    svc.close()
            print(f"locomo {tok}: conversation {n + 1}/{len(samples)}", flush=True)
    return out


def mean(xs) -> float:
    xs = list(xs)
    return round(sum(xs) / len(xs), 4) if xs else 0.0


def cross_validated(rows: dict[str, list[tuple[float, float]]], grid: dict, splits: int) -> dict:
    """Repeated two-fold cross-validation: `splits` random halvings (seeds 0..splits-1), each half
    held out once, the grid's best on the other half scored on it. Every dialogue is held out as
    often as every other, so the mean moves less with which 40 dialogues one split happens to hold
    out than the single split above (a relevant memory crossing the 10th place is ±0.17-0.5 of one
    dialogue's R@10)."""
    n = len(rows["dense"])
    at = lambda name, part: mean(rows[name][i][0] for i in part)  # noqa: E731
    chosen, dense, default, margin = [], [], [], []
    for seed in range(splits):
        order = list(range(n))
        random.Random(seed).shuffle(order)
        a, b = order[: n // 2], order[n // 2 :]
        for tune, held in ((a, b), (b, a)):
            best = max(grid, key=lambda k: at(k, tune))
            chosen.append(at(best, held))
            dense.append(at("dense", held))
            default.append(at("default", held))
            margin.append(chosen[-1] - dense[-1])
    r = lambda xs: round(float(sum(xs) / len(xs)), 4)  # noqa: E731
    return {"folds": len(chosen), "chosen": r(chosen), "default": r(default), "dense": r(dense),
            "chosen − dense": r(margin), "worst half: chosen − dense": round(min(margin), 4),
            "worst half: chosen": round(min(chosen), 4)}


def cross_validated_jointly(rows: dict[str, dict[str, list[tuple[float, float]]]], grid: dict, splits: int) -> dict:
    """`cross_validated` with one configuration for every language: the grid's best by the mean of
    the languages' tuning halves (each language halved with the same seeds), scored on each
    language's held-out half. What ships is one configuration, so this is the figure to read."""
    langs = list(rows)
    at = lambda lang, name, part: sum(rows[lang][name][i][0] for i in part) / len(part)  # noqa: E731
    chosen: dict[str, list[float]] = {lang: [] for lang in langs}
    picks: dict[str, int] = {}
    for seed in range(splits):
        halves = {}
        for lang in langs:
            order = list(range(len(rows[lang]["dense"])))
            random.Random(seed).shuffle(order)
            halves[lang] = (order[: len(order) // 2], order[len(order) // 2 :])
        for side in (0, 1):
            best = max(grid, key=lambda k: sum(at(lang, k, halves[lang][side]) for lang in langs))
            picks[best] = picks.get(best, 0) + 1
            for lang in langs:
                chosen[lang].append(at(lang, best, halves[lang][1 - side]))
    return {"folds": 2 * splits, **{lang: round(sum(v) / len(v), 4) for lang, v in chosen.items()},
            "worst half": {lang: round(min(v), 4) for lang, v in chosen.items()},
            "picked": dict(sorted(picks.items(), key=lambda kv: -kv[1]))}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, default=32)
    ap.add_argument("--lang", default="zh,en")
    ap.add_argument("--locomo", action="store_true", help="also LoCoMo dev: dense, default and the chosen configuration")
    ap.add_argument("--locomo-limit", type=int, default=0)
    ap.add_argument("--cv-splits", type=int, default=20, help="random halvings for the repeated two-fold figures")
    ap.add_argument("--smoke", action="store_true", help="made-up MADial and LoCoMo files (bench/synthetic.py), LoCoMo included: checks that the bench runs")
    args = ap.parse_args()
    if args.smoke:
        import synthetic

        tmp = Path(tempfile.mkdtemp(prefix="amber-smoke-"))
        madial_recall.DATA = synthetic.madial(tmp / "madial")
        locomo_recall.DEFAULT_DATA = synthetic.locomo(tmp / "locomo.json", conversations=1)
        args.locomo = True
    embedder = build_embedder("local")
    shared_passages(embedder)
    grid = {name_of(c): c for c in GRID}
    default = {}
    result: dict = {"bench": "recall_folds", "seed": args.seed, "madial": {}}
    chosen_by_lang = {}
    rows_by_lang = {}
    for lang in args.lang.split(","):
        old = madial(lang, embedder, "old", {"dense": DENSE, "before": BEFORE})
        new = madial(lang, embedder, "new", {"dense": DENSE, "default": default, **grid})
        rows_by_lang[lang] = new
        n = len(new["dense"])
        order = list(range(n))
        random.Random(args.seed).shuffle(order)
        tune, held = sorted(order[: n // 2]), sorted(order[n // 2 :])
        r10 = lambda rows, part: mean(rows[i][0] for i in part)  # noqa: E731
        mrr = lambda rows, part: mean(rows[i][1] for i in part)  # noqa: E731
        fit = {name: r10(new[name], tune) for name in grid}
        best = max(grid, key=lambda k: fit[k])  # max keeps the first of equals: grid order
        chosen_by_lang[lang] = best
        row = {
            "tune_half": tune, "held_out_half": held, "tune_R@10": fit, "chosen": best,
            "held_out": {
                "dense (old tokenizer)": r10(old["dense"], held), "before (old tokenizer)": r10(old["before"], held),
                "dense": r10(new["dense"], held), "default": r10(new["default"], held),
                "chosen": r10(new[best], held), "chosen MRR": mrr(new[best], held), "dense MRR": mrr(new["dense"], held),
                **{f"grid {k}": r10(new[k], held) for k in grid},
            },
            "tune": {"dense": r10(new["dense"], tune), "before (old tokenizer)": r10(old["before"], tune), "default": r10(new["default"], tune), "chosen": fit[best]},
            "whole dev": {k: mean(r[0] for r in v) for k, v in {**{f"old {k}": v for k, v in old.items()}, **new}.items()},
        }
        row["cross_validated"] = cross_validated(new, grid, args.cv_splits)
        without = {k: c for k, c in grid.items() if not c["weights"].get("mem_sentence")}
        row["cross_validated_without_sentence_arm"] = cross_validated(new, without, args.cv_splits)
        result["madial"][lang] = row
        print(f"madial {lang}: tune {tune}\n  held out {held}", flush=True)
        print(f"  chosen on tune half: {best} (tune R@10 {fit[best]})", flush=True)
        for k, v in row["held_out"].items():
            if not k.startswith("grid"):
                print(f"  held-out {k}: {v}", flush=True)
        cv = row["cross_validated"]
        print(f"  {cv['folds']} held-out halves ({args.cv_splits} random splits, each half held out once): chosen "
              f"{cv['chosen']}, default {cv['default']}, dense {cv['dense']}; chosen − dense {cv['chosen − dense']} "
              f"(worst half {cv['worst half: chosen − dense']})", flush=True)
        cv = row["cross_validated_without_sentence_arm"]
        print(f"  the same, the sentence arm off: chosen {cv['chosen']}; chosen − dense {cv['chosen − dense']} "
              f"(worst half {cv['worst half: chosen − dense']})", flush=True)
    if len(rows_by_lang) > 1:
        without = {k: c for k, c in grid.items() if not c["weights"].get("mem_sentence")}
        result["jointly"] = {"with the sentence arm": cross_validated_jointly(rows_by_lang, grid, args.cv_splits),
                             "without": cross_validated_jointly(rows_by_lang, without, args.cv_splits)}
        for k, v in result["jointly"].items():
            print(f"one configuration for every language, {k}: " + ", ".join(f"{lang} {v[lang]}" for lang in rows_by_lang)
                  + f" (picked: {list(v['picked'].items())[:3]})", flush=True)
    if args.locomo:
        pick = chosen_by_lang.get("zh")
        configs = {"dense": DENSE, "default": default, **({"chosen": grid[pick]} if pick else {})}
        old = locomo(embedder, "old", {"dense": DENSE, "before": BEFORE}, args.locomo_limit)
        new = locomo(embedder, "new", configs, args.locomo_limit)
        result["locomo"] = {**{f"old {k}": mean(v) for k, v in old.items()}, **{k: mean(v) for k, v in new.items()}}
        print(f"locomo dev R@10: {result['locomo']}", flush=True)
    print(json.dumps(result, ensure_ascii=False))


if __name__ == "__main__":
    main()
