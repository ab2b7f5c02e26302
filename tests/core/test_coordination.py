"""Several hosts on one Chroma server, coordinated by a real redis-server (core/coordination.py,
core/capture_queue.py): write locks with fencing, job leases, scheduled-run claims, the shared
capture queue. Two `MemoryService`s in this process stand for two hosts; tests/topology runs the
same with real `amber serve` processes."""

from __future__ import annotations

import asyncio
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timedelta, timezone

import pytest
import redis

from core import Busy, CaptureConsumer, CaptureQueue, MemoryIn, Message, Settings, StoreUnavailable, build_service, list_runs
from core.capture_queue import GROUP, QUARANTINE, STREAM
from core.coordination import RedisCoordination
from core.jobs.runner import _scheduled, due_time
from core.jobs.registry import owner_key
from core.testing import HashEmbedder
from tests.kit.servers import chroma_server, free_port
from tests.kit.topology import redis_server

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def servers(tmp_path_factory):
    with chroma_server(tmp_path_factory.mktemp("chroma")) as chroma, redis_server(tmp_path_factory.mktemp("redis")) as rurl:
        yield chroma, rurl


@pytest.fixture
def hosts(servers):
    chroma, rurl = servers
    redis.Redis.from_url(rurl).flushdb()
    made = [build_service(Settings(chroma_url=chroma, redis_url=rurl), embedder=HashEmbedder()) for _ in range(2)]
    yield made
    for s in made:
        s.close()


def _actives(service, scope, key):
    return [m for m in service.list(scope, limit=200).items if m.fact_key == key]


def test_concurrent_keyed_writes_through_two_hosts_keep_one_active_version(hosts, alice):
    colours = [f"colour number {n}" for n in range(16)]

    def write(n: int) -> None:
        hosts[n % 2].remember(alice, MemoryIn(content=f"My favourite colour is {colours[n]}", fact_key="preference.favourite_colour"))

    with ThreadPoolExecutor(8) as pool:
        list(pool.map(write, range(len(colours))))
    for host in hosts:
        active = _actives(host, alice, "preference.favourite_colour")
        assert len(active) == 1, [m.content for m in active]
    superseded = [m for m in hosts[0].list(alice, status=None, limit=200).items if m.fact_key == "preference.favourite_colour" and m.status == "superseded"]
    assert len(superseded) == len(colours) - 1


def test_a_host_that_lost_the_users_lock_writes_nothing(hosts, alice):
    one, two = hosts
    r = one.coordination.r
    one.remember(alice, MemoryIn(content="I live in Lyon", fact_key="profile.home_city"))
    with one.coordination.user_lock(alice.user_id):
        # the lock expired while this host stalled, and another host took it
        r.set(f"amber:lock:{owner_key(alice.user_id)}", "other-host-token")
        with pytest.raises(Busy, match="lost the user's write lock"):
            one.remember(alice, MemoryIn(content="I live in Porto", fact_key="profile.home_city"))
        r.delete(f"amber:lock:{owner_key(alice.user_id)}")
    assert [m.content for m in _actives(two, alice, "profile.home_city")] == ["I live in Lyon"]


def test_a_lock_held_elsewhere_past_the_wait_is_busy_not_a_hang(servers, alice):
    _, rurl = servers
    elsewhere = RedisCoordination(rurl, lock_wait_s=0.3)
    here = RedisCoordination(rurl, lock_wait_s=0.3)
    try:
        with elsewhere.user_lock(alice.user_id):
            started = time.monotonic()
            with pytest.raises(Busy, match="held by another host"):
                with here.user_lock(alice.user_id):
                    pass
            assert time.monotonic() - started < 3
        with here.user_lock(alice.user_id):  # free again
            pass
    finally:
        elsewhere.close()
        here.close()


def test_the_watchdog_keeps_a_long_held_lock(servers, alice):
    _, rurl = servers
    coord = RedisCoordination(rurl, lock_ttl_s=0.6)
    try:
        with coord.user_lock(alice.user_id) as held:
            time.sleep(1.5)  # two and a half lifetimes
            assert coord.r.get(held.key).decode() == held.token
            coord.check_fence()  # still ours
        assert coord.r.get(held.key) is None  # released by its holder
    finally:
        coord.close()


def test_leases_are_compare_and_set(servers):
    _, rurl = servers
    a, b = RedisCoordination(rurl), RedisCoordination(rurl)
    now, ttl = datetime.now(timezone.utc), timedelta(seconds=2)
    try:
        a.r.delete("amber:lease:extract")
        assert a.acquire_lease("extract", "host-a", now, ttl)
        assert not b.acquire_lease("extract", "host-b", now, ttl)
        b.release_lease("extract", "host-b")  # not b's: nothing happens
        assert not b.acquire_lease("extract", "host-b", now, ttl)
        a.renew_lease("extract", "host-a", now, timedelta(seconds=30))
        assert a.r.pttl("amber:lease:extract") > 20_000
        a.release_lease("extract", "host-a")
        assert b.acquire_lease("extract", "host-b", now, timedelta(milliseconds=300))
        time.sleep(0.5)  # b died holding it: the lease expires
        assert a.acquire_lease("extract", "host-a", now, ttl)
    finally:
        a.close()
        b.close()


def test_each_scheduled_fire_time_runs_on_one_host(hosts):
    from apscheduler.triggers.cron import CronTrigger

    trigger = CronTrigger.from_crontab("15 4 * * *", timezone="UTC")
    now = datetime(2026, 3, 2, 4, 15, 2, tzinfo=timezone.utc)
    assert due_time(trigger, now) == datetime(2026, 3, 2, 4, 15, tzinfo=timezone.utc)
    assert due_time(trigger, now + timedelta(minutes=40)) == datetime(2026, 3, 2, 4, 15, tzinfo=timezone.utc)  # a late run

    minutely = CronTrigger.from_crontab("* * * * *", timezone="UTC")
    settings = Settings(jobs_enabled=True)

    async def fire_on_both() -> None:
        await asyncio.gather(*(_scheduled("retention", h, settings, None, minutely) for h in hosts))

    before = len(list_runs(hosts[0], 100, "retention"))
    asyncio.run(fire_on_both())
    runs = list_runs(hosts[0], 100, "retention")
    assert len(runs) == before + 1 and runs[0]["status"] == "ok"
    asyncio.run(fire_on_both())  # the same minute again (a late scheduler): nobody runs it twice
    assert len(list_runs(hosts[1], 100, "retention")) == before + 1


def test_redis_down_refuses_writes_and_recall_goes_on(servers, alice):
    chroma, _ = servers
    service = build_service(Settings(chroma_url=chroma, redis_url=f"redis://127.0.0.1:{free_port()}/0"), embedder=HashEmbedder())
    try:
        with pytest.raises(StoreUnavailable, match="Redis"):
            service.remember(alice, MemoryIn(content="written while Redis is down"))
        assert service.recall(alice, "anything at all").items is not None
    finally:
        service.close()


def _turn(mid: str, text: str, at: datetime) -> dict:
    return Message(id=mid, role="user", content=text, session="s1", created_at=at).model_dump(mode="json")


def test_the_capture_queue_survives_a_host_that_dies_holding_entries(hosts, servers, alice):
    _, rurl = servers
    one, two = hosts
    r = redis.Redis.from_url(rurl)
    at = datetime(2026, 3, 2, 9, 0, tzinfo=timezone.utc)

    async def produce() -> None:
        q = CaptureQueue(rurl)
        for n in range(6):
            await q.put(alice.user_id, [{"user": alice.user_id, "client": "chatbox", "messages": [_turn(f"q{n}", f"queued turn {n} about kayaks", at)]}])
        await q.aclose()

    r.xgroup_create(STREAM, GROUP, id="0", mkstream=True)
    asyncio.run(produce())
    # a host reads them and dies before storing anything
    taken = r.xreadgroup(GROUP, "dead-host", {STREAM: ">"}, count=100)
    assert len(taken[0][1]) == 6
    survivor = CaptureConsumer(two, rurl, claim_idle_s=0.5).start()
    try:
        deadline = time.monotonic() + 20
        while survivor.stored < 6 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert survivor.stored == 6
        stored = {m.id for m in one.messages(alice)}
        assert {f"q{n}" for n in range(6)} <= stored
        assert r.xlen(STREAM) == 0 and r.xpending(STREAM, GROUP)["pending"] == 0
    finally:
        survivor.stop()


def test_a_malformed_entry_is_set_aside_and_the_rest_land(hosts, servers, alice):
    _, rurl = servers
    r = redis.Redis.from_url(rurl)
    at = datetime(2026, 3, 2, 10, 0, tzinfo=timezone.utc)
    consumer = CaptureConsumer(hosts[0], rurl, claim_idle_s=0.5).start()
    try:
        async def produce() -> None:
            q = CaptureQueue(rurl)
            await q.put(alice.user_id, [{"messages": [{"id": "bad", "role": "narrator", "content": "?"}]}])
            await q.put(alice.user_id, [{"messages": [_turn("good", "a turn that is fine", at)]}])
            await q.aclose()

        asyncio.run(produce())
        deadline = time.monotonic() + 20
        while (consumer.stored < 1 or consumer.quarantined < 1) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert consumer.quarantined == 1 and consumer.stored == 1
        assert "good" in {m.id for m in hosts[0].messages(alice)}
        (_, fields), = r.xrange(QUARANTINE)
        assert b"malformed" in fields[b"error"]
    finally:
        consumer.stop()


def test_lock_threads_of_one_host_queue_locally(servers, alice):
    """Threads of one process wait on the local lock, not by polling Redis."""
    _, rurl = servers
    coord = RedisCoordination(rurl)
    order: list[str] = []
    try:
        def hold(tag: str) -> None:
            with coord.user_lock(alice.user_id):
                order.append(f"in {tag}")
                time.sleep(0.1)
                order.append(f"out {tag}")

        threads = [threading.Thread(target=hold, args=(t,)) for t in "abc"]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert all(order[i].startswith("in") and order[i + 1].startswith("out") for i in range(0, 6, 2))
    finally:
        coord.close()


def test_health_says_whether_this_host_reaches_redis(servers):
    import httpx

    from mcp_server.app import create_app
    from tests.kit.servers import serve_app

    chroma, rurl = servers
    for url, reachable in ((rurl, True), (f"redis://127.0.0.1:{free_port()}/0", False)):
        settings = Settings(chroma_url=chroma, redis_url=url)
        service = build_service(settings, embedder=HashEmbedder())
        try:
            with serve_app(create_app(service, settings)) as base:
                body = httpx.get(f"{base}/health", timeout=10).json()
        finally:
            service.close()
        assert body["coordination"]["ok"] is reachable, body
        if reachable:
            assert body["coordination"]["capture_queue"]["quarantined"] == 0
        else:
            assert "Redis unreachable" in body["coordination"]["error"]
