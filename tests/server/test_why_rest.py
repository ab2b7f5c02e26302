"""Why and correction over REST, as the Open WebUI filter and scripts use them: POST /v1/recall with
`why` keeps the request's record (GET /v1/why), and with `correct` it first carries out a correction
of what the person was shown last; without `why` (a temporary chat) nothing is kept or corrected."""

from __future__ import annotations

import uuid

import httpx
import pytest

from core import handle_of
from server_kit import auth

pytestmark = pytest.mark.e2e


@pytest.fixture
def ana(host):
    url, _ = host
    with httpx.Client(base_url=url, timeout=30, headers=auth("admin", **{"X-Amber-User": f"ana-{uuid.uuid4().hex[:8]}"})) as c:
        yield c


def test_a_named_recall_is_explained_and_a_correction_retires_what_it_showed(ana):
    old = ana.post("/v1/memories", json={"content": "I live in Shanghai", "fact_key": "profile.city"}).json()["memory"]["id"]
    r = ana.post("/v1/recall", json={"query": "Where do I live?", "why": "owui:c1:m1", "correct": True}).json()
    assert handle_of(old) in r["text"]
    [rec] = ana.get("/v1/why").json()["requests"]
    assert rec["request"] == "owui:c1:m1" and rec["items"][0]["handle"] == handle_of(old)

    # a temporary chat names nothing: no correction, no record
    r = ana.post("/v1/recall", json={"query": "That's wrong, I moved to Hangzhou", "correct": True}).json()
    assert "corrected" not in r["text"] and ana.get(f"/v1/memories/{old}").json()["status"] == "active"
    assert len(ana.get("/v1/why", params={"last": 20}).json()["requests"]) == 1

    r = ana.post("/v1/recall", json={"query": "That's wrong, I moved to Hangzhou", "why": "owui:c1:m2", "correct": True}).json()
    assert r["text"].startswith("<memory_context>") and "corrected" in r["text"] and "Hangzhou" in r["text"]
    assert ana.get(f"/v1/memories/{old}").json()["status"] == "superseded"
    r = ana.post("/v1/recall", json={"query": "Where do I live?"}).json()
    assert "Shanghai" not in r["text"] and "Hangzhou" in r["text"]
    assert ana.get("/v1/why", params={"request": "owui:c1:m1"}).json()["requests"][0]["items"][0]["status"] == "superseded"


def test_why_asks_for_a_sane_number_of_requests(ana):
    assert ana.get("/v1/why", params={"last": 0}).status_code == 422
    assert ana.get("/v1/why", params={"last": 21}).status_code == 422
    assert ana.get("/v1/why").json() == {"requests": []}
