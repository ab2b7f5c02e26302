"""The correction detector (core/correction.py) on its corpus (tests/core/correction_phrasings.py):
how many corrections are found with the right target, and how many look-alikes are taken for one.

    .venv/bin/python bench/corrections.py [--show]

Tune, held-out and fresh (tests/core/correction_heldout.py, a larger set written later, all held
out) are reported apart; `--show` lists the tune split's
failures only, so the held-out third is never read case by case while tuning. The last line is JSON.
"""

from __future__ import annotations

import argparse
import json
import sys
import zlib
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE.parent / "tests" / "core"))

from core.correction import Shown, find_correction  # noqa: E402
from correction_phrasings import CORRECTIONS, HELD_OUT, LOOK_ALIKES, TUNE, Case, split  # noqa: E402
import correction_heldout as fresh  # noqa: E402  (all held out: counted, never listed)

FRESH = fresh.FRESH


def items(case: Case) -> list[Shown]:
    return [Shown(id=f"corpus-{zlib.crc32(case.text.encode())}-{i}", text=t) for i, t in enumerate(case.shown)]


def text_of(case: Case, shown: list[Shown]) -> str:
    return case.text.format(**{f"h{i}": s.handle for i, s in enumerate(shown)})


def judge(case: Case) -> tuple[bool, str]:
    shown = items(case)
    found = find_correction(text_of(case, shown), shown)
    if case.target is None:
        return found is None, "" if found is None else f"took it for a correction of {found.target.text!r}"
    if found is None:
        return False, "missed"
    if found.target.id != shown[case.target].id:
        return False, f"wrong target {found.target.text!r}"
    return True, ""


def measure(name: str, show: bool) -> dict:
    out = {}
    lists = ((fresh.CORRECTIONS, fresh.LOOK_ALIKES) if name == FRESH else (CORRECTIONS, LOOK_ALIKES))
    for label, cases in zip(("corrections", "look_alikes"), lists):
        cs = split(cases, name) if name != FRESH else cases
        verdicts = [(c, *judge(c)) for c in cs]
        good = sum(ok for _, ok, _ in verdicts)
        out[label] = {"cases": len(cs), "right": good}
        if show and name == TUNE:
            for c, ok, why in verdicts:
                if not ok:
                    print(f"  {label}: {c.text!r} -> {why}")
    found = out["corrections"]["right"] / max(1, out["corrections"]["cases"])
    false = 1 - out["look_alikes"]["right"] / max(1, out["look_alikes"]["cases"])
    return {**out, "found": round(found, 4), "false": round(false, 4)}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--show", action="store_true")
    a = ap.parse_args()
    result = {name: measure(name, a.show) for name in (TUNE, HELD_OUT, FRESH)}
    for name, r in result.items():
        print(f"{name:9s} corrections found with the right target {r['found']:.1%} ({r['corrections']['right']}/{r['corrections']['cases']}), "
              f"look-alikes taken for one {r['false']:.1%} ({r['look_alikes']['cases'] - r['look_alikes']['right']}/{r['look_alikes']['cases']})")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
