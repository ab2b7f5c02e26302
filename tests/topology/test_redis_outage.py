"""Redis killed under a host with shared coordination: writes answer 503 with Retry-After naming
Redis (fast, not after a timeout), recall goes on from the store, /health stays 200 but says
"degraded" and names redis, the host log says once that Redis went and once that it came back (no
traceback per request), and once Redis is back on its port writes go through without a restart."""

from __future__ import annotations

import time

import pytest

from tests.kit.servers import chroma_server, free_port
from tests.kit.topology import amber_host, redis_server

pytestmark = pytest.mark.e2e


def test_redis_down_is_an_outage_answered_alike_and_named_in_health(tmp_path):
    redis_port = free_port()
    with chroma_server(tmp_path / "chroma") as chroma_url:
        redis = redis_server(tmp_path / "redis", port=redis_port)
        redis_url = redis.__enter__()
        try:
            with amber_host(tmp_path / "host", chroma_url=chroma_url, redis_url=redis_url) as host:
                r = host.rest("POST", "/v1/memories", user="ann", json={"content": "My tram stop is Bolhão"})
                assert r.status_code == 200, r.text[:300]
                redis.__exit__(None, None, None)
                redis = None
                for n in range(20):
                    started = time.monotonic()
                    r = host.rest("POST", "/v1/memories", user="ann", json={"content": f"note {n} while Redis is away"})
                    assert r.status_code == 503 and r.headers.get("Retry-After"), r.text[:300]
                    assert r.json()["error"] == "store_unavailable" and "Redis" in r.json()["detail"], r.text[:300]
                    assert time.monotonic() - started < 5
                recall = host.rest("POST", "/v1/recall", user="ann", json={"query": "which tram stop?"})
                assert recall.status_code == 200 and "Bolhão" in recall.text, recall.text[:300]
                health = host.rest("GET", "/health")
                assert health.status_code == 200, health.text[:300]
                assert health.json()["status"] == "degraded" and health.json()["down"] == ["redis"], health.text[:500]

                redis = redis_server(tmp_path / "redis", port=redis_port)
                redis.__enter__()
                deadline = time.monotonic() + 30
                while True:
                    r = host.rest("POST", "/v1/memories", user="ann", json={"content": "My bike is green"})
                    if r.status_code == 200 or time.monotonic() > deadline:
                        break
                    time.sleep(0.5)
                assert r.status_code == 200, r.text[:300]
                health = host.rest("GET", "/health").json()
                assert health["status"] == "ok" and health["down"] == [], health
                log = host.log()
            assert "Traceback" not in log, log[-3000:]
            assert log.count("Redis unavailable") == 1 and log.count("Redis is back") == 1, log[-3000:]
            assert log.count("POST /v1/memories: coordination store (Redis) unreachable") == 1, log[-3000:]
        finally:
            if redis is not None:
                redis.__exit__(None, None, None)
