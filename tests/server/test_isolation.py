"""No user can read another's memories through the memory server: every reading REST route and
every reading MCP tool, with Alice's and Bob's own keys, and with a trusted client naming the user."""

from __future__ import annotations

import httpx
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from server_kit import KEYS, auth

pytestmark = pytest.mark.e2e

SECRET = "Alice's bank PIN hint is the lighthouse 7431"


@pytest.fixture(scope="module")
def seeded(host):
    """Alice owns one of everything; Bob owns one ordinary fact."""
    url, _ = host
    with httpx.Client(base_url=url, timeout=30) as c:
        a = auth("alice")
        ids = {
            "fact": c.post("/v1/memories", json={"content": SECRET, "fact_key": "profile.pin_hint", "pinned": True}, headers=a).json()["memory"]["id"],
            "cand": c.post("/v1/memories", json={"content": "Alice maybe likes lighthouse tours", "status": "candidate"}, headers=a).json()["memory"]["id"],
        }
        c.post("/v1/precious", json={"quote": "lighthouse 7431 forever"}, headers=a).raise_for_status()
        c.post("/v1/glossary", json={"term": "Lighthouse", "definition": "Alice's code word 7431"}, headers=a).raise_for_status()
        c.put("/v1/digest", json={"text": "Alice: lighthouse 7431"}, headers=a).raise_for_status()
        c.post("/v1/messages", json={"messages": [{"id": "alice-msg-1", "role": "user", "content": "my lighthouse code is 7431",
                                                   "created_at": "2026-11-30T00:00:00Z"}]}, headers=a).raise_for_status()
        c.put("/v1/cache/owui/secret", json={"value": "lighthouse 7431"}, headers=a).raise_for_status()
        c.post("/v1/memories", json={"content": "Beam schedule", "namespace": "project:lighthouse"}, headers=a).raise_for_status()
        c.post("/v1/memories", json={"content": "Bob likes trains"}, headers=auth("bob")).raise_for_status()
        # a chat request that named itself: what it injected is Alice's to ask about (memory_why)
        c.post("/v1/recall", json={"query": "lighthouse 7431 PIN", "why": "alice-chat-1"}, headers=a).raise_for_status()
    return url, ids


def leaks(text: str) -> bool:
    low = text.lower()
    return "7431" in low or "lighthouse" in low or "alice" in low


def bob_headers() -> list[dict[str, str]]:
    # Bob's own key, and the trusted client acting for Bob
    return [auth("bob"), auth("owui", **{"X-Amber-User": "bob"})]


def test_every_reading_route_is_isolated(seeded):
    url, ids = seeded
    reads = [
        ("GET", "/v1/memories?status=any", None),
        ("GET", "/v1/memories?text=lighthouse&status=any", None),
        ("POST", "/v1/search", {"query": "lighthouse 7431 PIN"}),
        ("POST", "/v1/recall", {"query": "lighthouse 7431 PIN"}),
        ("GET", "/v1/boot", None),
        ("GET", "/v1/precious", None),
        ("GET", "/v1/glossary", None),
        ("GET", "/v1/digest", None),
        ("GET", "/v1/candidates", None),
        ("GET", "/v1/export", None),
        ("GET", "/v1/messages", None),
        ("GET", "/v1/events", None),
        ("GET", "/v1/namespaces", None),
    ]
    with httpx.Client(base_url=url, timeout=30) as c:
        for method, path, body in reads:
            mine = c.request(method, path, json=body, headers=auth("alice"))
            assert mine.status_code == 200 and leaks(mine.text), (path, mine.text[:200])  # the probe can see it at all
            for h in bob_headers():
                r = c.request(method, path, json=body, headers=h)
                assert r.status_code == 200, (path, r.text)
                assert not leaks(r.text), (path, r.text[:300])
        for h in bob_headers():
            for mid in ids.values():
                assert c.get(f"/v1/memories/{mid}", headers=h).status_code == 404
                assert c.get("/v1/events", params={"memory_id": mid}, headers=h).json()["events"] == []
                # nor can Bob change Alice's records
                assert c.delete(f"/v1/memories/{mid}", headers=h).status_code == 404
                assert c.post(f"/v1/memories/{mid}/supersede", json={"content": "x"}, headers=h).status_code == 404
                assert c.post(f"/v1/candidates/{mid}/approve", headers=h).status_code == 404
            assert c.get("/v1/glossary/Lighthouse", headers=h).status_code == 404
            assert c.get("/v1/cache/owui/secret", headers=h).status_code == 404
        # Alice's records are untouched by Bob's attempts
        assert c.get(f"/v1/memories/{ids['fact']}", headers=auth("alice")).json()["status"] == "active"


READ_TOOLS = [
    ("memory_search", {"query": "lighthouse 7431 PIN"}),
    ("memory_recall", {"query": "lighthouse 7431 PIN"}),
    ("memory_list", {"status": "any"}),
    ("memory_boot", {}),
    ("memory_export", {}),
    ("candidates_review", {"action": "list"}),
    ("glossary_get", {}),
    ("glossary_get", {"term": "Lighthouse"}),
    ("digest_get", {}),
    ("namespaces_list", {}),
    ("memory_why", {"last": 20}),
]


async def test_every_reading_tool_is_isolated_over_streamable_http(seeded):
    url, ids = seeded
    async with Client(f"{url}/mcp?token={KEYS['alice']}") as alice:
        for tool, args in READ_TOOLS:
            r = await alice.call_tool(tool, args)
            assert not r.is_error and leaks(str(r.structured_content)), tool
    async with httpx2.AsyncClient(headers=auth("bob"), timeout=30) as http:
        async with Client(streamable_http_client(f"{url}/mcp", http_client=http)) as bob:
            for tool, args in READ_TOOLS:
                r = await bob.call_tool(tool, args)
                assert not r.is_error, (tool, r.content)
                assert not leaks(str(r.structured_content)), (tool, r.structured_content)
            for mid in ids.values():
                r = await bob.call_tool("memory_get", {"id": mid})
                assert r.is_error and "no memory" in r.content[0].text
                r = await bob.call_tool("memory_delete", {"id": mid})
                assert r.is_error
                r = await bob.call_tool("candidates_review", {"action": "approve", "id": mid})
                assert r.is_error


async def test_one_mcp_session_cannot_borrow_another_keys_identity(seeded):
    """Each HTTP request acts with its own key, even inside a session another key opened."""
    url, _ = seeded
    async with httpx.AsyncClient(timeout=30) as http:
        init = await http.post(
            f"{url}/mcp",
            headers={**auth("alice"), "Accept": "application/json, text/event-stream", "Content-Type": "application/json",
                     "MCP-Protocol-Version": "2025-06-18"},
            json={"jsonrpc": "2.0", "id": 1, "method": "initialize",
                  "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}},
        )
        assert init.status_code == 200
        sid = init.headers.get("mcp-session-id")
        assert sid
        common = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json",
                  "mcp-session-id": sid, "MCP-Protocol-Version": "2025-06-18"}
        await http.post(f"{url}/mcp", headers={**auth("alice"), **common}, json={"jsonrpc": "2.0", "method": "notifications/initialized"})
        call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "memory_recall", "arguments": {"query": "lighthouse 7431"}}}
        as_bob = await http.post(f"{url}/mcp", headers={**auth("bob"), **common}, json=call)
        assert not leaks(as_bob.text), as_bob.text[:300]
        as_alice = await http.post(f"{url}/mcp", headers={**auth("alice"), **common}, json=call)
        assert leaks(as_alice.text)
        no_key = await http.post(f"{url}/mcp", headers=common, json=call)
        assert no_key.status_code == 401
