"""Every lifecycle rule of a memory, on a real Chroma store."""

from __future__ import annotations

from datetime import timedelta

import pytest

from core import Category, Immutable, InvalidInput, Kind, MemoryIn, MemoryPatch, NotFound, Status, scope_for, Actor
from core.scope import memory_collection


def test_keyed_fact_same_value_is_seen(service, alice, clock):
    first = service.remember(alice, MemoryIn(content="I live in Beijing", fact_key="profile.city"))
    clock.advance(hours=2)
    again = service.remember(alice, MemoryIn(content="i live in  BEIJING", fact_key="profile.city"))
    assert first.action == "created" and again.action == "seen"
    assert again.memory.id == first.memory.id
    assert again.memory.seen_count == 2
    assert again.memory.last_seen_at == clock.now()
    assert len(service.list(alice).items) == 1


def test_keyed_fact_new_value_supersedes(service, alice, clock):
    old = service.remember(alice, MemoryIn(content="I live in Beijing", fact_key="profile.city")).memory
    clock.advance(days=3)
    res = service.remember(alice, MemoryIn(content="I live in Shanghai", fact_key="profile.city"))
    assert res.action == "superseded"
    new = res.memory
    stored_old = service.get(alice, old.id)
    assert stored_old.status == Status.superseded
    assert stored_old.superseded_by == new.id
    assert new.supersedes == old.id
    assert stored_old.valid_to == clock.now()
    active = service.list(alice).items
    assert [m.content for m in active] == ["I live in Shanghai"]
    assert all("Beijing" not in c.text for c in service.search(alice, "where do I live Beijing"))


def supersede_dated(service, scope, clock, valid_from):
    """Beijing from a day ago, replaced by Shanghai dated `valid_from`: (old as stored, new, writes, events)."""
    old = service.remember(scope, MemoryIn(content="I live in Beijing", fact_key="profile.city", valid_from=clock.now() - timedelta(days=1))).memory
    clock.advance(days=3)
    rev, before = service.revision(memory_collection(scope)), {e.id for e in service.events(scope)}
    new = service.supersede(scope, old.id, MemoryIn(content="I live in Shanghai", valid_from=valid_from)).memory
    events = [e for e in service.events(scope) if e.id not in before]
    return service.get(scope, old.id), new, service.revision(memory_collection(scope)) - rev, events


def test_a_dated_new_value_ends_the_old_one_when_it_began_in_one_write(service, alice, clock):
    moved = clock.now() + timedelta(days=1)  # between the old value's start and now
    old, new, writes, events = supersede_dated(service, alice, clock, moved)
    assert (new.valid_from, old.valid_to, old.superseded_by, old.status) == (moved, moved, new.id, Status.superseded)
    assert writes == 1 and [(e.action, e.memory_ids) for e in events] == [("supersede", [old.id, new.id])]


@pytest.mark.parametrize("days", [5, -3])  # after now, before the old value began
def test_a_new_value_dated_outside_the_old_ones_time_ends_it_now(service, alice, clock, days):
    start = clock.now()
    old, new, writes, events = supersede_dated(service, alice, clock, start + timedelta(days=days))
    assert new.valid_from == start + timedelta(days=days) and old.valid_to == clock.now() and old.superseded_by == new.id
    assert writes == 1 and [e.action for e in events] == ["supersede"]


def test_an_edited_wording_keeps_its_date_and_the_old_wording_ends_now(service, alice, clock):
    old = service.remember(alice, MemoryIn(content="I live in Bejing", fact_key="profile.city", valid_from=clock.now() - timedelta(days=9))).memory
    clock.advance(days=1)
    new = service.update(alice, old.id, MemoryPatch(content="I live in Beijing"))
    assert new.valid_from == old.valid_from and service.get(alice, old.id).valid_to == clock.now()


def test_value_coming_back_keeps_the_chain(service, alice, clock):
    a = service.remember(alice, MemoryIn(content="Tea", fact_key="preference.drink")).memory
    clock.advance(days=1)
    b = service.remember(alice, MemoryIn(content="Coffee", fact_key="preference.drink")).memory
    clock.advance(days=1)
    c = service.remember(alice, MemoryIn(content="Tea", fact_key="preference.drink")).memory
    assert c.id not in (a.id, b.id)
    assert service.get(alice, a.id).status == Status.superseded
    assert service.get(alice, b.id).superseded_by == c.id
    assert [m.id for m in service.list(alice).items] == [c.id]


def test_unkeyed_duplicates_are_merged_by_content_hash(service, alice):
    one = service.remember(alice, MemoryIn(content="My cat is called Miso."))
    two = service.remember(alice, MemoryIn(content="my cat is  called miso."))
    assert two.action == "seen" and two.memory.id == one.memory.id
    assert two.memory.seen_count == 2


def test_category_binds_key_namespace(service, alice):
    with pytest.raises(InvalidInput) as e:
        service.remember(alice, MemoryIn(content="sushi", fact_key="preference.food", category=Category.profile))
    assert e.value.field == "fact_key" and "preference" in str(e.value)
    with pytest.raises(InvalidInput):
        service.remember(alice, MemoryIn(content="x", fact_key="snacks.food"))
    with pytest.raises(InvalidInput):
        service.remember(alice, MemoryIn(content="x", fact_key="Preference Food"))
    ok = service.remember(alice, MemoryIn(content="sushi", fact_key="preference.food")).memory
    assert ok.category == Category.preference


def test_soft_delete_archive_and_pin(service, alice):
    m = service.remember(alice, MemoryIn(content="I play the cello")).memory
    assert service.pin(alice, m.id).pinned is True
    assert service.archive(alice, m.id).status == Status.archived
    assert service.list(alice).items == []
    assert [x.id for x in service.list(alice, status="archived").items] == [m.id]
    n = service.remember(alice, MemoryIn(content="I run on Sundays")).memory
    deleted = service.delete(alice, n.id)
    assert deleted.status == Status.deleted
    assert service.get(alice, n.id).status == Status.deleted  # soft: still there for retention
    assert not any(c.id == n.id for c in service.search(alice, "run Sundays"))


def test_ttl_expired_memories_are_not_recalled(service, alice, clock):
    m = service.remember(alice, MemoryIn(content="Parking spot B12 today", expire_at=clock.now() + timedelta(hours=1))).memory
    assert any(c.id == m.id for c in service.search(alice, "parking spot"))
    clock.advance(hours=2)
    assert not any(c.id == m.id for c in service.search(alice, "parking spot"))


def test_precious_is_append_only(service, alice):
    p = service.precious_add(alice, "“You are braver than you believe.”").memory
    assert p.kind == Kind.precious
    with pytest.raises(Immutable):
        service.update(alice, p.id, MemoryPatch(content="changed"))
    with pytest.raises(Immutable):
        service.delete(alice, p.id)
    with pytest.raises(Immutable):
        service.archive(alice, p.id)
    assert service.get(alice, p.id).content == "“You are braver than you believe.”"


def test_glossary_lookup_by_any_alias(service, alice):
    service.glossary_set(alice, "Amber", "the user's memory layer", aliases=["琥珀", "amber-memory"])
    assert [g.title for g in service.glossary_get(alice, "琥珀")] == ["Amber"]
    assert [g.title for g in service.glossary_get(alice, "AMBER-MEMORY")] == ["Amber"]
    res = service.glossary_set(alice, "amber", "long-term memory for AI chats", aliases=["琥珀"])
    assert res.action == "superseded"
    assert [g.content for g in service.glossary_get(alice)] == ["amber: long-term memory for AI chats"]
    assert service.glossary_get(alice, "nothing") == []


def test_digest_is_bounded_and_replaced(service, alice):
    with pytest.raises(InvalidInput) as e:
        service.digest_set(alice, "x" * 501)
    assert e.value.field == "text"
    first = service.digest_set(alice, "Alice is a cellist in Shanghai.")
    second = service.digest_set(alice, "Alice, cellist, moved to Shanghai; allergic to peanuts.")
    assert service.digest_get(alice).id == second.id
    assert service.get(alice, first.id).status == Status.superseded


def test_namespaces_and_scoped_reads(service):
    work = scope_for(Actor("alice", client="cursor"), project="amber", write_namespace="project:amber")
    home = scope_for(Actor("alice", client="chatbox"))
    m = service.remember(work, MemoryIn(content="The Amber repo uses Chroma")).memory
    assert m.namespace == "project:amber"
    assert any(c.id == m.id for c in service.search(work, "Amber repo Chroma"))
    assert not any(c.id == m.id for c in service.search(home, "Amber repo Chroma"))
    assert service.namespaces(home) == {"project:amber": 1}
    with pytest.raises(InvalidInput):
        service.remember(home, MemoryIn(content="x", namespace="team:oops"))


def test_candidates_approve_discard_merge(service, alice):
    c1 = service.remember(alice, MemoryIn(content="Maybe likes jazz", status="candidate", confidence=0.6)).memory
    c2 = service.remember(alice, MemoryIn(content="Might be vegetarian", status="candidate")).memory
    target = service.remember(alice, MemoryIn(content="Loves jazz")).memory
    c3 = service.remember(alice, MemoryIn(content="Likes jazz a lot", status="candidate", source_ids=["msg-9"])).memory
    assert {m.id for m in service.candidates(alice)} == {c1.id, c2.id, c3.id}
    assert not any(c.id == c1.id for c in service.search(alice, "jazz"))
    with pytest.raises(InvalidInput, match="review queue"):
        service.restore(alice, c1.id)  # restore is no way around review
    approved = service.candidate(alice, c1.id, "approve")
    assert approved.memory.status == Status.active
    assert service.candidate(alice, c2.id, "discard").memory.status == Status.deleted
    merged = service.candidate(alice, c3.id, "merge", target.id).memory
    assert merged.seen_count == 2 and "msg-9" in merged.source_ids
    assert service.candidates(alice) == []
    with pytest.raises(InvalidInput):
        service.candidate(alice, target.id, "approve")


def test_audit_trail_records_every_write(service, alice):
    m = service.remember(alice, MemoryIn(content="Likes hiking", fact_key="preference.outdoor")).memory
    service.remember(alice, MemoryIn(content="Likes hiking", fact_key="preference.outdoor"))
    new = service.remember(alice, MemoryIn(content="Likes climbing", fact_key="preference.outdoor")).memory
    service.archive(alice, new.id)
    service.delete(alice, new.id)
    actions = [e.action for e in service.events(alice, memory_id=m.id)]
    assert actions == ["supersede", "seen", "create"]
    assert [e.action for e in service.events(alice, memory_id=new.id)] == ["delete", "archive", "supersede"]
    assert {e.actor for e in service.events(alice)} == {"service"}
    assert all(e.client == "tests" for e in service.events(alice))


def test_get_unknown_is_not_found(service, alice):
    with pytest.raises(NotFound):
        service.get(alice, "m_missing")


def test_pagination_with_cursor(service, alice, clock):
    for i in range(7):
        clock.advance(minutes=1)
        service.remember(alice, MemoryIn(content=f"fact number {i}"))
    first = service.list(alice, limit=3)
    second = service.list(alice, limit=3, cursor=first.next_cursor)
    third = service.list(alice, limit=3, cursor=second.next_cursor)
    ids = [m.id for p in (first, second, third) for m in p.items]
    assert len(ids) == len(set(ids)) == 7 and third.next_cursor is None
    with pytest.raises(InvalidInput):
        service.list(alice, cursor="nonsense")
