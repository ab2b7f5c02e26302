"""MADial-Bench retrieval, Chinese and English: does recall find the memories a dialogue calls for?

Each memory is stored through `MemoryService.remember` (its event text, with its date as the
memory's `valid_from`, as an `event` memory of its user); each test dialogue, up to its first test turn, is the query, asked through
`MemoryService.search` with three configurations in the same run: BM25 only, dense only, Amber's
default. R@k over `relevant-id`, MRR of the first relevant hit, latency p50/p95.

    .venv/bin/python bench/madial_recall.py [--lang zh,en] [--memories FILE --dialogues FILE] [--smoke]

`--memories/--dialogues` take one pair of files (any language); without them both languages from
../shared/eval/madial/ run. The English memory file carries no user ids; they are the same records
as the Chinese file's (same ids), so users come from there when a record has none.
The last line printed is one JSON object with the results.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
os.environ.setdefault("AMBER_RECALL_INDEX_WAIT_S", "3600")  # recall quality: every query waits for the whole turn index
os.environ.setdefault("AMBER_RECALL_READING_WAIT_S", "3600")  # and for the sentence model's reading of the memories
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from core import Actor, Kind, MemoryIn, Settings, build_embedder, build_service, scope_for  # noqa: E402
from injected import Injected  # noqa: E402

HERE = Path(__file__).resolve().parent
DATA = HERE.parent.parent / "shared" / "eval" / "madial"
KS = (5, 10)
METHODS = {
    "bm25": {"weights": {"mem_lexical": 1.0, "msg_lexical": 1.0, "mem_dense": 0.0, "msg_dense": 0.0}},
    "dense": {"weights": {"mem_lexical": 0.0, "msg_lexical": 0.0, "mem_dense": 1.0, "msg_dense": 1.0}},
    "amber": {},
}
# Ablations, run only when named in --methods.
ABLATIONS = {
    "amber_trust": {"lexical_evidence": 0.3},  # lexical arms weighted by their best hit's coverage of the query
}
LINE_RE = re.compile(r'^<([^>]+)>:\s*"?(.*?)"?\s*$', re.S)


def load_memories(path: Path) -> dict[str, dict]:
    out = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            for k, v in json.loads(line).items():
                out[str(k)] = v
    return out


def dialogue_query(d: dict) -> str:
    """The conversation so far: every line before the first test turn, as 'speaker: words'."""
    turn = min(d["test-turn"])
    lines = []
    for raw in d["dialogue"][1:turn]:
        m = LINE_RE.match(raw.strip())
        if m:
            lines.append(f"{m.group(1)}: {m.group(2)}")
    return "\n".join(lines)


def pct(values: list[float], p: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(round(p / 100 * (len(s) - 1))))] if s else 0.0


def run(memories_path: Path, dialogues_path: Path, embedder, users_from: Path | None, methods: dict | None = None) -> dict:
    methods = methods or METHODS
    mems = load_memories(memories_path)
    owner = {k: v.get("user-id") for k, v in load_memories(users_from).items()} if users_from and users_from.exists() else {}
    dialogues = [json.loads(x) for x in dialogues_path.read_text(encoding="utf-8").splitlines() if x.strip()]
    hits = {m: {k: [] for k in KS} for m in methods}
    rr = {m: [] for m in methods}
    lat = {m: [] for m in methods}
    block = Injected()  # what the default recall injects, at the default budget
    with tempfile.TemporaryDirectory(prefix="amber-madial-") as tmp:
        svc = build_service(Settings(data_dir=Path(tmp)), embedder=embedder)
        try:
            per_user = any("user-id" in r for r in mems.values()) or bool(owner)
            ids: dict[str, str] = {}  # memory id -> bench id
            for mid, rec in mems.items():
                uid = rec.get("user-id", owner.get(mid)) if per_user else "all"
                scope = scope_for(Actor(user_id=f"madial-{uid}", via="bench"))
                when = datetime.strptime(rec["time"], "%Y-%m-%d").replace(tzinfo=timezone.utc)
                # the time is the memory's valid_from (rendered as its date), not part of its words
                res = svc.remember(scope, MemoryIn(content=rec["event"], kind=Kind.event, valid_from=when))
                ids[res.memory.id] = mid
            for m, over in methods.items():
                cfg = svc.recall_config(top_k=max(KS), **over)
                for d in dialogues:
                    scope = scope_for(Actor(user_id=f"madial-{d['user-id'] if per_user else 'all'}", via="bench"))
                    query = dialogue_query(d)
                    t = time.perf_counter()
                    got = [ids.get(c.id) for c in svc.search(scope, query, config=cfg)]
                    lat[m].append((time.perf_counter() - t) * 1000)
                    rel = {str(r) for r in d["relevant-id"]}
                    for k in KS:
                        hits[m][k].append(len(rel & set(got[:k])) / len(rel))
                    rr[m].append(next((1 / r for r, g in enumerate(got, 1) if g in rel), 0.0))
            for d in dialogues:
                scope = scope_for(Actor(user_id=f"madial-{d['user-id'] if per_user else 'all'}", via="bench"))
                block.ask(svc, scope, dialogue_query(d), {str(r) for r in d["relevant-id"]}, ids.get)
        finally:
            svc.close()
    return {
        "memories": len(mems),
        "dialogues": len(dialogues),
        "methods": {
            m: {**{f"R@{k}": round(sum(v) / len(v), 4) for k, v in hits[m].items()}, "MRR": round(sum(rr[m]) / len(rr[m]), 4),
                "p50_ms": round(pct(lat[m], 50), 2), "p95_ms": round(pct(lat[m], 95), 2)}
            for m in methods
        },
        "injected": block.summary(),
        "per_dialogue_R@10": {m: [round(x, 4) for x in hits[m][10]] for m in methods},  # file order (recall_folds.py splits it)
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--lang", default="zh,en")
    ap.add_argument("--memories", type=Path)
    ap.add_argument("--dialogues", type=Path)
    ap.add_argument("--methods", default=",".join(METHODS), help=f"any of {', '.join([*METHODS, *ABLATIONS])}")
    ap.add_argument("--data-dir", type=Path, default=DATA, help="the folder of {lang}-memory.jsonl and {lang}-dialogue-dev.jsonl")
    ap.add_argument("--smoke", action="store_true", help="a few made-up memories and dialogues (bench/synthetic.py): checks that the bench runs")
    args = ap.parse_args()
    if args.smoke:
        import synthetic

        args.data_dir = synthetic.madial(Path(tempfile.mkdtemp(prefix="amber-smoke-")) / "madial")
    embedder = build_embedder("local")
    embedder.cache_size = 0  # each method pays its own query embedding (the cache would hide it)
    runs: dict[str, tuple[Path, Path]] = {}
    if args.memories or args.dialogues:
        if not (args.memories and args.dialogues):
            ap.error("--memories and --dialogues go together")
        runs[args.memories.stem] = (args.memories, args.dialogues)
    else:
        for lang in args.lang.split(","):
            runs[lang] = (args.data_dir / f"{lang}-memory.jsonl", args.data_dir / f"{lang}-dialogue-dev.jsonl")
    result: dict = {"bench": "madial_recall", "embedder": embedder.id, "runs": {}}
    for name, (mp, dp) in runs.items():
        chosen = {m: {**METHODS, **ABLATIONS}[m] for m in args.methods.split(",")}
        r = run(mp, dp, embedder, users_from=mp.parent / "zh-memory.jsonl", methods=chosen)
        result["runs"][name] = r
        for m, row in r["methods"].items():
            print(f"{name} {m:>6}: " + "  ".join(f"{k} {v}" for k, v in row.items()), flush=True)
        print(f"{name} injected block (default recall and budget): " + "  ".join(f"{k} {v}" for k, v in r["injected"].items()), flush=True)
    print(json.dumps(result, ensure_ascii=False))


if __name__ == "__main__":
    main()
