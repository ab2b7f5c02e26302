"""Helpers for the jobs tests: write a conversation log, script the model's answers."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from core import Message, Role


def say(service, scope, clock, *turns: tuple[str, str], start_minutes: int = 0, prefix: str = "msg") -> list[Message]:
    """Append a conversation to the user's log, one minute apart, ending at the clock's time."""
    base = clock.now() - timedelta(minutes=len(turns) + start_minutes)
    n0 = len(service.messages(scope))
    msgs = [
        Message(id=f"{prefix}-{n0 + i:04d}", role=Role(role), content=text, session="s1", client="tests",
                created_at=base + timedelta(minutes=i))
        for i, (role, text) in enumerate(turns)
    ]
    service.store_turns(scope, msgs)
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
