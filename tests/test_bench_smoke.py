"""Benchmarks that run in seconds on synthetic inputs keep working: each runs here in its smoke
size and must end with its JSON line (a bench that no longer runs fails the suite)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("script,args", [
    ("sealing.py", ["--smoke"]),
    ("redaction.py", ["--corpus-only"]),
    ("commands.py", ["--corpus-only"]),  # smoke runs never read ../shared/eval
    ("provenance.py", ["--items", "20"]),
    ("corrections.py", []),
    ("fair_ingest.py", ["--smoke"]),  # the real local embedder: about 20 s
])
def test_bench_runs_in_its_smoke_size(script, args):
    env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True", "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, str(ROOT / "bench" / script), *args], capture_output=True, text=True, env=env, timeout=300, cwd=ROOT)
    assert out.returncode == 0, out.stderr[-2000:]
    last = json.loads(out.stdout.strip().splitlines()[-1])
    assert isinstance(last, dict) and last
