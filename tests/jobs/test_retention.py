"""Retention on a real store with an injected clock: what goes, when, and in which order."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from core import MemoryIn, Message, NotFound, Role, Status
from core.jobs.extraction.windows import new_window
from core.jobs.runner import arun_job, list_runs
from core.jobs.registry import get_windows, put_window

T0 = datetime(2026, 6, 1, 4, 15, tzinfo=UTC)


def msg(i: str, when: datetime) -> Message:
    return Message(id=i, role=Role.user, content=f"message {i}", session="s", created_at=when)


def status(service, scope, mid):
    try:
        return service.get(scope, mid).status
    except NotFound:
        return "gone"


async def test_retention_order_and_dates(service, clock, alice, settings):
    clock.set(T0 - timedelta(days=300))
    quote = service.precious_add(alice, "We met under the old clock tower.").memory
    clock.set(T0 - timedelta(days=200))
    unused = service.remember(alice, MemoryIn(content="Owned a red bicycle")).memory
    pinned = service.remember(alice, MemoryIn(content="Name is Ana", pinned=True)).memory
    clock.set(T0 - timedelta(days=179))
    recent = service.remember(alice, MemoryIn(content="Plays chess on Sundays")).memory
    clock.set(T0 - timedelta(days=31))
    gone = service.delete(alice, service.remember(alice, MemoryIn(content="Had a typo")).memory.id)
    clock.set(T0 - timedelta(days=29))
    old_city = service.remember(alice, MemoryIn(content="Lives in Porto", fact_key="profile.city")).memory
    clock.set(T0 - timedelta(days=28))
    ttl = service.remember(alice, MemoryIn(content="Has a cold this week", expire_at=T0 - timedelta(days=1))).memory
    service.remember(alice, MemoryIn(content="Lives in Braga", fact_key="profile.city"))  # supersedes Porto at T0-28d
    for days in (15, 13):  # retention ages turns from when Amber stored them
        clock.set(T0 - timedelta(days=days))
        service.store_turns(alice, [msg(f"m-{days}d", T0 - timedelta(days=days))])
    events_before = len(service.events(alice, limit=1000))

    clock.set(T0)
    rec = await arun_job("retention", service, settings)
    assert rec["status"] == "ok"
    assert [m.id for m in service.messages(alice)] == ["m-13d"]
    assert status(service, alice, unused.id) == Status.expired  # 200 days unused
    assert status(service, alice, ttl.id) == Status.expired  # past its TTL
    assert status(service, alice, pinned.id) == Status.active  # pinned never expires
    assert status(service, alice, recent.id) == Status.active  # 179 days
    assert status(service, alice, quote.id) == Status.active  # precious is append-only
    assert status(service, alice, gone.id) == "gone"  # deleted 31 days ago: hard-deleted
    assert status(service, alice, old_city.id) == Status.superseded  # superseded 28 days ago: still kept
    counts = rec["counts"]
    assert counts["messages_deleted"] == 1 and counts["expired"] == 2 and counts["hard_deleted"] == 1
    # audit events older than 30 days went (the ones from day -300, -200, -179, -31)
    assert counts["events_deleted"] >= 4 and len(service.events(alice, limit=1000)) < events_before
    assert "Owned a red bicycle" not in service.recall(alice, "red bicycle").text

    clock.set(T0 + timedelta(days=3))  # Porto's retirement is now 31 days old; the expiries only 3
    await arun_job("retention", service, settings)
    assert status(service, alice, old_city.id) == "gone"
    assert status(service, alice, unused.id) == Status.expired

    clock.set(T0 + timedelta(days=31))  # 31 days after they expired
    rec = await arun_job("retention", service, settings)
    assert status(service, alice, unused.id) == "gone" and status(service, alice, ttl.id) == "gone"
    assert status(service, alice, quote.id) == Status.active and status(service, alice, pinned.id) == Status.active
    assert rec["counts"]["hard_deleted"] == 2


async def test_a_restored_memory_stays_until_used_up_again_and_a_purged_one_is_gone(service, clock, alice, settings):
    clock.set(T0 - timedelta(days=200))
    unused = service.remember(alice, MemoryIn(content="Owned a red bicycle")).memory
    clock.set(T0 - timedelta(days=2))
    ttl = service.remember(alice, MemoryIn(content="Has a cold this week", expire_at=T0 - timedelta(days=1))).memory
    typo = service.delete(alice, service.remember(alice, MemoryIn(content="Had a typo")).memory.id)
    clock.set(T0)
    await arun_job("retention", service, settings)
    assert status(service, alice, unused.id) == status(service, alice, ttl.id) == Status.expired

    back = service.restore(alice, ttl.id)
    assert back.status == Status.active and back.expire_at is None  # a past TTL would expire it at the next run
    assert service.restore(alice, unused.id).updated_at == T0  # counts as used today
    assert service.events(alice, ttl.id)[0].action == "restore" and service.events(alice, ttl.id)[0].detail == {"was": "expired"}
    clock.set(T0 + timedelta(days=1))
    await arun_job("retention", service, settings)
    assert status(service, alice, unused.id) == status(service, alice, ttl.id) == Status.active
    assert "red bicycle" in service.recall(alice, "did I own a bicycle").text

    clock.set(T0 + timedelta(days=31))  # the deleted one is purged 30 days on: nothing left to restore
    await arun_job("retention", service, settings)
    with pytest.raises(NotFound):
        service.restore(alice, typo.id)


async def test_retention_prunes_old_runs_and_windows_but_keeps_the_cursor(service, clock, alice, settings):
    clock.set(T0 - timedelta(days=40))
    service.store_turns(alice, [msg("w1", T0 - timedelta(days=40))])
    w = new_window("alice", service.messages(alice), clock.now())
    put_window(service.store, {**w, "state": "processed", "finished_at": clock.now().isoformat()})
    await arun_job("retention", service, settings)  # a run record dated T0-40d
    clock.set(T0)
    rec = await arun_job("retention", service, settings)
    assert rec["counts"]["runs_deleted"] == 1
    assert get_windows(service.store, "alice") == []
    assert [r["id"] for r in list_runs(service, 10, "retention")] == [rec["id"]]


@pytest.mark.parametrize("days,kept", [(13.9, True), (14.1, False)])
async def test_message_horizon(service, clock, alice, settings, days, kept):
    clock.set(T0 - timedelta(days=days))
    service.store_turns(alice, [msg("m", T0 - timedelta(days=days))])
    clock.set(T0)
    await arun_job("retention", service, settings)
    assert bool(service.messages(alice)) is kept


async def test_a_client_clock_decides_nothing_about_retention(service, clock, alice, settings):
    """Turns are aged from when Amber stored them: a turn from a client whose clock is 30 days slow
    is kept like any other, and one dated 2999 is purged on time; the stated time stays for display."""
    clock.set(T0)
    service.store_turns(alice, [msg("slow", T0 - timedelta(days=30)), msg("future", datetime(2999, 1, 1, tzinfo=timezone.utc))])
    await arun_job("retention", service, settings)
    stated = {m.id: m for m in service.messages(alice)}
    assert set(stated) == {"slow", "future"} and stated["slow"].created_at == T0 - timedelta(days=30)
    assert stated["future"].stored_at == T0
    clock.set(T0 + timedelta(days=14.1))
    await arun_job("retention", service, settings)
    assert service.messages(alice) == []


async def test_a_purged_record_leaves_no_copy_of_its_vector_in_any_file(service, clock, alice, settings, tmp_path):
    """Purging the trash erases: the record's vector is overwritten in the index file at once, and the
    same run overwrites what its log rows left in Chroma's SQLite file (free pages, the write-ahead
    log): afterwards no file of the data directory holds it."""
    from core.scope import memory_collection
    from tests.kit.disk import files_holding_vector

    clock.set(T0 - timedelta(days=40))
    m = service.remember(alice, MemoryIn(content="My old landlord was Vexillor Quant")).memory
    col = service.store._collection(memory_collection(alice), vectors=True, create=False)
    vector = col.get(ids=[m.id], include=["embeddings"])["embeddings"][0]
    service.delete(alice, m.id)
    assert files_holding_vector(tmp_path / "data", vector)  # the check sees it while it is stored
    clock.set(T0)
    rec = await arun_job("retention", service, settings)
    assert status(service, alice, m.id) == "gone" and rec["counts"]["hard_deleted"] == 1
    assert rec["counts"]["free_pages_zeroed"] >= 0
    assert files_holding_vector(tmp_path / "data", vector) == []
