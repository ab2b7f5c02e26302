"""Why records with several memory hosts (core/why_shared.py): a person's GET /v1/why, and a
correction of what they were shown, find the record whichever host recalled. First the log on a
real redis-server (two logs stand for two hosts; bounded per person and in time; Redis away: this
host's own records), then two real `amber serve` hosts on one Chroma server and one Redis."""

from __future__ import annotations

import sys
import uuid
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:  # `tests.kit` is imported as a package
    sys.path.insert(0, str(ROOT))

from core.recall.fusion import Candidate  # noqa: E402
from core.recall.render import handle_of  # noqa: E402
from core.why_shared import SharedWhyLog  # noqa: E402
from tests.kit.topology import Topology, redis_server  # noqa: E402

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(600)]

T0 = datetime(2026, 1, 1, 12, 0, tzinfo=timezone.utc)


def cand(i: int) -> Candidate:
    return Candidate(id=f"m_{i}", text="words never kept", source="memory", created_at=T0, kind="fact", score=0.5, arms=("dense",))


def test_a_record_kept_by_one_host_is_read_by_another_within_its_bounds(tmp_path):
    with redis_server(tmp_path / "redis") as url:
        a, b = SharedWhyLog.from_url(url, per_user=3, ttl_s=3600), SharedWhyLog.from_url(url, per_user=3, ttl_s=3600)
        for i in range(5):
            (a if i % 2 else b).keep("ana", f"r{i}", [cand(i)], at=T0 + timedelta(seconds=i))
        assert [r.request for r in a.last("ana", 10, now=T0)] == ["r4", "r3", "r2"]  # newest first, per person
        [one] = b.last("ana", request="r3", now=T0)
        assert one.items[0].handle == handle_of("m_3") and one.items[0].arms == ("dense",)
        a.keep("ana", "r4", [cand(7)], at=T0 + timedelta(seconds=9))  # the same request again: counted once, newest
        assert [r.items[0].id for r in b.last("ana", 10, now=T0) if r.request == "r4"] == ["m_7"]
        assert b.last("ana", 10, now=T0 + timedelta(hours=2)) == []  # older than the time bound
        assert b.last("bob", 10, now=T0) == []
        assert all(b"words never kept" not in v for k in a.r.keys("amber:why:*") for v in a.r.lrange(k, 0, -1))
        assert all(b"ana" not in k for k in a.r.keys("amber:why:*"))  # no name in the key
        b.drop_user("ana")  # an erased person's records go for every host
        assert a.last("ana", 10, now=T0) == []


def test_with_redis_away_a_host_answers_with_its_own_records(tmp_path, caplog):
    log = SharedWhyLog.from_url("redis://127.0.0.1:9/0")  # nothing listens there
    log.keep("ana", "r1", [cand(1)], at=T0)
    log.keep("ana", "r2", [cand(2)], at=T0)
    assert [r.request for r in log.last("ana", 5, now=T0)] == ["r2", "r1"]
    said = [r.message for r in caplog.records if r.name == "amber.why"]
    assert len(said) == 1 and "only what this host recalled" in said[0]  # once, not once per request


@pytest.fixture(scope="module")
def two_hosts(tmp_path_factory):
    with Topology(tmp_path_factory.mktemp("why-hosts"), hosts=2, proxy=False) as t:
        yield t


def test_why_and_a_correction_reach_the_record_whichever_host_recalled(two_hosts):
    one, two = two_hosts.hosts
    user = f"why-{uuid.uuid4().hex[:8]}"
    r = one.rest("POST", "/v1/memories", user=user, json={"content": "I live in Shanghai", "fact_key": "profile.city"})
    r.raise_for_status()
    old = r.json()["memory"]["id"]
    shown = one.rest("POST", "/v1/recall", user=user, json={"query": "Where do I live?", "why": "owui:c1:m1", "correct": True}).json()
    assert handle_of(old) in shown["text"]
    [rec] = two.rest("GET", "/v1/why", user=user).json()["requests"]  # asked of the other host
    assert rec["request"] == "owui:c1:m1" and rec["items"][0]["handle"] == handle_of(old) and rec["items"][0]["text"] == "I live in Shanghai"
    fixed = two.rest("POST", "/v1/recall", user=user, json={"query": "That's wrong, I moved to Hangzhou", "why": "owui:c1:m2",
                                                            "correct": True}).json()
    assert "corrected" in fixed["text"]
    assert one.rest("GET", f"/v1/memories/{old}", user=user).json()["status"] == "superseded"
