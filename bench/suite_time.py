"""The test suite's wall time now against a base commit, measured in the same run.

`make test` should not get slower as Amber grows. This checks out `--base` into a temporary
worktree and runs pytest there and in this checkout with the same interpreter (the repository's
venv), alternating `--rounds` times (base first, then here), so the noise of a shared machine
falls on both sides alike. Extra arguments go to pytest, e.g. a subset: `-- tests/contract`.

    .venv/bin/python bench/suite_time.py --base 515f043 [--rounds 1] [-- tests/core]

Each side imports its own `core` (pytest runs from that side's directory, which comes before the
editable install on sys.path); the run stops if it would not. The last line printed is one JSON
object: seconds and passed/failed per round and side, their medians and head/base ratio.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SUMMARY = re.compile(r"(\d+) (passed|failed|errors?)")


def git(*args: str) -> str:
    return subprocess.run(["git", *args], cwd=ROOT, check=True, capture_output=True, text=True).stdout.strip()


def imports_own_core(where: Path) -> bool:
    probe = "import core, pathlib; print(pathlib.Path(core.__file__).resolve())"
    out = subprocess.run([sys.executable, "-c", probe], cwd=where, capture_output=True, text=True, check=True).stdout
    return Path(out.strip()).is_relative_to(where.resolve())


def run_suite(where: Path, pytest_args: list[str]) -> dict:
    env = {"LITELLM_LOCAL_MODEL_COST_MAP": "True", "OMP_WAIT_POLICY": "PASSIVE", **os.environ}  # as `make test` sets them
    start = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *pytest_args],
                          cwd=where, env=env, capture_output=True, text=True)
    seconds = time.monotonic() - start
    counts = {kind.rstrip("s"): int(n) for n, kind in SUMMARY.findall(done.stdout.splitlines()[-1] if done.stdout else "")}
    return {"seconds": round(seconds, 1), "passed": counts.get("passed", 0), "failed": counts.get("failed", 0),
            "errors": counts.get("error", 0), "exit": done.returncode}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base", required=True, help="the commit to compare against")
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("pytest_args", nargs="*", help="passed to pytest (after --)")
    a = ap.parse_args()
    base_sha, head_sha = git("rev-parse", a.base), git("rev-parse", "HEAD")
    with tempfile.TemporaryDirectory(prefix="amber-suite-base-") as tmp:
        base = Path(tmp) / "base"
        git("worktree", "add", "--detach", "-q", str(base), base_sha)
        try:
            if (ROOT / ".cache").exists():  # the pinned Claude Code CLI the plugin tests run
                (base / ".cache").symlink_to(ROOT / ".cache")
            for side in (base, ROOT):
                if not imports_own_core(side):
                    sys.exit(f"{side} would not import its own core; run this with the repository's venv")
            rounds = []
            for i in range(a.rounds):
                row = {"base": run_suite(base, a.pytest_args), "head": run_suite(ROOT, a.pytest_args)}
                print(f"round {i + 1}: base {row['base']}  head {row['head']}", flush=True)
                rounds.append(row)
        finally:
            git("worktree", "remove", "--force", str(base))
    median = {side: statistics.median(r[side]["seconds"] for r in rounds) for side in ("base", "head")}
    print(json.dumps({"base": base_sha[:7], "head": head_sha[:7], "pytest_args": a.pytest_args, "rounds": rounds,
                      "base_s": median["base"], "head_s": median["head"],
                      "ratio": round(median["head"] / median["base"], 3)}))


if __name__ == "__main__":
    main()
