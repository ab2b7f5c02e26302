"""The message log: append, idempotent by id, list by time window and by session."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from core import InvalidInput, Message

T0 = datetime(2026, 3, 1, 9, 0, tzinfo=timezone.utc)


def msg(i, session="s1", minutes=0, role="user", content=None):
    return Message(id=f"m{i}", role=role, content=content or f"turn {i}", session=session, client="chatbox",
                   created_at=T0 + timedelta(minutes=minutes))


def test_ingest_is_idempotent_by_id(service, alice):
    assert service.ingest(alice, [msg(1), msg(2, minutes=1)]) == 2
    assert service.ingest(alice, [msg(1), msg(2, minutes=1), msg(3, minutes=2)]) == 1
    assert [m.id for m in service.messages(alice)] == ["m1", "m2", "m3"]


def test_list_by_window_and_session(service, alice):
    service.ingest(alice, [msg(1), msg(2, minutes=10), msg(3, "s2", minutes=20), msg(4, minutes=30)])
    window = service.messages(alice, since=T0 + timedelta(minutes=5), until=T0 + timedelta(minutes=25))
    assert [m.id for m in window] == ["m2", "m3"]
    assert [m.id for m in service.messages(alice, session="s1")] == ["m1", "m2", "m4"]
    got = service.messages(alice, session="s2")[0]
    assert (got.role.value, got.client, got.session, got.created_at) == ("user", "chatbox", "s2", T0 + timedelta(minutes=20))


def test_repeated_ids_in_one_request_are_refused(service, alice):
    with pytest.raises(InvalidInput) as e:
        service.ingest(alice, [msg(1), msg(1)])
    assert e.value.field == "messages"
    assert service.messages(alice) == []


def test_a_write_is_seen_by_the_next_recall(service, alice):
    service.ingest(alice, [msg(1, content="We adopted a puppy named Biscuit")])
    assert any("Biscuit" in c.text for c in service.search(alice, "puppy name"))
    service.ingest(alice, [msg(2, minutes=1, content="Biscuit chewed my running shoes")])
    assert any("running shoes" in c.text for c in service.search(alice, "what happened to my shoes"))
