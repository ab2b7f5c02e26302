"""Fixtures for the hook's end-to-end tests: fake upstreams and one real proxy per test module."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:  # `tests.fakes` and `tests.hook.harness` are imported as packages
    sys.path.insert(0, str(ROOT))

from tests.fakes.upstreams import FakeUpstreams  # noqa: E402  (needs the path above)


@pytest.fixture(scope="module")
def up():
    """Fake OpenAI and Anthropic upstreams, one per test module (a module may define its own)."""
    with FakeUpstreams() as fake:
        yield fake
