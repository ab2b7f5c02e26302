"""The embedder away is an outage like the store's: a write over REST answers 503 with Retry-After
and the embedder named (never a 500), a recall answers without memory or with a 503 but never a
traceback, the log says it once rather than per request, and once the embedder is back the same
host writes again. A real embedded store and the real server app; the embedder is the fault: it
raises EmbedderUnavailable (what a dead or restarting embedding worker raises) while `down`."""

from __future__ import annotations

import logging

import httpx

from core import EmbedderUnavailable, Settings, build_service
from core.testing import HashEmbedder
from mcp_server.app import create_app
from tests.kit.servers import serve_app

KEY = "k-embedder-outage-alice-5d1"


class Flaky(HashEmbedder):
    down = False

    def embed_documents(self, texts):
        if self.down:
            raise EmbedderUnavailable("embedding worker (document-1) died (exit -6); restarting")
        return super().embed_documents(texts)

    def embed_query(self, text):
        if self.down:
            raise EmbedderUnavailable("embedding worker (query-1) died (exit -6); restarting")
        return super().embed_query(text)


def test_the_embedder_away_answers_503_with_retry_after_and_writes_resume(tmp_path, caplog):
    settings = Settings(data_dir=tmp_path / "data", embedding_model="hash", api_keys=[{"name": "alice", "secret": KEY, "user": "alice"}])
    embedder = Flaky()
    service = build_service(settings, embedder=embedder)
    h = {"Authorization": f"Bearer {KEY}"}
    try:
        with serve_app(create_app(service, settings)) as base, caplog.at_level(logging.INFO):
            assert httpx.post(f"{base}/v1/memories", json={"content": "My tram stop is Bolhão"}, headers=h, timeout=30).status_code == 200
            embedder.down = True
            for n in range(5):
                r = httpx.post(f"{base}/v1/memories", json={"content": f"note {n} while the embedder is away"}, headers=h, timeout=30)
                assert r.status_code == 503 and r.headers.get("Retry-After"), r.text[:300]
                assert r.json()["error"] == "embedder_unavailable", r.text[:300]
            r = httpx.post(f"{base}/v1/recall", json={"query": "which tram stop?"}, headers=h, timeout=30)
            assert r.status_code in (200, 503), r.text[:300]  # without memory, or the outage named: never a 500
            if r.status_code == 503:
                assert r.headers.get("Retry-After") and r.json()["error"] == "embedder_unavailable", r.text[:300]
            embedder.down = False
            assert httpx.post(f"{base}/v1/memories", json={"content": "My bike is green"}, headers=h, timeout=30).status_code == 200
            r = httpx.post(f"{base}/v1/recall", json={"query": "which tram stop?"}, headers=h, timeout=30)
            assert r.status_code == 200 and "Bolhão" in r.text, r.text[:300]
    finally:
        service.close()
    outage_lines = [m for m in caplog.messages if "embedder_unavailable" in m or "embedding worker" in m]
    assert len(outage_lines) <= 2, outage_lines  # logged once for the run of 503s, not once per request
    assert not any(rec.exc_info for rec in caplog.records), [rec.getMessage() for rec in caplog.records if rec.exc_info]
