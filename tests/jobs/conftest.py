"""Fixtures for the jobs: a scripted upstream on 127.0.0.1 reached through LiteLLM, and helpers to
write a conversation log and script the model's answers (see jobs_helpers)."""

from __future__ import annotations

import pytest

from core import Settings
from core.llm import LiteLLMClient
from tests.jobs.jobs_fake_llm import FakeUpstream


@pytest.fixture(scope="session")
def upstream_server():
    up = FakeUpstream().start()
    yield up
    up.stop()


@pytest.fixture
def upstream(upstream_server):
    upstream_server.script.clear()
    upstream_server.requests.clear()
    upstream_server.default = None
    return upstream_server


@pytest.fixture
def llm(upstream):
    return LiteLLMClient("openai/fake-model", api_base=upstream.base_url, api_key="sk-test-fake", timeout=10)


@pytest.fixture
def settings(tmp_path):
    return Settings(data_dir=tmp_path / "unused", timezone="UTC")
