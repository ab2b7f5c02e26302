"""Fit the turn ranker (core/recall/ranker.py) on LoCoMo dev, leaving one conversation out.

Each conversation is stored as `locomo_recall.py` stores it and every question (categories 1-4)
asked through `MemoryService.search` with the ranker off; what the ranker would read (fusion's
candidates and the product's own feature rows) is kept. Labels: a turn is positive when it is
evidence for the question.

The model is logistic regression (IRLS, classes weighted to balance, L2 on the weights), fitted
here with numpy. Its L2 strength is chosen from a grid by leaving one conversation out *within*
the training conversations; each conversation is then scored with weights fitted on the other
four (nested: it never chooses anything). R@10 is counted as the product counts it: the turns
reordered in their places, near-duplicates cut, the top ten kept. The shipped weights are fitted
on every conversation with the strength the same procedure picks on all five.

    .venv/bin/python bench/turn_ranker_fit.py [--write] [--vectors /tmp/amber-vectors.pkl]

`--write` writes core/recall/turn_ranker.json. The last line printed is one JSON object.
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

import numpy as np  # noqa: E402

from core import build_embedder  # noqa: E402
from core.recall import ranker  # noqa: E402
from core.recall.fusion import dedup  # noqa: E402
import locomo_recall  # noqa: E402
from abstention import cached_vectors  # noqa: E402

STRENGTHS = (1.0, 10.0, 100.0, 1000.0)  # L2 on the standardised weights (sklearn's 1/C)
# LoCoMo dev (two people chatting) and a person's chats with an assistant, written for Amber
FIT = None  # the loss chosen by --loss (FITS)
FIT_ON = (locomo_recall.DEFAULT_DATA, Path(__file__).resolve().parent / "prompts" / "assistant_chats.json")


class Asked:
    """One question: fusion's candidates, the turns among them with their feature rows, the evidence."""

    def __init__(self, ranked, turns, rows, evidence, dedup_threshold):
        self.ranked, self.turns, self.rows = ranked, turns, rows
        self.evidence, self.dedup_threshold = set(evidence), dedup_threshold
        self.labels = np.array([1.0 if c.id in self.evidence else 0.0 for c in turns])

    def recall_at(self, scores: np.ndarray | None, k: int = 10) -> float:
        items = ranker.in_order(self.ranked, self.turns, scores) if scores is not None and len(self.turns) > 1 else self.ranked
        got = {c.id for c in dedup(items, self.dedup_threshold, k)}
        return len(got & self.evidence) / len(self.evidence)


def capture(samples, embedder) -> list[list[Asked]]:
    """Per conversation, its questions as the ranker would see them."""
    seen: dict = {}
    real = ranker.reorder

    def spy(query, ranked, idx, lexical, rrf_k, weights=None, sentence=None):  # what recall's reorder would weigh; fusion's order kept
        seen["asked"] = (list(ranked), *ranker.weighed(query, ranked, idx, lexical, rrf_k, sentence))
        return list(ranked)

    ranker.reorder = spy
    out = []
    try:
        for n, sample in enumerate(samples):
            with locomo_recall.stored(sample, embedder, f"locomo-{n}") as (svc, scope, _):
                cfg = svc.recall_config(top_k=10)
                conv = []
                for q in locomo_recall.questions_of(sample):
                    svc.search(scope, q["question"], config=cfg)
                    conv.append(Asked(*seen.pop("asked"), q["evidence"], cfg.dedup_threshold))
                out.append(conv)
            print(f"conversation {n + 1}/{len(samples)}: {len(out[-1])} questions", flush=True)
    finally:
        ranker.reorder = real
    return out


def _rows(asked: list[Asked]) -> np.ndarray:
    X = np.vstack([a.rows for a in asked if len(a.rows)])
    if not np.isfinite(X).all():  # a feature not read at capture (the sentence model's): weights would be NaN
        raise SystemExit(f"{int((~np.isfinite(X)).any(axis=1).sum())} captured turns lack a feature; capture again on a quieter machine")
    return X


def fit(asked: list[Asked], strength: float) -> ranker.TurnRanker:
    """L2-regularised logistic regression by Newton's method (IRLS), classes weighted to balance,
    the intercept unpenalised; features standardised on these rows."""
    X = _rows(asked)
    y = np.concatenate([a.labels for a in asked if len(a.rows)])
    mean, scale = X.mean(0), X.std(0)
    scale[scale == 0] = 1.0
    Z = np.hstack([(X - mean) / scale, np.ones((len(X), 1))])
    pos = y.mean()
    sw = np.where(y > 0, 0.5 / pos, 0.5 / (1 - pos))
    penalty = np.full(Z.shape[1], strength)
    penalty[-1] = 0.0
    w = np.zeros(Z.shape[1])
    for _ in range(50):
        p = 1 / (1 + np.exp(-(Z @ w)))
        grad = Z.T @ (sw * (p - y)) + penalty * w
        hess = (Z * (sw * p * (1 - p))[:, None]).T @ Z + np.diag(penalty)
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.abs(step).max() < 1e-8:
            break
    return ranker.TurnRanker(mean, scale, w[:-1])


def fit_pairs(asked: list[Asked], strength: float) -> ranker.TurnRanker:
    """The same linear score fitted on pairs instead (`--loss pairwise`): for every question, each
    evidence turn against each other turn, the loss log(1 + exp(-w·(x_evidence - x_other))), so the
    weights learn the order within a question, which is all the ranker uses, and not how sure a
    turn is overall. Each question weighs as many rows as it has turns (the pointwise fit's total,
    so the same strengths mean about the same); L2 as there, by IRLS."""
    X = _rows(asked)
    mean, scale = X.mean(0), X.std(0)
    scale[scale == 0] = 1.0
    diffs, weights = [], []
    for a in asked:
        pos, neg = a.labels > 0, a.labels == 0
        if not len(a.rows) or not pos.any() or not neg.any():
            continue
        Z = (a.rows - mean) / scale
        d = (Z[pos][:, None, :] - Z[neg][None, :, :]).reshape(-1, Z.shape[1])
        diffs.append(d)
        weights.append(np.full(len(d), len(a.rows) / len(d)))
    D, sw = np.vstack(diffs), np.concatenate(weights)
    w = np.zeros(D.shape[1])
    for _ in range(50):
        p = 1 / (1 + np.exp(-(D @ w)))
        grad = D.T @ (sw * (p - 1)) + strength * w
        hess = (D * (sw * p * (1 - p))[:, None]).T @ D + strength * np.eye(len(w))
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.abs(step).max() < 1e-8:
            break
    return ranker.TurnRanker(mean, scale, w)


FITS = {"pointwise": fit, "pairwise": fit_pairs}


def recall(asked: list[Asked], model: ranker.TurnRanker | None) -> list[float]:
    return [a.recall_at(None if model is None else model.score(a.rows)) for a in asked]


def choose(convs: list[list[Asked]]) -> float:
    """The L2 strength best over leaving each of `convs` out in turn (ties: the stronger)."""
    def held(s: float) -> float:
        r = [x for i in range(len(convs)) for x in recall(convs[i], FIT([a for j, c in enumerate(convs) if j != i for a in c], s))]
        return float(np.mean(r))
    return max(reversed(STRENGTHS), key=held)


def save(model: ranker.TurnRanker, strength: float, path: Path, on: str) -> None:
    path.write_text(json.dumps({
        "chosen_by": f"bench/turn_ranker_fit.py: logistic regression on {on}; L2 strength by leaving one conversation out",
        "strength": strength, "features": list(ranker.FEATURES),
        "mean": [round(float(x), 6) for x in model.mean], "scale": [round(float(x), 6) for x in model.scale],
        "weights": [round(float(x), 6) for x in model.weights],
    }, indent=1) + "\n")


def gain(held: list[float], fused: list[float]) -> dict:
    """R@10 with the ranker and with fusion's order on the same questions, and the paired gain's bootstrap 95 % CI."""
    diff = np.array(held) - np.array(fused)
    rng = np.random.default_rng(34)
    boot = [float(diff[rng.integers(0, len(diff), len(diff))].mean()) for _ in range(2000)]
    return {"questions": len(held), "r10": round(float(np.mean(held)), 4), "fusion_r10": round(float(np.mean(fused)), 4),
            "paired_gain": round(float(diff.mean()), 4), "gain_ci95": [round(float(x), 4) for x in np.percentile(boot, [2.5, 97.5])]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, action="append", default=None,
                    help=f"conversations to fit on (repeatable; default {', '.join(str(p) for p in FIT_ON)})")
    ap.add_argument("--check", type=Path, action="append", default=[],
                    help="conversations never fitted on: scored once with the weights fitted on all of --data")
    ap.add_argument("--vectors", type=Path, default=None)
    ap.add_argument("--captured", type=Path, default=None, help="keep the captured questions here, and read them back when the file exists")
    ap.add_argument("--write", action="store_true", help="write core/recall/turn_ranker.json")
    ap.add_argument("--folds", type=Path, default=None,
                    help="write each fold's weights (fitted without that conversation) to DIR/<data file>-<n>.json, for locomo_recall.py --ranker-folds")
    ap.add_argument("--loss", choices=sorted(FITS), default="pointwise", help="what the weights are fitted on (pointwise: each turn; pairwise: the order within a question)")
    ap.add_argument("--smoke", action="store_true", help="made-up conversations (bench/synthetic.py): checks that the bench runs")
    args = ap.parse_args()
    global FIT
    FIT = FITS[args.loss]
    if args.smoke:
        import synthetic

        tmp = Path(tempfile.mkdtemp(prefix="amber-smoke-"))
        args.data = [synthetic.locomo(tmp / "locomo.json", conversations=3)]
        args.check = [synthetic.locomo(tmp / "check.json", conversations=1)]
    args.data = args.data or list(FIT_ON)
    if args.captured and args.captured.exists():  # the questions as an earlier run captured them (same data, same code)
        convs, checks = pickle.loads(args.captured.read_bytes())
    else:
        embedder = build_embedder("local")
        store = cached_vectors(embedder, args.vectors)
        try:
            convs = [(path, n, conv) for path in args.data for n, conv in enumerate(capture(json.loads(path.read_text()), embedder))]
            checks = {path: capture(json.loads(path.read_text()), embedder) for path in args.check}
        finally:
            if args.vectors:
                args.vectors.write_bytes(pickle.dumps(store))
        if args.captured:
            args.captured.write_bytes(pickle.dumps((convs, checks)))

    folds = []
    held: dict[str, list[float]] = {}
    fused: dict[str, list[float]] = {}
    for i, (path, n, conv) in enumerate(convs):
        rest = [c for j, (_, _, c) in enumerate(convs) if j != i]
        s = choose(rest)
        model = FIT([a for c in rest for a in c], s)
        r, b = recall(conv, model), recall(conv, None)
        held.setdefault(path.name, []).extend(r)
        fused.setdefault(path.name, []).extend(b)
        if args.folds:
            args.folds.mkdir(parents=True, exist_ok=True)
            save(model, s, args.folds / f"{path.stem}-{n}.json", f"every conversation but {path.name}'s {n}")
        folds.append({"data": path.name, "conversation": n, "strength": s, "r10": round(float(np.mean(r)), 4), "fusion_r10": round(float(np.mean(b)), 4)})
        print(f"held out {path.name} {n}: strength {s}, R@10 {np.mean(r):.4f} (fusion {np.mean(b):.4f})", flush=True)
    strength = choose([c for _, _, c in convs])
    final = FIT([a for _, _, c in convs for a in c], strength)
    if args.write and not args.smoke:
        save(final, strength, ranker.WEIGHTS, "every conversation of " + ", ".join(p.name for p in args.data))
    report = {
        "held_out": {name: gain(held[name], fused[name]) for name in held},
        "checked": {path.name: gain(recall([a for c in conv for a in c], final), recall([a for c in conv for a in c], None))
                    for path, conv in checks.items()},
        "folds": folds, "strength": strength, "weights": dict(zip(ranker.FEATURES, (round(float(x), 3) for x in final.weights))),
    }
    for kind in ("held_out", "checked"):
        for name, g in report[kind].items():
            print(f"{kind} {name}: R@10 {g['r10']} against fusion's {g['fusion_r10']}, gain {g['paired_gain']} (95 % CI {g['gain_ci95']})")
    print(json.dumps(report))


if __name__ == "__main__":
    main()
