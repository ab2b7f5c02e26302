"""The REST API against the real app under uvicorn, through httpx."""

from __future__ import annotations

import json
import re
import uuid
from datetime import datetime, timedelta, timezone

import httpx
import pytest

from server_kit import KEYS, auth

pytestmark = pytest.mark.e2e


@pytest.fixture
def http(host):
    url, _ = host
    with httpx.Client(base_url=url, timeout=30) as c:
        yield c


def fresh_user(prefix: str = "u") -> dict[str, str]:
    """An admin key acting for a brand-new user: each test gets an empty memory."""
    return auth("admin", **{"X-Amber-User": f"{prefix}-{uuid.uuid4().hex[:8]}"})


def msg(mid: str, role: str, content: str, minutes: int = 0, session: str = "s1") -> dict:
    at = datetime.now(timezone.utc) - timedelta(minutes=60 - minutes)
    return {"id": mid, "role": role, "content": content, "session": session, "created_at": at.isoformat()}


def test_health_is_public_and_names_each_part(http):
    r = http.get("/health")
    assert r.status_code == 200
    body = r.json()
    assert body["ok"] is True and body["store"]["ok"] is True
    assert body["embedder"] == {"ok": True, "id": "hash:v1"}  # the hash embedder has no lanes to report
    assert body["llm"]["model"] and body["auth"] == "keys"
    assert "location" not in body["store"]  # no filesystem paths to anonymous callers


def test_openapi_lists_the_routes(http):
    paths = http.get("/openapi.json").json()["paths"]
    for p in ["/v1/recall", "/v1/search", "/v1/messages", "/v1/memories", "/v1/memories/{memory_id}", "/v1/boot",
              "/v1/precious", "/v1/glossary/{term}", "/v1/digest", "/v1/candidates/{memory_id}/{action}", "/v1/export",
              "/v1/import", "/v1/events", "/v1/cache/{namespace}/{key}", "/v1/vectors/health", "/v1/reindex", "/health"]:
        assert p in paths, p


def test_memory_lifecycle_over_rest(http):
    h = fresh_user()
    r = http.post("/v1/memories", json={"content": "Lives in Lyon", "fact_key": "profile.city", "importance": 0.8}, headers=h)
    assert r.status_code == 200 and r.json()["action"] == "created"
    first = r.json()["memory"]
    assert first["category"] == "profile" and first["namespace"] == "default"

    again = http.post("/v1/memories", json={"content": "lives in  LYON", "fact_key": "profile.city"}, headers=h).json()
    assert again["action"] == "seen" and again["memory"]["id"] == first["id"]

    moved = http.post("/v1/memories", json={"content": "Lives in Berlin", "fact_key": "profile.city"}, headers=h).json()
    assert moved["action"] == "superseded" and moved["previous"]["id"] == first["id"]
    assert moved["previous"]["status"] == "superseded"
    new_id = moved["memory"]["id"]

    got = http.get(f"/v1/memories/{new_id}", headers=h).json()
    assert got["content"] == "Lives in Berlin" and got["supersedes"] == first["id"]

    patched = http.patch(f"/v1/memories/{new_id}", json={"importance": 0.9, "tags": ["home"]}, headers=h).json()
    assert patched["importance"] == 0.9 and patched["tags"] == ["home"]

    assert http.post(f"/v1/memories/{new_id}/pin", headers=h).json()["pinned"] is True
    assert http.post(f"/v1/memories/{new_id}/unpin", headers=h).json()["pinned"] is False

    listed = http.get("/v1/memories", params={"category": "profile"}, headers=h).json()
    assert [m["id"] for m in listed["items"]] == [new_id]
    everything = http.get("/v1/memories", params={"status": "any"}, headers=h).json()
    assert {m["id"] for m in everything["items"]} == {first["id"], new_id}

    sup = http.post(f"/v1/memories/{new_id}/supersede", json={"content": "Lives in Berlin-Mitte"}, headers=h).json()
    assert sup["action"] == "superseded" and sup["memory"]["fact_key"] == "profile.city"
    latest = sup["memory"]["id"]

    assert http.post(f"/v1/memories/{latest}/archive", headers=h).json()["status"] == "archived"
    assert http.delete(f"/v1/memories/{latest}", headers=h).json()["status"] == "deleted"
    assert http.get("/v1/memories", headers=h).json()["items"] == []

    events = http.get("/v1/events", params={"memory_id": new_id}, headers=h).json()["events"]
    assert {"supersede", "update", "pin", "unpin"} <= {e["action"] for e in events}
    assert all(e["actor"] == "key:admin" for e in events)
    assert len(http.get("/v1/events", headers=h).json()["events"]) >= 8


def test_cursor_pagination(http):
    h = fresh_user()
    for n in range(7):
        http.post("/v1/memories", json={"content": f"note number {n} about gardening"}, headers=h).raise_for_status()
    seen, cursor = [], None
    while True:
        page = http.get("/v1/memories", params={"limit": 3, **({"cursor": cursor} if cursor else {})}, headers=h).json()
        seen += [m["id"] for m in page["items"]]
        cursor = page["next_cursor"]
        if not cursor:
            break
    assert len(seen) == len(set(seen)) == 7
    text = http.get("/v1/memories", params={"text": "NUMBER 3"}, headers=h).json()["items"]
    assert [m["content"] for m in text] == ["note number 3 about gardening"]


def test_recall_and_search(http):
    h = fresh_user()
    http.post("/v1/memories", json={"content": "Allergic to peanuts", "fact_key": "profile.allergy", "importance": 0.9}, headers=h)
    http.post("/v1/memories", json={"content": "Plays the cello on weekends"}, headers=h)
    r = http.post("/v1/recall", json={"query": "any food allergy? peanuts"}, headers=h).json()
    assert r["text"].startswith("<memory_context>") and "Allergic to peanuts" in r["text"]
    assert r["items"][0]["text"] == "Allergic to peanuts" and r["items"][0]["source"] == "memory"
    # every field of core.Candidate travels, so a remote caller reads what the service found
    assert {"id", "text", "source", "kind", "created_at", "score", "pinned", "importance", "sources", "arms"} <= set(r["items"][0])
    assert 0 < r["tokens"] <= 600

    small = http.post("/v1/recall", json={"query": "peanuts cello", "budget_tokens": 60}, headers=h).json()
    assert small["tokens"] <= 60

    hits = http.post("/v1/search", json={"query": "cello", "top_k": 1, "filter": False}, headers=h).json()["hits"]
    assert len(hits) == 1 and hits[0]["text"] == "Plays the cello on weekends" and hits[0]["score"] > 0

    empty = http.post("/v1/recall", json={"query": "cello"}, headers=fresh_user()).json()
    assert empty == {"text": "", "items": [], "tokens": 0}


def test_ingest_is_idempotent_and_runs_commands(http):
    h = fresh_user()
    batch = [
        msg("m1", "user", "remember that my sister is called Inès", 1),
        msg("m2", "assistant", "Got it, your sister is Inès.", 2),
        msg("m3", "user", "What should I cook tonight?", 3),
    ]
    r = http.post("/v1/messages", json={"messages": batch, "commands": True}, headers=h).json()
    assert r["ingested"] == 3
    assert [c["action"] for c in r["commands"]] == ["remember"]
    mem = http.get(f"/v1/memories/{r['commands'][0]['memory_id']}", headers=h).json()
    assert mem["content"] == "my sister is called Inès" and mem["source_ids"] == ["m1"]

    replay = http.post("/v1/messages", json={"messages": batch, "commands": True}, headers=h).json()
    assert replay == {"ingested": 0, "commands": []}  # a retried capture changes nothing

    forget = http.post("/v1/messages", json={"messages": [msg("m4", "user", "forget that my sister is called Inès", 4)]}, headers=h).json()
    assert forget["commands"] == [{"action": "forget", "memory_id": mem["id"]}]
    assert http.get(f"/v1/memories/{mem['id']}", headers=h).status_code == 404  # erased, not trashed

    quiet = http.post("/v1/messages", json={"messages": [msg("m5", "user", "remember that I own a red bike", 5)], "commands": False}, headers=h).json()
    assert quiet == {"ingested": 1, "commands": []}

    got = http.get("/v1/messages", params={"session": "s1"}, headers=h).json()["messages"]
    # the forget took the turns that said it (the command and the reply) and was not stored itself
    assert [m["id"] for m in got] == ["m3", "m5"]
    since = (datetime.now(timezone.utc) - timedelta(minutes=57, seconds=30)).isoformat()
    assert [m["id"] for m in http.get("/v1/messages", params={"since": since}, headers=h).json()["messages"]] == ["m3", "m5"]

    hits = http.post("/v1/search", json={"query": "cook tonight"}, headers=h).json()["hits"]
    assert any(x["id"] == "m3" and x["source"] == "message" for x in hits)

    # Amber's own block (its fence and header) is stripped before storing; a user's literal tag is their words
    echoed = msg("m6", "user", "<memory_context>\nBackground from Amber, the user's memory.\n- old note\n</memory_context>\nWhat's the weather?", 6)
    only_patch = msg("m7", "user", "<memory_context>\nBackground from Amber, the user's memory.\n- nothing else\n</memory_context>", 7)
    assert http.post("/v1/messages", json={"messages": [echoed, only_patch]}, headers=h).json()["ingested"] == 1
    stored = http.get("/v1/messages", params={"session": "s1"}, headers=h).json()["messages"]
    assert stored[-1]["id"] == "m6" and stored[-1]["content"] == "What's the weather?"


def test_boot_pack(http, host):
    h = fresh_user()
    http.put("/v1/digest", json={"text": "Busy month: moving house, learning Rust."}, headers=h).raise_for_status()
    http.post("/v1/precious", json={"quote": "Ne jamais abandonner."}, headers=h).raise_for_status()
    http.post("/v1/glossary", json={"term": "BRB", "definition": "the band rehearsal on Thursdays"}, headers=h).raise_for_status()
    pinned = http.post("/v1/memories", json={"content": "Name: Sam", "fact_key": "profile.name", "pinned": True}, headers=h).json()
    http.post("/v1/memories", json={"content": "Yesterday: moved the piano", "kind": "daily_log",
                                     "valid_from": (datetime.now(timezone.utc) - timedelta(days=1)).isoformat()}, headers=h).raise_for_status()
    http.post("/v1/messages", json={"messages": [msg("t1", "user", "morning!", 59)]}, headers=h).raise_for_status()
    b = http.get("/v1/boot", headers=h).json()
    assert b["digest"]["content"] == "Busy month: moving house, learning Rust."
    assert b["daily_log"]["content"] == "Yesterday: moved the piano"
    assert [m["content"] for m in b["precious"]] == ["Ne jamais abandonner."]
    assert [m["title"] for m in b["glossary"]] == ["BRB"]
    assert [m["id"] for m in b["pinned"]] == [pinned["memory"]["id"]]
    assert [m["id"] for m in b["today"]] == ["t1"]
    assert b["counts"] == {"daily_log": 1, "digest": 1, "fact": 1, "glossary": 1, "precious": 1}


def test_precious_is_append_only(http):
    h = fresh_user()
    q = http.post("/v1/precious", json={"quote": "You are braver than you believe."}, headers=h).json()["memory"]
    assert [m["id"] for m in http.get("/v1/precious", headers=h).json()["items"]] == [q["id"]]
    r = http.patch(f"/v1/memories/{q['id']}", json={"content": "edited"}, headers=h)
    assert r.status_code == 409 and r.json()["error"] == "immutable"
    assert http.delete(f"/v1/memories/{q['id']}", headers=h).status_code == 409


def test_glossary_crud(http):
    h = fresh_user()
    http.post("/v1/glossary", json={"term": "Nimbus", "definition": "our home server", "aliases": ["nimby"]}, headers=h).raise_for_status()
    assert http.get("/v1/glossary/nimby", headers=h).json()["entries"][0]["title"] == "Nimbus"
    put = http.put("/v1/glossary/Nimbus", json={"definition": "the NAS in the attic"}, headers=h).json()
    assert put["action"] == "superseded"
    assert [e["content"] for e in http.get("/v1/glossary", headers=h).json()["entries"]] == ["Nimbus: the NAS in the attic"]
    assert http.delete("/v1/glossary/Nimbus", headers=h).json()["entries"][0]["status"] == "deleted"
    r = http.get("/v1/glossary/Nimbus", headers=h)
    assert r.status_code == 404 and r.json()["error"] == "not_found"


def test_digest(http):
    h = fresh_user()
    assert http.get("/v1/digest", headers=h).json() == {"digest": None}
    http.put("/v1/digest", json={"text": "first"}, headers=h).raise_for_status()
    second = http.put("/v1/digest", json={"text": "second"}, headers=h).json()["digest"]
    assert http.get("/v1/digest", headers=h).json()["digest"]["id"] == second["id"]
    r = http.put("/v1/digest", json={"text": "x" * 501}, headers=h)
    assert r.status_code == 422 and r.json()["field"] == "text"


def test_candidates_review(http):
    h = fresh_user()

    def cand(content: str, key: str | None = None) -> str:
        body = {"content": content, "status": "candidate", "confidence": 0.6, **({"fact_key": key} if key else {})}
        return http.post("/v1/memories", json=body, headers=h).json()["memory"]["id"]

    target = http.post("/v1/memories", json={"content": "Works as a nurse", "fact_key": "profile.job"}, headers=h).json()["memory"]["id"]
    c1, c2, c3, c4 = cand("Enjoys hiking"), cand("Likes loud music"), cand("Works as a nurse at night"), cand("Works as a doctor", "profile.job")
    listed = {m["id"] for m in http.get("/v1/candidates", headers=h).json()["candidates"]}
    assert listed == {c1, c2, c3, c4}

    ok = http.post(f"/v1/candidates/{c1}/approve", headers=h).json()
    assert ok["action"] == "created" and ok["memory"]["status"] == "active"
    assert http.post(f"/v1/candidates/{c2}/discard", headers=h).json()["memory"]["status"] == "deleted"
    r = http.post(f"/v1/candidates/{c3}/merge", headers=h)
    assert r.status_code == 422 and r.json()["field"] == "target_id"
    merged = http.post(f"/v1/candidates/{c3}/merge", json={"target_id": target}, headers=h).json()
    assert merged["memory"]["id"] == target and merged["memory"]["seen_count"] == 2
    sup = http.post(f"/v1/candidates/{c4}/supersede", json={"target_id": target}, headers=h).json()
    assert sup["action"] == "superseded" and sup["previous"]["id"] == target
    assert http.get("/v1/candidates", headers=h).json()["candidates"] == []
    assert http.post(f"/v1/candidates/{c1}/approve", headers=h).status_code == 422  # no longer a candidate
    assert http.post(f"/v1/candidates/{c1}/explode", headers=h).status_code == 422


def test_export_import_roundtrip(http):
    src, dst = fresh_user("src"), fresh_user("dst")
    http.post("/v1/memories", json={"content": "Speaks Portuguese", "fact_key": "skill.language"}, headers=src).raise_for_status()
    http.post("/v1/messages", json={"messages": [msg("e1", "user", "olá")]}, headers=src).raise_for_status()
    r = http.get("/v1/export", headers=src)
    assert r.status_code == 200 and r.headers["content-type"].startswith("application/x-ndjson")
    lines = [json.loads(x) for x in r.text.splitlines()]
    assert [x["type"] for x in lines if x["type"] != "event"] == ["header", "memory", "message"]
    assert {x["action"] for x in lines if x["type"] == "event"} == {"create"}

    imp = http.post("/v1/import", content=r.content, headers={**dst, "Content-Type": "application/x-ndjson"})
    assert imp.json() == {"memories": 1, "messages": 1, "events": 1}
    again = http.post("/v1/import", content=r.content, headers={**dst, "Content-Type": "application/x-ndjson"})
    assert again.status_code == 200
    assert [m["content"] for m in http.get("/v1/memories", headers=dst).json()["items"]] == ["Speaks Portuguese"]

    nd = {"Content-Type": "application/x-ndjson"}
    bad = http.post("/v1/import", content=r.content + b"{not json\n", headers={**dst, **nd})
    assert bad.status_code == 422 and bad.json()["field"] == f"line {len(lines) + 1}"
    wrong = http.post("/v1/import", content=b'{"type": "memory", "id": "x"}\n', headers={**fresh_user(), **nd})
    assert wrong.status_code == 422 and wrong.json()["field"] == "line 1"
    # a bad file writes nothing; invalid UTF-8 and repeated ids name their line
    empty = fresh_user()
    for body, field, words in [
        (r.content + b'{"type": "message", "id": "u", "role": "user", "content": "caf\xe9", "created_at": "2026-05-01T10:00:00Z"}\n', f"line {len(lines) + 1}", "UTF-8"),
        (r.content + r.content.split(b"\n", 1)[1], f"line {len(lines) + 1}", "repeats line 2"),
    ]:
        bad = http.post("/v1/import", content=body, headers={**empty, **nd})
        assert bad.status_code == 422 and bad.json()["field"] == field and words in bad.json()["detail"], bad.text
    assert http.get("/v1/memories", headers=empty).json()["items"] == []


def test_client_cache(http, host):
    h = fresh_user()
    assert http.get("/v1/cache/openwebui/last", headers=h).status_code == 404
    put = http.put("/v1/cache/openwebui/last", json={"value": {"ids": [1, 2]}, "ttl_s": 3600}, headers=h).json()
    assert put["value"] == {"ids": [1, 2]} and put["expires_at"] > put["updated_at"]
    assert http.get("/v1/cache/openwebui/last", headers=h).json()["value"] == {"ids": [1, 2]}
    other = fresh_user()
    assert http.get("/v1/cache/openwebui/last", headers=other).status_code == 404
    assert http.delete("/v1/cache/openwebui/last", headers=h).status_code == 204
    assert http.get("/v1/cache/openwebui/last", headers=h).status_code == 404
    big = http.put("/v1/cache/x/y", json={"value": "z" * 70000}, headers=h)
    assert big.status_code == 422 and big.json()["field"] == "value"
    bad_ns = http.put("/v1/cache/bad%20ns/y", json={"value": 1}, headers=h)
    assert bad_ns.status_code == 422 and bad_ns.json()["field"] == "namespace"


def test_client_cache_expires(host):
    from core import Actor, ClientCache, scope_for
    from core.testing import FixedClock

    _, service = host
    clock = FixedClock()
    real, service.clock = service.clock, clock
    try:
        cache, scope = ClientCache(service), scope_for(Actor("ttl-user"))
        cache.put(scope, "c", "k", 1, ttl_s=60)
        assert cache.get(scope, "c", "k")["value"] == 1
        clock.advance(seconds=61)
        with pytest.raises(Exception) as e:
            cache.get(scope, "c", "k")
        assert type(e.value).__name__ == "NotFound"
    finally:
        service.clock = real


def test_errors_name_the_field_and_never_500(http):
    h = fresh_user()
    cases = [
        (http.post("/v1/memories", json={"content": "x", "fact_key": "Bad Key"}, headers=h), 422, "fact_key"),
        (http.post("/v1/memories", json={"content": "x", "fact_key": "food.pizza"}, headers=h), 422, "fact_key"),
        (http.post("/v1/memories", json={"content": "x", "namespace": "nope"}, headers=h), 422, "namespace"),
        (http.post("/v1/memories", json={"content": "   "}, headers=h), 422, "content"),
        (http.post("/v1/memories", json={"content": "x", "importance": 2}, headers=h), 422, "importance"),
        (http.post("/v1/memories", json={"content": "x", "surprise": 1}, headers=h), 422, "surprise"),
        (http.post("/v1/memories", json={"content": "x", "status": "deleted"}, headers=h), 422, "status"),
        (http.post("/v1/memories", content=b"not json", headers={**h, "Content-Type": "application/json"}), 422, None),
        (http.post("/v1/recall", json={"query": "x", "preset": "turbo"}, headers=h), 422, "preset"),
        (http.post("/v1/recall", json={"query": "x", "project": "no spaces allowed"}, headers=h), 422, "project"),
        (http.post("/v1/messages", json={"messages": [{"id": "a", "role": "robot", "content": "x", "created_at": "2026-01-01T00:00:00Z"}]}, headers=h), 422, "messages.0.role"),
        (http.post("/v1/messages", json={"messages": [msg("d", "user", "a"), msg("d", "user", "b")]}, headers=h), 422, "messages"),
        (http.get("/v1/memories", params={"limit": 0}, headers=h), 422, "limit"),
        (http.get("/v1/memories", params={"cursor": "abc"}, headers=h), 422, "cursor"),
        (http.get("/v1/memories", params={"kind": "poem"}, headers=h), 422, "kind"),
        (http.get("/v1/memories/m_nothing", headers=h), 404, None),
        (http.get("/v1/nowhere", headers=h), 404, None),
        (http.get("/v1/memories", headers=auth("admin", **{"X-Amber-User": "u" * 300})), 422, "user_id"),
    ]
    for r, status, field in cases:
        assert r.status_code == status, (r.request.url, r.text)
        if field:
            assert r.json()["field"] == field, r.text


def test_query_token_works_and_is_not_logged(http, caplog):
    import logging

    caplog.set_level(logging.INFO, logger="amber.server.http")
    r = http.get("/v1/memories", params={"token": KEYS["alice"], "limit": 5})
    assert r.status_code == 200
    assert KEYS["alice"] not in caplog.text and "GET /v1/memories 200" in caplog.text
    http.post("/v1/recall", json={"query": "a private question about my health"}, headers=auth("alice"))
    line = next(x for x in caplog.messages if x.startswith("POST /v1/recall"))
    # one quiet line: pseudonymous user, key name, timing and what recall returned; never the words
    assert re.fullmatch(r"POST /v1/recall 200 user=[0-9a-f]{10} key=alice \d+ms items=\d+ tokens=\d+", line), line
    assert "alice\"" not in caplog.text and "health" not in line


def test_auth_refusals(http):
    assert http.get("/v1/memories").status_code == 401
    r = http.get("/v1/memories", headers={"Authorization": "Bearer wrong"})
    assert r.status_code == 401 and r.headers["www-authenticate"].startswith("Bearer")
    assert http.get("/v1/memories", params={"token": "wrong"}).status_code == 401
    assert http.get("/v1/memories", headers=auth("alice", **{"X-Amber-User": "bob"})).status_code == 403
    assert http.get("/v1/memories", headers=auth("alice", **{"X-Amber-User": "alice"})).status_code == 200
    r = http.get("/v1/memories", headers=auth("owui"))
    assert r.status_code == 422 and r.json()["field"] == "X-Amber-User"
    assert http.get("/.well-known/oauth-protected-resource").status_code in (401, 404)
    assert http.get("/.well-known/oauth-authorization-server", headers=auth("alice")).status_code == 404


def test_read_only_key_cannot_write_anywhere(http):
    h = auth("alice_ro")
    assert http.get("/v1/memories", headers=h).status_code == 200
    assert http.post("/v1/recall", json={"query": "anything"}, headers=h).status_code == 200
    writes = [
        ("POST", "/v1/memories", {"content": "sneaky"}),
        ("POST", "/v1/messages", {"messages": [msg("ro1", "user", "hi")]}),
        ("PATCH", "/v1/memories/m_x", {"importance": 0.1}),
        ("DELETE", "/v1/memories/m_x", None),
        ("POST", "/v1/memories/m_x/archive", None),
        ("POST", "/v1/memories/m_x/pin", None),
        ("POST", "/v1/memories/m_x/supersede", {"content": "y"}),
        ("POST", "/v1/precious", {"quote": "q"}),
        ("POST", "/v1/glossary", {"term": "t", "definition": "d"}),
        ("PUT", "/v1/glossary/t", {"definition": "d"}),
        ("DELETE", "/v1/glossary/t", None),
        ("PUT", "/v1/digest", {"text": "d"}),
        ("POST", "/v1/candidates/m_x/approve", None),
        ("PUT", "/v1/cache/c/k", {"value": 1}),
        ("DELETE", "/v1/cache/c/k", None),
        ("POST", "/v1/reindex", {}),
        ("GET", "/v1/vectors/health", None),
    ]
    for method, path, body in writes:
        r = http.request(method, path, json=body, headers=h)
        assert r.status_code == 403, (method, path, r.text)
    imp = http.post("/v1/import", content=b'{"type": "header", "format": "amber-export"}\n', headers={**h, "Content-Type": "application/x-ndjson"})
    assert imp.status_code == 403
    assert http.get("/v1/messages", headers=auth("alice")).json()["messages"] == []


def test_admin_vector_health_and_reindex(http, host):
    h = fresh_user("ix")
    user = h["X-Amber-User"]
    http.post("/v1/memories", json={"content": "Reindex me"}, headers=h).raise_for_status()
    vh = http.get("/v1/vectors/health", headers=auth("admin")).json()
    assert vh["ok"] is True and vh["embedder"] == "hash:v1"
    row = next(u for u in vh["users"] if u["user_id"] == user)
    assert row["memories"]["count"] == 1
    done = http.post("/v1/reindex", json={"user": user}, headers=auth("admin")).json()
    assert done == {"users": {user: {"memories": 1, "messages": 0}}}
    assert http.post("/v1/search", json={"query": "reindex"}, headers=h).json()["hits"][0]["text"] == "Reindex me"
    assert http.post("/v1/reindex", json={}, headers=auth("alice")).status_code == 403


def test_health_checks_the_llm_only_for_an_admin(http, monkeypatch):
    from tests.fakes.upstreams import FakeUpstreams

    with FakeUpstreams() as up:
        monkeypatch.setenv("OPENAI_API_BASE", up.openai_base)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-fake")
        up.script("ok")
        anon = http.get("/health", params={"check_llm": True}).json()
        assert anon["llm"]["checked"] is False
        assert http.get("/health", params={"check_llm": True}, headers=auth("alice")).json()["llm"]["checked"] is False
        admin = http.get("/health", params={"check_llm": True}, headers=auth("admin")).json()
        assert admin["llm"] == {"model": "gpt-4o-mini", "checked": True, "ok": True}
        assert len(up.requests) == 1  # exactly the admin's check reached the model
        monkeypatch.setenv("OPENAI_API_BASE", "http://127.0.0.1:9/v1")
        down = http.get("/health", params={"check_llm": True}, headers=auth("admin")).json()
        assert down["llm"]["ok"] is False and down["ok"] is True  # memory still works without its LLM


def test_bodies_past_the_limit_are_refused_before_they_are_read(http):
    h = fresh_user()
    big = {"messages": [msg("big", "user", "x" * (3 * 1024 * 1024))]}
    r = http.post("/v1/messages", json=big, headers=h)
    assert r.status_code == 413 and r.json()["error"] == "payload_too_large"

    def chunks():  # no Content-Length: counted as it streams
        for _ in range(40):
            yield b"x" * 100_000

    r = http.post("/v1/messages", content=chunks(), headers={**h, "Content-Type": "application/json"})
    assert r.status_code == 413
    assert http.get("/health").status_code == 200


def test_field_limits_name_the_field(http):
    h = fresh_user()
    r = http.post("/v1/messages", json={"messages": [msg("long", "user", "y" * 100_001)]}, headers=h)
    assert r.status_code == 422 and "content" in r.text
    r = http.post("/v1/memories", json={"content": "z" * 8001}, headers=h)
    assert r.status_code == 422 and "content" in r.text
    assert http.post("/v1/messages", json={"messages": [msg("ok", "user", "y" * 100_000)]}, headers=h).status_code == 200


def test_a_time_without_a_zone_is_read_as_utc_and_never_poisons_a_user(http):
    """Once, one naive timestamp made every later recall, boot, listing and export of that user fail."""
    h = fresh_user()
    naive = {"id": "n1", "role": "user", "content": "I moved to Porto", "session": "s", "created_at": "2026-11-30T10:00:00"}
    aware = {"id": "n2", "role": "user", "content": "I like the river", "session": "s", "created_at": "2026-11-30T10:05:00Z"}
    assert http.post("/v1/messages", json={"messages": [naive]}, headers=h).status_code == 200
    assert http.post("/v1/messages", json={"messages": [aware]}, headers=h).status_code == 200
    r = http.post("/v1/memories", json={"content": "Lives in Porto", "valid_from": "2026-11-01T00:00:00"}, headers=h)
    assert r.status_code == 200 and r.json()["memory"]["valid_from"].endswith(("Z", "+00:00"))
    assert http.post("/v1/memories", json={"content": "Likes the Douro", "valid_from": "2026-11-02T00:00:00+01:00"}, headers=h).status_code == 200
    for call in (lambda: http.post("/v1/recall", json={"query": "where do I live"}, headers=h),
                 lambda: http.post("/v1/search", json={"query": "river"}, headers=h),
                 lambda: http.get("/v1/boot", headers=h),
                 lambda: http.get("/v1/messages", headers=h)):
        assert call().status_code == 200
    msgs = http.get("/v1/messages", headers=h).json()["messages"]
    assert [m["id"] for m in msgs] == ["n1", "n2"] and msgs[0]["created_at"].startswith("2026-11-30T10:00:00")
    export = http.get("/v1/export", headers=h)
    assert export.status_code == 200 and "I moved to Porto" in export.text
