"""Fixtures for the jobs: a scripted upstream on 127.0.0.1 reached through LiteLLM, and helpers to
write a conversation log and script the model's answers."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from jobs_fake_llm import FakeUpstream

from core import Message, Role, Settings
from core.llm import LiteLLMClient


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


def say(service, scope, clock, *turns: tuple[str, str], start_minutes: int = 0, prefix: str = "msg") -> list[Message]:
    """Append a conversation to the user's log, one minute apart, ending at the clock's time."""
    base = clock.now() - timedelta(minutes=len(turns) + start_minutes)
    n0 = len(service.messages(scope))
    msgs = [
        Message(id=f"{prefix}-{n0 + i:04d}", role=Role(role), content=text, session="s1", client="tests",
                created_at=base + timedelta(minutes=i))
        for i, (role, text) in enumerate(turns)
    ]
    service.ingest(scope, msgs)
    return msgs


def fact(text: str, key: str | None = None, *, category: str | None = None, kind: str = "fact", importance: float = 0.8,
         confidence: float = 0.95, lang: str = "en", evidence: tuple[str, ...] = ("m1",)) -> dict[str, Any]:
    return {
        "fact": text,
        "fact_key": key,
        "category": category or (key.split(".")[0] if key else "profile"),
        "kind": kind,
        "importance": importance,
        "confidence": confidence,
        "lang": lang,
        "evidence": list(evidence),
    }


def facts(*items: dict[str, Any]) -> dict[str, Any]:
    return {"facts": list(items)}
