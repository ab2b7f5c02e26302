"""Shared fixtures: a real Chroma store in a temp dir, with a deterministic embedder and clock."""

from __future__ import annotations

import os
import shutil
import tempfile

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import pytest

from core import Actor, Settings, build_service, scope_for
from core.testing import FixedClock, HashEmbedder

# What a whole run writes under the temp dir at most (real Chroma stores, journals, servers' logs:
# ~0.8 GB), plus the room Amber leaves free on a store's disk (core/outage.py, RESERVE_MAX).
SUITE_NEEDS_BYTES = 1536 * 1024 * 1024


def pytest_sessionstart(session):
    """On a nearly full disk every store in the suite refuses its writes (Amber keeps room free,
    core/outage.py) and hundreds of tests fail with that one error, half an hour later. Said once,
    before any test runs."""
    where = tempfile.gettempdir()
    free = shutil.disk_usage(where).free
    if free < SUITE_NEEDS_BYTES:
        pytest.exit(f"the tests need {SUITE_NEEDS_BYTES / 2**30:.1f} GB free under {where}; {free / 2**30:.2f} GB is: "
                    "free some space (old clones and pytest's temp dirs are the usual culprits) and run them again", returncode=3)


@pytest.fixture
def clock() -> FixedClock:
    return FixedClock()


@pytest.fixture
def service(tmp_path, clock):
    svc = build_service(Settings(data_dir=tmp_path / "data"), embedder=HashEmbedder(), clock=clock)
    # the check at opening runs in the background (core/repair.py): done before a test writes the
    # two active versions of a key it means readers to see
    assert svc.repairs.done.wait(60)
    yield svc
    svc.close()


@pytest.fixture
def alice():
    return scope_for(Actor("alice", client="tests"))


@pytest.fixture
def bob():
    return scope_for(Actor("bob", client="tests"))
