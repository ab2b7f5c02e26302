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
    service.store_turns(scope, [Message(id="x1", role="user", content="hello there", session="s", created_at=datetime(2026, 1, 2, tzinfo=timezone.utc)),
                           Message(id="x2", role="assistant", content="hi!", session="s", created_at=datetime(2026, 1, 2, 0, 1, tzinfo=timezone.utc))])


def _state(service, scope):
    lines = [line for line in service.export(scope) if line["type"] in ("memory", "message")]
    return sorted(json.dumps(line, sort_keys=True) for line in lines)


def _events(service, scope):
    return [line for line in service.export(scope) if line["type"] == "event"]


def test_round_trip_is_lossless_and_idempotent(service, alice, clock, tmp_path):
    _populate(service, alice, clock)
    exported = list(service.export(alice))
    before = _state(service, alice)
    other = build_service(Settings(data_dir=tmp_path / "other"), embedder=OtherEmbedder(), clock=clock)
    try:
        target = scope_for(Actor("alice"))
        events = _events(service, alice)
        assert other.import_(target, exported).model_dump() == {"memories": 6, "messages": 2, "events": len(events)}
        other.import_(target, exported)  # twice: same state
        assert _state(other, target) == before
        # the audit trail came along (plus one "import" event per import)
        got = _events(other, target)
        assert [e for e in got if e["action"] != "import"] == events
        assert [e["action"] for e in got].count("import") == 2
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


T = "2026-01-01T00:00:00Z"


def mem(id, content="x", **kw):
    return {"type": "memory", "id": id, "content": content, "created_at": T, "updated_at": T, **kw}


def msg(id, content="hi"):
    return {"type": "message", "id": id, "role": "user", "content": content, "created_at": T}


BAD_FILES = {
    "repeated message id": ([msg("a"), mem("m1"), msg("a")], "line 3", "repeats line 1"),
    "repeated memory id": ([mem("m1"), mem("m1", "y")], "line 2", "repeats line 1"),
    "namespace": ([mem("m1"), mem("m2", namespace="../../etc")], "line 2", "namespace"),
    "fact_key": ([mem("m1", fact_key="NOT A KEY!!")], "line 1", "fact_key"),
    "fact_key category": ([mem("m1", fact_key="nothing.here")], "line 1", "category"),
    "two active versions": ([mem("m1", fact_key="profile.city"), mem("m2", "y", fact_key="profile.city"),
                             mem("m3", "z", fact_key="profile.city")], "line 2", "second active version"),
    "content too long": ([mem("m1", "x" * 8001)], "line 1", "at most 8000"),
    "blank content": ([mem("m1", "   ")], "line 1", "blank"),
    "digest too long": ([mem("m1", "x" * 501, kind="digest")], "line 1", "at most 500"),
    "importance": ([mem("m1", importance=7)], "line 1", "importance"),
    "id with spaces": ([mem("m 1")], "line 1", "id"),
    "lone surrogate": ([mem("m1", "tea \ud800")], "line 1", "surrogate"),
    "unknown type": ([{"type": "memo", "id": "m1"}], "line 1", "unknown line type"),
    "not an export": ([{"type": "header", "format": "other"}], "line 1", "header"),
    "newer export": ([{"type": "header", "format": "amber-export", "version": 99}], "line 1", "newer"),
    "message too long": ([msg("a", "x" * 100_001)], "line 1", "content"),
    "naive event id": ([{"type": "event", "id": "e:1", "action": "create", "actor": "a", "at": T}], "line 1", "event id"),
    # before year 1 in UTC: stored as a timestamp, it could not be read back, and every export failed
    "event before year one": ([{"type": "event", "id": "e:1", "action": "create", "actor": "a", "at": "0001-01-01T00:00:00+05:00"}],
                              "line 1", "years 1-9999"),
    "memory after 9999": ([mem("m1", created_at="9999-12-31T23:00:00-05:00")], "line 1", "years 1-9999"),
}


@pytest.mark.parametrize("name", sorted(BAD_FILES))
def test_a_bad_file_writes_nothing_and_names_the_line(service, alice, name):
    lines, field, words = BAD_FILES[name]
    service.remember(alice, MemoryIn(content="before the import"))
    before = _state(service, alice)
    with pytest.raises(InvalidInput) as e:
        service.import_(alice, lines)
    assert e.value.field == field and words in str(e.value), str(e.value)
    assert "http" not in str(e.value)  # no library links
    assert _state(service, alice) == before


def test_good_lines_before_a_bad_one_are_not_written(service, alice):
    lines = [msg(f"ok{i}") for i in range(20)] + [mem(f"m{i}", f"fact {i}") for i in range(14)] + [msg("ok3")]
    with pytest.raises(InvalidInput) as e:
        service.import_(alice, lines)
    assert e.value.field == "line 35"
    assert service.messages(alice) == [] and service.list(alice, status="any").items == []


def test_parse_names_the_file_line():
    from core import parse_jsonl

    good = b'{"type": "header", "format": "amber-export"}'
    with pytest.raises(InvalidInput) as e:
        list(parse_jsonl([good, b"", b'{"type": "memory", "content": "caf\xe9"}']))
    assert e.value.field == "line 3" and "UTF-8" in str(e.value)
    with pytest.raises(InvalidInput) as e:
        list(parse_jsonl([good, b'{"importance": NaN}']))
    assert e.value.field == "line 2" and "NaN" in str(e.value)
    with pytest.raises(InvalidInput) as e:
        list(parse_jsonl(["", "", '{"content": "\\udc00"}']))
    assert e.value.field == "line 3" and "surrogate" in str(e.value)
    with pytest.raises(InvalidInput) as e:
        list(parse_jsonl(["{nope"]))
    assert e.value.field == "line 1" and "not JSON" in str(e.value) and "char" not in str(e.value)
    assert [line.number for line in parse_jsonl([good, "", good])] == [1, 3]


def test_an_active_key_in_the_store_and_in_the_file_keeps_the_newest(service, alice, clock):
    old = service.remember(alice, MemoryIn(content="Lisbon", fact_key="profile.city")).memory
    newer = mem("m_new", "Porto", fact_key="profile.city", category="profile",
                created_at="2030-01-01T00:00:00Z", updated_at="2030-01-01T00:00:00Z")
    service.import_(alice, [newer])
    service.import_(alice, [newer])  # twice: same state
    active = service.list(alice, status="active").items
    assert [m.content for m in active] == ["Porto"]
    retired = service.get(alice, old.id)
    assert retired.status.value == "superseded" and retired.superseded_by == "m_new"


def test_an_older_export_never_brings_back_what_was_forgotten(service, alice, clock):
    """A forgotten thing never comes back, not by `amber import` of an older export. The
    forgotten memory and turn are skipped by their tombstones; a daily log a forget rewrote in place
    (same id, no tombstone) keeps its rewritten words, since the file's copy is not newer."""
    from core.model import Kind

    service.remember(alice, MemoryIn(content="I enjoy long walks by the sea"))
    service.remember(alice, MemoryIn(content="My passport number is Zorblax-4417"))
    service.remember(alice, MemoryIn(content="2026-01-01: Walked by the sea. Told Amber my passport number is Zorblax-4417.",
                                     kind=Kind.daily_log))
    service.store_turns(alice, [Message(id="t1", role="user", content="remember my passport number is Zorblax-4417",
                                        created_at=clock.now())])
    backup = list(service.export(alice))
    plan = service.forget(alice, "my passport number is Zorblax-4417")
    assert plan.memories and plan.message_ids
    service.import_(alice, backup)
    every = service.list(alice, status="any", limit=100).items
    assert not [m.content for m in every if "Zorblax" in m.content]
    assert "I enjoy long walks by the sea" in [m.content for m in every]
    assert all("Zorblax" not in t.content for t in service.messages(alice))
    assert "Zorblax" not in json.dumps([line for line in service.export(alice) if line["type"] != "event"])
