"""Errors every MCP client can read, and a listing that shows a key only what it may do, over real
Streamable HTTP with the official SDK client:
- a failing call is `isError: true` with one text `<tool>: <what is wrong>; <what to do>`, no
  structuredContent (every structuredContent a client gets validates against the tool's output schema),
  and Amber's error body in `_meta["amber/error"]`;
- an unknown tool, and `arguments` that are no object, are JSON-RPC -32602;
- a read-only key lists no write tool, and calling one still fails cleanly."""

from __future__ import annotations

import json
from contextlib import asynccontextmanager

import httpx
import httpx2
import jsonschema
import pytest
from mcp import Client, MCPError
from mcp.client.streamable_http import streamable_http_client

from server_kit import KEYS

pytestmark = pytest.mark.e2e

READS = {"memory_search", "memory_recall", "memory_list", "memory_get", "glossary_get", "digest_get", "memory_boot",
         "memory_export", "namespaces_list", "messages_list", "memory_why"}
WRITES = {"memory_upsert", "memory_supersede", "memory_archive", "memory_update", "memory_delete", "memory_pin",
          "glossary_set", "digest_set", "memory_ingest", "candidates_review", "memory_forget", "messages_delete",
          "memory_restore", "memory_purge_trash"}


@asynccontextmanager
async def client(url: str, key: str, **headers: str):
    async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {key}", **headers}, timeout=30) as http:
        async with Client(streamable_http_client(f"{url}/mcp", http_client=http)) as c:
            yield c


async def test_failing_calls_say_what_is_wrong_and_what_to_do_and_carry_no_off_schema_content(host):
    url, _ = host
    async with client(url, KEYS["alice"]) as c:
        schemas = {t.name: t.output_schema for t in (await c.list_tools()).tools}
        ok = await c.call_tool("memory_upsert", {"content": "Plays the cello on Thursdays", "fact_key": "preference.instrument"})
        jsonschema.validate(ok.structured_content, schemas["memory_upsert"])  # a result validates against its schema
        cases = [
            ("memory_get", {"id": "m_nope"}, "memory_get: no memory 'm_nope'", "find the id again with memory_search", "not_found", None),
            ("memory_list", {"limit": 0}, "memory_list: limit: Input should be greater than or equal to 1",
             "correct that argument and call again", "invalid_input", "limit"),
            ("memory_upsert", {"content": "x", "fact_key": "food"}, "memory_upsert: ", "preference.food", "invalid_input", "fact_key"),
            ("memory_recall", {}, "memory_recall: query: Field required", "correct that argument", "invalid_input", "query"),
            ("candidates_review", {"action": "approve"}, "candidates_review: id: 'approve' needs the candidate's id",
             "correct that argument", "invalid_input", "id"),
        ]
        for tool, args, starts, then, code, field in cases:
            r = await c.call_tool(tool, args)
            assert r.is_error, (tool, r)
            assert r.structured_content is None, (tool, r.structured_content)
            assert len(r.content) == 1 and r.content[0].type == "text", tool
            text = r.content[0].text
            assert text.startswith(starts) and then in text, (tool, text)
            assert "http" not in text and "Traceback" not in text, (tool, text)  # no pydantic links, no stack
            body = r.meta["amber/error"]
            assert body["error"] == code and body["field"] == field and body["detail"], (tool, body)


async def raw_session(url: str, key: str) -> tuple[httpx.AsyncClient, dict[str, str]]:
    """An MCP session by hand (JSON-RPC over HTTP), to send what no SDK client would."""
    http = httpx.AsyncClient(base_url=url, timeout=30)
    headers = {"Authorization": f"Bearer {key}", "Accept": "application/json, text/event-stream"}
    r = await http.post("/mcp", headers=headers, json={"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}})
    assert r.status_code == 200, r.text
    headers = {**headers, "mcp-session-id": r.headers["mcp-session-id"], "mcp-protocol-version": "2025-06-18"}
    await http.post("/mcp", headers=headers, json={"jsonrpc": "2.0", "method": "notifications/initialized"})
    return http, headers


def answer(r: httpx.Response) -> dict:
    if r.headers["content-type"].startswith("text/event-stream"):
        return json.loads(next(line[5:] for line in r.text.splitlines() if line.startswith("data:")))
    return r.json()


async def test_unknown_tools_and_malformed_arguments_are_json_rpc_invalid_params(host):
    url, _ = host
    async with client(url, KEYS["alice"]) as c:
        with pytest.raises(MCPError) as unknown:
            await c.call_tool("memory_telepathy", {"query": "x"})
    assert unknown.value.error.code == -32602
    assert "Amber has no tool 'memory_telepathy'; tools/list names the tools" in unknown.value.error.message

    http, headers = await raw_session(url, KEYS["alice"])
    try:
        for rid, params in enumerate([{"name": "memory_get", "arguments": "m_1"}, {"name": "memory_get", "arguments": [1]},
                                      {"arguments": {}}], start=2):
            r = await http.post("/mcp", headers=headers, json={"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": params})
            got = answer(r)
            assert got.get("error", {}).get("code") == -32602 and "result" not in got, (params, got)
    finally:
        await http.aclose()


async def test_a_key_lists_only_the_tools_its_scopes_allow_and_calls_outside_fail_cleanly(host):
    url, _ = host
    async with client(url, KEYS["alice"]) as c:
        assert {t.name for t in (await c.list_tools()).tools} == READS | WRITES
    async with client(url, KEYS["admin"], **{"X-Amber-User": "alice"}) as c:
        assert {t.name for t in (await c.list_tools()).tools} == READS | WRITES
    async with client(url, KEYS["alice_ro"]) as c:
        listed = {t.name: t for t in (await c.list_tools()).tools}
        assert set(listed) == READS
        assert all(t.annotations.read_only_hint for t in listed.values())
        assert not (await c.call_tool("memory_list", {})).is_error
        for tool, args in [("memory_upsert", {"content": "Sneaky write"}), ("memory_delete", {"id": "m_x"}),
                           ("digest_set", {"text": "x"}), ("memory_forget", {"what": "cello", "preview": False})]:
            r = await c.call_tool(tool, args)
            assert r.is_error and r.structured_content is None, tool
            text = r.content[0].text
            assert text.startswith(f"{tool}: key 'alice-ro' lacks scope memory:write; this key may not do that"), (tool, text)
            assert r.meta["amber/error"]["error"] == "forbidden", tool
