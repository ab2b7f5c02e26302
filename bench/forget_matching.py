"""How many of a person's turns does one forget take? The rule a forget matches captured turns by
(core/forgetting.py `says`), with each word weighed by its rarity among the person's turns and the
forget's names and numbers (`rarity`, `key_words`), against the same rule on word counts alone (what
a forget did before 2026-12-07), in one run over the same subjects.

Two kinds of subject, per LoCoMo conversation (its turns stand for a person's captured turns):
  - a turn itself ("forget what I said there"): the turn goes, with any that repeat most of it;
  - "my <two of the person's everyday words> <a name said once>": a made-up request of the form
    "forget my code word Zanzibarquist", its name planted in one turn; the turns that go beyond that
    one hold only the everyday words.

    .venv/bin/python bench/forget_matching.py            # ../shared/eval/locomo/locomo_dev.json
    .venv/bin/python bench/forget_matching.py --smoke    # made-up conversations (bench/synthetic.py)

Last line: JSON per kind of subject: subjects, turns taken per forget (mean, 95th percentile, max)
by word counts and by weight, and the forgets that took turns beyond the intended one(s).
"""

from __future__ import annotations

import argparse
import json
import math
import random
import re
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from core.forgetting import key_words, rarity, says, words_of  # noqa: E402
from core.recall.lexical import tokenize  # noqa: E402

DEFAULT_DATA = HERE.parent.parent / "shared" / "eval" / "locomo" / "locomo_dev.json"
NAMES = ["Zanzibarquist", "Quorblemantis", "Vexillor", "Plimbertash", "Orrindale"]


def turns_of(sample: dict) -> list[str]:
    conv = sample["conversation"]
    sessions = sorted((k for k in conv if re.fullmatch(r"session_\d+", k)), key=lambda k: int(k.split("_")[1]))
    return [t["text"] for k in sessions for t in conv[k] if t.get("text")]


def pct(xs: list[int], q: float) -> int:
    s = sorted(xs) or [0]
    return s[max(0, math.ceil(q * len(s)) - 1)]


def taken(turns: list[str], subject: str) -> tuple[int, int]:
    """Turns the subject takes by word counts alone, and by the rule forget uses."""
    words = words_of(subject)
    weights, keys = rarity(words, turns), key_words(subject)
    return sum(says(words, t) for t in turns), sum(says(words, t, weights, keys) for t in turns)


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--per-conversation", type=int, default=60)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--smoke", action="store_true")
    args = ap.parse_args(argv)
    if args.smoke:
        import synthetic

        args.data = synthetic.locomo(Path(tempfile.mkdtemp(prefix="amber-smoke-")) / "locomo.json")
        args.per_conversation = 5
    rng = random.Random(args.seed)
    found: dict[str, dict[str, list[int]]] = {k: {"counts": [], "weights": []} for k in ("turn", "name")}
    for sample in json.loads(args.data.read_text()):
        turns = turns_of(sample)
        everyday = sorted({w for t in turns for w in tokenize(t) if w.isalpha() and len(w) >= 4},
                          key=lambda w: (-sum(w in t.lower() for t in turns[:400]), w))[:40]
        for subject in rng.sample(turns, min(args.per_conversation, len(turns))):
            for k, n in zip(("counts", "weights"), taken(turns, subject)):
                found["turn"][k].append(n)
        for i in range(min(args.per_conversation, len(turns))):
            a, b = rng.sample(everyday, 2) if len(everyday) >= 2 else ("code", "word")
            name = NAMES[i % len(NAMES)] + str(i)
            planted = list(turns)
            at = rng.randrange(len(planted))
            planted[at] = f"my {a} {b} is {name}"
            for k, n in zip(("counts", "weights"), taken(planted, f"my {a} {b} {name}")):
                found["name"][k].append(n)
    out: dict = {"bench": "forget_matching", "data": args.data.name}
    for kind, by in found.items():
        intended = 1
        out[kind] = {"subjects": len(by["counts"]), **{
            rule: {"mean": round(sum(xs) / max(1, len(xs)), 2), "p95": pct(xs, 0.95), "max": max(xs, default=0),
                   "took_more": sum(x > intended for x in xs)} for rule, xs in by.items()}}
    for kind in found:
        print(f"{kind}: by word counts {out[kind]['counts']}, by weight {out[kind]['weights']}")
    print(json.dumps(out))
    return out


if __name__ == "__main__":
    main()
