"""Fixtures for the memory server tests (helpers live in server_kit.py)."""

from __future__ import annotations

import os

import pytest

from core import build_service
from core.testing import HashEmbedder
from mcp_server.app import create_app
from server_kit import make_settings, serve


@pytest.fixture(autouse=True)
def _no_project_config(monkeypatch, tmp_path_factory):
    # the repo's config.yaml is for people running the proxy; tests build their own settings
    monkeypatch.setenv("AMBER_CONFIG", str(tmp_path_factory.getbasetemp() / "no-config.yaml"))
    for name in list(os.environ):
        if name.startswith("AMBER_") and name != "AMBER_CONFIG":
            monkeypatch.delenv(name)


@pytest.fixture(scope="module")
def host(tmp_path_factory):
    """A running memory server with the test keys; yields (base_url, service)."""
    before = os.environ.get("AMBER_CONFIG")
    os.environ["AMBER_CONFIG"] = str(tmp_path_factory.getbasetemp() / "no-config.yaml")
    try:
        settings = make_settings(tmp_path_factory.mktemp("amber-host"))
    finally:
        if before is None:
            os.environ.pop("AMBER_CONFIG", None)
        else:
            os.environ["AMBER_CONFIG"] = before
    service = build_service(settings, embedder=HashEmbedder())
    with serve(create_app(service, settings)) as url:
        yield url, service
    service.close()
