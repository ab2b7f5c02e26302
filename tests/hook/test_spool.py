"""The capture journal: durable first, stored in batches, never replayed forever.

The store function is the drainer's only collaborator; here it is a small scripted one (the
real backends are exercised through the proxy in test_fail_open and test_never_crash).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

from core import InvalidInput, StoreUnavailable
from litellm_hooks.spool import Spool


def entry(user: str, n: int) -> dict:
    return {"user": user, "client": "t", "command": "", "messages": [{"id": f"{user}-{n}", "role": "user", "content": f"turn {n}"}]}


class Store:
    """Stores batches; refuses entries whose id is in `poison`; everything fails while `down`."""

    def __init__(self, poison=(), permanent=()):
        self.poison, self.permanent, self.down = set(poison), set(permanent), False
        self.batches: list[tuple[str, list[str]]] = []

    async def __call__(self, user, entries):
        ids = [e["messages"][0]["id"] for e in entries]
        if self.down:
            raise StoreUnavailable("host unreachable")
        if self.permanent & set(ids):
            raise InvalidInput("messages", "refused")
        if self.poison & set(ids):
            raise StoreUnavailable("worker died")
        self.batches.append((user, ids))


def stored(store: Store) -> set[str]:
    return {i for _, ids in store.batches for i in ids}


async def test_entries_are_stored_in_batches_per_user(tmp_path):
    spool, store = Spool(tmp_path), Store()
    for n in range(5):
        spool.append(entry("ann", n))
        spool.append(entry("bob", n))
    assert await spool.drain_once(store)
    assert sorted(u for u, _ in store.batches) == ["ann", "bob"]  # one batch each
    assert len(stored(store)) == 10 and not spool.pending()


async def test_a_poison_entry_is_quarantined_while_others_land(tmp_path):
    spool, store = Spool(tmp_path, max_attempts=3), Store(poison={"ann-1"})
    for n in range(3):
        spool.append(entry("ann", n))
    for _ in range(3):
        await spool.drain_once(store)
    assert stored(store) == {"ann-0", "ann-2"} and not spool.pending()
    q = [json.loads(x) for x in (tmp_path / "quarantine.ndjson").read_text().splitlines()]
    assert [x["messages"][0]["id"] for x in q] == ["ann-1"] and q[0]["attempts"] == 3 and "worker died" in q[0]["error"]


async def test_a_refused_entry_is_quarantined_at_once(tmp_path):
    spool, store = Spool(tmp_path), Store(permanent={"ann-0"})
    spool.append(entry("ann", 0))
    spool.append(entry("ann", 1))
    await spool.drain_once(store)
    assert stored(store) == {"ann-1"} and spool.quarantined == 1 and not spool.pending()


async def test_nothing_is_quarantined_while_the_backend_is_down(tmp_path):
    spool, store = Spool(tmp_path, max_attempts=2), Store()
    store.down = True
    for n in range(4):
        spool.append(entry("ann", n))
    for _ in range(6):
        assert not await spool.drain_once(store)
    assert spool.quarantined == 0 and spool.pending()
    store.down = False
    assert await spool.drain_once(store)
    assert stored(store) == {f"ann-{n}" for n in range(4)} and not spool.pending()


async def test_files_of_dead_processes_are_claimed_and_live_ones_left(tmp_path):
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    (tmp_path / f"{dead.pid}.jsonl").write_text(json.dumps(entry("ann", 1)) + "\n")
    (tmp_path / f"{dead.pid}.replay-{dead.pid}").write_text(json.dumps(entry("ann", 2)) + "\n")  # a drainer that died mid-round
    live = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        (tmp_path / f"{live.pid}.jsonl").write_text(json.dumps(entry("bob", 1)) + "\n")
        spool, store = Spool(tmp_path), Store()
        await spool.drain_once(store)
        assert stored(store) == {"ann-1", "ann-2"}
        assert (tmp_path / f"{live.pid}.jsonl").exists()  # its owner drains it
    finally:
        live.kill()
        live.wait()


def test_append_is_durable_before_it_returns(tmp_path):
    spool = Spool(tmp_path)
    spool.append(entry("ann", 0))
    path = tmp_path / f"{os.getpid()}.jsonl"
    assert json.loads(path.read_text())["user"] == "ann"
