"""LoCoMo, leave one conversation out: fusion constants chosen on four conversations, reported on the fifth.

Each LoCoMo dev conversation is stored once (every turn captured, as `locomo_recall.py` does) and
every question asked under each configuration of the grid (`rrf_k` x the raw turns' dense weight
`msg_dense`). For each conversation in turn, the configuration with the best R@10 over the other
four conversations' questions (ties: the first in grid order) is applied to it; the held-out figure
is R@10 over all questions, each scored under the configuration its own fold chose. Today's
default is scored beside it on the same questions.

    .venv/bin/python bench/locomo_folds.py [--limit N] [--vectors /tmp/amber-vectors.pkl]

`--vectors` shares bench/abstention.py's vector cache (a second run embeds nothing). The last line
printed is one JSON object.
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import sys
import tempfile
from pathlib import Path

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
os.environ.setdefault("AMBER_RECALL_INDEX_WAIT_S", "3600")  # recall quality: every query waits for the whole turn index
os.environ.setdefault("AMBER_RECALL_READING_WAIT_S", "3600")  # and for the sentence model's reading of the turns
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from core import build_embedder  # noqa: E402
import locomo_recall  # noqa: E402
from abstention import cached_vectors  # noqa: E402

GRID = [{"rrf_k": k, "weights": {"mem_dense": 1.0, "mem_lexical": 1.0, "msg_dense": w, "msg_lexical": 1.0}}
        for k in (5, 10, 20, 60) for w in (0.6, 0.8, 1.0)]


def name_of(cfg: dict) -> str:
    return "default" if not cfg else f"k{cfg['rrf_k']}_md{cfg['weights']['msg_dense']}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, default=locomo_recall.DEFAULT_DATA)
    ap.add_argument("--limit", type=int, default=0)
    ap.add_argument("--vectors", type=Path, default=None)
    ap.add_argument("--smoke", action="store_true", help="two made-up conversations (bench/synthetic.py): checks that the bench runs")
    args = ap.parse_args()
    if args.smoke:
        import synthetic

        args.data = synthetic.locomo(Path(tempfile.mkdtemp(prefix="amber-smoke-")) / "locomo.json", conversations=2)
    samples = json.loads(args.data.read_text())[: args.limit or None]
    embedder = build_embedder("local")
    store = cached_vectors(embedder, args.vectors)
    configs = {name_of(c): c for c in [{}, *GRID]}
    scores: dict[str, list[list[float]]] = {n: [] for n in configs}  # per config, per conversation, per question
    try:
        for n, sample in enumerate(samples):
            with locomo_recall.stored(sample, embedder, f"locomo-{n}") as (svc, scope, _):
                questions = locomo_recall.questions_of(sample)
                for name, over in configs.items():
                    cfg = svc.recall_config(top_k=10, **over)
                    row = []
                    for q in questions:
                        got = {c.id for c in svc.search(scope, q["question"], config=cfg)}
                        row.append(len(set(q["evidence"]) & got) / len(q["evidence"]))
                    scores[name].append(row)
            print(f"conversation {n + 1}/{len(samples)}", flush=True)
    finally:
        if args.vectors:
            args.vectors.write_bytes(pickle.dumps(store))

    def r10(name: str, convs) -> float:
        xs = [x for c in convs for x in scores[name][c]]
        return sum(xs) / len(xs)

    convs = range(len(samples))
    grid = [name_of(c) for c in GRID]
    held, folds = [], []
    for c in convs:
        others = [o for o in convs if o != c]
        best = max(grid, key=lambda g: r10(g, others))
        held += scores[best][c]
        folds.append({"held_out": c, "chosen": best, "tune_R@10": round(r10(best, others), 4), "held_out_R@10": round(r10(best, [c]), 4),
                      "default_R@10": round(r10("default", [c]), 4)})
        print(f"held out conversation {c}: chose {best}, R@10 {folds[-1]['held_out_R@10']} (default {folds[-1]['default_R@10']})", flush=True)
    result = {"bench": "locomo_folds", "conversations": len(samples), "folds": folds,
              "held_out_R@10": round(sum(held) / len(held), 4), "default_R@10": round(r10("default", convs), 4),
              "whole_split": {g: round(r10(g, convs), 4) for g in grid}}
    print(f"leave-one-conversation-out R@10 {result['held_out_R@10']}; default {result['default_R@10']}")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
