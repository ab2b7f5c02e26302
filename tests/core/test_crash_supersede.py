"""Crash-safe supersede: a writer killed (`kill -9`) at random points in a burst of keyed writes never
leaves two active versions of a key, neither in the raw store nor as any reader sees it after
reopening; a store that already holds duplicates is repaired when it is opened."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

import pytest

from core import Actor, MemoryIn, Settings, Status, build_boot, build_service, scope_for
from core.filters import Eq, Where
from core.scope import memory_collection
from core.service import MemoryService
from core.testing import HashEmbedder

pytestmark = pytest.mark.e2e
WRITER = Path(__file__).with_name("crash_writer.py")
ROUNDS = int(os.environ.get("AMBER_CRASH_ROUNDS", "12"))


RAW_READ = """
import json, sys
from collections import Counter
from core import Actor, scope_for
from core.filters import Eq, Where
from core.scope import memory_collection
from core.store import ChromaStore
from core.testing import HashEmbedder
emb = HashEmbedder()
store = ChromaStore(data_dir=sys.argv[1], embedder_id=emb.id, dim=emb.dim)
col = memory_collection(scope_for(Actor("crash")))
print(json.dumps(Counter(m.fact_key for m in store.find_memories(col, Where.of(Eq("status", "active"))) if m.fact_key)))
store.close()
"""


def raw_active_keys(data_dir: Path) -> Counter:
    """Active versions per key as stored, read without Amber's repair or read-time filter, in a child
    process: a store a kill left in a state Chroma's reader cannot take (a segfault, as one did before
    index_repair.whole) fails this test with its exit status instead of ending the whole test run."""
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[2]), "OMP_WAIT_POLICY": "PASSIVE"}
    out = subprocess.run([sys.executable, "-c", RAW_READ, str(data_dir)], env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, (out.returncode, out.stderr[-3000:])
    return Counter(json.loads(out.stdout.strip().splitlines()[-1]))


def kill_writer_at_random(data_dir: Path, round_: int, rnd: random.Random, *extra: str) -> None:
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[2]), "OMP_WAIT_POLICY": "PASSIVE"}
    proc = subprocess.Popen([sys.executable, str(WRITER), str(data_dir), str(round_), *extra], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()
        assert line.strip() == "ready", proc.stderr.read()
        time.sleep(rnd.uniform(0.0, 0.6))
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)


def test_a_killed_writer_never_leaves_two_active_versions(tmp_path):
    rnd = random.Random(11)
    data_dir = tmp_path / "data"
    for round_ in range(ROUNDS):
        kill_writer_at_random(data_dir, round_, rnd)
        counts = raw_active_keys(data_dir)
        assert counts and max(counts.values()) == 1, (round_, counts)
    service = build_service(Settings(data_dir=data_dir, embedding_model="hash"), embedder=HashEmbedder())
    try:
        me = scope_for(Actor("crash"))
        active = service.list(me, limit=500).items
        assert sorted(Counter(m.fact_key for m in active).values()) == [1, 1, 1, 1]
        # the chain still holds: the next write supersedes the one active version
        w = service.remember(me, MemoryIn(content="lives in Porto now", fact_key="profile.city"))
        assert w.action == "superseded" and w.previous.status == Status.superseded
        assert [m.content for m in service.list(me, limit=500).items if m.fact_key == "profile.city"] == ["lives in Porto now"]
    finally:
        service.close()


def test_a_store_with_duplicates_is_repaired_on_open(tmp_path):
    """Two active versions of a key, as an interrupted write used to leave them: reopening keeps the newest."""
    data_dir = tmp_path / "data"
    settings = Settings(data_dir=data_dir, embedding_model="hash")
    service = build_service(settings, embedder=HashEmbedder())
    me = scope_for(Actor("crash"))
    old = service.remember(me, MemoryIn(content="Lisbon", fact_key="profile.city")).memory
    new = service.remember(me, MemoryIn(content="Porto", fact_key="profile.city")).memory
    service.store.put_memories(memory_collection(me), [old], None)  # undo the retirement: two active now
    # readers already see one: the memory list and the boot pack
    assert [m.content for m in service.list(me).items] == ["Porto"]
    assert build_boot(service, me, "UTC")["counts"] == {"fact": 1}
    service.close()
    assert raw_active_keys(data_dir) == Counter({"profile.city": 2})
    service = build_service(settings, embedder=HashEmbedder())
    try:
        assert service.repairs.done.wait(60)  # checked in the background once the host is up
        assert service.repairs.repaired == 1
        assert raw_active_keys_of(service, me) == Counter({"profile.city": 1})
        fixed = service.get(me, old.id)
        assert fixed.status == Status.superseded and fixed.superseded_by == new.id
        assert any(e.action == "repair" for e in service.events(me))
    finally:
        service.close()


def raw_active_keys_of(service, scope) -> Counter:
    found = service.store.find_memories(memory_collection(scope), Where.of(Eq("status", "active")))
    return Counter(m.fact_key for m in found if m.fact_key)


def test_the_check_at_opening_runs_beside_the_host_and_locks_only_who_needs_a_repair(tmp_path, monkeypatch):
    """With thousands of people the check at opening held a host's start for minutes and took every
    person's write lock (on a shared Chroma, every other host's writes waited behind it). It runs in
    the background now, reads without the lock, and locks only the person with a duplicate."""
    from core.write_path import WritePath

    data_dir = tmp_path / "data"
    settings = Settings(data_dir=data_dir, embedding_model="hash")
    service = build_service(settings, embedder=HashEmbedder())
    people = [scope_for(Actor(f"p{i}")) for i in range(30)]
    first = {p.user_id: service.remember(p, MemoryIn(content=f"lives in town {p.user_id}", fact_key="profile.city")).memory for p in people}
    broken = people[7]
    service.remember(broken, MemoryIn(content="lives in Lisbon", fact_key="profile.city"))
    service.store.put_memories(memory_collection(broken), [first["p7"]], None)  # undo the retirement: two active now
    service.close()

    locked: list[str] = []
    real_lock = WritePath.lock
    monkeypatch.setattr(WritePath, "lock", lambda self, scope: (locked.append(scope.user_id), real_lock(self, scope))[1])
    gate = threading.Event()
    real_users = MemoryService.users
    monkeypatch.setattr(MemoryService, "users", lambda self: (gate.wait(60), real_users(self))[1])
    service = build_service(settings, embedder=HashEmbedder())  # returns while the check waits at its start
    try:
        assert not service.repairs.done.is_set()
        assert [m.content for m in service.list(broken).items if m.fact_key == "profile.city"] == ["lives in Lisbon"]  # readers see one
        gate.set()
        assert service.repairs.done.wait(60) and service.repairs.repaired == 1
        assert [u for u in locked if u.startswith("p")] == ["p7"]
        assert raw_active_keys_of(service, broken) == Counter({"profile.city": 1})
    finally:
        service.close()
