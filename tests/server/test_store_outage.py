"""Chroma down answers like any outage: every REST operation that needs the store is a 503 with
Retry-After (not a 500 with a traceback per request), /health says the store is down, and once
Chroma is back the same host serves again without a restart."""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Awaitable, Callable

import httpx
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from core import MemoryIn, MemoryPatch, RemoteMemory, StoreUnavailable, build_service
from core.ports import operations
from core.testing import HashEmbedder
from mcp_server.app import create_app
from server_kit import KEYS, auth, make_settings, serve
from tests.kit.servers import free_port, stop_process, wait_answering

pytestmark = pytest.mark.e2e


def start_chroma(path: Path, port: int) -> subprocess.Popen:
    exe = shutil.which("chroma", path=str(Path(sys.executable).parent))
    proc = subprocess.Popen([exe, "run", "--path", str(path), "--host", "127.0.0.1", "--port", str(port)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_answering(f"http://127.0.0.1:{port}/api/v2/heartbeat", proc, what="chroma run", timeout=30)
    return proc


def test_every_store_operation_is_a_503_while_chroma_is_down_and_works_again_after(tmp_path):
    port = free_port()
    chroma = start_chroma(tmp_path / "chroma", port)
    settings = make_settings(tmp_path / "data", chroma_url=f"http://127.0.0.1:{port}")
    service = build_service(settings, embedder=HashEmbedder())
    h = auth("alice")
    calls = [
        ("POST", "/v1/memories", {"content": "My tram stop is Bolhão"}),
        ("POST", "/v1/recall", {"query": "which tram stop?"}),
        ("POST", "/v1/search", {"query": "tram"}),
        ("GET", "/v1/memories", None),
        ("GET", "/v1/messages", None),
        ("POST", "/v1/forget/preview", {"what": "my tram stop"}),
        ("GET", "/v1/export", None),
    ]
    try:
        with serve(create_app(service, settings)) as url, httpx.Client(base_url=url, timeout=60) as http:
            assert http.post("/v1/memories", json={"content": "My cat is Miso"}, headers=h).status_code in (200, 201)
            stop_process(chroma)
            for method, path, body in calls:
                r = http.request(method, path, json=body, headers=h)
                if path == "/v1/recall" and r.status_code == 200:
                    continue  # recall degrades to "no memory" instead of failing the chat
                assert r.status_code == 503, (path, r.status_code, r.text[:300])
                assert r.headers.get("Retry-After") and r.json()["error"] == "store_unavailable", (path, r.text[:300])
            health = http.get("/health").json()
            assert health["store"]["ok"] is False
            chroma = start_chroma(tmp_path / "chroma", port)
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline:
                r = http.post("/v1/memories", json={"content": "My tram stop is Bolhão"}, headers=h)
                if r.status_code in (200, 201):
                    break
                time.sleep(0.5)
            assert r.status_code in (200, 201), r.text[:300]
            assert any("Miso" in m["content"] for m in http.get("/v1/memories", headers=h).json()["items"])
    finally:
        service.close()
        stop_process(chroma)


def _every_operation(mem_id: str, lines: list[dict]) -> dict[str, Callable[[RemoteMemory], Awaitable[Any]]]:
    """One call of each port operation, as a client would make it."""
    turn = {"id": "t-outage", "role": "user", "content": "My bike is blue", "created_at": "2026-11-01T09:00:00+00:00"}

    async def export(m: RemoteMemory) -> list:
        return [line async for line in m.export()]

    return {
        "recall": lambda m: m.recall("which bike?"),
        "search": lambda m: m.search("bike"),
        "ingest": lambda m: m.ingest([turn]),
        "messages": lambda m: m.messages(),
        "delete_message": lambda m: m.delete_message("t-outage"),
        "delete_messages": lambda m: m.delete_messages(everything=True),
        "forget": lambda m: m.forget("my bike", preview=True),
        "remember": lambda m: m.remember(MemoryIn(content="My bike is green")),
        "list": lambda m: m.list(),
        "get": lambda m: m.get(mem_id),
        "update": lambda m: m.update(mem_id, MemoryPatch(importance=0.9)),
        "delete": lambda m: m.delete(mem_id),
        "purge_trash": lambda m: m.purge_trash(),
        "restore": lambda m: m.restore(mem_id),
        "archive": lambda m: m.archive(mem_id),
        "pin": lambda m: m.pin(mem_id),
        "supersede": lambda m: m.supersede(mem_id, MemoryIn(content="My cat is Mochi")),
        "namespaces": lambda m: m.namespaces(),
        "events": lambda m: m.events(),
        "boot": lambda m: m.boot(),
        "precious_list": lambda m: m.precious_list(),
        "precious_add": lambda m: m.precious_add("you are braver than you think"),
        "glossary_get": lambda m: m.glossary_get(),
        "glossary_set": lambda m: m.glossary_set("PB", "personal best"),
        "glossary_delete": lambda m: m.glossary_delete("PB"),
        "digest_get": lambda m: m.digest_get(),
        "digest_set": lambda m: m.digest_set("Alice, cyclist"),
        "candidates": lambda m: m.candidates(),
        "candidate": lambda m: m.candidate(mem_id, "approve"),
        "export": export,
        "import_": lambda m: m.import_(lines),
        "cache_get": lambda m: m.cache_get("tests", "k"),
        "cache_put": lambda m: m.cache_put("tests", "k", 1),
        "cache_delete": lambda m: m.cache_delete("tests", "k"),
        "vectors_health": lambda m: m.vectors_health(),
        "reindex": lambda m: m.reindex("alice"),
        "why": lambda m: m.why(),
    }


async def test_every_port_operation_fails_as_store_unavailable_over_rest_and_mcp_while_chroma_is_down(tmp_path):
    """Each operation the port declares, through RemoteMemory (REST): StoreUnavailable, which is the
    host's 503 with Retry-After, never an internal 500; recall alone may answer "no memory". And the
    MCP tools answer a clean tool error naming the outage, without a traceback."""
    port = free_port()
    chroma = start_chroma(tmp_path / "chroma", port)
    settings = make_settings(tmp_path / "data", chroma_url=f"http://127.0.0.1:{port}")
    service = build_service(settings, embedder=HashEmbedder())
    try:
        with serve(create_app(service, settings)) as url:
            alice = RemoteMemory(url, api_key=KEYS["admin"], user="alice", timeout=60)
            mem_id = (await alice.remember(MemoryIn(content="My cat is Miso"))).memory.id
            calls = _every_operation(mem_id, [line async for line in alice.export()])
            assert set(calls) == set(operations()), "a new port operation needs a line here"
            stop_process(chroma)
            answers = {}
            for name, call in calls.items():
                try:
                    got = await call(alice)
                    # recall answers "no memory this turn"; why reads what this host kept in memory
                    answers[name] = "answered" if (name == "recall" and not got.items) or name == "why" else f"answered {got!r:.200}"
                except StoreUnavailable:
                    answers[name] = "503"
                except Exception as e:  # anything else is the defect this test looks for
                    answers[name] = f"{type(e).__name__}: {e}"
            wrong = {k: v for k, v in answers.items() if v not in ("503", "answered")}
            assert not wrong, wrong
            await alice.aclose()

            async with httpx2.AsyncClient(headers=auth("alice"), timeout=60) as http:
                async with Client(streamable_http_client(f"{url}/mcp", http_client=http)) as mcp:
                    for tool, args in (("memory_search", {"query": "bike"}), ("memory_upsert", {"content": "My bike is red"}),
                                       ("memory_list", {}), ("memory_forget", {"what": "my bike"})):
                        r = await mcp.call_tool(tool, args)
                        assert r.is_error and r.structured_content is None, (tool, r)
                        assert (r.meta or {}).get("amber/error", {}).get("error") == "store_unavailable", (tool, r.meta)
                        assert "Traceback" not in r.content[0].text, r.content[0].text
    finally:
        service.close()
        stop_process(chroma)
