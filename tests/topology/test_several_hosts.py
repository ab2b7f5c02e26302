"""Several Amber hosts on one Chroma server, coordinated by Redis, as real processes:
`chroma run` + `redis-server` + two `amber serve` hosts + a LiteLLM proxy with two workers in
remote mode (tests/kit/topology.py; deploy/compose.yaml is the same shape as containers).

One topology for the module (start-up ~30 s). Tests that kill a host start it again at the end.
"""

from __future__ import annotations

import signal
import sys
import threading
import time
import uuid
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:  # `tests.kit` is imported as a package
    sys.path.insert(0, str(ROOT))

from core.hosts import HostPool  # noqa: E402
from tests.kit.topology import Topology, wait_for  # noqa: E402  (needs the path above)

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(240)]

CLAIM_IDLE_S = 3  # a captured turn a dead host took is taken over by the other host after this


@pytest.fixture(scope="module")
def topo(tmp_path_factory):
    with Topology(
        tmp_path_factory.mktemp("topology"),
        # extraction every minute on both hosts: test_each_job_runs_once_across_hosts counts its runs
        host_settings={"extract_cron": "* * * * *"},
        host_env={"AMBER_CAPTURE_CLAIM_IDLE_S": str(CLAIM_IDLE_S)},
    ) as t:
        yield t


@pytest.fixture
def both_up(topo):
    """Every host is up before and after the test (a test may kill one)."""
    topo.revive()
    yield topo
    topo.revive()


def uid(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


def keyed(topo: Topology, user: str, key: str) -> list[dict]:
    r = topo.hosts[0].rest("GET", "/v1/memories", user=user, params={"status": "any", "limit": 500})
    r.raise_for_status()
    return [m for m in r.json()["items"] if m.get("fact_key") == key]


@pytest.mark.timeout(420)  # may wait out an earlier minute's extraction (up to 180 s) before its own minute
def test_each_job_runs_once_across_hosts(both_up):
    """Both hosts schedule extraction every minute; each minute's run happens on one host only
    (the host that loses the slot writes no run record)."""
    topo = both_up
    # First in the module: no host has been killed yet, so no dead host's lease stands in the way.
    # An earlier minute's extraction can still outlast its minute on a loaded machine, and the lease
    # then (rightly) skips the next one: start counting once none runs.
    wait_for(lambda: all(r["status"] != "running" for r in topo.hosts[0].runs("extract")), timeout=180, interval=1)
    now = datetime.now(timezone.utc)
    minute = (now + timedelta(minutes=1)).replace(second=0, microsecond=0)
    if (minute - now).total_seconds() < 5:  # both hosts must be scheduled well before the boundary
        minute += timedelta(minutes=1)
    time.sleep(max(0.0, (minute - datetime.now(timezone.utc)).total_seconds()) + 15)
    assert all(h.alive for h in topo.hosts)

    def in_minute(runs: list[dict]) -> list[dict]:
        return [r for r in runs if minute <= datetime.fromisoformat(r["started_at"]) < minute + timedelta(minutes=1)]

    def settled() -> list[dict] | None:
        runs = in_minute(topo.hosts[0].runs("extract"))
        return runs if runs and all(r["status"] != "running" for r in runs) else None

    runs = wait_for(settled, timeout=30, interval=1) or in_minute(topo.hosts[0].runs("extract"))
    seen_by_other = in_minute(topo.hosts[1].runs("extract"))
    assert {r["id"] for r in runs} == {r["id"] for r in seen_by_other}  # one registry, read through either host
    assert len(runs) == 1, [(r["worker"], r["status"], r["reason"], r["started_at"]) for r in runs]
    if runs[0]["status"] == "skipped":  # only when an earlier run still held the lease at that moment
        at = runs[0]["started_at"]
        holders = [r for r in topo.hosts[0].runs("extract") if r["started_at"] < at and (r["status"] == "running" or (r.get("finished_at") or "") >= at)]
        assert holders, (runs[0], topo.hosts[0].runs("extract")[:5])
    else:
        assert runs[0]["status"] in ("ok", "partial"), runs[0]
    # both hosts fired: the one that did not run it found the fire time claimed (its log says so)
    ran = [h for h in topo.hosts if runs[0]["worker"].split(":")[1] == str(h.proc.pid)]
    assert len(ran) == 1, runs[0]["worker"]
    other = next(h for h in topo.hosts if h is not ran[0])
    due = minute.isoformat()
    assert any(due in line and "extract" in line for line in other.log().splitlines()), \
        f"{other.name} did not log that it left the {due} extraction to another host:\n{other.log()[-2000:]}"


def test_recall_is_the_same_through_either_host(both_up):
    topo, user = both_up, uid("dee")
    facts = [
        "On weekends I climb at the bouldering gym in Leith",
        "My weekend hobby is restoring old film cameras",
        "I play the cello in an amateur orchestra on Tuesdays",
        "My favourite weekend breakfast is shakshuka",
        "I am learning Portuguese for a trip to Porto",
        "My partner and I hike in the Pentlands most weekends",
        "I collect vinyl records of 1970s jazz",
        "On weekends I volunteer at the community garden",
    ]
    for i, fact in enumerate(facts):  # alternate hosts: each host's lexical index must see the other's writes
        r = topo.hosts[i % 2].rest("POST", "/v1/memories", user=user, json={"content": fact})
        assert r.status_code == 200, r.text
    r = topo.hosts[1].rest("POST", "/v1/memories", user=user, json={"content": "My weekend hobby is sea kayaking", "fact_key": "preference.weekend_hobby"})
    assert r.status_code == 200, r.text
    r = topo.hosts[0].rest("POST", "/v1/memories", user=user, json={"content": "My weekend hobby is sailing dinghies", "fact_key": "preference.weekend_hobby"})
    assert r.status_code == 200 and r.json()["action"] == "superseded", r.text

    for query in ("what do I do on weekends", "weekend hobby", "music I play"):
        seen = []
        for host in (topo.hosts[0], topo.hosts[1], topo.hosts[0]):
            r = host.rest("POST", "/v1/recall", user=user, json={"query": query, "top_k": 8})
            assert r.status_code == 200, r.text
            seen.append([(i["id"], i["text"]) for i in r.json()["items"]])
        assert seen[0], f"nothing recalled for {query!r}"
        assert seen[0] == seen[1] == seen[2], f"{query!r}: host1 {seen[0]}\nhost2 {seen[1]}"
        texts = " ".join(t for _, t in seen[0])
        assert "sea kayaking" not in texts  # the superseded version is never recalled, by either host
    r = topo.hosts[1].rest("POST", "/v1/recall", user=user, json={"query": "weekend hobby"})
    assert "sailing dinghies" in r.json()["text"]


def test_concurrent_keyed_writes_through_both_hosts_keep_one_active_version(both_up):
    topo, user, key = both_up, uid("kay"), "preference.bike_colour"
    n = 20
    results: list[tuple[int, int, str]] = []
    go = threading.Barrier(n)

    def write(i: int) -> None:
        go.wait()
        r = topo.hosts[i % 2].rest("POST", "/v1/memories", user=user, timeout=60,
                                    json={"content": f"My bike is painted colour number {i}", "fact_key": key})
        results.append((i, r.status_code, r.text[:300]))

    threads = [threading.Thread(target=write, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=90)
    assert len(results) == n
    assert all(code == 200 for _, code, _ in results), [r for r in results if r[1] != 200]

    versions = keyed(topo, user, key)
    active = [m for m in versions if m["status"] == "active"]
    assert len(active) == 1, [(m["content"], m["status"]) for m in active]
    others = [m for m in versions if m["id"] != active[0]["id"]]
    assert len(versions) == n, sorted(m["content"] for m in versions)
    assert all(m["status"] == "superseded" and m["superseded_by"] for m in others), [(m["content"], m["status"]) for m in others]
    # one chain: every version but the first supersedes exactly one other, and none is superseded twice
    ids = {m["id"] for m in versions}
    superseded = [m["supersedes"] for m in versions if m["supersedes"]]
    assert len(superseded) == n - 1 and len(set(superseded)) == n - 1 and set(superseded) <= ids
    # both hosts answer with that one version
    for host in topo.hosts:
        r = host.rest("GET", "/v1/memories", user=user, params={"status": "active"})
        assert [m["id"] for m in r.json()["items"] if m.get("fact_key") == key] == [active[0]["id"]]


def test_proxy_answers_with_memory_while_a_host_is_down(both_up):
    topo = both_up
    up = topo.up
    tag = uuid.uuid4().hex[:6]
    # users whose home host (core/hosts.py: rendezvous by user) is the one that goes down, and others
    pool = HostPool([h.base for h in topo.hosts])
    homed: dict[str, list[str]] = {h.base: [] for h in topo.hosts}
    while min(map(len, homed.values())) < 3:
        user = uid("eve")
        homed[pool.order(user)[0].url].append(user)
    users = homed[topo.hosts[0].base][:3] + homed[topo.hosts[1].base][:3]
    for i, user in enumerate(users):
        r = topo.hosts[1].rest("POST", "/v1/memories", user=user, json={"content": f"My tortoise is called Zeno{i}{tag}"})
        assert r.status_code == 200, r.text
    topo.hosts[0].kill()
    for i, user in enumerate(users):
        prompt = f"What is my tortoise called? ({tag} {i})"
        r = topo.chat(user, prompt)
        assert r.status_code == 200, r.text
        assert r.json()["choices"][0]["message"]["content"] == up.default_reply
        sent = [rec for rec in up.find("/chat/completions", contains=prompt) if rec.body.get("user") == user]
        assert sent, f"the upstream got no request for {user}"
        last = sent[-1].messages[-1]["content"]
        text = last if isinstance(last, str) else " ".join(b.get("text", "") for b in last)
        assert text.startswith(prompt) and "<memory_context>" in text and f"Zeno{i}{tag}" in text, \
            f"{user}: no memory injected with host1 down:\n{text[:600]}\n--- proxy log:\n{topo.proxy.log()[-3000:]}"


def test_a_host_killed_mid_capture_loses_no_acknowledged_turn(both_up):
    topo = both_up
    users = [uid(f"cap{i}") for i in range(4)]
    acked: dict[str, list[str]] = {u: [] for u in users}
    failed: list[str] = []
    stop = threading.Event()

    def chatter(user: str) -> None:
        n = 0
        while not stop.is_set():
            text = f"turn {n} of {user}: my lucky number today is {n * 7}"
            try:
                r = topo.chat(user, text, timeout=30)
            except Exception as e:
                failed.append(f"{user} {n}: {type(e).__name__}: {e}")
            else:
                if r.status_code == 200:
                    acked[user].append(text)
                else:
                    failed.append(f"{user} {n}: {r.status_code} {r.text[:200]}")
            n += 1

    import redis

    from core.capture_queue import GROUP, STREAM

    queue = redis.Redis.from_url(topo.redis_url)
    victim = topo.hosts[0]
    mine = f":{victim.proc.pid}"  # a host reads the stream as consumer `<hostname>:<pid>`

    def held() -> list[bytes]:
        """Entries delivered to the victim and not yet acknowledged: turns it is storing right now."""
        pending = queue.xpending_range(STREAM, GROUP, "-", "+", count=1000)
        return [p["message_id"] for p in pending if p["consumer"].decode().endswith(mine)]

    threads = [threading.Thread(target=chatter, args=(u,)) for u in users]
    for t in threads:
        t.start()
    taken: list[bytes] = []
    deadline = time.monotonic() + 20
    try:
        while not taken and time.monotonic() < deadline:  # kill it while it holds captured turns
            if held():
                victim.proc.send_signal(signal.SIGSTOP)  # frozen: what it holds stays unacknowledged
                taken = held()
                if not taken:
                    victim.proc.send_signal(signal.SIGCONT)
            else:
                time.sleep(0.01)
        victim.kill()
        killed_at = time.monotonic()
        # chat goes on with one host: at least 3 s of it, and until there are turns enough to count
        # (a loaded machine answers more slowly, which is no reason to judge fewer turns)
        while time.monotonic() - killed_at < 3 or (sum(map(len, acked.values())) < 8 and time.monotonic() - killed_at < 60):
            time.sleep(0.1)
    finally:
        stop.set()
    for t in threads:
        t.join(timeout=60)
    assert taken, "the host never held a captured turn in 20 s of chat: capture does not go through the shared queue"
    assert not failed, failed[:5]
    assert sum(map(len, acked.values())) >= 8, acked
    survivor = topo.hosts[1]

    def missing() -> dict[str, list[str]]:
        out = {}
        for user, texts in acked.items():
            stored = {m["content"] for m in survivor.messages(user) if m["role"] == "user"}
            lost = [t for t in texts if t not in stored]
            if lost:
                out[user] = lost
        return out

    left = {} if wait_for(lambda: not missing(), timeout=CLAIM_IDLE_S * 10 + 30, interval=1) else missing()
    assert not left, (
        f"{sum(map(len, left.values()))} acknowledged turns not stored {time.monotonic() - killed_at:.0f}s after the kill: "
        f"{left}\n--- host2 log:\n{survivor.log()[-3000:]}\n--- proxy log:\n{topo.proxy.log()[-2000:]}"
    )
    assert not set(taken) & {p["message_id"] for p in queue.xpending_range(STREAM, GROUP, "-", "+", count=1000)}
    queue.close()
    # and each turn once: a taken-over entry is not stored twice
    for user, texts in acked.items():
        turns = [m["content"] for m in survivor.messages(user) if m["role"] == "user"]
        assert sorted(turns) == sorted(texts), user
