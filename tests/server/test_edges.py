"""Regression tests for the odd inputs at the server edge: each odd input gets a clear 4xx, never a 500."""

from __future__ import annotations

import logging
import re
import socket
import subprocess

import httpx
import pytest

from core import Actor, InvalidInput, MemoryIn, build_service, scope_for
from core.testing import HashEmbedder
from mcp_server.app import create_app
from mcp_server.identity import KeyRing
from mcp_server.mcp_tools import build_mcp
from server_kit import auth, key_configs, make_settings
from test_cli import AMBER, env


@pytest.fixture
async def client(tmp_path):
    settings = make_settings(tmp_path / "data")
    service = build_service(settings, embedder=HashEmbedder())
    transport = httpx.ASGITransport(app=create_app(service, settings), client=("127.0.0.1", 50000))
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:4100") as c:
        yield c, service
    service.close()


JSON = {"Content-Type": "application/json"}


async def test_lone_surrogate_and_nan_are_refused_not_stored(client):
    c, _ = client
    h = {**auth("alice"), **JSON}
    r = await c.put("/v1/cache/ns/k", content=b'{"value": "tea \\ud800"}', headers=h)
    assert r.status_code == 422 and r.json()["field"] == "value" and "surrogate" in r.json()["detail"], r.text
    r = await c.post("/v1/memories", content=b'{"content": "x", "tags": ["\\udc00"]}', headers=h)
    assert r.status_code == 422 and r.json()["field"] == "tags.0"
    for const in (b"NaN", b"Infinity", b"-Infinity"):
        r = await c.put("/v1/cache/ns/k", content=b'{"value": ' + const + b"}", headers=h)
        assert r.status_code == 422 and "not a number JSON allows" in r.json()["detail"], r.text
    assert (await c.get("/v1/cache/ns/k", headers=auth("alice"))).status_code == 404  # nothing stored
    r = await c.put("/v1/cache/ns/k", json={"value": 1.5}, headers=auth("alice"))
    assert r.status_code == 200 and r.json()["value"] == 1.5


async def test_invalid_json_names_the_body_not_a_character_offset(client):
    c, _ = client
    r = await c.post("/v1/memories", content=b'{"content": "x",,}', headers={**auth("alice"), **JSON})
    assert r.status_code == 422 and r.json()["field"] == "body", r.text
    assert "column" in r.json()["detail"] and not r.json()["field"].isdigit()


async def test_negative_cursor_is_refused(client, tmp_path):
    c, service = client
    r = await c.get("/v1/memories", params={"cursor": "-5"}, headers=auth("alice"))
    assert r.status_code == 422 and r.json()["field"] == "cursor"
    with pytest.raises(InvalidInput):
        service.list(scope_for(Actor("alice")), cursor="-1")


async def test_trusted_client_without_user_is_told_to_send_the_header(client):
    c, _ = client
    r = await c.get("/v1/memories", headers=auth("owui"))
    detail = r.json()["detail"]
    assert r.status_code == 422 and "X-Amber-User" in detail and "admin" not in detail and "'owui'" in detail
    ring = KeyRing(key_configs())
    assert ring.identify("k-owui-31c4d0", {}, "127.0.0.1").user_id is None


async def test_control_characters_are_escaped_in_the_access_log(client, caplog):
    c, _ = client
    with caplog.at_level(logging.INFO, logger="amber.server.http"):
        await c.get("/v1/memories/x%0A200 user=forged key=admin", headers=auth("alice"))
    lines = [r.getMessage() for r in caplog.records if r.name == "amber.server.http"]
    assert lines and all("\n" not in line for line in lines) and "\\n" in lines[-1]


async def test_pin_and_archive_refuse_a_superseded_record(client):
    c, service = client
    me = scope_for(Actor("alice"))
    old = service.remember(me, MemoryIn(content="Lisbon", fact_key="profile.city")).memory
    service.remember(me, MemoryIn(content="Porto", fact_key="profile.city"))
    for verb in ("pin", "archive"):
        r = await c.post(f"/v1/memories/{old.id}/{verb}", headers=auth("alice"))
        assert r.status_code == 422 and "superseded" in r.json()["detail"] and "current version" in r.json()["detail"], r.text
    assert service.get(me, old.id).status.value == "superseded" and not service.get(me, old.id).pinned


async def test_mcp_argument_errors_are_short_and_without_links():
    mcp = build_mcp(lambda: None)
    from mcp.server.mcpserver.exceptions import ToolError

    with pytest.raises(ToolError) as e:
        await mcp.call_tool("memory_recall", {"query": "", "budget_tokens": 5})
    text = str(e.value)
    assert text.startswith("memory_recall: ") and "http" not in text and "query" in text and len(text) < 300, text


@pytest.mark.e2e
def test_ready_is_not_logged_when_the_port_is_taken(tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        r = subprocess.run([AMBER, "serve", "--port", str(port), "--no-jobs"], env=env(tmp_path), capture_output=True,
                           text=True, timeout=120)
    assert r.returncode != 0 and "address already in use" in r.stderr, r.stderr
    assert not re.search(r"\bready\b", r.stderr), r.stderr


async def test_deep_nesting_is_refused_not_a_server_error(client):
    """A value nested a few hundred levels could be stored but never answered (the serializer gives up),
    a few thousand stopped the decoder itself: both were a 500."""
    c, _ = client
    h = {**auth("alice"), **JSON}
    for depth in (65, 900, 5000, 100_000):
        r = await c.put("/v1/cache/ns/k", content=b'{"value": ' + b"[" * depth + b"]" * depth + b"}", headers=h)
        assert r.status_code == 422 and "deeper than 64" in r.json()["detail"], (depth, r.text[:200])
    assert (await c.put("/v1/cache/ns/k", content=b'{"value": ' + b"[" * 63 + b"]" * 63 + b"}", headers=h)).status_code == 200
    header = b'{"type": "header", "format": "amber-export", "version": 1, "user_id": "x", "embedder": "hash:v1"}\n'
    for depth in (900, 5000):
        line = b'{"type": "event", "detail": ' + b"[" * depth + b"]" * depth + b"}\n"
        r = await c.post("/v1/import", content=header + line, headers={**auth("alice"), "Content-Type": "application/x-ndjson"})
        assert r.status_code == 422 and r.json()["field"] == "line 2" and "deeper" in r.json()["detail"], r.text[:200]
