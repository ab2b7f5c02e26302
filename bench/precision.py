"""Precision of injection: does recall stay out of prompts it has nothing for, and never echo the request?

Users are loaded with LoCoMo conversations (one user per conversation, every turn captured through
`MemoryService.ingest`). Then, through `MemoryService.recall` (what the proxy and the filter inject):

1. **unrelated prompts** (bench/prompts/unrelated.txt: coding, trivia, writing, maths, in English
   and Chinese; `--prompts` takes another file, or a folder of them such as bench/prompts/families,
   each file a family reported on its own), asked as every user: the share of prompts that get any
   item injected;
2. **LoCoMo questions**: R@10 over the injected items (evidence turns among them), the tokens
   injected per request, and the share of questions that get nothing (abstained);
3. **multi-turn replay**: each user turn of a conversation's last session asked with the session so
   far in the request: the share of injected items that the request already carries.

Each is measured twice in the same run: Amber's default ("amber") and the same code with the
relevance floor off and, in the replay, no echo filter ("no_abstention"). The last line printed is one JSON object.

    .venv/bin/python bench/precision.py [--data ../shared/eval/locomo/locomo_dev.json] [--limit N] [--smoke]
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import re
import statistics
import sys
import tempfile
from pathlib import Path

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
os.environ.setdefault("AMBER_RECALL_INDEX_WAIT_S", "3600")  # recall quality: every query waits for the whole turn index
os.environ.setdefault("AMBER_RECALL_READING_WAIT_S", "3600")  # and for the sentence model's reading of memories and turns
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from core import Actor, Settings, build_embedder, build_service, fingerprint, fingerprints, scope_for  # noqa: E402
from locomo_recall import DEFAULT_DATA, conversation_messages, ingest_all, questions_of  # noqa: E402

HERE = Path(__file__).resolve().parent
PROMPTS = HERE / "prompts" / "unrelated.txt"
CJK = re.compile(r"[\u4e00-\u9fff]")


def load_prompts(path: Path = PROMPTS) -> list[str]:
    return [ln.strip() for ln in path.read_text(encoding="utf-8").splitlines() if ln.strip() and not ln.startswith("#")]


def load_families(path: Path) -> dict[str, list[str]]:
    """A prompt file is one family; a folder holds one family per .txt file."""
    files = sorted(path.glob("*.txt")) if path.is_dir() else [path]
    return {f.stem: load_prompts(f) for f in files}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default=str(DEFAULT_DATA))
    ap.add_argument("--limit", type=int, default=0, help="only the first N conversations")
    ap.add_argument("--prompts", type=Path, default=PROMPTS, help="unrelated prompts: a file, or a folder of files (one family each)")
    ap.add_argument("--vectors", type=Path, default=None, help="share bench/abstention.py's vector cache (a pickle outside the repo)")
    ap.add_argument("--smoke", action="store_true", help="a tiny made-up conversation (bench/synthetic.py), 6 unrelated prompts: checks that the bench runs")
    args = ap.parse_args()
    if args.smoke:
        import synthetic

        args.data = str(synthetic.locomo(Path(tempfile.mkdtemp(prefix="amber-smoke-")) / "locomo.json", conversations=1))
    samples = json.loads(Path(args.data).read_text())[: args.limit or None]
    families = load_families(args.prompts)
    family_of = {p: f for f, ps in families.items() for p in ps}
    prompts = list(family_of)
    if args.smoke:
        prompts = prompts[:3] + [p for p in prompts if CJK.search(p)][:3]
    embedder = build_embedder("local")
    if args.vectors:
        from abstention import cached_vectors

        vectors = cached_vectors(embedder, args.vectors)
    modes = {"amber": {}, "no_abstention": {"floor_memory": 0.0, "floor_message": 0.0, "floor_lexical": 0.0}}
    injected = {m: {"en": [], "zh": []} for m in modes}
    by_family = {m: {f: [] for f in families} for m in modes}
    abstained = {m: [] for m in modes}
    recall10 = {m: [] for m in modes}
    tokens = {m: [] for m in modes}
    echoed = {m: [0, 0] for m in modes}  # items already in the request, items injected
    for n, sample in enumerate(samples):
        msgs = conversation_messages(sample["conversation"])
        questions = questions_of(sample)
        with tempfile.TemporaryDirectory(prefix="amber-precision-") as tmp:
            svc = build_service(Settings(data_dir=Path(tmp)), embedder=embedder)
            try:
                scope = scope_for(Actor(user_id=f"locomo-{n}", via="bench"))
                ingest_all(svc, scope, msgs)
                last = [m for m in msgs if m.session == msgs[-1].session]
                for mode, over in modes.items():
                    cfg = svc.recall_config(top_k=10, **over)
                    for p in prompts:
                        r = svc.recall(scope, p, config=cfg, echo=fingerprints([p]))
                        injected[mode]["zh" if CJK.search(p) else "en"].append(bool(r.items))
                        by_family[mode][family_of[p]].append(bool(r.items))
                    for q in questions:
                        r = svc.recall(scope, q["question"], config=cfg, echo=fingerprints([q["question"]]))
                        got = {c.id for c in r.items}
                        recall10[mode].append(len(set(q["evidence"]) & got) / len(q["evidence"]))
                        tokens[mode].append(r.tokens)
                        abstained[mode].append(not r.items)
                    for i, turn in enumerate(last):
                        if turn.role.value != "user":
                            continue
                        carried = [t.content for t in last[: i + 1]]
                        echo = fingerprints(carried) if mode == "amber" else set()
                        r = svc.recall(scope, turn.content, config=cfg, echo=echo)
                        seen = fingerprints(carried)
                        echoed[mode][0] += sum(1 for c in r.items if c.source == "message" and fingerprint(c.text) in seen)
                        echoed[mode][1] += len(r.items)
            finally:
                svc.close()
        print(f"conversation {n + 1}/{len(samples)} done", flush=True)

    if args.vectors:
        args.vectors.write_bytes(pickle.dumps(vectors))
    result: dict = {"bench": "precision", "data": Path(args.data).name, "conversations": len(samples), "prompts": len(prompts),
                    "prompt_file": str(args.prompts),
                    "embedder": embedder.id, "modes": {}}
    for mode in modes:
        allp = injected[mode]["en"] + injected[mode]["zh"]
        row = {
            "unrelated_injected": round(sum(allp) / len(allp), 4),
            "unrelated_injected_en": round(sum(injected[mode]["en"]) / max(1, len(injected[mode]["en"])), 4),
            "unrelated_injected_zh": round(sum(injected[mode]["zh"]) / max(1, len(injected[mode]["zh"])), 4),
            **({f"unrelated_injected {f}": round(sum(v) / max(1, len(v)), 4) for f, v in by_family[mode].items()} if len(families) > 1 else {}),
            "questions": len(recall10[mode]),
            "R@10": round(sum(recall10[mode]) / len(recall10[mode]), 4),
            "tokens_median": statistics.median(tokens[mode]),
            "questions_abstained": round(sum(abstained[mode]) / max(1, len(abstained[mode])), 4),
            "already_in_request": round(echoed[mode][0] / max(1, echoed[mode][1]), 4),
        }
        result["modes"][mode] = row
        print(f"{mode:>14}: " + "  ".join(f"{k} {v}" for k, v in row.items()))
    print(json.dumps(result))


if __name__ == "__main__":
    main()
