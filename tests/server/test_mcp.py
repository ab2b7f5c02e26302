"""MCP tools through real MCP clients: in memory, and Streamable HTTP against uvicorn (bearer and ?token=),
also with the app mounted under a prefix the way the LiteLLM hook hosts it."""

from __future__ import annotations

import contextlib

import httpx
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from server_kit import KEYS, auth, host_app, make_settings, serve
from core import build_service
from mcp_server.app import create_app
from core import READ, WRITE, Identity
from mcp_server.identity import current_identity

TOOLS = {
    "memory_search", "memory_recall", "memory_list", "memory_get", "memory_upsert", "memory_supersede", "memory_archive",
    "memory_update", "memory_delete", "memory_pin", "glossary_set", "glossary_get", "digest_get", "digest_set", "memory_boot",
    "memory_ingest", "memory_export", "namespaces_list", "candidates_review", "memory_forget", "messages_list",
    "messages_delete", "memory_restore", "memory_purge_trash", "memory_why",
}


@pytest.fixture
def app(tmp_path):
    settings = make_settings(tmp_path / "data")
    service = build_service(settings)
    yield create_app(service, settings)
    service.close()


@contextlib.asynccontextmanager
async def as_user(app, user: str, scopes=frozenset({READ, WRITE})):
    token = current_identity.set(Identity("test", user, frozenset(scopes)))
    try:
        async with Client(app.state.amber_mcp) as c:
            yield c
    finally:
        current_identity.reset(token)


async def call(c, tool: str, **args):
    r = await c.call_tool(tool, args)
    assert not r.is_error, (tool, r.content)
    return r.structured_content


async def test_tool_contract(app):
    async with as_user(app, "ann") as c:
        tools = {t.name: t for t in (await c.list_tools()).tools}
    assert set(tools) == TOOLS
    for t in tools.values():
        assert t.description and len(t.description) > 60, t.name
        assert t.title and len(t.title) < 40, t.name  # hosts show the title to people
        assert t.output_schema, t.name  # structured output
        assert t.annotations is not None, t.name
        for name, prop in t.input_schema.get("properties", {}).items():
            assert prop.get("description"), (t.name, name)
    reads = {"memory_search", "memory_recall", "memory_list", "memory_get", "glossary_get", "digest_get", "memory_boot",
             "memory_export", "namespaces_list", "messages_list", "memory_why"}
    assert {n for n, t in tools.items() if t.annotations.read_only_hint} == reads
    assert tools["memory_delete"].annotations.destructive_hint is True
    assert tools["memory_update"].annotations.destructive_hint is True
    assert tools["memory_archive"].annotations.destructive_hint is True
    assert tools["memory_forget"].annotations.destructive_hint is True
    assert tools["messages_delete"].annotations.destructive_hint is True
    assert tools["memory_purge_trash"].annotations.destructive_hint is True
    assert tools["memory_upsert"].annotations.destructive_hint is False
    assert tools["memory_restore"].annotations.destructive_hint is False
    assert tools["memory_upsert"].annotations.idempotent_hint is True
    assert "BEFORE answering" in tools["memory_recall"].description
    assert "durable" in tools["memory_upsert"].description


async def test_tools_end_to_end_in_memory(app):
    async with as_user(app, "ann") as c:
        w = await call(c, "memory_upsert", content="Drinks oat milk flat whites", fact_key="preference.coffee", importance=0.7)
        assert w["action"] == "created" and w["memory"]["category"] == "preference"
        again = await call(c, "memory_upsert", content="Drinks oat milk flat whites", fact_key="preference.coffee")
        assert again["action"] == "seen"
        rec = await call(c, "memory_recall", query="how does she take her coffee? flat white")
        assert "oat milk" in rec["text"] and rec["items"][0]["id"] == w["memory"]["id"]
        hits = await call(c, "memory_search", query="flat whites", top_k=3)
        assert hits["hits"][0]["text"] == "Drinks oat milk flat whites"

        sup = await call(c, "memory_supersede", id=w["memory"]["id"], content="Switched to black espresso")
        assert sup["action"] == "superseded" and sup["previous"]["status"] == "superseded"
        new = sup["memory"]["id"]
        assert (await call(c, "memory_get", id=new))["fact_key"] == "preference.coffee"
        assert (await call(c, "memory_pin", id=new))["pinned"] is True
        listed = await call(c, "memory_list", category="preference")
        assert [m["id"] for m in listed["items"]] == [new]

        g = await call(c, "glossary_set", term="Q3 push", definition="the September release crunch", aliases=["q3"])
        assert g["memory"]["title"] == "Q3 push"
        assert (await call(c, "glossary_get", term="q3"))["entries"][0]["title"] == "Q3 push"
        assert (await call(c, "digest_set", text="Ann: product lead, coffee nerd"))["digest"]["kind"] == "digest"
        assert (await call(c, "digest_get"))["digest"]["content"] == "Ann: product lead, coffee nerd"

        ing = await call(c, "memory_ingest", messages=[{"role": "user", "content": "remember that my cat is called Miso"},
                                                         {"role": "assistant", "content": "Noted!"}])
        assert ing["ingested"] == 2 and ing["commands"][0]["action"] == "remember"
        boot = await call(c, "memory_boot")
        assert boot["digest"]["content"].startswith("Ann") and [p["id"] for p in boot["pinned"]] == [new]
        assert boot["glossary"][0]["title"] == "Q3 push" and len(boot["today"]) == 2
        assert boot["counts"]["fact"] == 2

        cand = (await call(c, "memory_upsert", content="Maybe vegetarian", fact_key="preference.diet"))["memory"]["id"]
        assert (await call(c, "memory_archive", id=cand))["status"] == "archived"
        assert (await call(c, "memory_delete", id=new))["status"] == "deleted"

        exp = await call(c, "memory_export", limit=3)
        assert exp["truncated"] is True and exp["lines"][0]["type"] == "header"
        assert (await call(c, "namespaces_list"))["namespaces"]["default"] >= 3
        assert (await call(c, "candidates_review"))["candidates"] == []


async def test_review_queue_tool(app):
    svc = app.state.amber_memory.service
    from core import Actor, MemoryIn, scope_for

    scope = scope_for(Actor("rev"))
    target = svc.remember(scope, MemoryIn(content="Works at Acme", fact_key="profile.employer")).memory.id
    c1 = svc.remember(scope, MemoryIn(content="Likes jazz", status="candidate")).memory.id
    c2 = svc.remember(scope, MemoryIn(content="Works at Globex", fact_key="profile.employer", status="candidate")).memory.id
    async with as_user(app, "rev") as c:
        assert {m["id"] for m in (await call(c, "candidates_review"))["candidates"]} == {c1, c2}
        assert (await call(c, "candidates_review", action="approve", id=c1))["memory"]["status"] == "active"
        r = await c.call_tool("candidates_review", {"action": "supersede", "id": c2})
        assert r.is_error and "target_id" in r.content[0].text
        done = await call(c, "candidates_review", action="supersede", id=c2, target_id=target)
        assert done["previous"]["id"] == target and done["memory"]["content"] == "Works at Globex"
        r = await c.call_tool("candidates_review", {"action": "discard"})
        assert r.is_error and "id" in r.content[0].text


async def test_errors_a_model_can_act_on(app):
    async with as_user(app, "err") as c:
        r = await c.call_tool("memory_upsert", {"content": "x", "fact_key": "food"})
        assert r.is_error and "fact_key" in r.content[0].text and "preference.food" in r.content[0].text
        r = await c.call_tool("memory_get", {"id": "m_missing"})
        assert r.is_error and "no memory 'm_missing'" in r.content[0].text
        r = await c.call_tool("memory_recall", {"query": ""})
        assert r.is_error
        p = await call(c, "memory_upsert", content="Exactly these words", kind="precious")
        r = await c.call_tool("memory_delete", {"id": p["memory"]["id"]})
        assert r.is_error and "precious" in r.content[0].text
    async with as_user(app, "err", scopes={READ}) as c:
        assert (await call(c, "memory_list"))["items"]
        for tool, args in [("memory_upsert", {"content": "nope"}), ("memory_pin", {"id": p["memory"]["id"]}),
                           ("digest_set", {"text": "x"}), ("glossary_set", {"term": "a", "definition": "b"}),
                           ("memory_ingest", {"messages": [{"role": "user", "content": "hi"}]})]:
            r = await c.call_tool(tool, args)
            assert r.is_error and "lacks scope memory:write" in r.content[0].text, tool


@pytest.mark.e2e
async def test_streamable_http_with_bearer_and_query_token(app):
    with serve(app) as url:
        async with httpx2.AsyncClient(headers=auth("alice"), timeout=30) as http:
            async with Client(streamable_http_client(f"{url}/mcp", http_client=http)) as c:
                assert {t.name for t in (await c.list_tools()).tools} == TOOLS
                w = await call(c, "memory_upsert", content="Prefers window seats", fact_key="preference.seat")
        async with Client(f"{url}/mcp?token={KEYS['alice']}") as c:
            got = await call(c, "memory_get", id=w["memory"]["id"])
            assert got["content"] == "Prefers window seats"
        async with Client(f"{url}/mcp?token={KEYS['alice_ro']}") as c:
            r = await c.call_tool("memory_delete", {"id": w["memory"]["id"]})
            assert r.is_error and "memory:write" in r.content[0].text
        async with httpx.AsyncClient() as raw:
            # a wrong key is refused before MCP, with a plain Bearer challenge: no OAuth metadata to discover
            r = await raw.post(f"{url}/mcp?token=wrong", json={}, headers={"Accept": "application/json, text/event-stream"})
            assert r.status_code == 401 and r.headers["www-authenticate"] == 'Bearer realm="amber"'

            # the DNS-rebinding guard: a Host outside allowed_hosts is refused even with a key
            r = await raw.post(f"{url}/mcp", headers={**auth("alice"), "Host": "evil.example", "Content-Type": "application/json",
                                                      "Accept": "application/json, text/event-stream"}, json={})
            assert r.status_code == 421
            # no OAuth discovery is advertised for static keys
            r = await raw.get(f"{url}/.well-known/oauth-protected-resource/mcp", headers=auth("alice"))
            assert r.status_code == 404


@pytest.mark.e2e
async def test_mounted_under_a_prefix(tmp_path):
    """The LiteLLM hook mounts the app at /memory and enters its lifespan itself."""
    settings = make_settings(tmp_path / "data")
    service = build_service(settings)
    sub = create_app(service, settings)

    host = host_app(sub)

    @host.get("/v1/chat/completions")
    async def chat() -> dict:
        return {"host": "own route"}

    host.mount("/memory", sub)
    try:
        with serve(host) as url:
            async with httpx.AsyncClient(base_url=url, timeout=30) as http:
                assert (await http.get("/v1/chat/completions")).json() == {"host": "own route"}
                assert (await http.get("/memory/health")).json()["ok"] is True
                r = await http.post("/memory/v1/memories", json={"content": "Mounted fine"}, headers=auth("bob"))
                assert r.status_code == 200, r.text
                assert (await http.get("/memory/v1/memories", headers=auth("bob"))).json()["items"][0]["content"] == "Mounted fine"
                assert (await http.get("/memory/v1/memories")).status_code == 401
                assert "/v1/recall" in (await http.get("/memory/openapi.json")).json()["paths"]
            async with Client(f"{url}/memory/mcp?token={KEYS['bob']}") as c:
                hits = await call(c, "memory_search", query="mounted")
                assert hits["hits"][0]["text"] == "Mounted fine"
    finally:
        service.close()
