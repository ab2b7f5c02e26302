"""Auth as MCP clients expect it. Amber has API keys and no OAuth server: every discovery and
registration URL an OAuth-aware client probes answers 404 whatever the key (a 401 there reads as "log
in here"), and a refusal on /mcp is a 401/403 with a JSON-RPC error naming what to fix, which the
official SDK client shows as it is."""

from __future__ import annotations

import httpx
import httpx2
import pytest
from mcp import Client, MCPError
from mcp.client.streamable_http import streamable_http_client

from server_kit import KEYS

pytestmark = pytest.mark.e2e

# what mcp-remote, the MCP Inspector and the SDK's OAuth client try, path-suffixed and path-prefixed
DISCOVERY = [
    "/.well-known/oauth-protected-resource",
    "/.well-known/oauth-protected-resource/mcp",
    "/.well-known/oauth-authorization-server",
    "/.well-known/oauth-authorization-server/mcp",
    "/.well-known/openid-configuration",
    "/.well-known/openid-configuration/mcp",
    "/mcp/.well-known/openid-configuration",
    "/mcp/.well-known/oauth-authorization-server",
    "/mcp/.well-known/oauth-protected-resource",
    "/register",
    "/authorize",
    "/token",
]


async def test_oauth_discovery_and_registration_are_404_whatever_the_key(host):
    url, _ = host
    keys = {"none": {}, "wrong": {"Authorization": "Bearer k-nobody"}, "good": {"Authorization": f"Bearer {KEYS['alice']}"},
            "read-only": {"Authorization": f"Bearer {KEYS['alice_ro']}"}, "query token": {}}
    async with httpx.AsyncClient(base_url=url, timeout=30) as http:
        for path in DISCOVERY:
            for who, headers in keys.items():
                target = f"{path}?token={KEYS['alice']}" if who == "query token" else path
                for method in ("GET", "POST"):
                    kw = {"json": {"client_name": "x", "redirect_uris": ["http://127.0.0.1:1/cb"]}} if method == "POST" else {}
                    r = await http.request(method, target, headers=headers, **kw)
                    assert r.status_code == 404, (path, who, method, r.status_code)
                    assert "www-authenticate" not in r.headers, (path, who, method)
                    detail = r.json()["detail"]
                    assert "Amber has no OAuth server: send its API key as 'Authorization: Bearer <key>'" in detail, (path, who, method)
                    assert ("The key sent is not one this host knows" in detail) == (who == "wrong"), (path, who, method)


async def raw_mcp(url: str, headers: dict[str, str]) -> httpx.Response:
    init = {"jsonrpc": "2.0", "id": 7, "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}}
    async with httpx.AsyncClient(timeout=30) as http:
        return await http.post(f"{url}/mcp", json=init, headers={"Accept": "application/json, text/event-stream", **headers})


@pytest.mark.parametrize("who, headers, status, says, code", [
    ("missing key", {}, 401, "Amber needs an API key: send 'Authorization: Bearer <key>'", "unauthenticated"),
    ("unknown key", {"Authorization": "Bearer k-nobody"}, 401, "Amber does not know this API key: use a key listed under api_keys",
     "unauthenticated"),
    ("another user's name", {"Authorization": f"Bearer {KEYS['bob']}", "X-Amber-User": "alice"}, 403,
     "Amber refuses this key: key 'bob' acts only for its own user", "forbidden"),
    ("admin naming nobody", {"Authorization": f"Bearer {KEYS['admin']}"}, 422, "send that header", "invalid_input"),
])
async def test_a_refusal_on_mcp_is_a_json_rpc_error_naming_the_fix(host, who, headers, status, says, code):
    url, _ = host
    r = await raw_mcp(url, headers)
    assert r.status_code == status, (who, r.text)
    assert (r.headers.get("www-authenticate") == 'Bearer realm="amber"') == (status == 401), who
    body = r.json()
    assert body["jsonrpc"] == "2.0" and body["id"] is None and body["error"]["code"] == -32010, body
    assert says in body["error"]["message"], body
    assert body["error"]["data"]["error"] == code and body["error"]["data"]["status"] == status, body


@pytest.mark.parametrize("headers, says", [
    ({"Authorization": "Bearer k-nobody"}, "Amber does not know this API key"),
    ({}, "Amber needs an API key"),
    ({"Authorization": f"Bearer {KEYS['bob']}", "X-Amber-User": "alice"}, "key 'bob' acts only for its own user"),
])
async def test_the_sdk_client_shows_why_it_was_refused(host, headers, says):
    url, _ = host
    async with httpx2.AsyncClient(headers=headers, timeout=30) as http:
        with pytest.raises(BaseException) as failed:
            async with Client(streamable_http_client(f"{url}/mcp", http_client=http)):
                pass
    errors = [e for e in leaves(failed.value) if isinstance(e, MCPError)]
    assert errors and says in str(errors[0]), failed.value
    assert "Server returned an error response" not in str(errors[0])


def leaves(e: BaseException) -> list[BaseException]:
    return [x for sub in e.exceptions for x in leaves(sub)] if isinstance(e, BaseExceptionGroup) else [e]
