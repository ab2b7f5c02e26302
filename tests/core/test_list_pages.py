"""The memory list pages active memories from the recall index (one read of the page's own records),
and gives exactly what reading every record and sorting it gives."""

from __future__ import annotations

import random

from core import Category, Kind, MemoryIn, MemoryPatch, Status
from core.scope import memory_collection, memory_where
from core.supersede import one_active_per_key

KINDS = [Kind.fact, Kind.event, Kind.instruction]
CATEGORIES = [Category.profile, Category.preference, Category.project, None]


def everything_sorted(service, scope, *, namespace=None, kind=None, category=None):
    """What the list means, computed the slow way: every active record, filtered, newest first."""
    where = memory_where(scope, namespaces=[namespace] if namespace else None, all_namespaces=namespace is None,
                         kinds=[kind] if kind else None, category=category)
    items = service.reads.memories(scope, where)
    items.sort(key=lambda m: (m.updated_at, m.id), reverse=True)
    return [m.id for m in one_active_per_key(items)]


def all_pages(service, scope, limit, **filters):
    ids, cursor = [], None
    while True:
        page = service.list(scope, limit=limit, cursor=cursor, **filters)
        ids += [m.id for m in page.items]
        assert all(m.status == Status.active for m in page.items)
        cursor = page.next_cursor
        if cursor is None:
            return ids


def fill(service, scope, clock, n, rnd):
    made = []
    for k in range(n):
        clock.advance(minutes=rnd.randint(0, 3))  # equal times happen: the id breaks the tie
        ns = rnd.choice(["default", "project:work", "client:home"])
        keyed = k % 5 == 0
        data = MemoryIn(content=f"note {k} about {rnd.choice(['tea', 'bikes', 'Porto', '火锅'])} {rnd.random()}",
                        namespace=ns, kind=Kind.fact if keyed else rnd.choice(KINDS),
                        category=Category.profile if keyed else rnd.choice(CATEGORIES),
                        fact_key=f"profile.k{k % 7}" if keyed else None)
        made.append(service.remember(scope, data).memory)
    return made


def test_every_filter_and_page_size_matches_reading_everything(service, alice, bob, clock):
    rnd = random.Random(11)
    made = fill(service, alice, clock, 90, rnd)
    fill(service, bob, clock, 20, rnd)
    for m in made[:6]:
        service.delete(alice, m.id)
    service.archive(alice, made[7].id)
    service.update(alice, made[8].id, MemoryPatch(content="edited just now"))  # moves to the top
    cases = [{}, {"namespace": "project:work"}, {"kind": "event"}, {"category": "profile"},
             {"namespace": "client:home", "kind": "fact"}, {"category": "project", "kind": "instruction"}]
    for filters in cases:
        want = everything_sorted(service, alice, **filters)
        assert want, filters
        for limit in (1, 7, 25, 500):
            assert all_pages(service, alice, limit, **filters) == want, (filters, limit)
    assert service.list(alice, limit=1).items[0].content == "edited just now"
    bob_ids = {m.id for m in service.list(bob, limit=500).items}
    assert bob_ids and not bob_ids & set(all_pages(service, alice, 500))


def test_the_list_follows_writes_at_once(service, alice, clock):
    first = service.list(alice).items  # builds the index while the memory is empty
    assert first == []
    a = service.remember(alice, MemoryIn(content="Alice keeps bees")).memory
    clock.advance(minutes=1)
    b = service.remember(alice, MemoryIn(content="Alice lives in Porto", fact_key="profile.city")).memory
    assert [m.id for m in service.list(alice).items] == [b.id, a.id]
    clock.advance(minutes=1)
    c = service.remember(alice, MemoryIn(content="Alice lives in Lisbon", fact_key="profile.city")).memory
    assert [m.id for m in service.list(alice).items] == [c.id, a.id]  # the superseded version left the list
    service.delete(alice, a.id)
    assert [m.id for m in service.list(alice).items] == [c.id]
    service.restore(alice, a.id)
    assert {m.id for m in service.list(alice).items} == {a.id, c.id}
    assert [m.id for m in service.list(alice, status="deleted").items] == []


def test_two_active_versions_of_a_key_show_once(service, alice, clock):
    """An interrupted write can leave two active versions of a key until the repair runs: the list
    shows the newest only, on the fast path as on the general one."""
    old = service.remember(alice, MemoryIn(content="Lisbon", fact_key="profile.city")).memory
    clock.advance(minutes=1)
    new = service.remember(alice, MemoryIn(content="Porto", fact_key="profile.city")).memory
    service.store.put_memories(memory_collection(alice), [old], None)  # undo the retirement behind the index's back
    service.recaller.drop_indexes(memory_collection(alice))  # a cold index reads both from the store
    assert [m.id for m in service.list(alice).items] == [new.id]
    assert [m.id for m in service.list(alice, status="any", limit=500).items if m.status == Status.active] == [new.id, old.id]
