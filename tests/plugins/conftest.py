"""Fixtures for the Claude Code plugin tests: the pinned CLI, a fake Anthropic upstream and a real
Amber host with one key per test user."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:  # `tests.fakes` and `tests.kit` are imported as packages
    sys.path.insert(0, str(ROOT))

from core import ApiKeyConfig, build_service  # noqa: E402
from core.testing import HashEmbedder  # noqa: E402
from mcp_server.app import create_app  # noqa: E402
from tests.kit.config import no_project_config, settings_apart  # noqa: E402,F401  (no_project_config: autouse)
from tests.kit.servers import serve_app  # noqa: E402

from cc_kit import KEYS, ToolUpstream, ensure_cli  # noqa: E402


@pytest.fixture(scope="session")
def claude_cli() -> Path:
    return ensure_cli()


@pytest.fixture(scope="module")
def up():
    with ToolUpstream(default_reply="Noted.") as fake:
        yield fake


@pytest.fixture(scope="module")
def amber(tmp_path_factory):
    """A running Amber host (REST + MCP) with a key per test user; yields (url, service)."""
    settings = settings_apart(
        tmp_path_factory.getbasetemp(),
        data_dir=tmp_path_factory.mktemp("amber-host"), embedding_model="hash", jobs_enabled=False,
        api_keys=[ApiKeyConfig(name=u, secret=k, user=u) for u, k in KEYS.items()],
    )
    service = build_service(settings, embedder=HashEmbedder())
    with serve_app(create_app(service, settings)) as url:
        yield url, service
    service.close()
