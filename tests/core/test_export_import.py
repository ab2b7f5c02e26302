"""Export and import: lossless, idempotent, re-embedding under another embedder."""

from __future__ import annotations

import json
from datetime import datetime, timezone

import pytest

from core import Actor, InvalidInput, MemoryIn, Message, Settings, build_service, scope_for
from core.testing import HashEmbedder


class OtherEmbedder(HashEmbedder):
    id = "hash:other"
    dim = 64


def _populate(service, scope, clock):
    service.remember(scope, MemoryIn(content="Tea", fact_key="preference.drink", tags=["food"], importance=0.7))
    clock.advance(days=1)
    service.remember(scope, MemoryIn(content="Coffee", fact_key="preference.drink"))
    service.glossary_set(scope, "LoRA", "low-rank adaptation", aliases=["lora"])
    service.precious_add(scope, "Never give up")
    service.remember(scope, MemoryIn(content="maybe likes jazz", status="candidate", confidence=0.5))
    service.digest_set(scope, "A tea drinker who switched to coffee.")
    service.ingest(scope, [Message(id="x1", role="user", content="hello there", session="s", created_at=datetime(2026, 1, 2, tzinfo=timezone.utc)),
                           Message(id="x2", role="assistant", content="hi!", session="s", created_at=datetime(2026, 1, 2, 0, 1, tzinfo=timezone.utc))])


def _state(service, scope):
    lines = [line for line in service.export(scope) if line["type"] != "header"]
    return sorted(json.dumps(line, sort_keys=True) for line in lines)


def test_round_trip_is_lossless_and_idempotent(service, alice, clock, tmp_path):
    _populate(service, alice, clock)
    exported = list(service.export(alice))
    before = _state(service, alice)
    other = build_service(Settings(data_dir=tmp_path / "other"), embedder=OtherEmbedder(), clock=clock)
    try:
        target = scope_for(Actor("alice"))
        assert other.import_(target, exported) == {"memories": 6, "messages": 2}
        other.import_(target, exported)  # twice: same state
        assert _state(other, target) == before
        chain = {m.content: m for m in other.list(target, status="any", limit=500).items}
        assert chain["Tea"].superseded_by == chain["Coffee"].id
        assert other.search(target, "coffee")[0].text == "Coffee"  # re-embedded under the other embedder
    finally:
        other.close()


def test_bad_lines_are_refused_whole(service, alice):
    good = {"type": "message", "id": "a", "role": "user", "content": "hi", "created_at": "2026-01-01T00:00:00Z"}
    with pytest.raises(InvalidInput) as e:
        service.import_(alice, [good, {"type": "memory", "content": "no id"}])
    assert e.value.field == "line 2"
    assert service.messages(alice) == []  # nothing half-written
