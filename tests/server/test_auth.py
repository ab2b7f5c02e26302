"""Keys, scopes and the keyless local mode."""

from __future__ import annotations

import httpx
import pytest

from server_kit import KEYS, auth, key_configs, make_settings, serve
from core import ApiKeyConfig, Forbidden, InvalidInput, build_service
from mcp_server.app import create_app
from mcp_server.http_auth import pop_token, route_path
from core import READ, WRITE, Unauthenticated
from mcp_server.identity import KeyRing, hash_secret


def ring() -> KeyRing:
    return KeyRing(key_configs())


def test_keys_are_kept_only_as_hashes():
    r = ring()
    held = repr(vars(r))
    assert not any(secret in held for secret in KEYS.values())
    assert hash_secret(KEYS["alice"]) in held


def test_user_bound_key():
    ident = ring().identify(KEYS["alice"], {}, "203.0.113.9")
    assert (ident.user_id, ident.key_name, ident.scopes) == ("alice", "alice", frozenset({READ, WRITE}))
    assert ring().identify(KEYS["alice"], {"x-amber-user": "alice"}, None).user_id == "alice"
    with pytest.raises(Forbidden):
        ring().identify(KEYS["alice"], {"x-amber-user": "bob"}, None)


def test_trusted_client_and_admin_act_for_the_named_user():
    assert ring().identify(KEYS["owui"], {"x-amber-user": "carol"}, None).user_id == "carol"
    admin = ring().identify(KEYS["admin"], {"x-amber-user": "dave"}, None)
    assert admin.user_id == "dave" and admin.is_admin and admin.allows(WRITE)
    nobody = ring().identify(KEYS["owui"], {}, None)
    with pytest.raises(InvalidInput) as e:
        nobody.user()
    assert e.value.field == "X-Amber-User"


def test_unknown_missing_and_unbound_keys():
    with pytest.raises(Unauthenticated):
        ring().identify(None, {}, "127.0.0.1")  # keys configured: loopback is no credential
    with pytest.raises(Unauthenticated):
        ring().identify("k-nobody", {}, None)
    loose = KeyRing([ApiKeyConfig(name="loose", secret="s3cret")])  # no user, not admin, not trusted
    with pytest.raises(Forbidden):
        loose.identify("s3cret", {"x-amber-user": "eve"}, None)


def test_hashed_secret_in_config_and_empty_secrets():
    r = KeyRing([ApiKeyConfig(name="h", secret="sha256:" + hash_secret("plain-key"), user="hal")])
    assert r.identify("plain-key", {}, None).user_id == "hal"
    with pytest.raises(Unauthenticated):
        r.identify("sha256:" + hash_secret("plain-key"), {}, None)  # the hash itself is not a key
    empty = KeyRing([ApiKeyConfig(name="e", secret="", user="x")])  # env var unset
    assert not empty.local_mode  # configured keys never fall back to the open local mode
    with pytest.raises(Unauthenticated):
        empty.identify(None, {}, "127.0.0.1")


def test_token_is_removed_from_the_query_string():
    scope = {"query_string": b"a=1&token=sekret&b=2"}
    assert pop_token(scope) == "sekret" and scope["query_string"] == b"a=1&b=2"
    assert route_path({"path": "/memory/v1/recall", "root_path": "/memory"}) == "/v1/recall"


@pytest.fixture
def local_app(tmp_path):
    settings = make_settings(tmp_path / "data", keys=False)
    service = build_service(settings)
    yield create_app(service, settings), service
    service.close()


@pytest.mark.e2e
def test_local_mode_serves_loopback_as_the_local_user(local_app):
    app, service = local_app
    with serve(app) as url, httpx.Client(base_url=url) as c:
        assert c.get("/health").json()["auth"] == "local"
        w = c.post("/v1/memories", json={"content": "No keys needed here"})
        assert w.status_code == 200 and w.json()["memory"]["user_id"] == "local"
        assert c.get("/v1/vectors/health").status_code == 200  # the machine's owner is its admin
        assert c.get("/v1/memories", headers={"X-Amber-User": "someone-else"}).status_code == 403
        assert c.get("/v1/memories", headers={"Origin": "https://evil.example"}).status_code == 403
        assert c.get("/v1/memories", headers={"Origin": "http://localhost:3000"}).status_code == 200
        assert c.get("/v1/memories", headers={"Host": "rebind.evil.example:80"}).status_code == 403
    assert service.users() == ["local"]


async def test_local_mode_refuses_other_machines(local_app):
    app, _ = local_app
    transport = httpx.ASGITransport(app=app, client=("192.0.2.7", 40000))
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:4100") as c:
        r = await c.get("/v1/memories")
        assert r.status_code == 403 and "only clients on this machine" in r.json()["detail"]
        assert (await c.get("/health")).status_code == 200


async def test_a_key_works_from_any_address(tmp_path):
    settings = make_settings(tmp_path / "data")
    service = build_service(settings)
    try:
        transport = httpx.ASGITransport(app=create_app(service, settings), client=("192.0.2.7", 40000))
        async with httpx.AsyncClient(transport=transport, base_url="http://memory.example") as c:
            assert (await c.get("/v1/memories", headers=auth("bob"))).status_code == 200
            assert (await c.get("/v1/memories")).status_code == 401
    finally:
        service.close()


@pytest.mark.e2e
def test_query_token_never_reaches_the_access_log(tmp_path):
    """Mounted under /memory like in the proxy, with uvicorn's access log on: the log shows no token."""
    import logging

    from fastapi import FastAPI

    settings = make_settings(tmp_path / "data")
    service = build_service(settings)
    host = FastAPI()
    host.mount("/memory", create_app(service, settings))
    seen: list[str] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            seen.append(record.getMessage())

    access = logging.getLogger("uvicorn.access")
    handler = Keep()
    try:
        with serve(host, log_level="info", access_log=True) as url:
            access.addHandler(handler)
            r = httpx.get(f"{url}/memory/v1/memories", params={"token": KEYS["bob"], "limit": 3})
            assert r.status_code == 200
    finally:
        access.removeHandler(handler)
        service.close()
    lines = [x for x in seen if "/memory/v1/memories" in x]
    assert lines and all(KEYS["bob"] not in x and "token" not in x for x in lines), lines
