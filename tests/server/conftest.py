"""Fixtures for the memory server tests (helpers live in server_kit.py)."""

from __future__ import annotations


import pytest

from core import build_service
from core.testing import HashEmbedder
from mcp_server.app import create_app
from server_kit import key_configs, serve
from tests.kit.config import no_project_config, settings_apart  # noqa: F401  (no_project_config: autouse for every test here)


@pytest.fixture(scope="module")
def host(tmp_path_factory):
    """A running memory server with the test keys; yields (base_url, service)."""
    settings = settings_apart(tmp_path_factory.getbasetemp(), data_dir=tmp_path_factory.mktemp("amber-host"), embedding_model="hash",
                              api_keys=key_configs())
    service = build_service(settings, embedder=HashEmbedder())
    with serve(create_app(service, settings)) as url:
        yield url, service
    service.close()
