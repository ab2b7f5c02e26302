"""Filters on a key or a content hash ask the store for that clause alone and check the rest in
process (a person's whole active set is not read to find one record); the answer is the store's own,
on plain and on sealed stores."""

from __future__ import annotations

import secrets

import pytest

from core import Actor, Category, Kind, MemoryIn, Settings, Status, build_service, scope_for
from core.model import content_hash
from core.scope import memory_collection, memory_where
from core.testing import FixedClock, HashEmbedder


@pytest.mark.parametrize("sealed", [False, True], ids=["plain", "sealed"])
def test_narrow_filters_give_the_store_s_answer(tmp_path, sealed):
    settings = Settings(data_dir=tmp_path / "data", master_key=secrets.token_hex(32) if sealed else None)
    clock = FixedClock()
    svc = build_service(settings, embedder=HashEmbedder(), clock=clock)
    me = scope_for(Actor("nia", client="tests"))
    try:
        svc.remember(me, MemoryIn(content="Nia lives in Lisbon", fact_key="profile.city"))
        clock.advance(minutes=1)
        svc.remember(me, MemoryIn(content="Nia lives in Porto", fact_key="profile.city"))  # supersedes
        svc.remember(me, MemoryIn(content="Tea, no sugar", namespace="project:home", kind=Kind.instruction))
        svc.remember(me, MemoryIn(content="Tea, no sugar"))  # same words, another namespace
        gone = svc.remember(me, MemoryIn(content="Nia owns a kayak", category=Category.profile)).memory
        svc.delete(me, gone.id)
        col = memory_collection(me)
        wheres = [
            memory_where(me, statuses=[Status.active], namespaces=["default"], fact_key="profile.city"),
            memory_where(me, statuses=None, all_namespaces=True, fact_key="profile.city"),
            memory_where(me, statuses=[Status.superseded], namespaces=["default"], fact_key="profile.city"),
            memory_where(me, statuses=[Status.active, Status.candidate], namespaces=["default"], content_hash=content_hash("tea, NO sugar")),
            memory_where(me, statuses=[Status.active], all_namespaces=True, content_hash=content_hash("Tea, no sugar")),
            memory_where(me, statuses=[Status.active], all_namespaces=True, kinds=["instruction"], content_hash=content_hash("Tea, no sugar")),
            memory_where(me, statuses=[Status.deleted], all_namespaces=True, category="profile", content_hash=content_hash("Nia owns a kayak")),
            memory_where(me, statuses=[Status.active], all_namespaces=True, content_hash=content_hash("never said")),
        ]
        answers = []
        for where in wheres:
            mine = sorted(m.id for m in svc.reads.memories(me, where))
            assert mine == sorted(m.id for m in svc.store.find_memories(col, where)), where
            answers.append(len(mine))
        assert answers == [1, 2, 1, 1, 2, 1, 1, 0]
    finally:
        svc.close()
