"""Chroma down answers like any outage: every REST operation that needs the store is a 503 with
Retry-After (not a 500 with a traceback per request), /health says the store is down, and once
Chroma is back the same host serves again without a restart."""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from core import build_service
from core.testing import HashEmbedder
from mcp_server.app import create_app
from server_kit import auth, make_settings, serve
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
