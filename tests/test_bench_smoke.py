"""Benchmarks keep working: every script in bench/ runs here in its smoke size (tiny, synthetic
inputs, never ../shared/eval) and must end with its JSON line, so a bench that no longer runs fails
the suite instead of rotting until someone needs its figures.

The runs are started together, a few at a time, as soon as the first of them is asked for: most of
each run is a fresh interpreter importing Chroma, LiteLLM or ONNX Runtime, or a server starting, so
running them side by side keeps both cores busy and the whole set takes about what its longest few do.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# (script, arguments). Longest first, so the pool's tail is short.
SMOKE: list[tuple[str, list[str]]] = [
    ("faults.py", ["--smoke"]),  # Chroma server, Redis and a host, 2 s faults: about a minute
    ("replay_edges.py", ["--smoke"]),  # every issue-11 replay, one writer killed
    ("cache_share.py", ["--smoke"]),  # two real LiteLLM proxies
    ("chat_import.py", ["--smoke"]),  # four child processes, one per phase
    ("fair_ingest.py", ["--smoke"]),  # the real local embedder
    ("recall_scale.py", ["--smoke"]),
    ("turn_reading_load.py", ["--smoke"]),  # the sentence model reads 600 turns while another person recalls
    ("forget_load.py", ["--smoke"]),
    ("embed_engine.py", ["--smoke", "--fused"]),
    ("embed_lanes.py", ["--smoke"]),  # the real local embedder, both lanes
    ("index_pool.py", ["--smoke"]),  # a chroma run server with a pool of 4 indexes
    ("server_kills.py", ["--smoke"]),  # a chroma run server killed twice under plain writes, twice under a host's
    ("rest_load.py", ["--smoke"]),  # amber serve with the hash embedder
    ("scale_out.py", ["--embedded", "--users", "4", "--memories", "2", "--turns", "2", "--big", "0", "--clients", "2",
                      "--seconds", "1", "--rounds", "1"]),  # one host, embedded Chroma (its server topology: tests/topology)
    ("extraction_cost.py", ["--smoke"]),
    ("recall_folds.py", ["--smoke"]),  # made-up MADial and LoCoMo files (bench/synthetic.py)
    ("precision.py", ["--smoke"]),
    ("abstention.py", ["--smoke"]),  # two prompts a family, four small-store cases, made-up MADial and LoCoMo
    ("locomo_folds.py", ["--smoke"]),  # two made-up conversations
    ("turn_ranker_fit.py", ["--smoke"]),  # three made-up conversations, nothing written
    ("locomo_recall.py", ["--smoke"]),
    ("madial_recall.py", ["--smoke"]),
    ("long_docs.py", ["--smoke"]),
    ("sealing.py", ["--smoke"]),
    ("disk_race.py", ["--smoke"]),  # Amber's store on a full tmpfs (skipped by the bench without root)
    ("redaction.py", ["--corpus-only"]),
    ("commands.py", ["--corpus-only"]),
    ("provenance.py", ["--items", "20"]),
    ("corrections.py", []),
    ("correction_pair_fit.py", ["--smoke"]),  # the real local embedder, 40 cases a group, nothing written
]
# Not run here, each for its reason.
EXEMPT = {
    "proxy_load.py": "its figures need 8 users chatting through two real proxies for minutes; "
                     "tests/hook drives the same proxy and hook, and cache_share.py's smoke starts the same pair",
    "suite_time.py": "it runs the test suite itself, twice, in a second worktree",
}
WORKERS = 3
TIMEOUT_S = 600


def _run(script: str, args: list[str]) -> subprocess.CompletedProcess:
    env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True", "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, str(ROOT / "bench" / script), *args], capture_output=True, text=True,
                          env=env, timeout=TIMEOUT_S, cwd=ROOT)


@pytest.fixture(scope="module")
def started(request) -> dict[str, Future]:
    """Every selected smoke run, started at once in a small pool (a `-k` selection starts only its own)."""
    chosen = [item.callspec.params["script"] for item in request.session.items
              if getattr(item, "originalname", "") == "test_bench_runs_in_its_smoke_size"]
    pool = ThreadPoolExecutor(max_workers=WORKERS)
    futures = {script: pool.submit(_run, script, args) for script, args in SMOKE if script in chosen}
    yield futures
    pool.shutdown(wait=True, cancel_futures=True)


@pytest.mark.parametrize("script,args", SMOKE, ids=[s for s, _ in SMOKE])
def test_bench_runs_in_its_smoke_size(script, args, started):
    out = started[script].result()
    assert out.returncode == 0, out.stderr[-3000:]
    last = json.loads(out.stdout.strip().splitlines()[-1])
    assert isinstance(last, dict) and last


def test_every_bench_has_a_smoke_run():
    """A bench added to bench/ (and committed) gets an entry above, or a reason in EXEMPT. A module
    the benches import (no `__main__` block: bench/synthetic.py, bench/injected.py) is not a bench."""
    listed = subprocess.run(["git", "ls-files", "bench/*.py"], cwd=ROOT, capture_output=True, text=True)
    paths = [ROOT / p for p in listed.stdout.split()] if listed.returncode == 0 else list((ROOT / "bench").glob("*.py"))
    names = {p.name for p in paths if p.exists() and '__name__ == "__main__"' in p.read_text(encoding="utf-8")}
    missing = names - {s for s, _ in SMOKE} - set(EXEMPT)
    assert not missing, f"benches with no smoke run here: {sorted(missing)}"
