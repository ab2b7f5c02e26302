"""Deterministic fakes of Amber's ports, for tests and for people building on Amber."""

from __future__ import annotations

import hashlib
import json
import math
from datetime import datetime, timedelta, timezone
from functools import lru_cache
from typing import Any, Sequence

from .recall.lexical import tokenize


@lru_cache(maxsize=1 << 16)  # benches embed hundreds of thousands of turns of the same few thousand words
def _slot(tok: str, dim: int) -> tuple[int, float]:
    h = int.from_bytes(hashlib.blake2b(tok.encode(), digest_size=8).digest(), "big")
    return h % dim, 1.0 if (h >> 32) & 1 else -1.0


class HashEmbedder:
    """Feature-hashed bag of tokens (CJK bigrams included): similar wording, similar vector. No model."""

    id = "hash:v1"
    dim = 256

    def _vec(self, text: str) -> list[float]:
        v = [0.0] * self.dim
        for tok in tokenize(text) or [text.casefold()]:
            slot, sign = _slot(tok, self.dim)
            v[slot] += sign
        norm = math.sqrt(sum(x * x for x in v)) or 1.0
        return [x / norm for x in v] if any(v) else [1.0 / math.sqrt(self.dim)] * self.dim

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        return [self._vec(t) for t in texts]

    def embed_query(self, text: str) -> list[float]:
        return self._vec(text)


class FixedClock:
    """A clock that moves only when told to."""

    def __init__(self, start: datetime | None = None):
        self._now = start or datetime(2026, 1, 1, 12, 0, tzinfo=timezone.utc)

    def now(self) -> datetime:
        return self._now

    def advance(self, **delta: float) -> datetime:
        self._now += timedelta(**delta)
        return self._now

    def set(self, when: datetime) -> None:
        self._now = when


class ScriptedLLM:
    """Answers from a script, in order, and records every prompt it was given."""

    def __init__(self, answers: Sequence[str | dict | Exception]):
        self.answers = list(answers)
        self.calls: list[list[dict[str, Any]]] = []

    async def complete(self, messages, *, json_schema=None, purpose: str = ""):
        self.calls.append(messages)
        if not self.answers:
            raise AssertionError("ScriptedLLM ran out of answers")
        a = self.answers.pop(0)
        if isinstance(a, Exception):
            raise a
        text = a if isinstance(a, str) else json.dumps(a, ensure_ascii=False)
        return text, {"prompt_tokens": sum(len(str(m.get("content", ""))) // 4 for m in messages), "completion_tokens": len(text) // 4, "cost": 0.0}
