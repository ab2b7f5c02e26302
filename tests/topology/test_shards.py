"""Users sharded over two Chroma servers, as real processes: two `chroma run`, `redis-server`, two
`amber serve` hosts with `chroma_shards`, and `amber shards move` run (and SIGKILLed) as a command.

One topology for the module (start-up ~15 s).
"""

from __future__ import annotations

import contextlib
import json
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path
from types import SimpleNamespace

import chromadb
import httpx
import pytest
import redis

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from core.scope import user_key  # noqa: E402
from core.store.shards import ShardRoutes, user_key_of  # noqa: E402
from tests.kit.servers import chroma_server, start_all  # noqa: E402
from tests.kit.topology import BIN, RELAY_KEY, AmberHost, redis_server  # noqa: E402

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(240)]

AT = "2026-11-01T09:00:00+00:00"


@pytest.fixture(scope="module")
def topo(tmp_path_factory):
    work = tmp_path_factory.mktemp("shards")
    with contextlib.ExitStack() as stack:
        urls = {name: stack.enter_context(chroma_server(work / name)) for name in ("s1", "s2")}
        redis_url = stack.enter_context(redis_server(work / "redis"))
        hosts = [AmberHost(work / f"host{i}", redis_url=redis_url, name=f"host{i}",
                           amber={"chroma_shards": urls, "jobs_enabled": False}) for i in (1, 2)]
        for h in hosts:
            stack.callback(h.stop)
        start_all(*[h.start for h in hosts])
        yield SimpleNamespace(urls=urls, hosts=hosts, redis=redis.Redis.from_url(redis_url), redis_url=redis_url)


def chroma(url: str):
    host, port = url.removeprefix("http://").split(":")
    return chromadb.HttpClient(host=host, port=int(port))


def records(topo, shard: str, user: str) -> dict[str, list[str]]:
    """Every id of the user's records on one shard, by collection (a list: doubles would show): their
    own collections, and their rows of a collection shared by everyone on the shard (audit events)."""
    client, key = chroma(topo.urls[shard]), user_key(user)
    out = {}
    for c in client.list_collections():
        col = client.get_collection(c.name)
        if user_key_of(c.name) == key:
            out[c.name] = [i for off in range(0, col.count(), 1000) for i in col.get(limit=1000, offset=off, include=[])["ids"]]
        elif c.name == "amber_events":
            for i in col.get(where={"log": f"amber_evt_{key}"}, include=[])["ids"]:
                out.setdefault(f"amber_evt_{key}", []).append(i)
    return out


def route(topo, user: str) -> str | None:
    found = topo.redis.get(f"amber:shard:{user_key(user)}")
    return found.decode() if found else None


def remember(host: AmberHost, user: str, text: str) -> None:
    r = host.rest("POST", "/v1/memories", user=user, json={"content": text})
    assert r.status_code == 200, r.text


def recall(host: AmberHost, user: str, query: str) -> str:
    r = host.rest("POST", "/v1/recall", user=user, json={"query": query})
    assert r.status_code == 200, r.text
    return r.text


def test_each_user_lives_on_the_shard_redis_names_and_either_host_serves_them(topo):
    placer = ShardRoutes(None, list(topo.urls))
    users: dict[str, list[str]] = {"s1": [], "s2": []}
    n = 0
    while min(map(len, users.values())) < 2:  # two new users the hash places on each shard
        n += 1
        u = f"spread-{uuid.uuid4().hex[:6]}-{n}"
        if len(users[placer.hashed(user_key(u))]) < 2:
            users[placer.hashed(user_key(u))].append(u)
    for shard, names in users.items():
        for u in names:
            remember(topo.hosts[0], u, f"{u} keeps bees on the roof")
            assert route(topo, u) == shard
            assert len(records(topo, shard, u)) >= 2 and records(topo, "s2" if shard == "s1" else "s1", u) == {}
            assert "bees" in recall(topo.hosts[1], u, "what does this person keep on the roof?")


def test_a_move_killed_midway_and_run_again_loses_and_doubles_nothing(topo):
    user = f"mover-{uuid.uuid4().hex[:6]}"
    host1, host2 = topo.hosts
    lines = [{"type": "memory", "id": f"m{i}", "content": f"note {i}: the parcel {i} went to depot {i % 7}",
              "user_id": user, "kind": "fact", "created_at": AT, "updated_at": AT} for i in range(600)]
    lines += [{"type": "message", "id": f"t{i}", "role": "user" if i % 2 == 0 else "assistant",
               "content": f"turn {i} about the garden", "session": "s1", "created_at": f"2026-11-01T10:{i % 60:02d}:00+00:00"}
              for i in range(30)]
    r = httpx.post(host1.base + "/v1/import", content="".join(json.dumps(x) + "\n" for x in lines), timeout=120,
                   headers={"Authorization": f"Bearer {RELAY_KEY}", "X-Amber-User": user, "Content-Type": "application/x-ndjson"})
    assert r.status_code == 200, r.text
    remember(host1, user, "My tram stop is Bolhão")
    assert "Bolhão" in recall(host1, user, "which tram stop?") and "Bolhão" in recall(host2, user, "which tram stop?")
    source = route(topo, user)
    target = "s2" if source == "s1" else "s1"
    before = records(topo, source, user)
    assert sum(map(len, before.values())) > 630 and records(topo, target, user) == {}

    def mover(*extra: str) -> subprocess.Popen:
        return subprocess.Popen([str(BIN / "amber"), "shards", "move", user, target, "--batch", "25", *extra],
                                env=host1.env, cwd=host1.workdir, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)

    def kill_after(proc: subprocess.Popen, marker: str) -> str:
        out = ""
        for line in proc.stdout:
            out += line
            if marker in line:
                proc.send_signal(signal.SIGKILL)
                break
        proc.wait(timeout=30)
        proc.stdout.close()
        assert marker in out, out
        return out

    # 1. killed while copying: the route has not moved, reads go on from the source
    kill_after(mover(), "records copied")
    state = json.loads(topo.redis.get(f"amber:shardmove:{user_key(user)}"))
    assert state["step"] == "copy" and route(topo, user) == source
    assert "Bolhão" in recall(host2, user, "which tram stop?")
    # 2. run again, killed after the route flipped and before the source was dropped
    kill_after(mover("--grace", "30"), "route flipped")
    assert json.loads(topo.redis.get(f"amber:shardmove:{user_key(user)}"))["step"] == "drop"
    assert route(topo, user) == target and records(topo, source, user) == before
    # 3. run again to the end
    done = subprocess.run([str(BIN / "amber"), "shards", "move", user, target], env=host1.env, cwd=host1.workdir,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert json.loads(done.stdout.splitlines()[-1])["moved"] is True

    after = records(topo, target, user)
    assert {c: sorted(ids) for c, ids in after.items()} == {c: sorted(ids) for c, ids in before.items()}
    assert all(len(ids) == len(set(ids)) for ids in after.values())
    assert records(topo, source, user) == {} and topo.redis.get(f"amber:shardmove:{user_key(user)}") is None
    # hosts that cached the old route follow the move without a restart, for reads and writes
    assert "Bolhão" in recall(host1, user, "which tram stop?") and "Bolhão" in recall(host2, user, "which tram stop?")
    remember(host2, user, "My bike is a green Brompton")
    time.sleep(0.1)
    assert "Brompton" in recall(host1, user, "what bike do I ride?")
    mem = next(c for c in after if c.startswith("amber_mem_"))
    assert len(records(topo, target, user)[mem]) == len(after[mem]) + 1 and records(topo, source, user) == {}
    # the same command once more has nothing to do
    again = subprocess.run([str(BIN / "amber"), "shards", "move", user, target], env=host1.env, cwd=host1.workdir,
                           capture_output=True, text=True, timeout=120)
    assert again.returncode == 0 and json.loads(again.stdout.splitlines()[-1]) == {"moved": False, "shard": target}
    # and back: the hosts' handles of the collections dropped there before must not be used again
    back = subprocess.run([str(BIN / "amber"), "shards", "move", user, source], env=host1.env, cwd=host1.workdir,
                          capture_output=True, text=True, timeout=120)
    assert back.returncode == 0, back.stdout + back.stderr
    for host in topo.hosts:
        assert "Brompton" in recall(host, user, "what bike do I ride?")
    remember(host1, user, "My locker key is blue")
    assert records(topo, target, user) == {} and len(records(topo, source, user)[mem]) == len(after[mem]) + 2


def test_a_user_without_a_route_is_placed_where_their_data_is(topo):
    """Routes lost with Redis, or data from before sharding: the data decides, not the hash."""
    from core import Settings
    from core.compose import build_store

    placer = ShardRoutes(None, list(topo.urls))
    user = next(u for u in (f"old-{uuid.uuid4().hex[:6]}" for _ in range(100)) if placer.hashed(user_key(u)) == "s1")
    topo.redis.set(f"amber:shard:{user_key(user)}", "s2")  # written there, against the hash
    remember(topo.hosts[0], user, "My locker is number 42")
    topo.redis.delete(f"amber:shard:{user_key(user)}")
    store = build_store(Settings(chroma_shards=topo.urls, redis_url=topo.redis_url), "placement-test", 256)
    try:
        assert store.routes.lookup(user_key(user)) == "s2" and route(topo, user) == "s2"
    finally:
        store.close()
    assert "42" in recall(topo.hosts[1], user, "which locker is mine?")


def test_the_shards_command_lists_the_shards_and_shows_a_user(topo):
    host = topo.hosts[0]
    user = f"shown-{uuid.uuid4().hex[:6]}"
    remember(host, user, "My plant is a fern")

    def amber(*args: str) -> object:
        done = subprocess.run([str(BIN / "amber"), "shards", *args], env=host.env, cwd=host.workdir,
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stdout + done.stderr
        return json.loads(done.stdout)

    listed = amber("list")
    assert [(s["shard"], s["home"], s["answers"]) for s in listed[:2]] == [("s1", True, True), ("s2", False, True)]
    assert sum(s["users_routed"] for s in listed[:2]) >= 1
    shown = amber("show", user)
    assert shown["shard"] == route(topo, user) and shown["unfinished_move"] is None
    assert shown["records"][shown["shard"]] and not shown["records"]["s2" if shown["shard"] == "s1" else "s1"]
