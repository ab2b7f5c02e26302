"""Jobs write through the service's write path: the user's lock, patches on the record as stored
now (never a write-back of what the job read earlier), the service's audit events."""

from __future__ import annotations

import threading
from datetime import UTC, datetime

from core import MemoryIn, MemoryPatch, Status
from core.jobs.writes import hard_delete_memories, set_status

T0 = datetime(2026, 6, 1, 3, 30, tzinfo=UTC)


def test_a_users_edit_made_after_the_job_read_the_record_stays(service, alice):
    read_by_job = service.remember(alice, MemoryIn(content="Likes green tea", tags=["drinks"])).memory
    service.update(alice, read_by_job.id, MemoryPatch(content="Likes green tea, no sugar", tags=["drinks", "sugar"], importance=0.9))
    merged = set_status(service, alice, [read_by_job], Status.active, "merge", T0, seen_count=read_by_job.seen_count + 1)
    now = service.get(alice, read_by_job.id)
    assert [m.id for m in merged] == [read_by_job.id]
    assert now.content == "Likes green tea, no sugar" and now.tags == ["drinks", "sugar"] and now.importance == 0.9
    assert now.seen_count == read_by_job.seen_count + 1
    assert service.search(alice, "no sugar")[0].id == read_by_job.id  # the index matches the record


def test_a_record_whose_status_changed_since_the_job_read_it_is_left_alone(service, alice):
    read_by_job = service.remember(alice, MemoryIn(content="Owns a kayak")).memory
    service.archive(alice, read_by_job.id)  # the user archived it meanwhile
    assert set_status(service, alice, [read_by_job], Status.expired, "expire", T0) == []
    assert service.get(alice, read_by_job.id).status == Status.archived


def test_job_writes_are_audited_like_every_write(service, alice):
    m = service.remember(alice, MemoryIn(content="Runs on Tuesdays")).memory
    set_status(service, alice, [m], Status.expired, "expire", T0)
    expire = [e for e in service.events(alice, m.id) if e.action == "expire"]
    assert len(expire) == 1 and expire[0].memory_ids == [m.id] and expire[0].actor == alice.actor


def test_job_writes_wait_for_the_users_lock(service, alice):
    m = service.remember(alice, MemoryIn(content="Reads before sleep")).memory
    order: list[str] = []
    holding, release = threading.Event(), threading.Event()

    def user_write() -> None:
        with service.writes.lock(alice):
            holding.set()
            release.wait(5)
            order.append("user")

    t = threading.Thread(target=user_write)
    t.start()
    holding.wait(5)
    job = threading.Thread(target=lambda: (hard_delete_memories(service, alice, [m.id]), order.append("job")))
    job.start()
    job.join(0.3)
    assert order == []  # the job waits while the user's write holds the lock
    release.set()
    t.join()
    job.join(5)
    assert order == ["user", "job"]
