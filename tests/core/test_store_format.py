"""The store's format version (core/store/format.py): 3 since turns can be marked as imported from a
chat export (issue 29). A format-2 store opens, is marked 3 and keeps its turns unmarked; imported
turns keep their mark across a reopen; a store marked newer than this Amber is refused."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from core import Actor, Message, Settings, StoreTooNew, build_service, scope_for
from core.store.format import FORMAT, KEY
from core.testing import FixedClock, HashEmbedder

NOW = datetime(2026, 6, 1, 12, 0, tzinfo=timezone.utc)


def open_store(data):
    return build_service(Settings(data_dir=data), embedder=HashEmbedder(), clock=FixedClock(NOW))


def test_a_format_2_store_is_migrated_to_3_and_its_turns_stay_unmarked(tmp_path):
    data = tmp_path / "data"
    scope = scope_for(Actor("ines", client="tests"))
    svc = open_store(data)
    assert svc.store.reg_get(KEY)["version"] == FORMAT == 3
    svc.store_turns(scope, [Message(id="live-1", role="user", content="I moved to Coimbra in May", created_at=NOW)])
    svc.store.reg_put(KEY, {"version": 2, "sealed": True}, kind="store")  # what a format-2 Amber recorded
    svc.close()

    svc = open_store(data)
    try:
        assert svc.store.reg_get(KEY) == {"version": 3, "sealed": True}
        [turn] = svc.messages(scope)
        assert turn.id == "live-1" and turn.content == "I moved to Coimbra in May" and turn.imported is False
        svc.store_turns(scope, [Message(id="chatgpt:m-7", role="user", content="My cello teacher is Rui", created_at=NOW, imported=True)])
    finally:
        svc.close()

    svc = open_store(data)  # reopened at 3: nothing to migrate, the marks read back
    try:
        assert svc.store.reg_get(KEY)["version"] == 3
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
