"""Settings for test hosts, apart from the repository's config.yaml (it is for people running the
proxy: its keys and budgets must not leak into a test's host)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from core import Settings


def settings_apart(base: Path, **kw) -> Settings:
    """`Settings(**kw)` read with AMBER_CONFIG pointing at a file that does not exist under `base`."""
    before = os.environ.get("AMBER_CONFIG")
    os.environ["AMBER_CONFIG"] = str(base / "no-config.yaml")
    try:
        return Settings(**kw)
    finally:
        if before is None:
            os.environ.pop("AMBER_CONFIG", None)
        else:
            os.environ["AMBER_CONFIG"] = before


@pytest.fixture(autouse=True)
def no_project_config(monkeypatch, tmp_path_factory):
    """For every test: no repository config.yaml and no AMBER_* variables from the caller's shell."""
    monkeypatch.setenv("AMBER_CONFIG", str(tmp_path_factory.getbasetemp() / "no-config.yaml"))
    for name in list(os.environ):
        if name.startswith("AMBER_") and name != "AMBER_CONFIG":
            monkeypatch.delenv(name)
