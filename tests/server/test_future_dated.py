"""Turns stated more than a day ahead of the server's clock (a client clock gone wrong, a year typed
as 2999) are kept, dated when Amber stored them, with the client's time kept as `stated_at`: they
do not sit in every coming "today" of the boot pack, nor sort after everything said later, and
retention ages them from when they were stored. A turn a few hours ahead is believed as it is."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import httpx

from core import build_service
from core.testing import FixedClock, HashEmbedder
from mcp_server.app import create_app
from server_kit import auth, make_settings, serve

NOW = datetime(2026, 12, 2, 12, 0, tzinfo=timezone.utc)


def turn(id: str, text: str, at: datetime | str) -> dict:
    return {"id": id, "role": "user", "content": text, "created_at": at if isinstance(at, str) else at.isoformat()}


def test_future_dated_turns_are_dated_when_stored_and_keep_the_stated_time(tmp_path):
    settings = make_settings(tmp_path / "data")
    service = build_service(settings, embedder=HashEmbedder(), clock=FixedClock(NOW))
    h = auth("alice")
    try:
        with serve(create_app(service, settings)) as url, httpx.Client(base_url=url, timeout=30, headers=h) as http:
            body = {"messages": [
                turn("far", "my watch says it is the year 2999", "2999-01-01T00:00:00Z"),
                turn("soon", "said with a clock a few hours fast", NOW + timedelta(hours=5)),
                turn("days", "said with a clock three days fast", NOW + timedelta(days=3)),
                turn("before", "said an hour ago", NOW - timedelta(hours=1)),
            ], "commands": False}
            r = http.post("/v1/messages", json=body)
            assert r.status_code == 200 and r.json()["ingested"] == 4, r.text
            got = {m["id"]: m for m in http.get("/v1/messages").json()["messages"]}
            at = lambda m, f: datetime.fromisoformat(m[f].replace("Z", "+00:00")) if m.get(f) else None  # noqa: E731
            assert at(got["far"], "created_at") == NOW and at(got["far"], "stated_at").year == 2999
            assert at(got["days"], "created_at") == NOW and at(got["days"], "stated_at") == NOW + timedelta(days=3)
            assert at(got["soon"], "created_at") == NOW + timedelta(hours=5) and got["soon"].get("stated_at") is None
            assert got["before"].get("stated_at") is None
            assert all(at(m, "stored_at") == NOW for m in got.values())
            # sent again (a spool replaying it): stored once, not doubled
            assert http.post("/v1/messages", json=body).json()["ingested"] == 0
            assert len(http.get("/v1/messages").json()["messages"]) == 4
    finally:
        service.close()


def test_tomorrows_today_does_not_hold_a_turn_from_2999(tmp_path):
    settings = make_settings(tmp_path / "data")
    clock = FixedClock(NOW)
    service = build_service(settings, embedder=HashEmbedder(), clock=clock)
    h = auth("alice")
    try:
        with serve(create_app(service, settings)) as url, httpx.Client(base_url=url, timeout=30, headers=h) as http:
            r = http.post("/v1/messages", json={"messages": [turn("far", "the year 2999 on my phone", "2999-01-01T00:00:00Z")], "commands": False})
            assert r.status_code == 200
            assert any(m["id"] == "far" for m in http.get("/v1/boot").json()["today"])
            clock.advance(days=2)
            assert all(m["id"] != "far" for m in http.get("/v1/boot").json()["today"])
    finally:
        service.close()
