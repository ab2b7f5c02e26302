"""The capture journal: durable first, stored in batches, outages waited out, refusals set aside,
what is set aside visible, replayable, purged and forgettable, and a disk budget of its own.

The store function is the drainer's only collaborator; here it is a small scripted one (the real
backends are exercised through the proxy in test_fail_open, test_never_crash and test_spool_outage).
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import subprocess
import sys
from collections import Counter
from datetime import timedelta

import httpx
import pytest

from core import EmbedderUnavailable, Forbidden, InvalidInput, Redactor, Settings, StoreUnavailable, Timeout
from litellm_hooks.spool import MAX_BACKOFF_S, Spool
from mcp_server.cli import main as amber
from tests.kit.servers import free_port


def entry(user: str, n: int, text: str | None = None) -> dict:
    words = text or f"turn {n}"
    return {"user": user, "client": "t", "command": words, "messages": [{"id": f"{user}-{n}", "role": "user", "content": words}]}


class Store:
    """Stores batches; `poison` ids fail (an outage-like error) and `refuse` ids are refused by
    name; while `down`, everything fails with `error`."""

    def __init__(self, poison=(), refuse=(), error: Exception | None = None):
        self.poison, self.refuse, self.down = set(poison), set(refuse), False
        self.error = error or StoreUnavailable("host unreachable")
        self.batches: list[tuple[str, list[str]]] = []
        self.calls = self.calls_down = 0

    async def __call__(self, user, entries):
        self.calls += 1
        ids = [e["messages"][0]["id"] for e in entries]
        if self.down:
            self.calls_down += 1
            raise self.error
        if self.refuse & set(ids):
            raise InvalidInput("messages", "refused")
        if self.poison & set(ids):
            raise StoreUnavailable("worker died")
        self.batches.append((user, ids))


def stored(store: Store) -> Counter:
    return Counter(i for _, ids in store.batches for i in ids)


def quarantine(tmp_path) -> list[dict]:
    path = tmp_path / "quarantine.ndjson"
    return [json.loads(x) for x in path.read_text().splitlines()] if path.exists() else []


class Clock:
    """Fake time for both of the spool's clocks (the backoff timer and the wall clock)."""

    def __init__(self):
        self.t = 0.0

    def mono(self) -> float:
        return self.t

    def wall(self) -> float:
        return 1_800_000_000 + self.t


def fake_time_spool(tmp_path, **kw) -> tuple[Spool, Clock]:
    clock = Clock()
    return Spool(tmp_path, clock=clock.mono, now=clock.wall, **kw), clock


async def test_entries_are_stored_in_batches_per_user(tmp_path):
    spool, store = Spool(tmp_path), Store()
    for n in range(5):
        spool.append(entry("ann", n))
        spool.append(entry("bob", n))
    assert await spool.drain_once(store)
    assert sorted(u for u, _ in store.batches) == ["ann", "bob"]  # one batch each
    assert len(stored(store)) == 10 and not spool.pending()


async def test_a_steady_chat_through_a_60s_outage_loses_nothing_and_waits_for_the_backoff(tmp_path):
    """3 chats a second from three users; memory away for 60 s. Each chat wakes the drainer, as the
    hook does; a round runs only when the backoff allows (the drain loop's rule, `due()`)."""
    spool, clock = fake_time_spool(tmp_path)
    store = Store()
    sent, rounds_down, delays = [], 0, []
    n = 0
    while clock.t < 120:
        store.down = clock.t < 60
        user = ("ann", "bob", "cat")[n % 3]
        spool.append(entry(user, n))
        sent.append(f"{user}-{n}")
        n += 1
        if spool.due():  # the wake runs a round only outside the backoff
            rounds_down += store.down
            await spool.drain_once(store)
            delays.append(spool.delay)
        clock.t += 1 / 3
    while spool.pending() and clock.t < 200:  # the last chats: the timer's rounds
        if spool.due():
            await spool.drain_once(store)
        clock.t += 1
    assert quarantine(tmp_path) == [] and not spool.pending()
    assert stored(store) == Counter(sent)  # every turn exactly once
    assert max(delays) == MAX_BACKOFF_S
    # 1, 2, 4, 8, 16, 30 s: 7 rounds in 60 s, where waking on every chat gave 180
    assert rounds_down <= 8, rounds_down
    # a full round tries two users (a batch and two singles each), a probe one turn
    assert store.calls_down <= 2 * 6 + 6, store.calls_down


async def test_the_real_drain_loop_rides_out_an_outage_with_wakes_every_300ms(tmp_path):
    """The loop itself, with real asyncio time: wakes during the backoff run no round; after the
    outage every turn is stored exactly once and nothing is set aside."""
    spool, store = Spool(tmp_path), Store()
    rounds: list[bool] = []
    drain_once = spool.drain_once

    async def counted(s):
        rounds.append(store.down)
        return await drain_once(s)

    spool.drain_once = counted
    task = asyncio.create_task(spool.drain(store, idle_s=5))
    sent = []
    try:
        store.down = True
        for n in range(9):  # 2.7 s of outage
            await spool.put(entry(("ann", "bob")[n % 2], n))
            sent.append(f"{('ann', 'bob')[n % 2]}-{n}")
            await asyncio.sleep(0.3)
        store.down = False
        for n in range(9, 13):
            await spool.put(entry("ann", n))
            sent.append(f"ann-{n}")
            await asyncio.sleep(0.3)
        for _ in range(100):
            if stored(store) == Counter(sent):
                break
            await asyncio.sleep(0.1)
    finally:
        task.cancel()
    assert stored(store) == Counter(sent)
    assert quarantine(tmp_path) == [] and not spool.pending()
    assert rounds.count(True) <= 3, rounds  # at 0, 1 and 3 s: 9 wakes, 3 rounds


async def test_a_long_journal_is_stored_in_bounded_rounds_oldest_first(tmp_path):
    spool, store = Spool(tmp_path, batch_max=2, round_max=4), Store()
    for n in range(10):
        spool.append(entry("ann", n))
    assert await spool.drain_once(store)
    assert [i for _, ids in store.batches for i in ids] == ["ann-0", "ann-1", "ann-2", "ann-3"] and spool.more
    while spool.more:  # the drain loop runs the next round at once
        await spool.drain_once(store)
    assert [i for _, ids in store.batches for i in ids] == [f"ann-{n}" for n in range(10)] and not spool.pending()


async def test_during_an_outage_a_round_asks_with_one_turn_and_leaves_the_journal_alone(tmp_path):
    spool, clock = fake_time_spool(tmp_path)
    store = Store()
    store.down = True
    for n in range(50):
        spool.append(entry(f"u{n % 5}", n))
    assert not await spool.drain_once(store)
    journal = sorted((p.name, p.stat().st_mtime_ns) for p in tmp_path.iterdir() if p.suffix == ".jsonl")
    calls = store.calls
    for _ in range(3):
        clock.t += MAX_BACKOFF_S
        assert not await spool.drain_once(store)
    assert store.calls == calls + 3
    assert sorted((p.name, p.stat().st_mtime_ns) for p in tmp_path.iterdir() if p.suffix == ".jsonl") == journal
    store.down = False
    clock.t += MAX_BACKOFF_S
    assert await spool.drain_once(store)
    assert stored(store) == Counter(f"u{n % 5}-{n}" for n in range(50)) and not spool.pending()


async def test_a_poison_turn_at_the_head_cannot_hide_the_end_of_an_outage(tmp_path):
    spool, clock = fake_time_spool(tmp_path)
    store = Store(poison={"ann-0"})
    store.down = True
    for n in range(5):
        spool.append(entry("ann", n))
    for _ in range(3):
        assert not await spool.drain_once(store)
        clock.t += MAX_BACKOFF_S
    store.down = False  # back, but the oldest turn still fails like an outage
    for _ in range(4):
        if await spool.drain_once(store):
            break
        clock.t += MAX_BACKOFF_S
    assert set(stored(store)) == {f"ann-{n}" for n in range(1, 5)} and spool.delay == 0


async def test_a_poison_entry_waits_on_its_own_timer_and_is_never_set_aside(tmp_path):
    spool, clock = fake_time_spool(tmp_path)
    store = Store(poison={"ann-1"})
    for n in range(3):
        spool.append(entry("ann", n))
    assert await spool.drain_once(store)  # the others landed: not an outage
    assert stored(store) == Counter({"ann-0": 1, "ann-2": 1})
    spool.append(entry("ann", 3))
    spool.append(entry("ann", 4))
    store.batches.clear()
    await spool.drain_once(store)
    assert store.batches == [("ann", ["ann-3", "ann-4"])]  # one batch: the poison waits apart
    clock.t += 3600 * 1000  # however long it keeps failing
    for _ in range(3):
        await spool.drain_once(store)
        clock.t += MAX_BACKOFF_S
    assert quarantine(tmp_path) == [] and spool.pending()
    store.poison.clear()
    await spool.drain_once(store)
    assert stored(store)["ann-1"] == 1 and not spool.pending()


async def test_a_refused_entry_is_set_aside_at_once_with_its_time(tmp_path):
    spool, clock = fake_time_spool(tmp_path)
    store = Store(refuse={"ann-0"})
    spool.append(entry("ann", 0))
    spool.append(entry("ann", 1))
    assert await spool.drain_once(store)
    q = quarantine(tmp_path)
    assert stored(store) == Counter({"ann-1": 1}) and not spool.pending()
    assert [x["messages"][0]["id"] for x in q] == ["ann-0"] and "InvalidInput" in q[0]["error"]
    assert q[0]["quarantined_at"] == "2027-01-15T08:00:00+00:00"


@pytest.mark.parametrize("error", [
    StoreUnavailable("Amber host answered 503: store_unavailable"), EmbedderUnavailable("worker died"), Timeout("slow"),
    ConnectionRefusedError(111, "refused"), TimeoutError(), httpx.ConnectError("refused"),
])
async def test_an_outage_is_waited_out_however_long_it_lasts(tmp_path, error):
    spool, clock = fake_time_spool(tmp_path, retry_hours=1)
    store = Store(error=error)
    store.down = True
    for n in range(4):
        spool.append(entry("ann", n))
    for _ in range(20):
        assert not await spool.drain_once(store)
        clock.t += 24 * 3600
    assert quarantine(tmp_path) == [] and spool.status()["pending"] == 4
    store.down = False
    assert await spool.drain_once(store)
    assert stored(store) == Counter(f"ann-{n}" for n in range(4)) and not spool.pending()


async def test_a_setup_refusal_is_retried_for_capture_retry_hours_then_set_aside(tmp_path):
    """A key the host refuses is about the setup, not the turn: backed off and retried, set aside
    only after `capture_retry_hours` of failing, and then replayable."""
    spool, clock = fake_time_spool(tmp_path, retry_hours=2)
    store = Store(error=Forbidden("key not known"))
    store.down = True
    spool.append(entry("ann", 0))
    assert not await spool.drain_once(store)
    clock.t += 3600
    assert not await spool.drain_once(store)
    assert quarantine(tmp_path) == [] and spool.pending()
    clock.t += 3601
    await spool.drain_once(store)
    q = quarantine(tmp_path)
    assert [x["messages"][0]["id"] for x in q] == ["ann-0"] and q[0]["attempts"] == 2 and "Forbidden" in q[0]["error"]


async def test_waiting_turns_keep_their_order(tmp_path):
    """A "remember" journaled before a "forget" is stored before it, after an outage too."""
    spool, clock = fake_time_spool(tmp_path)
    store = Store()
    store.down = True
    for n in range(6):
        spool.append(entry("ann", n))
        if spool.due():
            await spool.drain_once(store)
        clock.t += 1
    store.down = False
    clock.t += MAX_BACKOFF_S
    await spool.drain_once(store)  # the oldest alone (is memory back?), then the rest in one batch
    assert store.batches == [("ann", ["ann-0"]), ("ann", [f"ann-{n}" for n in range(1, 6)])]


async def test_status_says_what_waits_why_and_until_when(tmp_path):
    spool, clock = fake_time_spool(tmp_path)
    store = Store(refuse={"bob-0"})
    spool.append(entry("bob", 0))
    await spool.drain_once(store)
    store.down = True
    spool.append(entry("ann", 1))
    clock.t += 10
    spool.append(entry("ann", 2))
    await spool.drain_once(store)
    s = spool.status()
    assert s["pending"] == 2 and s["quarantined"] == 1 and s["oldest_pending_age_s"] == 10
    assert "StoreUnavailable" in s["last_error"] and "InvalidInput" in s["last_quarantined"][0]
    assert s["bytes"] > 0 and not s["full"]
    spool._loop = asyncio.get_running_loop()  # as if draining: the backoff is this process's own
    assert spool.status()["backing_off_until"] == "2027-01-15T08:00:11+00:00"


async def test_replay_moves_set_aside_turns_back_and_they_are_stored_once(tmp_path, capsys):
    spool, store = Spool(tmp_path / "spool"), Store(refuse={"ann-0", "bob-0"})
    for user in ("ann", "bob"):
        spool.append(entry(user, 0))
    await spool.drain_once(store)
    assert len(quarantine(tmp_path / "spool")) == 2
    assert amber(["spool", "status", "--data-dir", str(tmp_path)]) == 0
    assert "set aside    2 exchange(s)" in capsys.readouterr().out
    assert amber(["spool", "replay", "--data-dir", str(tmp_path), "--user", "ann"]) == 0
    assert "1 exchange(s) of user 'ann' moved back" in capsys.readouterr().out
    assert [x["user"] for x in quarantine(tmp_path / "spool")] == ["bob"]
    store.refuse.clear()  # the cause is fixed
    await spool.drain_once(store)
    assert stored(store) == Counter({"ann-0": 1}) and not spool.pending()
    assert spool.replay() == 1 and quarantine(tmp_path / "spool") == []
    await spool.drain_once(store)
    assert stored(store) == Counter({"ann-0": 1, "bob-0": 1})


async def test_set_aside_turns_are_purged_after_the_retention(tmp_path):
    spool, clock = fake_time_spool(tmp_path)
    store = Store(refuse={"ann-0", "ann-1"})
    spool.append(entry("ann", 0))
    await spool.drain_once(store)
    clock.t += 10 * 86400
    spool.append(entry("ann", 1))
    await spool.drain_once(store)
    assert spool.purge_quarantine(timedelta(days=14)) == 0
    clock.t += 5 * 86400
    assert spool.purge_quarantine(timedelta(days=14)) == 1
    assert [x["messages"][0]["id"] for x in quarantine(tmp_path)] == ["ann-1"]


async def test_the_drainer_purges_the_quarantine_with_the_message_retention(tmp_path):
    (tmp_path / "quarantine.ndjson").write_text(json.dumps({**entry("ann", 0), "quarantined_at": "2020-01-01T00:00:00+00:00"}) + "\n")
    spool = Spool(tmp_path, retention_days=14)
    task = asyncio.create_task(spool.drain(Store(), idle_s=0.05))
    try:
        for _ in range(50):
            await asyncio.sleep(0.05)
            if not quarantine(tmp_path):
                break
    finally:
        task.cancel()
    assert quarantine(tmp_path) == []


async def test_forget_removes_a_users_waiting_and_set_aside_turns_that_say_it(tmp_path):
    spool, store = Spool(tmp_path), Store(refuse={"ann-0"})
    spool.append(entry("ann", 0, "my locker code is in the blue notebook"))
    await spool.drain_once(store)  # set aside
    store.down = True
    spool.append(entry("ann", 1, "the blue notebook is in the attic"))
    spool.append(entry("ann", 2, "we went sailing"))
    spool.append(entry("bob", 3, "my blue notebook has recipes"))  # another user's words stay
    await spool.drain_once(store)
    assert spool.forget("ann", lambda text: "blue notebook" in text) == 2
    left = [e["messages"][0]["id"] for e in spool.read(spool._pending_files())]
    assert sorted(left) == ["ann-2", "bob-3"] and quarantine(tmp_path) == []


async def test_a_forget_during_a_round_is_not_undone_by_the_round(tmp_path):
    spool = Spool(tmp_path)
    spool.append(entry("ann", 0, "my safe is behind the painting"))

    async def store(user, entries):  # a forget arrives while the round waits on memory, which is away
        await asyncio.to_thread(spool.forget, "ann", lambda text: "painting" in text)
        raise StoreUnavailable("host unreachable")

    assert not await spool.drain_once(store)
    assert not spool.pending() and quarantine(tmp_path) == []


async def test_set_aside_turns_hold_no_secret(tmp_path):
    """The hook redacts before it journals; the quarantine redacts again, error text included (an
    older journal line, a host that quotes the turn in its refusal)."""
    secrets = ["hunter2", "sk-proj-aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3z"]
    said = f"my password is {secrets[0]} and my key is {secrets[1]}"

    async def store(user, entries):
        raise InvalidInput("messages", f"cannot store {entries[0]['messages'][0]['content']!r}")

    spool = Spool(tmp_path, redact=Redactor().text)
    spool.append(entry("ann", 0, said))
    await spool.drain_once(store)
    text = (tmp_path / "quarantine.ndjson").read_text()
    assert "redacted" in text and not any(s in text for s in secrets)


async def test_the_journal_keeps_to_its_budget_and_says_so_once(tmp_path, caplog):
    spool = Spool(tmp_path, max_mb=0.002)  # 2 000 bytes: about ten entries
    caplog.set_level(logging.INFO, logger="amber")
    kept = [spool.append(entry("ann", n)) for n in range(20)]
    assert kept[0] and not kept[-1]
    n_kept = kept.count(True)
    assert spool.size() <= 2000 and spool.status()["full"] and spool.refused == 20 - n_kept
    assert sum("journal full" in r.message for r in caplog.records) == 1
    assert len(spool.read(spool._pending_files())) == n_kept  # nothing journaled was dropped
    store = Store()
    await spool.drain_once(store)
    assert len(stored(store)) == n_kept
    assert spool.append(entry("ann", 99))
    assert sum("room again" in r.message for r in caplog.records) == 1 and not spool.status()["full"]


def test_settings_name_the_journals_limits():
    s = Settings()
    assert s.capture_retry_hours == 72 and s.spool_max_mb == 256


async def test_files_of_dead_processes_are_claimed_and_live_ones_left(tmp_path):
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    (tmp_path / f"{dead.pid}.jsonl").write_text(json.dumps(entry("ann", 1)) + "\n")
    (tmp_path / f"{dead.pid}.replay-{dead.pid}").write_text(json.dumps(entry("ann", 2)) + "\n")  # a drainer that died mid-round
    (tmp_path / f"{dead.pid}.replay-{dead.pid}-1").write_text(json.dumps(entry("ann", 3)) + "\n")  # ... twice
    live = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        (tmp_path / f"{live.pid}.jsonl").write_text(json.dumps(entry("bob", 1)) + "\n")
        spool, store = Spool(tmp_path), Store()
        await spool.drain_once(store)
        assert set(stored(store)) == {"ann-1", "ann-2", "ann-3"}
        assert (tmp_path / f"{live.pid}.jsonl").exists()  # its owner drains it
    finally:
        live.kill()
        live.wait()


def test_append_is_durable_and_private_before_it_returns(tmp_path):
    spool = Spool(tmp_path / "spool")
    spool.append(entry("ann", 0))
    path = tmp_path / "spool" / f"{os.getpid()}.jsonl"
    assert json.loads(path.read_text())["user"] == "ann"
    assert path.stat().st_mode & 0o077 == 0 and (tmp_path / "spool").stat().st_mode & 0o077 == 0


async def test_doctor_names_set_aside_turns_and_the_fix(tmp_path, monkeypatch, capsys):
    spool = Spool(tmp_path / "data" / "spool")
    spool.append(entry("ann", 0))
    await spool.drain_once(Store(refuse={"ann-0"}))
    monkeypatch.setenv("AMBER_DATA_DIR", str(tmp_path / "data"))
    amber(["--config", str(tmp_path / "none.yaml"), "doctor", "--url", f"http://127.0.0.1:{free_port()}", "--no-llm"])
    out = capsys.readouterr().out
    assert "1 captured exchange(s) set aside" in out and "InvalidInput" in out and "amber spool replay" in out


async def test_a_forget_carried_out_by_the_host_clears_what_the_journal_still_holds(tmp_path):
    """The proxy's drainer stores a "forget …" turn; the turns still waiting in the journal and those
    set aside that say it are removed there too (core.forget_request is the matcher)."""
    from core import forget_request
    from litellm_hooks.host import Host

    spool = Spool(tmp_path)
    spool.append(entry("ann", 0, "my locker code is in the blue notebook"))
    await spool.drain_once(Store(refuse={"ann-0"}))  # set aside
    assert len(quarantine(tmp_path)) == 1
    spool.append(entry("ann", 1, "I keep the blue notebook under my bed"))

    class Memory:
        async def capture(self, actor, entries):
            self.got = entries

    host = Host()
    host.spool, host.memory = spool, Memory()
    await host._store_entries("ann", [entry("ann", 2, "forget my blue notebook")])
    assert quarantine(tmp_path) == [] and not spool.pending()
    assert forget_request("I forgot my keys") is None and forget_request("forget my blue notebook")("my BLUE notebook!")
