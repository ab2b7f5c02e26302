"""The command grammar on the phrasing corpus: how many requests are acted on, and how many
statements that are not requests are.

    .venv/bin/python bench/commands.py [--show] [--corpus-only] [--locomo …] [--madial …]

For each action (forget, remember): recall = requests parsed as that action with the right subject
(tests/core/forget_phrasings.py names the subject each request must yield), and the share parsed as
that action with any subject; false actions = non-requests that produced any command. Tune and
held-out splits are reported separately; `--show` lists the tune split's failures
only, so the held-out third is never looked at case by case while tuning.

Conversation that asks for nothing: every LoCoMo turn and MADial dialogue line (people talking to
people, read from ../shared/eval/ as bench/redaction.py reads them) goes through the grammar, and
the commands it finds are counted per action (`--show` prints them; `--corpus-only` skips this).
The corpus part takes a few milliseconds; the last line is JSON.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
EVAL = HERE.parent.parent / "shared" / "eval"
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE.parent / "tests" / "core"))

from core.commands import parse_command  # noqa: E402
from forget_phrasings import FORGET, HELD_OUT, NOT_FORGET, NOT_REMEMBER, REMEMBER, TUNE, Case, split  # noqa: E402


def _ratio(n: int, d: int) -> float:
    return round(n / d, 4) if d else 0.0


def requests(cases: list[Case], show: bool) -> dict:
    right = acted = 0
    for c in cases:
        cmd = parse_command(c.text)
        acted += cmd is not None and cmd.action == c.action
        ok = cmd is not None and (cmd.action, cmd.text) == (c.action, c.subject)
        right += ok
        if show and not ok and c.split == TUNE:
            print(f"  miss [{c.action}] {c.text!r} -> {cmd} (want {c.subject!r})", file=sys.stderr)
    return {"n": len(cases), "acted": acted, "right_subject": right, "recall": _ratio(right, len(cases))}


def non_requests(cases: list[Case], show: bool) -> dict:
    wrong = 0
    for c in cases:
        cmd = parse_command(c.text)
        wrong += cmd is not None
        if show and cmd is not None and c.split == TUNE:
            print(f"  false {c.text!r} -> {cmd}", file=sys.stderr)
    return {"n": len(cases), "acted_on": wrong, "false_action_rate": _ratio(wrong, len(cases))}


def conversation(args: argparse.Namespace) -> dict:
    from redaction import locomo_turns, madial_lines  # bench/redaction.py reads the same files

    turns = locomo_turns(Path(args.locomo))
    for path in sorted(Path(args.madial).glob("*-dialogue-*.jsonl")):
        turns += madial_lines(path)
    found = {"forget": 0, "remember": 0}
    for tid, text in turns:
        cmd = parse_command(text)
        if cmd is not None:
            found[cmd.action] += 1
            if args.show:
                print(f"  {tid}: {text[:120]!r} -> {cmd.action} {cmd.text[:60]!r}", file=sys.stderr)
    return {"turns": len(turns), "commands": found}


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--show", action="store_true", help="print the tune split's failures and conversation hits to stderr")
    ap.add_argument("--corpus-only", action="store_true", help="skip the LoCoMo and MADial turns")
    ap.add_argument("--locomo", default=str(EVAL / "locomo" / "locomo_dev.json"))
    ap.add_argument("--madial", default=str(EVAL / "madial"))
    args = ap.parse_args(argv)
    started = time.perf_counter()
    result: dict = {"bench": "commands"}
    for action, asks, others in (("forget", FORGET, NOT_FORGET), ("remember", REMEMBER, NOT_REMEMBER)):
        result[action] = {
            name: {"requests": requests(split(asks, name), args.show), "non_requests": non_requests(split(others, name), args.show)}
            for name in (TUNE, HELD_OUT)
        }
    total = len(FORGET) + len(NOT_FORGET) + len(REMEMBER) + len(NOT_REMEMBER)
    result["us_per_message"] = round((time.perf_counter() - started) * 1e6 / total, 1)
    if not args.corpus_only:
        result["conversation"] = conversation(args)
        print(f"conversation: {result['conversation']['turns']} turns, commands found {result['conversation']['commands']}")
    for action in ("forget", "remember"):
        for name in (TUNE, HELD_OUT):
            r = result[action][name]
            print(f"{action:8} {name:8} requests {r['requests']['right_subject']:3}/{r['requests']['n']:<3} right "
                  f"(acted {r['requests']['acted']})   non-requests acted on {r['non_requests']['acted_on']}/{r['non_requests']['n']}")
    print(json.dumps(result))
    return result


if __name__ == "__main__":
    main()
