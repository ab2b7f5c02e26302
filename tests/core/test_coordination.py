"""Several hosts on one Chroma server, coordinated by a real redis-server (core/coordination.py,
core/capture_queue.py): write locks with fencing, job leases, scheduled-run claims, the shared
capture queue. Two `MemoryService`s in this process stand for two hosts; tests/topology runs the
same with real `amber serve` processes."""

from __future__ import annotations

import asyncio
import json
import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
import redis

from core import Busy, CaptureConsumer, CaptureQueue, MemoryIn, Message, Settings, StoreUnavailable, build_service, list_runs
from core.capture_queue import GROUP, QUARANTINE, STREAM
from core.coordination import RedisCoordination
from core.jobs.runner import _scheduled, arun_job, due_time
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


def test_a_lock_given_back_while_the_watchdog_renews_is_not_reported_lost(servers, alice, caplog):
    """The watchdog lists the held locks, then renews each: a lock its holder gave back in between
    failed to renew and was logged "lost while held", four at once under a busy person's writes
    (bench/README.md, "The issue's own command again"). Only a lock still held is lost."""
    _, rurl = servers
    coord = RedisCoordination(rurl, lock_ttl_s=0.6)
    extend, listed, given_back = coord._extend, threading.Event(), threading.Event()
    try:
        def renew_after_the_give_back(keys, args):  # the watchdog has listed the lock; its holder gives it back now
            if not listed.is_set():
                listed.set()
                given_back.wait(5)
            return extend(keys=keys, args=args)

        with caplog.at_level("WARNING", logger="amber"):
            lock = coord.user_lock(alice.user_id).__enter__()
            coord._extend = renew_after_the_give_back
            assert listed.wait(5)
            lock.__exit__(None, None, None)
            given_back.set()
            time.sleep(0.5)
            assert not any("lost while held" in m for m in caplog.messages), caplog.messages
            coord._extend = extend
            with coord.user_lock(alice.user_id) as held:  # a lock really lost while held is still reported
                coord.r.delete(held.key)
                time.sleep(0.6)
            assert any("lost while held" in m for m in caplog.messages), caplog.messages
    finally:
        coord.close()


def test_leases_are_compare_and_set(servers):
    _, rurl = servers
    a, b = RedisCoordination(rurl), RedisCoordination(rurl)
    now, ttl = datetime.now(timezone.utc), timedelta(seconds=2)
    try:
        a.r.delete("amber:lease:extract")
        assert b.leases_held(["extract", "consolidate"], now) == set()
        assert a.acquire_lease("extract", "host-a", now, ttl)
        assert b.leases_held(["extract", "consolidate"], now) == {"extract"}  # what a run for one person asks (core/jobs/runner.py)
        assert not b.acquire_lease("extract", "host-b", now, ttl)
        b.release_lease("extract", "host-b")  # not b's: nothing happens
        assert not b.acquire_lease("extract", "host-b", now, ttl)
        a.renew_lease("extract", "host-a", now, timedelta(seconds=30))
        assert a.r.pttl("amber:lease:extract") > 20_000
        a.release_lease("extract", "host-a")
        assert b.acquire_lease("extract", "host-b", now, timedelta(milliseconds=300))
        time.sleep(0.5)  # b died holding it: the lease expires
        assert a.leases_held(["extract"], now) == set()
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


# a host's worker in a process of its own: it takes the retention lease (a short one), saves its
# running record, and then works until it is killed
_DYING_WORKER = """
import asyncio, sys
from core import Settings, build_service
from core.jobs import runner
from core.testing import HashEmbedder

async def forever(*a, **k):
    print("running", flush=True)
    await asyncio.sleep(3600)

runner._retention = forever
settings = Settings(chroma_url=sys.argv[1], redis_url=sys.argv[2], jobs_lease_minutes=0.05)
asyncio.run(runner.arun_job("retention", build_service(settings, embedder=HashEmbedder()), settings))
"""


def test_a_host_killed_mid_run_leaves_a_run_shown_interrupted_and_the_next_run_goes(hosts, servers, tmp_path):
    import subprocess
    import sys

    chroma, rurl = servers
    script = tmp_path / "worker.py"
    script.write_text(_DYING_WORKER)
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    child = subprocess.Popen([sys.executable, str(script), chroma, rurl], stdout=subprocess.PIPE, text=True, env=env)
    try:
        assert child.stdout.readline().strip() == "running", "the worker never started its run"
    finally:
        child.kill()
        child.wait(timeout=30)
    runs = list_runs(hosts[0], 100, "retention")
    dead = [r for r in runs if r["worker"].split(":")[1] == str(child.pid)]
    assert len(dead) == 1, runs
    # the lease (3 s) lapses in Redis: from then on both hosts show the run interrupted
    assert _wait(lambda: list_runs(hosts[1], 100, "retention")[runs.index(dead[0])]["status"] == "interrupted", 15)
    again = [r for r in list_runs(hosts[0], 100, "retention") if r["id"] == dead[0]["id"]][0]
    assert again["status"] == "interrupted" and "worker stopped" in again["reason"]
    assert asyncio.run(arun_job("retention", hosts[0], Settings(jobs_enabled=True)))["status"] == "ok"


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
    redis.Redis.from_url(rurl).flushdb()  # what earlier tests set aside
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
            queue = body["coordination"]["capture_queue"]
            assert queue == {"down_since": None, "backing_off_s": 0.0}, queue  # the counts need an admin key
        else:
            assert "Redis unreachable" in body["coordination"]["error"]


# ---- the shared capture queue's failure policy (the proxy journal's: litellm_hooks/spool.py) -------
# A real service on the real Chroma server, behind a wrapper that injects the failure named; the
# consumer, Redis and the store are real.


class Faulty:
    """`service` with `capture` failing while `fault` is set (an exception instance or a callable
    returning one); counts the calls."""

    def __init__(self, service):
        self.service = service
        self.redact = service.redact
        self.fault = None
        self.calls = 0

    def capture(self, scope, messages, **kw):
        self.calls += 1
        fault = self.fault() if callable(self.fault) else self.fault
        if fault is not None:
            raise fault
        return self.service.capture(scope, messages, **kw)


def _put(rurl: str, user: str, mid: str, text: str, at: datetime, command: str | None = None) -> None:
    async def go() -> None:
        q = CaptureQueue(rurl)
        await q.put(user, [{"user": user, "client": "chatbox", "command": command, "messages": [_turn(mid, text, at)]}])
        await q.aclose()

    asyncio.run(go())


def _wait(cond, timeout: float = 20.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if cond():
            return True
        time.sleep(0.05)
    return cond()


def test_an_outage_under_steady_capture_sets_nothing_aside(hosts, servers, alice):
    """What lost turns before: entries re-delivered 5 times while others had landed in the last 10
    minutes were set aside. Now an outage (the store, the embedder, a lock, Chroma's connection
    refused) is waited out however many deliveries it takes, with a backoff new entries cannot cut
    short, and every entry lands once."""
    import httpx

    from core import EmbedderUnavailable
    from core.capture_queue import FAILING

    _, rurl = servers
    r = redis.Redis.from_url(rurl)
    at = datetime(2026, 3, 3, 9, 0, tzinfo=timezone.utc)
    faulty = Faulty(hosts[0])
    errors = [StoreUnavailable("Chroma at http://127.0.0.1:1 does not answer"), httpx.ConnectError("[Errno 111] Connection refused"),
              EmbedderUnavailable("the embedder is restarting"), Busy("this user's memory is busy")]
    consumer = CaptureConsumer(faulty, rurl, claim_idle_s=0.2).start()
    try:
        for n in range(5):  # healthy first: entries land
            _put(rurl, alice.user_id, f"o{n}", f"before the outage, turn {n}", at)
        assert _wait(lambda: consumer.stored == 5)
        faulty.fault = lambda: errors[faulty.calls % len(errors)]
        calls_before, started = faulty.calls, time.monotonic()
        n = 5
        while time.monotonic() - started < 6:  # ~6 turns a second for 6 s, as steady chat would
            _put(rurl, alice.user_id, f"o{n}", f"during the outage, turn {n}", at)
            n += 1
            time.sleep(0.15)
        held = [p["message_id"] for p in r.xpending_range(STREAM, GROUP, "-", "+", count=1000)]
        r.xclaim(STREAM, GROUP, consumer.name, 0, held, retrycount=9)  # as a long outage leaves them: delivered many times
        pending = r.xpending(STREAM, GROUP)["pending"]
        delivered = max((p["times_delivered"] for p in r.xpending_range(STREAM, GROUP, "-", "+", count=1000)), default=0)
        assert delivered >= 9 and r.xlen(QUARANTINE) == 0
        tries = faulty.calls - calls_before
        status = consumer.status()
        assert status["down_since"] and status["last_error"], status
        faulty.fault = None
        assert _wait(lambda: consumer.stored == n, timeout=30), (consumer.stored, n, consumer.status())
    finally:
        consumer.stop()
    assert consumer.quarantined == 0 and r.xlen(QUARANTINE) == 0 and r.hlen(FAILING) == 0
    assert r.xlen(STREAM) == 0 and r.xpending(STREAM, GROUP)["pending"] == 0
    turns = [m.id for m in hosts[0].messages(alice) if m.id.startswith("o")]
    assert sorted(turns) == sorted(f"o{i}" for i in range(n))  # each once
    # the backoff held: a handful of tries in 6 s of outage, not one per entry or per delivery
    assert pending >= 1 and tries <= 20, (tries, n - 5, delivered)
    print(f"\n{n - 5} entries captured in 6 s of outage, delivered up to {delivered} times each, {tries} store calls; 0 set aside")


def test_an_entry_failing_for_another_reason_waits_retry_hours_then_is_set_aside_and_replayable(hosts, servers, alice):
    from core.capture_queue import FAILING, replay, set_aside

    _, rurl = servers
    r = redis.Redis.from_url(rurl)
    at = datetime(2026, 3, 3, 10, 0, tzinfo=timezone.utc)
    faulty = Faulty(hosts[0])
    # a bug for one entry only; the others land around it
    faulty.fault = lambda: None
    poison = "password: hunter2hunter2 is what broke it"

    def capture(scope, messages, **kw):
        faulty.calls += 1
        if any(m.id == "p-bad" for m in messages):
            raise RuntimeError(f"unexpected failure while storing {messages[0].content!r}")
        return hosts[0].capture(scope, messages, **kw)

    faulty.capture = capture
    consumer = CaptureConsumer(faulty, rurl, claim_idle_s=0.2, retry_hours=2.0 / 3600).start()
    try:
        _put(rurl, alice.user_id, "p-bad", poison, at)
        for n in range(3):
            _put(rurl, alice.user_id, f"p{n}", f"a fine turn {n}", at)
        assert _wait(lambda: consumer.stored == 3)
        assert _wait(lambda: r.hlen(FAILING) == 1, timeout=2)  # failing, visible, not yet set aside
        assert consumer.quarantined == 0
        assert _wait(lambda: consumer.quarantined == 1, timeout=20)  # after retry_hours (2 s here)
        aside = set_aside(r, alice.user_id)
        assert len(aside) == 1 and aside[0]["error"].startswith("RuntimeError") and "2 h" not in aside[0]["error"]
        blob = json.dumps(aside)
        assert "hunter2" not in blob and "[redacted: password]" in blob  # the entry and the error, redacted again
        assert r.hlen(FAILING) == 0 and r.xlen(STREAM) == 0
        faulty.capture = lambda scope, messages, **kw: hosts[0].capture(scope, messages, **kw)  # fixed
        assert replay(r, alice.user_id) == 1 and r.xlen(QUARANTINE) == 0
        assert _wait(lambda: consumer.stored == 4)
        assert replay(r, alice.user_id) == 0
    finally:
        consumer.stop()
    ids = [m.id for m in hosts[0].messages(alice) if m.id.startswith("p")]
    assert sorted(ids) == ["p-bad", "p0", "p1", "p2"]
    stored = next(m for m in hosts[0].messages(alice) if m.id == "p-bad")
    assert "hunter2" not in stored.content


def test_a_refused_entry_is_set_aside_at_once_redacted_and_a_forget_removes_it(hosts, servers, alice):
    """The proxy redacts before it journals; an entry from a proxy that did not (an older version)
    is redacted again on its way into the quarantine."""
    from core.capture_queue import forget_set_aside, purge_set_aside, set_aside

    _, rurl = servers
    r = redis.Redis.from_url(rurl)
    at = datetime(2026, 3, 3, 11, 0, tzinfo=timezone.utc)
    secret = "sk-proj-AbCdEf0123456789AbCdEf0123456789xyz"
    consumer = CaptureConsumer(hosts[0], rurl, claim_idle_s=0.2).start()
    try:
        async def produce() -> None:
            q = CaptureQueue(rurl)
            bad = {"id": "r-bad", "role": "narrator", "content": f"my boat Kestrel's key is {secret}"}
            await q.put(alice.user_id, [{"user": alice.user_id, "command": f"my boat Kestrel's key is {secret}", "messages": [bad]}])
            await q.aclose()

        asyncio.run(produce())
        assert _wait(lambda: consumer.quarantined == 1, timeout=10)
        (item,) = set_aside(r, alice.user_id)
        assert "malformed" in item["error"] and item["set_aside_at"] and item["entry"]
        raw = " ".join(v.decode() for _, fields in r.xrange(QUARANTINE) for v in fields.values())
        assert secret not in raw and "[redacted: api key]" in raw
        # a forget the user says later removes what was set aside and says it
        _put(rurl, alice.user_id, "r-forget", "forget that my boat is called Kestrel", at, command="forget that my boat is called Kestrel")
        assert _wait(lambda: r.xlen(QUARANTINE) == 0, timeout=10), set_aside(r)
    finally:
        consumer.stop()
    # and set-aside entries go after the message retention
    r.xadd(QUARANTINE, {"user": "x", "entries": "[]", "error": "old"})
    assert forget_set_aside(r, "someone-else", lambda t: True) == 0
    assert purge_set_aside(r, 14, now=time.time() + 15 * 86400) == 1 and r.xlen(QUARANTINE) == 0


# ---- write locks that do not outlive their holder (issue 35) --------------------------------------


def test_a_lock_whose_holder_died_is_taken_over_in_seconds_not_its_lifetime(servers, alice):
    _, rurl = servers
    gone = RedisCoordination(rurl, alive_ttl_s=1.0)  # lock_ttl_s stays 30 s
    here = RedisCoordination(rurl, lock_wait_s=10)
    try:
        gone.take(stale := gone.user_lock(alice.user_id))
        assert stale.token.endswith(":" + gone.id)
        gone.close()  # the process is gone without releasing (a kill leaves the same: its alive key expires)
        gone.r.set(gone.alive_key, "1", px=1000)  # as a killed host leaves it: alive for one more second
        started = time.monotonic()
        with here.user_lock(alice.user_id) as lock:
            waited = time.monotonic() - started
            assert lock.token != stale.token
            here.check_fence()
        assert waited < 15, waited  # the lock had 30 s to live: not waited out (a margin for a busy machine)
    finally:
        here.close()


def test_tokens_stay_unique_when_redis_restarts_empty(servers, alice):
    """Redis restarted without its data: fence counters start again, and a holder from before must
    not find its old token equal to the new holder's."""
    _, rurl = servers
    before, after = RedisCoordination(rurl), RedisCoordination(rurl)
    try:
        with before.user_lock(alice.user_id) as held:
            r = redis.Redis.from_url(rurl)
            # what an empty restart leaves: no lock, and a counter that will hand out the same number again
            r.delete(f"amber:lock:{owner_key(alice.user_id)}")
            r.set(f"amber:fence:{owner_key(alice.user_id)}", int(held.token.split(":")[0]) - 1)
            with after.user_lock(alice.user_id) as taken:
                assert taken.token.split(":")[0] == held.token.split(":")[0]
                with pytest.raises(Busy, match="lost the user's write lock"):
                    before.check_fence()
    finally:
        before.close()
        after.close()


def test_a_lock_released_while_redis_restarts_is_released_when_it_is_back(tmp_path, alice):
    """A holder finished while Redis was restarting, so its release did not arrive; Redis comes back
    with the lock (append-only file) and the holder's watchdog releases it: another host waits
    about a second, not the lock's 30 s."""
    port = free_port()
    with redis_server(tmp_path / "r", port=port) as rurl:
        holder = RedisCoordination(rurl, lock_wait_s=1)
        lock = holder.user_lock(alice.user_id)
        lock.__enter__()
        redis.Redis.from_url(rurl).execute_command("CONFIG", "SET", "appendfsync", "always")
    try:
        lock.__exit__(None, None, None)  # Redis is down: the release is not answered
        assert holder.status()["ok"] is False
        with redis_server(tmp_path / "r", port=port) as rurl:
            r = redis.Redis.from_url(rurl)
            key = f"amber:lock:{owner_key(alice.user_id)}"
            assert r.get(key) is not None and r.pttl(key) > 20_000  # it survived the restart
            other = RedisCoordination(rurl, lock_wait_s=10)
            try:
                started = time.monotonic()
                with other.user_lock(alice.user_id):
                    waited = time.monotonic() - started
                assert waited < 15, waited  # not the lock's 30 s (a margin for a busy machine)
            finally:
                other.close()
    finally:
        holder.close()


def test_a_holder_that_died_while_redis_restarted_is_taken_over_not_waited_out(tmp_path, alice, caplog):
    """The holder is gone while Redis is down (killed: no release, and the delete of its alive key
    never arrives); Redis comes back from its append-only file with the lock, which has most of its
    30 s to live. Another host takes it over once the dead holder's alive key runs out (fencing: the
    holder's id in the token), rather than waiting out the lock's lifetime; the log says so."""
    port = free_port()
    with redis_server(tmp_path / "r", port=port) as rurl:
        redis.Redis.from_url(rurl).execute_command("CONFIG", "SET", "appendfsync", "always")
        holder = RedisCoordination(rurl)  # alive_ttl_s 5, lock_ttl_s 30
        stale = holder.user_lock(alice.user_id)
        stale.__enter__()
    holder.close()  # Redis is down: nothing is released or deleted, as after a kill
    with redis_server(tmp_path / "r", port=port) as rurl:
        r = redis.Redis.from_url(rurl)
        key = f"amber:lock:{owner_key(alice.user_id)}"
        assert r.get(key) is not None and r.get(key).decode() == stale.token  # it survived the restart
        other = RedisCoordination(rurl, lock_wait_s=60)  # longer than the lock's life: the log tells which way it ended
        try:
            with caplog.at_level("WARNING", logger="amber"):
                with other.user_lock(alice.user_id) as taken:
                    assert taken.token != stale.token
                    other.check_fence()
            assert any("taken over from a holder that is gone" in m for m in caplog.messages), caplog.messages
        finally:
            other.close()


def test_set_aside_entries_show_in_the_admin_rest_and_doctor_and_go_back_on_the_queue(servers, alice, tmp_path, monkeypatch, capsys):
    """A host's own consumer sets a malformed entry aside; GET /v1/capture/set-aside lists it (what
    the admin page shows), `amber doctor` names it with the way back, and POST /v1/capture/replay
    puts it back on the queue, where the host reads it again (and, malformed still, sets it aside
    again: nothing is lost on the way)."""
    import httpx

    from mcp_server.app import create_app
    from mcp_server.cli import main as amber
    from tests.kit.servers import serve_app

    chroma, rurl = servers
    r = redis.Redis.from_url(rurl)
    r.flushdb()
    admin = "k-coordination-admin-93f1"
    settings = Settings(chroma_url=chroma, redis_url=rurl, api_keys=[{"name": "admin", "secret": admin, "scopes": ["memory:admin"]}])
    h = {"Authorization": f"Bearer {admin}"}
    service = build_service(settings, embedder=HashEmbedder())
    try:
        with serve_app(create_app(service, settings)) as base:
            async def produce() -> None:
                q = CaptureQueue(rurl)
                await q.put(alice.user_id, [{"client": "chatbox", "messages": [{"id": "odd", "role": "narrator", "content": "?"}]}])
                await q.aclose()

            asyncio.run(produce())
            assert _wait(lambda: r.xlen(QUARANTINE) == 1, timeout=30)
            body = httpx.get(f"{base}/v1/capture/set-aside", headers=h, timeout=10).json()
            row, = body["queue"]["set_aside"]
            assert body["queue"]["count"] == 1 and row["user"] == alice.user_id and row["client"] == "chatbox" and row["turns"] == 1, body
            assert "malformed" in row["error"], row

            for name in [n for n in os.environ if n.startswith("AMBER_")]:
                monkeypatch.delenv(name)
            monkeypatch.chdir(tmp_path)
            capsys.readouterr()
            amber(["--config", str(tmp_path / "none.yaml"), "doctor", "--url", base, "--no-llm", "--key", admin])
            out = capsys.readouterr().out
            assert "1 captured entry set aside in the shared capture queue" in out and "/v1/capture/replay" in out, out

            assert httpx.post(f"{base}/v1/capture/replay", headers=h, timeout=10).json() == {"replayed": 1}
            queue = lambda: httpx.get(f"{base}/health", headers=h, timeout=10).json()["coordination"]["capture_queue"]  # noqa: E731
            assert _wait(lambda: queue()["quarantined_here"] == 2 and r.xlen(QUARANTINE) == 1, timeout=30), queue()
            # without a key, /health says whether the queue works, not how busy everyone's chats keep it
            anon = httpx.get(f"{base}/health", timeout=10).json()["coordination"]["capture_queue"]
            assert set(anon) == {"down_since", "backing_off_s"}, anon
    finally:
        service.close()
