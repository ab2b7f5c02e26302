"""The store's format version (core/store/format.py): 3 since turns can be marked as imported from a
chat export (issue 29), 4 since every person's audit events share one collection. A format-2 store
opens, is migrated and keeps its turns unmarked; imported turns keep their mark across a reopen; a
format-3 store's audit collections are moved into the shared one and dropped, every person's trail
reading back as it was; a store marked newer than this Amber is refused."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from core import Actor, Message, Settings, StoreTooNew, build_service, scope_for
from core.store.format import FORMAT, KEY
from core.testing import FixedClock, HashEmbedder

NOW = datetime(2026, 6, 1, 12, 0, tzinfo=timezone.utc)


def open_store(data):
    return build_service(Settings(data_dir=data), embedder=HashEmbedder(), clock=FixedClock(NOW))


def test_a_format_2_store_is_migrated_and_its_turns_stay_unmarked(tmp_path):
    data = tmp_path / "data"
    scope = scope_for(Actor("ines", client="tests"))
    svc = open_store(data)
    assert svc.store.reg_get(KEY)["version"] == FORMAT == 4
    svc.store_turns(scope, [Message(id="live-1", role="user", content="I moved to Coimbra in May", created_at=NOW)])
    svc.store.reg_put(KEY, {"version": 2, "sealed": True}, kind="store")  # what a format-2 Amber recorded
    svc.close()

    svc = open_store(data)
    try:
        assert svc.store.reg_get(KEY) == {"version": 4, "sealed": True}
        [turn] = svc.messages(scope)
        assert turn.id == "live-1" and turn.content == "I moved to Coimbra in May" and turn.imported is False
        svc.store_turns(scope, [Message(id="chatgpt:m-7", role="user", content="My cello teacher is Rui", created_at=NOW, imported=True)])
    finally:
        svc.close()

    svc = open_store(data)  # reopened at 4: nothing to migrate, the marks read back
    try:
        assert svc.store.reg_get(KEY)["version"] == 4
        assert {m.id: m.imported for m in svc.messages(scope)} == {"live-1": False, "chatgpt:m-7": True}
    finally:
        svc.close()


def test_a_store_one_format_ahead_is_refused_by_name(tmp_path):
    data = tmp_path / "data"
    svc = open_store(data)
    svc.store.reg_put(KEY, {"version": FORMAT + 1}, kind="store")
    svc.close()
    with pytest.raises(StoreTooNew, match=f"format {FORMAT + 1}.*understands up to {FORMAT}"):
        open_store(data)


def test_a_format_3_store_moves_each_persons_audit_collection_into_the_shared_one(tmp_path):
    from core import MemoryIn
    from core.scope import event_collection
    from core.store.chroma import EVENTS

    data = tmp_path / "data"
    ines, rui = scope_for(Actor("ines", client="tests")), scope_for(Actor("rui", client="tests"))
    svc = open_store(data)
    mems = {s.user_id: svc.remember(s, MemoryIn(content=f"{s.user_id} plays the cello")).memory.id for s in (ines, rui)}
    trails = {s.user_id: [(e.action, e.memory_ids) for e in svc.events(s)] for s in (ines, rui)}
    # write the trails back the way a format-3 Amber kept them: a collection per person
    for s in (ines, rui):
        rows = svc.store.find_rows(event_collection(s), None)
        old = svc.store.client.get_or_create_collection(event_collection(s), metadata={"amber:vectors": "none"}, embedding_function=None)
        old.upsert(ids=[r.pop("id") for r in rows], metadatas=rows, embeddings=[[1.0]] * len(rows))
    svc.store.client.delete_collection(EVENTS)
    svc.store.reg_put(KEY, {"version": 3, "sealed": True}, kind="store")
    svc.close()

    svc = open_store(data)
    try:
        assert svc.store.reg_get(KEY)["version"] == 4
        assert not [n for n in svc.store.list_collections() if n.startswith("amber_evt_")]
        for s in (ines, rui):
            assert [(e.action, e.memory_ids) for e in svc.events(s)] == trails[s.user_id] != []
            assert [e.memory_ids for e in svc.events(s, mems[s.user_id])] == [[mems[s.user_id]]]
        svc.erase_person(ines)  # her rows of the shared collection go, his stay
        assert svc.events(ines) == [] and [(e.action, e.memory_ids) for e in svc.events(rui)] == trails["rui"]
    finally:
        svc.close()
