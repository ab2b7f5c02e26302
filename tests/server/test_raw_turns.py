"""Captured turns on every face: listed, deleted one by one and in bulk, a forget previewed
before it removes anything, and no user able to touch another's turns. REST and RemoteMemory against
the real app under uvicorn; MCP through real MCP clients."""

from __future__ import annotations

import contextlib
import uuid
from datetime import datetime, timedelta, timezone

import httpx
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from core import TurnsDeleted
from core import NotFound, RemoteMemory
from core import READ, WRITE, Identity
from mcp_server.identity import current_identity
from server_kit import KEYS, auth

pytestmark = pytest.mark.e2e

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=timezone.utc)
PASSPORT = "P-99812345"


def turn(mid: str, role: str, content: str, minutes: int, session: str = "s1") -> dict:
    return {"id": mid, "role": role, "content": content, "session": session, "created_at": (T0 + timedelta(minutes=minutes)).isoformat()}


def fresh(prefix: str = "msg") -> dict[str, str]:
    return auth("admin", **{"X-Amber-User": f"{prefix}-{uuid.uuid4().hex[:8]}"})


def ids(c: httpx.Client, h: dict, **params) -> list[str]:
    r = c.get("/v1/messages", params=params, headers=h)
    assert r.status_code == 200, r.text
    return [m["id"] for m in r.json()["messages"]]


@pytest.fixture
def http(host):
    url, _ = host
    with httpx.Client(base_url=url, timeout=30) as c:
        yield c


def seed(c: httpx.Client, h: dict) -> None:
    batch = [
        turn("a1", "user", "I had pasta for lunch", 0),
        turn("a2", "assistant", "Sounds tasty.", 1),
        turn("b1", "user", "Planning a trip to Oslo", 10, session="s2"),
        turn("b2", "assistant", "Oslo is lovely in June.", 11, session="s2"),
        turn("c1", "user", "My favourite band is Low", 20, session="s3"),
    ]
    r = c.post("/v1/messages", json={"messages": batch, "commands": False}, headers=h)
    assert r.status_code == 200 and r.json()["ingested"] == 5, r.text


def test_delete_one_turn_and_404_for_an_unknown_one(http):
    h = fresh()
    seed(http, h)
    r = http.delete("/v1/messages/a2", headers=h)
    assert r.status_code == 200 and r.json() == {"deleted": 1, "ids": ["a2"]}
    assert ids(http, h) == ["a1", "b1", "b2", "c1"]
    again = http.delete("/v1/messages/a2", headers=h)
    assert again.status_code == 404 and again.json()["error"] == "not_found" and "a2" in again.json()["detail"]
    assert http.delete("/v1/messages/never-was", headers=h).status_code == 404
    # the audit names the turn and the count, never its words
    events = [e for e in http.get("/v1/events", headers=h).json()["events"] if e["action"] == "delete_messages"]
    assert events and events[0]["detail"] == {"message_ids": ["a2"], "count": 1}
    assert "tasty" not in http.get("/v1/events", headers=h).text


def test_bulk_delete_by_ids_session_and_time(http):
    h = fresh()
    seed(http, h)
    r = http.post("/v1/messages/delete", json={"ids": ["a1", "nope"]}, headers=h)
    assert r.json() == {"deleted": 1, "ids": ["a1"]}
    r = http.post("/v1/messages/delete", json={"session": "s2"}, headers=h)
    assert r.json() == {"deleted": 2, "ids": ["b1", "b2"]}
    assert ids(http, h) == ["a2", "c1"]
    # every criterion given must hold: c1 is in s3, not s1
    r = http.post("/v1/messages/delete", json={"ids": ["c1"], "session": "s1"}, headers=h)
    assert r.json() == {"deleted": 0, "ids": []}
    # a time range: since inclusive, until exclusive; a time without a zone is UTC
    r = http.post("/v1/messages/delete", json={"since": "2026-03-01T12:20:00", "until": "2026-03-01T12:21:00+00:00"}, headers=h)
    assert r.json() == {"deleted": 1, "ids": ["c1"]}
    assert ids(http, h) == ["a2"]
    r = http.post("/v1/messages/delete", json={"all": True}, headers=h)
    assert r.json() == {"deleted": 1, "ids": ["a2"]} and ids(http, h) == []


def test_bulk_delete_refuses_a_request_that_names_nothing(http):
    h = fresh()
    seed(http, h)
    for body, field in [({}, "ids"), ({"all": False}, "ids"), ({"since": "2026-03-02T00:00:00Z", "until": "2026-03-01T00:00:00Z"}, "until"),
                        ({"ids": "a1"}, "ids"), ({"ids": ["a1"], "extra": 1}, "extra")]:
        r = http.post("/v1/messages/delete", json=body, headers=h)
        assert r.status_code == 422 and r.json()["field"] == field, (body, r.text)
    assert len(ids(http, h)) == 5  # nothing was deleted


def test_list_filters_by_text(http):
    h = fresh()
    seed(http, h)
    assert ids(http, h, text="OSLO") == ["b1", "b2"]
    assert ids(http, h, text="oslo", session="s2", since="2026-03-01T12:11:00Z") == ["b2"]


def test_no_user_can_delete_another_users_turns(http):
    alice = auth("alice")
    mine = f"iso-{uuid.uuid4().hex[:8]}"
    http.post("/v1/messages", json={"messages": [turn(mine, "user", "Alice's private turn", 0, session="iso")]}, headers=alice).raise_for_status()
    bob_turn = f"iso-bob-{uuid.uuid4().hex[:8]}"
    http.post("/v1/messages", json={"messages": [turn(bob_turn, "user", "Bob's turn", 0, session="iso")]}, headers=auth("bob")).raise_for_status()
    for h in (auth("bob"), auth("owui", **{"X-Amber-User": "bob"})):
        r = http.delete(f"/v1/messages/{mine}", headers=h)
        assert r.status_code == 404
        # told nothing about Alice's turn: the same answer as for an id nobody has
        assert "captured conversation turn" not in http.delete(f"/v1/memories/{mine}", headers=h).text
        for body in ({"ids": [mine]}, {"session": "iso", "ids": [mine]}):
            assert http.post("/v1/messages/delete", json=body, headers=h).json() == {"deleted": 0, "ids": []}
    # Bob's "everything" is Bob's only
    assert http.post("/v1/messages/delete", json={"session": "iso"}, headers=auth("bob")).json()["ids"] == [bob_turn]
    # a read-only key of Alice's own cannot delete either
    ro = auth("alice_ro")
    assert http.delete(f"/v1/messages/{mine}", headers=ro).status_code == 403
    assert http.post("/v1/messages/delete", json={"all": True}, headers=ro).status_code == 403
    assert http.post("/v1/forget", json={"what": "private turn"}, headers=ro).status_code == 403
    assert mine in ids(http, alice, session="iso")


def test_a_recalled_turn_given_as_a_memory_id_is_told_where_to_go(http):
    h = fresh()
    http.post("/v1/messages", json={"messages": [turn("lt_abc123_u", "user", "The wifi password hint is heron", 0)]}, headers=h).raise_for_status()
    hit = next(x for x in http.post("/v1/search", json={"query": "wifi heron"}, headers=h).json()["hits"] if x["source"] == "message")
    assert hit["id"] == "lt_abc123_u"
    r = http.delete(f"/v1/memories/{hit['id']}", headers=h)
    assert r.status_code == 404 and "DELETE /v1/messages/lt_abc123_u" in r.json()["detail"], r.text
    assert "captured conversation turn" in http.get(f"/v1/memories/{hit['id']}", headers=h).json()["detail"]
    assert http.delete(f"/v1/messages/{hit['id']}", headers=h).status_code == 200
    assert all(x["source"] != "message" for x in http.post("/v1/search", json={"query": "wifi heron"}, headers=h).json()["hits"])


def test_forget_preview_shows_what_goes_and_the_forget_removes_just_that(http):
    h = fresh()
    batch = [
        turn("p1", "user", f"Remember that my passport number is {PASSPORT}", 0),
        turn("p2", "assistant", f"Noted, your passport number is {PASSPORT}.", 1),
        turn("p3", "user", "What's a good pasta recipe?", 2),
    ]
    done = http.post("/v1/messages", json={"messages": batch}, headers=h).json()
    mem_id = done["commands"][0]["memory_id"]

    preview = http.post("/v1/forget/preview", json={"what": f"Forget that my passport number is {PASSPORT}"}, headers=h)
    assert preview.status_code == 200, preview.text
    p = preview.json()
    assert p["done"] is False and p["what"] == f"my passport number is {PASSPORT}"
    assert [m["id"] for m in p["memories"]] == [mem_id] and p["memories"][0]["status"] == "active"
    assert p["messages"] == 2 and p["message_ids"] == ["p1", "p2"]
    # a preview removes nothing
    assert ids(http, h) == ["p1", "p2", "p3"]
    assert http.get(f"/v1/memories/{mem_id}", headers=h).json()["status"] == "active"

    forgot = http.post("/v1/forget", json={"what": f"my passport number is {PASSPORT}"}, headers=h).json()
    assert forgot["done"] is True and forgot["message_ids"] == p["message_ids"]
    assert [m["id"] for m in forgot["memories"]] == [mem_id]
    gone = http.get(f"/v1/memories/{mem_id}", headers=h)  # erased: not in the trash, not restorable
    assert gone.status_code == 404 and "forgotten" in gone.text
    assert ids(http, h) == ["p3"]
    for probe in ("What is my passport number?", "passport", PASSPORT):
        assert PASSPORT not in http.post("/v1/recall", json={"query": probe}, headers=h).text
        assert PASSPORT not in http.post("/v1/search", json={"query": probe}, headers=h).text
    again = http.post("/v1/forget/preview", json={"what": "my passport number"}, headers=h).json()
    assert again["memories"] == [] and again["messages"] == 0


def test_turns_said_before_a_forget_that_arrive_after_it_stay_out(http):
    """A proxy that journaled turns while memory was away delivers them after the person's forget
    through REST: said before the forget, they stay out; said after it, they are kept."""
    h = fresh()
    http.post("/v1/messages", json={"messages": [turn("k0", "user", "I like tea with lemon", 0)], "commands": False}, headers=h)
    assert http.post("/v1/forget", json={"what": f"my passport number is {PASSPORT}"}, headers=h).json()["done"] is True
    late = [turn("k1", "user", f"my passport number is {PASSPORT}", 5), turn("k2", "assistant", f"Got it: passport {PASSPORT}.", 6),
            turn("k3", "user", "Any tips for a rainy Sunday?", 7)]
    r = http.post("/v1/messages", json={"messages": late, "commands": False}, headers=h)
    assert r.status_code == 200 and r.json()["ingested"] == 1, r.text
    said_again = {"id": "k4", "role": "user", "content": f"my passport number is {PASSPORT}", "session": "s9",
                  "created_at": (datetime.now(timezone.utc) + timedelta(seconds=5)).isoformat()}
    assert http.post("/v1/messages", json={"messages": [said_again], "commands": False}, headers=h).json()["ingested"] == 1
    assert ids(http, h) == ["k0", "k3", "k4"]


def test_forget_input_is_checked(http):
    h = fresh()
    for body in ({"what": ""}, {"what": "   "}, {"what": "x" * 2001}, {}):
        r = http.post("/v1/forget/preview", json=body, headers=h)
        assert r.status_code == 422 and r.json()["field"] == "what", (body, r.text)


async def test_remote_memory_has_the_same_operations(host):
    url, _ = host
    async with RemoteMemory(url, api_key=KEYS["admin"], user=f"rm-{uuid.uuid4().hex[:6]}") as r2:
        await r2.ingest([turn("r1", "user", "remember that my locker is number 42", 0), turn("r2", "assistant", "Locker 42, noted.", 1),
                         turn("r3", "user", "Weekend plans: hiking", 2, session="s9"), turn("r4", "user", "Bring/water", 3, session="s9")])
        assert [m.id for m in await r2.messages(text="LOCKER")] == ["r1", "r2"]
        preview = await r2.forget("my locker is number 42", preview=True)
        assert preview.done is False and preview.message_ids == ["r1", "r2"] and preview.memories[0].content
        assert len(await r2.messages()) == 4
        done = await r2.forget("my locker is number 42")
        assert done.done is True
        with pytest.raises(NotFound, match="forgotten"):
            await r2.get(done.memories[0].id)
        assert await r2.delete_message("r3") == TurnsDeleted(deleted=1, ids=["r3"])
        with pytest.raises(NotFound):
            await r2.delete_message("r3")
        assert await r2.delete_messages(session="s9", since=T0) == TurnsDeleted(deleted=1, ids=["r4"])
        assert await r2.messages() == []
        await r2.ingest([turn("a/b", "user", "an id with a slash", 5)])
        assert (await r2.delete_message("a/b")).ids == ["a/b"]
        await r2.ingest([turn("z1", "user", "last one", 6)])
        assert (await r2.delete_messages(everything=True)).ids == ["z1"]


# ---- MCP -------------------------------------------------------------------------------------


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


@pytest.fixture
def app(tmp_path):
    from core import build_service
    from mcp_server.app import create_app
    from server_kit import make_settings

    settings = make_settings(tmp_path / "data")
    service = build_service(settings)
    yield create_app(service, settings)
    service.close()


async def test_mcp_turns_list_delete_and_forget(app):
    async with as_user(app, "mia") as c:
        await call(c, "memory_ingest", messages=[
            {"id": "t1", "role": "user", "content": f"Remember that my passport number is {PASSPORT}", "session": "s1"},
            {"id": "t2", "role": "assistant", "content": f"Saved: passport {PASSPORT}.", "session": "s1"},
            {"id": "t3", "role": "user", "content": "Book me a table for two", "session": "s2"},
            {"id": "t4", "role": "user", "content": "At eight, please", "session": "s2"},
        ])
        listed = await call(c, "messages_list")
        assert listed["total"] == 4 and [t["id"] for t in listed["turns"]] == ["t1", "t2", "t3", "t4"]
        assert [t["id"] for t in (await call(c, "messages_list", limit=1))["turns"]] == ["t4"]  # the newest
        assert [t["id"] for t in (await call(c, "messages_list", text="table"))["turns"]] == ["t3"]

        preview = await call(c, "memory_forget", what=f"my passport number is {PASSPORT}")
        assert preview["done"] is False and preview["messages"] == 2 and len(preview["memories"]) == 1
        assert (await call(c, "messages_list"))["total"] == 4
        done = await call(c, "memory_forget", what=f"my passport number is {PASSPORT}", preview=False)
        assert done["done"] is True and len(done["memories"]) == 1
        assert (await call(c, "messages_list"))["total"] == 2
        assert PASSPORT not in str(await call(c, "memory_recall", query="what is my passport number"))

        assert (await call(c, "messages_delete", ids=["t3", "missing"])) == {"deleted": 1, "ids": ["t3"]}
        r = await c.call_tool("messages_delete", {})
        assert r.is_error and "name the turns" in r.content[0].text
        r = await c.call_tool("memory_delete", {"id": "t4"})
        assert r.is_error and "messages_delete" in r.content[0].text
        assert (await call(c, "messages_delete", session="s2")) == {"deleted": 1, "ids": ["t4"]}
    async with as_user(app, "mia", scopes={READ}) as c:
        assert (await call(c, "memory_forget", what="anything"))["done"] is False  # a preview only reads
        for tool, args in [("messages_delete", {"all": True}), ("memory_forget", {"what": "x", "preview": False})]:
            r = await c.call_tool(tool, args)
            assert r.is_error and "lacks scope memory:write" in r.content[0].text, tool


@pytest.mark.e2e
async def test_mcp_turn_tools_are_isolated_over_streamable_http(host):
    url, _ = host
    secret = f"heron-{uuid.uuid4().hex[:6]}"
    with httpx.Client(base_url=url, timeout=30) as c:
        c.post("/v1/messages", json={"messages": [turn(f"{secret}-t", "user", f"my alarm code word is {secret}", 0)]},
               headers=auth("alice")).raise_for_status()
    async with httpx2.AsyncClient(headers=auth("bob"), timeout=30) as http:
        async with Client(streamable_http_client(f"{url}/mcp", http_client=http)) as bob:
            assert secret not in str(await call(bob, "messages_list", text=secret))
            preview = await call(bob, "memory_forget", what=f"my alarm code word is {secret}")
            assert preview["messages"] == 0 and preview["memories"] == []
            assert (await call(bob, "messages_delete", ids=[f"{secret}-t"])) == {"deleted": 0, "ids": []}
            await call(bob, "memory_forget", what=f"my alarm code word is {secret}", preview=False)
    with httpx.Client(base_url=url, timeout=30) as c:
        assert f"{secret}-t" in ids(c, auth("alice"), text=secret)
