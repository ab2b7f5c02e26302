"""Shared fixtures: a real Chroma store in a temp dir, with a deterministic embedder and clock."""

from __future__ import annotations

import os

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import pytest

from core import Actor, Settings, build_service, scope_for
from core.testing import FixedClock, HashEmbedder


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
