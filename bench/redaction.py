"""Secret redaction: what ordinary conversation loses, and what planted secrets keep.

    .venv/bin/python bench/redaction.py [--locomo ../shared/eval/locomo/locomo_dev.json] [--show]

False positives: every LoCoMo turn (its words and a shared photo's caption, as a capture stores
them) and every MADial dialogue line (zh and en) goes through `core.redact.redact`; the share of
turns it altered is reported (target ≤ 1 % on LoCoMo). Recall: the seeded corpus of
tests/core/redact_corpus.py (EN and ZH sentences with planted keys, passwords, cards, IBANs):
the share whose secret no longer appears, and how many look-alike sentences were left unchanged.
`--show` prints each altered turn (to the terminal only: no evaluation text is written anywhere).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE.parent / "tests" / "core"))

from core.redact import redact  # noqa: E402
from redact_corpus import NOT_SECRETS, PLANTED  # noqa: E402

EVAL = HERE.parent.parent / "shared" / "eval"


def locomo_turns(path: Path) -> list[tuple[str, str]]:
    out = []
    for sample in json.loads(path.read_text()):
        conv = sample["conversation"]
        for key in sorted((k for k in conv if re.fullmatch(r"session_\d+", k)), key=lambda k: int(k.split("_")[1])):
            for turn in conv[key]:
                text = turn["text"] + (f" [shares {turn['blip_caption']}]" if turn.get("blip_caption") else "")
                out.append((f"{sample['sample_id']}:{turn['dia_id']}", text))
    return out


def madial_lines(path: Path) -> list[tuple[str, str]]:
    out = []
    for n, line in enumerate(path.read_text().splitlines()):
        for i, said in enumerate(json.loads(line)["dialogue"]):
            text = re.sub(r"^<[^>]+>:", "", said.strip()).strip().strip('"')
            if text and text not in ("<BOD>", "<EOD>"):
                out.append((f"{path.stem}:{n}:{i}", text))
    return out


def altered(turns: list[tuple[str, str]], show: bool) -> dict:
    hits, by = [], Counter()
    started = time.perf_counter()
    for tid, text in turns:
        out, findings = redact(text)
        if findings:
            hits.append(tid)
            by.update(f.detector for f in findings)
            if show:
                print(f"  {tid}: {text!r}\n    -> {out!r}", file=sys.stderr)
    ms = (time.perf_counter() - started) * 1000 / max(1, len(turns))
    return {"turns": len(turns), "altered": len(hits), "share": round(len(hits) / max(1, len(turns)), 5),
            "by_detector": dict(by), "ids": hits[:20], "ms_per_turn": round(ms, 3)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--locomo", default=str(EVAL / "locomo" / "locomo_dev.json"))
    ap.add_argument("--madial", default=str(EVAL / "madial"))
    ap.add_argument("--show", action="store_true", help="print altered turns to stderr")
    args = ap.parse_args()

    redact("warm up: sk-proj-x")  # the first call imports the detectors
    result: dict = {"bench": "redaction"}
    result["locomo"] = altered(locomo_turns(Path(args.locomo)), args.show)
    madial = Path(args.madial)
    for lang in ("zh", "en"):
        f = madial / f"{lang}-dialogue-dev.jsonl"
        if f.exists():
            result[f"madial_{lang}"] = altered(madial_lines(f), args.show)

    missed = [s for s, secret in PLANTED if secret in redact(s)[0]]
    changed = [s for s in NOT_SECRETS if redact(s)[0] != s]
    result["seeded"] = {"planted": len(PLANTED), "redacted": len(PLANTED) - len(missed),
                        "recall": round((len(PLANTED) - len(missed)) / len(PLANTED), 4),
                        "look_alikes": len(NOT_SECRETS), "look_alikes_altered": len(changed)}
    for s in missed:
        print(f"missed: {s!r}", file=sys.stderr)
    print(f"LoCoMo: {result['locomo']['altered']}/{result['locomo']['turns']} turns altered "
          f"({result['locomo']['share']:.2%}, target ≤ 1 %); seeded recall {result['seeded']['recall']:.2%}", flush=True)
    print(json.dumps(result, ensure_ascii=False))


if __name__ == "__main__":
    main()
