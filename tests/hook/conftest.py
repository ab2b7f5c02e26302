"""Fixtures for the hook's end-to-end tests: fake upstreams and one real proxy per test module."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:  # `tests.fakes` and `tests.hook.harness` are imported as packages
    sys.path.insert(0, str(ROOT))
