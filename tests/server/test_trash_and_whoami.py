"""REST: emptying the trash now (`POST /v1/trash/purge`) and whose memory a key reaches (`GET /v1/whoami`),
against the real app under uvicorn with keys."""

from __future__ import annotations

import httpx
import pytest

from server_kit import auth

pytestmark = pytest.mark.e2e


def trashed(url: str, who: str, content: str, **headers: str) -> str:
    h = auth(who, **headers)
    r = httpx.post(f"{url}/v1/memories", json={"content": content}, headers=h, timeout=30)
    assert r.status_code == 200, r.text
    mid = r.json()["memory"]["id"]
    assert httpx.delete(f"{url}/v1/memories/{mid}", headers=h, timeout=30).status_code == 200
    return mid


def status_of(url: str, who: str, mid: str, **headers: str) -> int | str:
    r = httpx.get(f"{url}/v1/memories/{mid}", headers=auth(who, **headers), timeout=30)
    return r.json()["status"] if r.status_code == 200 else r.status_code


def test_purge_takes_the_whole_trash_or_the_ids_named(host):
    url, _ = host
    one, two, three = (trashed(url, "alice", f"Alice's trash note {n}") for n in ("one", "two", "three"))
    r = httpx.post(f"{url}/v1/trash/purge", json={"ids": [one]}, headers=auth("alice"), timeout=30)
    assert r.status_code == 200 and r.json() == {"purged": [one], "count": 1}, r.text
    assert status_of(url, "alice", one) == 404 and status_of(url, "alice", two) == "deleted"
    r = httpx.post(f"{url}/v1/trash/purge", json={"ids": []}, headers=auth("alice"), timeout=30)
    assert r.json() == {"purged": [], "count": 0}  # an empty list names nothing
    r = httpx.post(f"{url}/v1/trash/purge", headers=auth("alice"), timeout=30)  # no body: the whole trash
    assert r.status_code == 200 and sorted(r.json()["purged"]) == sorted([two, three]), r.text
    assert status_of(url, "alice", two) == 404 and status_of(url, "alice", three) == 404
    schema = httpx.get(f"{url}/openapi.json", timeout=30).json()["paths"]
    assert "post" in schema["/v1/trash/purge"] and "get" in schema["/v1/whoami"]


@pytest.mark.parametrize("body, field", [
    ({"ids": ["x" * 201]}, "ids.0"),
    ({"ids": [""]}, "ids.0"),
    ({"ids": "m1"}, "ids"),
    ({"ids": ["m"] * 1001}, "ids"),
    ({"everything": True}, "everything"),
])
def test_a_bad_purge_request_names_the_field_and_purges_nothing(host, body, field):
    url, _ = host
    mid = trashed(url, "alice", f"Alice's note kept through a bad purge {field}")
    r = httpx.post(f"{url}/v1/trash/purge", json=body, headers=auth("alice"), timeout=30)
    assert r.status_code == 422 and r.json()["field"] == field, r.text
    assert status_of(url, "alice", mid) == "deleted"


def test_purging_needs_write_and_reaches_only_the_callers_trash(host):
    url, _ = host
    mine = trashed(url, "alice", "Alice's note another key must not purge")
    r = httpx.post(f"{url}/v1/trash/purge", headers=auth("alice_ro"), timeout=30)
    assert r.status_code == 403 and "memory:write" in r.json()["detail"], r.text
    r = httpx.post(f"{url}/v1/trash/purge", json={"ids": [mine]}, headers=auth("bob"), timeout=30)
    assert r.status_code == 200 and r.json() == {"purged": [], "count": 0}
    assert httpx.post(f"{url}/v1/trash/purge", timeout=30).status_code == 401
    assert status_of(url, "alice", mine) == "deleted"
    # an admin key purges the trash of the user it acts for
    r = httpx.post(f"{url}/v1/trash/purge", json={"ids": [mine]}, headers=auth("admin", **{"X-Amber-User": "alice"}), timeout=30)
    assert r.json() == {"purged": [mine], "count": 1}


def test_whoami_names_the_user_a_key_acts_for(host):
    url, _ = host
    r = httpx.get(f"{url}/v1/whoami", headers=auth("alice"), timeout=30)
    assert r.status_code == 200 and r.json() == {"user": "alice", "key": "alice", "scopes": ["memory:read", "memory:write"], "admin": False}
    assert httpx.get(f"{url}/v1/whoami", headers=auth("alice_ro"), timeout=30).json()["user"] == "alice"
    r = httpx.get(f"{url}/v1/whoami", headers=auth("admin", **{"X-Amber-User": "carol"}), timeout=30)
    assert r.json() == {"user": "carol", "key": "admin", "scopes": ["memory:admin"], "admin": True}
    assert httpx.get(f"{url}/v1/whoami", headers=auth("owui", **{"X-Amber-User": "dave"}), timeout=30).json()["user"] == "dave"
    r = httpx.get(f"{url}/v1/whoami", headers=auth("admin"), timeout=30)  # an admin key must name a user
    assert r.status_code == 422 and r.json()["field"] == "X-Amber-User", r.text
    assert httpx.get(f"{url}/v1/whoami", headers=auth("bob", **{"X-Amber-User": "alice"}), timeout=30).status_code == 403
    assert httpx.get(f"{url}/v1/whoami", timeout=30).status_code == 401
