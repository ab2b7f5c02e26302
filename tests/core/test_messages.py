"""The message log: append, idempotent by id (a known id with new words replaces its turn), list by time window and by session."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from core import InvalidInput, Message, Settings, build_service
from core.testing import HashEmbedder

T0 = datetime(2026, 3, 1, 9, 0, tzinfo=timezone.utc)


def msg(i, session="s1", minutes=0, role="user", content=None):
    return Message(id=f"m{i}", role=role, content=content or f"turn {i}", session=session, client="chatbox",
                   created_at=T0 + timedelta(minutes=minutes))


def test_ingest_is_idempotent_by_id(service, alice):
    assert service.store_turns(alice, [msg(1), msg(2, minutes=1)]) == 2
    assert service.store_turns(alice, [msg(1), msg(2, minutes=1), msg(3, minutes=2)]) == 1
    assert [m.id for m in service.messages(alice)] == ["m1", "m2", "m3"]


def test_list_by_window_and_session(service, alice):
    service.store_turns(alice, [msg(1), msg(2, minutes=10), msg(3, "s2", minutes=20), msg(4, minutes=30)])
    window = service.messages(alice, since=T0 + timedelta(minutes=5), until=T0 + timedelta(minutes=25))
    assert [m.id for m in window] == ["m2", "m3"]
    assert [m.id for m in service.messages(alice, session="s1")] == ["m1", "m2", "m4"]
    got = service.messages(alice, session="s2")[0]
    assert (got.role.value, got.client, got.session, got.created_at) == ("user", "chatbox", "s2", T0 + timedelta(minutes=20))


def test_repeated_ids_in_one_request_are_refused(service, alice):
    with pytest.raises(InvalidInput) as e:
        service.store_turns(alice, [msg(1), msg(1)])
    assert e.value.field == "messages"
    assert service.messages(alice) == []


def test_a_write_is_seen_by_the_next_recall(service, alice):
    service.store_turns(alice, [msg(1, content="We adopted a puppy named Biscuit")])
    assert any("Biscuit" in c.text for c in service.search(alice, "puppy name"))
    service.store_turns(alice, [msg(2, minutes=1, content="Biscuit chewed my running shoes")])
    assert any("running shoes" in c.text for c in service.search(alice, "what happened to my shoes"))


# ---- a known id with new words: a regenerated reply ---------------------------------------------

QUESTION = "What is the capital of Australia?"


def exchange(reply: str, minutes: int = 1) -> list[Message]:
    """Open WebUI's shape: the reply's id is derived from its question's, so a regeneration reuses it."""
    return [msg("q", content=QUESTION), msg("q-reply", minutes=minutes, role="assistant", content=reply)]


def words(service, scope, query: str) -> str:
    return " ".join(c.text for c in service.search(scope, query))


def test_a_regenerated_reply_replaces_the_discarded_one(service, alice):
    from core.scope import message_collection

    col = message_collection(alice)
    assert service.store_turns(alice, exchange("The capital of Australia is Sydney.")) == 2
    assert "Sydney" in words(service, alice, "Sydney")  # the recall indexes are warm now
    before = service.store.memory_embeddings(col, ["mq-reply"])["mq-reply"]

    assert service.store_turns(alice, exchange("The capital of Australia is Canberra.", minutes=2)) == 1
    assert [m.content for m in service.messages(alice)] == [QUESTION, "The capital of Australia is Canberra."]
    assert "Sydney" not in words(service, alice, "Sydney")  # lexical index rebuilt
    assert "Canberra" in words(service, alice, "Canberra")
    assert service.store.memory_embeddings(col, ["mq-reply"])["mq-reply"] != before  # re-embedded
    [event] = [e for e in service.events(alice) if e.action == "replace_message"]
    assert event.detail["message_ids"] == ["mq-reply"] and event.detail["count"] == 1
    assert "Sydney" not in repr(event) and "Canberra" not in repr(event)  # ids only, never words


def test_the_same_turn_sent_again_changes_nothing(service, alice):
    from core.scope import message_collection

    service.store_turns(alice, exchange("The capital of Australia is Canberra."))
    rev, events = service.revision(message_collection(alice)), len(service.events(alice))
    assert service.store_turns(alice, exchange("The capital of Australia is Canberra.")) == 0
    n, done = service.capture(alice, exchange("The capital of Australia is Canberra."))
    assert (n, done) == (0, [])
    assert service.revision(message_collection(alice)) == rev and len(service.events(alice)) == events


def test_capture_replaces_a_regenerated_reply_too(service, alice):
    """The filter's outlet goes through capture (REST /v1/messages), not ingest directly."""
    service.capture(alice, exchange("The capital of Australia is Sydney."))
    n, _ = service.capture(alice, exchange("The capital of Australia is Canberra.", minutes=2))
    assert n == 1
    assert [m.content for m in service.messages(alice)] == [QUESTION, "The capital of Australia is Canberra."]


class RecordingEmbedder(HashEmbedder):
    """Keeps every text it embedded as a document: what a captured turn was indexed as."""

    def __init__(self):
        self.documents: list[str] = []

    def embed_documents(self, texts):
        self.documents.extend(texts)
        return super().embed_documents(texts)


def test_a_replaced_reply_is_not_indexed_next_to_its_discarded_self(tmp_path, clock, alice):
    """Each turn is embedded with the turn before it in its session; sent alone, the new reply's
    turn before is its question, not the stored version of itself."""
    embedder = RecordingEmbedder()
    service = build_service(Settings(data_dir=tmp_path / "data"), embedder=embedder, clock=clock)
    try:
        service.store_turns(alice, exchange("The capital of Australia is Sydney."))
        words(service, alice, "Sydney")  # warm: the session's tail comes from the recall index
        embedder.documents.clear()
        new = msg("q-reply", minutes=2, role="assistant", content="The capital of Australia is Canberra.")
        assert service.store_turns(alice, [new]) == 1
        [text] = embedder.documents
        assert "Sydney" not in text and QUESTION in text and "Canberra" in text
    finally:
        service.close()
