"""Local mode's browser guard: origins and Host headers compared whole, writes only as JSON."""

from __future__ import annotations

import httpx
import pytest

from core import build_service
from core.testing import HashEmbedder
from mcp_server.app import create_app
from mcp_server.origin import body_type_refusal, host_allowed, local_origin
from server_kit import make_settings

FOREIGN = [
    "http://localhost.attacker.example",
    "http://127.0.0.1.evil.com",
    "http://127.0.0.1.evil.com:4100",
    "http://localhost.:4100.evil.com",
    "http://evil.com#@127.0.0.1",
    "http://127.0.0.1@evil.com",
    "http://user@127.0.0.1:4100",
    "null",
    "file://",
    "ftp://127.0.0.1",
    "http://127.0.0.1:99999",
    "http://127.0.0.1:4100/path",
    "https://evil.example",
    "",
]
LOCAL = ["http://127.0.0.1:4100", "http://localhost:3000", "http://[::1]:4100", "https://localhost", "http://LOCALHOST:4100"]


@pytest.mark.parametrize("origin", FOREIGN)
def test_foreign_origins_are_not_local(origin):
    assert not local_origin(origin)


@pytest.mark.parametrize("origin", LOCAL)
def test_loopback_origins_are_local(origin):
    assert local_origin(origin)


def test_host_header_is_compared_whole():
    allowed = ["127.0.0.1:*", "localhost:*", "[::1]:*", "memory.lan:8443"]
    for ok in ("127.0.0.1:4100", "localhost", "[::1]:80", "memory.lan:8443", "LOCALHOST:1"):
        assert host_allowed(ok, allowed), ok
    for bad in ("localhost:4100.evil.com", "127.0.0.1.evil.com:80", "evil.com", "memory.lan:80", "127.0.0.1:4100/x",
                "user@127.0.0.1:4100", "", "127.0.0.1:port"):
        assert not host_allowed(bad, allowed), bad
    assert host_allowed("anything.example", ["*"])


def test_write_body_types():
    assert body_type_refusal("GET", "/v1/memories", "text/plain", True) is None
    assert body_type_refusal("POST", "/v1/memories", "application/json; charset=utf-8", True) is None
    assert body_type_refusal("POST", "/v1/memories/m1/pin", None, False) is None  # no body, nothing to misread
    assert body_type_refusal("POST", "/v1/import", "application/x-ndjson", True) is None
    assert body_type_refusal("POST", "/memory/v1/import/", "application/x-ndjson", True) is None
    for media in ("text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", None):
        assert body_type_refusal("POST", "/v1/import", media, True), media
        assert body_type_refusal("PUT", "/v1/digest", media, True), media
    assert body_type_refusal("POST", "/v1/memories", "application/x-ndjson", True)  # only the import reads lines
    assert body_type_refusal("POST", "/v1/reindex", "text/plain", False)  # a form with no fields still names its type


@pytest.fixture
def local(tmp_path):
    settings = make_settings(tmp_path / "data", keys=False)
    service = build_service(settings, embedder=HashEmbedder())
    transport = httpx.ASGITransport(app=create_app(service, settings), client=("127.0.0.1", 50000))
    yield httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:4100"), service
    service.close()


IMPORT_LINE = '{"type":"memory","id":"m_planted","content":"planted","created_at":"2026-01-01T00:00:00Z","updated_at":"2026-01-01T00:00:00Z","pinned":true}\n'


async def test_foreign_pages_cannot_write_or_read_in_local_mode(local):
    c, service = local
    async with c:
        for origin in ("http://localhost.attacker.example", "http://127.0.0.1.evil.com", "null"):
            h = {"Origin": origin}
            r = await c.post("/v1/import", content=IMPORT_LINE, headers={**h, "Content-Type": "application/x-ndjson"})
            assert r.status_code == 403 and "need an API key" in r.json()["detail"], (origin, r.text)
            assert (await c.post("/v1/memories", json={"content": "planted"}, headers=h)).status_code == 403
            assert (await c.get("/v1/memories", headers=h)).status_code == 403
        # a page on this machine (the admin page, a local tool) works
        ok = {"Origin": "http://127.0.0.1:4100"}
        assert (await c.post("/v1/memories", json={"content": "mine"}, headers=ok)).status_code == 200
        assert (await c.get("/v1/memories", headers=ok)).status_code == 200


async def test_simple_body_types_are_refused_even_from_loopback(local):
    """text/plain, forms and multipart need no CORS preflight: no write reads them."""
    c, service = local
    async with c:
        for media in ("text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=b"):
            r = await c.post("/v1/import", content=IMPORT_LINE, headers={"Content-Type": media})
            assert r.status_code == 415 and r.json()["error"] == "unsupported_media_type", r.text
            r = await c.post("/v1/memories", content='{"content": "x"}', headers={"Content-Type": media})
            assert r.status_code == 415
        assert (await c.post("/v1/reindex", headers={"Content-Type": "text/plain"})).status_code == 415
        r = await c.post("/v1/import", content=IMPORT_LINE, headers={"Content-Type": "application/x-ndjson"})
        assert r.status_code == 200, r.text
        r = await c.post("/v1/memories/m_planted/archive")  # no body: no type needed
        assert r.status_code == 200, r.text
