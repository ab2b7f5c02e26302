"""Two hosts over one `chroma run`: a host whose recall index is behind the other host's writes
reads back only the records those writes stamped (and drops what they removed for good), instead
of reading the person's whole collection again; and nothing forgotten on one host is ever found
through the other's index."""

from __future__ import annotations

import itertools
import threading
from datetime import datetime, timezone

import pytest

from core import Actor, MemoryIn, Message, Role, Settings, build_service, scope_for
from core.scope import memory_collection, message_collection
from core.testing import FixedClock, HashEmbedder
from tests.kit.servers import chroma_server

pytestmark = pytest.mark.e2e

_names = itertools.count()


@pytest.fixture(scope="module")
def chroma_url(tmp_path_factory):
    with chroma_server(tmp_path_factory.mktemp("chroma")) as url:
        yield url


@pytest.fixture
def hosts(chroma_url):
    one = build_service(Settings(chroma_url=chroma_url), embedder=HashEmbedder(), clock=FixedClock())
    two = build_service(Settings(chroma_url=chroma_url), embedder=HashEmbedder(), clock=FixedClock())
    yield one, two
    one.close()
    two.close()


@pytest.fixture
def person():
    return scope_for(Actor(f"catch-up-{next(_names)}", client="tests"))


def lexical(svc):
    return svc.recall_config(weights={"mem_lexical": 1.0, "msg_lexical": 1.0, "mem_dense": 0.0, "msg_dense": 0.0})


def counting_reads(svc):
    """Record how many memory records each of `svc`'s index reads returned."""
    reads: list[int] = []
    orig = svc.recaller.store.find_memories

    def counted(*args, **kwargs):
        out = orig(*args, **kwargs)
        reads.append(len(out))
        return out

    svc.recaller.store.find_memories = counted
    return reads


def test_another_hosts_writes_are_read_back_not_rebuilt(hosts, person):
    one, two = hosts
    for i in range(30):
        one.remember(person, MemoryIn(content=f"Filler fact number {i} about the garden shed"))
    old = one.remember(person, MemoryIn(content="The car is a blue Volvo estate")).memory
    assert [c.id for c in two.search(person, "Volvo", config=lexical(two))] == [old.id]  # two's index is built
    builds, catch_ups, reads = two.recaller.rebuilds, two.recaller.catch_ups, counting_reads(two)

    new = one.remember(person, MemoryIn(content="Bought a kayak called Otter")).memory
    one.delete(person, old.id)  # a status change is a write: the record comes back deleted
    found = [c.id for c in two.search(person, "kayak Otter Volvo", config=lexical(two))]
    assert new.id in found and old.id not in found
    listed = {m.id for m in two.list(person, limit=100).items}
    assert new.id in listed and old.id not in listed and len(listed) == 31
    assert two.recaller.rebuilds == builds  # not read back whole
    assert two.recaller.catch_ups == catch_ups + 1
    assert reads == [2]  # the two records the writes stamped, not 32


def test_a_forget_on_one_host_leaves_the_others_index_at_once(hosts, person):
    one, two = hosts
    for i in range(10):
        one.remember(person, MemoryIn(content=f"Note {i} on the allotment plan"))
    code = one.remember(person, MemoryIn(content="My locker code is 9981 quokka")).memory
    assert [c.id for c in two.search(person, "quokka locker", config=lexical(two))] == [code.id]
    assert code.id in {m.id for m in two.list(person, limit=100).items}
    builds = two.recaller.rebuilds

    assert one.forget(person, "my locker code").memories  # removed for good on host one
    assert two.search(person, "quokka locker 9981", config=lexical(two)) == []
    assert code.id not in {m.id for m in two.list(person, limit=100).items}
    assert not any("quokka" in c.text for c in two.search(person, "quokka locker 9981"))
    assert two.recaller.rebuilds == builds  # the removal came from the ids kept beside the revision

    trash = one.remember(person, MemoryIn(content="The spare key hides under the heron statue")).memory
    assert [c.id for c in two.search(person, "heron statue", config=lexical(two))] == [trash.id]
    one.delete(person, trash.id)
    one.purge_trash(person)
    assert two.search(person, "heron statue", config=lexical(two)) == []
    assert two.recaller.rebuilds == builds


def test_turns_from_the_other_host_are_read_back_and_a_removed_turn_rebuilds(hosts, person):
    one, two = hosts
    at = datetime(2026, 3, 1, tzinfo=timezone.utc)

    t1, t2 = f"{person.user_id}-t1", f"{person.user_id}-t2"

    def turn(i, text):
        return Message(id=i, role=Role.user, content=text, session="s", created_at=at)

    one.store_turns(person, [turn(t1, "We planted tulips along the fence")])
    assert [c.id for c in two.search(person, "tulips", config=lexical(two))] == [t1]
    builds = two.recaller.rebuilds
    one.store_turns(person, [turn(t2, "The dentist moved my appointment to Friday")])
    assert t2 in {c.id for c in two.search(person, "dentist appointment Friday", config=lexical(two))}
    assert two.recaller.rebuilds == builds
    assert one.erase_turns(person, [t1]) == 1  # a turn cannot leave an index in place: two reads them back
    assert two.search(person, "tulips fence", config=lexical(two)) == []
    assert two.recaller.rebuilds == builds + 1


def test_a_search_reads_both_revisions_in_one_registry_read_and_still_sees_the_other_hosts_writes(hosts, person):
    """Each search used to read its memory and its turn revision apart: with several hosts, those
    reads were a third of Chroma's requests in the uniform mix (bench/README.md, "What a second host adds per operation")."""
    one, two = hosts
    at = datetime(2026, 3, 1, tzinfo=timezone.utc)
    one.remember(person, MemoryIn(content="The spare key is under the blue flowerpot"))
    one.store_turns(person, [Message(id=f"{person.user_id}-t1", role=Role.user, content="We repainted the porch", session="s", created_at=at)])
    assert two.search(person, "flowerpot porch", config=lexical(two))  # both of two's indexes built
    reads: list[list[str]] = []
    store = two.recaller.store  # the registry reads go to the same store
    get_many = store.reg_get_many  # every registry read, reg_get's too
    store.reg_get_many = lambda keys: reads.append(list(keys)) or get_many(reads[-1])

    assert two.search(person, "flowerpot porch", config=lexical(two))
    assert [sorted(r) for r in reads] == [sorted(f"rev:{c}" for c in (memory_collection(person), message_collection(person)))]
    mem = one.remember(person, MemoryIn(content="The boat trailer needs new tyres")).memory
    one.store_turns(person, [Message(id=f"{person.user_id}-t2", role=Role.user, content="The trailer tyres cost too much", session="s", created_at=at)])
    assert {mem.id, f"{person.user_id}-t2"} <= {c.id for c in two.search(person, "trailer tyres", config=lexical(two))}
    assert two.recaller.catch_ups >= 2  # each index followed one's write without a rebuild


def test_an_embedded_store_reads_a_person_s_revisions_once_in_one_read(tmp_path, person):
    """One owner counts revisions in process: a person's first recall since the start reads both of
    theirs from the registry in one read, and no recall after it reads any."""
    svc = build_service(Settings(data_dir=tmp_path / "data"), embedder=HashEmbedder(), clock=FixedClock())
    try:
        svc.remember(person, MemoryIn(content="The flowerpot is on the porch"))
        svc.close()
        svc = build_service(Settings(data_dir=tmp_path / "data"), embedder=HashEmbedder(), clock=FixedClock())
        reads: list[list[str]] = []
        store = svc.recaller.store
        get_many = store.reg_get_many  # every registry read, reg_get's too
        store.reg_get_many = lambda keys: reads.append(list(keys)) or get_many(reads[-1])
        for _ in range(3):
            assert [h.text for h in svc.search(person, "flowerpot porch")] == ["The flowerpot is on the porch"]
        assert [sorted(r) for r in reads] == [sorted(f"rev:{c}" for c in (memory_collection(person), message_collection(person)))]
    finally:
        svc.close()


def test_a_change_the_stamps_cannot_say_rebuilds(hosts, person):
    one, two = hosts
    one.remember(person, MemoryIn(content="Alice keeps bees on the roof"))
    two.search(person, "bees")
    builds = two.recaller.rebuilds
    col = memory_collection(person)
    with one.writes.lock(person):
        one.writes.refresh(col)  # as an import or an older host's write: nothing says which records
    two.search(person, "bees")
    assert two.recaller.rebuilds == builds + 1


def test_nothing_forgotten_on_one_host_is_found_on_the_other_under_steady_writes(hosts, person):
    one, two = hosts
    one.remember(person, MemoryIn(content="A first fact about the orchard"))
    two.search(person, "orchard")
    builds = two.recaller.rebuilds
    forgotten: set[str] = set()  # ids whose forget has returned
    seen_after: list[str] = []
    stop = threading.Event()

    def reader():
        while not stop.is_set():
            gone = set(forgotten)
            hits = {c.id for c in two.search(person, "walrus orchard", config=lexical(two))}
            hits |= {m.id for m in two.list(person, limit=500).items}
            seen_after.extend(hits & gone)

    t = threading.Thread(target=reader)
    t.start()
    try:
        for i in range(12):
            one.remember(person, MemoryIn(content=f"Orchard row {i} has pear trees"))
            m = one.remember(person, MemoryIn(content=f"Secret walrus number {i} lives in the orchard pond")).memory
            one.forget(person, f"secret walrus number {i}")
            forgotten.add(m.id)
    finally:
        stop.set()
        t.join(30)
    assert seen_after == []
    assert not {c.id for c in two.search(person, "walrus", config=lexical(two))} & forgotten
    assert two.recaller.rebuilds == builds
    assert two.recaller.catch_ups > 0
