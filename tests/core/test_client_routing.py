"""RemoteMemory over several Amber hosts: users spread over them and stick to one, a request goes to
another host only when it cannot have run (refused connection, 503 while starting), a host that failed
is skipped for its cool-down and tried again after it, and `check_hosts()` probes /health.

Two real Amber apps share one `chroma run`, so any host can serve any user. Each runs behind a `Stand`,
which records the user of every request it receives and can answer 503 or stall, as a host would."""

from __future__ import annotations

import asyncio
import logging
import socket
import time
import uuid

import pytest
from starlette.responses import JSONResponse

from core import ApiKeyConfig, MemoryIn, RemoteMemory, StoreUnavailable, Timeout, build_service
from core.testing import HashEmbedder
from mcp_server.app import create_app
from tests.kit.config import settings_apart
from tests.kit.servers import chroma_server, serve_app

pytestmark = pytest.mark.e2e

KEY = "k-routing-trusted-7c2d"


class Stand:
    """An Amber host's app, seen from outside: who asked it what; `unavailable` answers 503 like a
    starting host, `stall_s` holds each POST that long before Amber sees it."""

    def __init__(self, app):
        self.app, self.seen = app, []
        self.unavailable, self.stall_s = False, 0.0

    async def __call__(self, scope, receive, send):
        if scope["type"] == "http":
            self.seen.append((scope["method"], scope["path"], dict(scope["headers"]).get(b"x-amber-user", b"").decode()))
            if self.unavailable:
                body = {"error": "memory_starting", "detail": "Amber's memory is starting", "field": None}
                return await JSONResponse(body, status_code=503)(scope, receive, send)
            if self.stall_s and scope["method"] == "POST":
                await asyncio.sleep(self.stall_s)
        await self.app(scope, receive, send)

    def saw(self, user: str, method: str | None = None) -> int:
        return sum(1 for m, _, u in self.seen if u == user and method in (None, m))


@pytest.fixture(scope="module")
def amber(tmp_path_factory):
    """(make_app, [Stand, Stand], [url, url]): two running hosts over one Chroma server."""
    base = tmp_path_factory.mktemp("routing")
    with chroma_server(base / "chroma") as chroma_url:
        made = []

        def make_app():
            settings = settings_apart(base, data_dir=base / f"host{len(made)}", chroma_url=chroma_url, embedding_model="hash",
                                      api_keys=[ApiKeyConfig(name="routing", secret=KEY, trusted_client=True)])
            made.append(build_service(settings, embedder=HashEmbedder()))
            return create_app(made[-1], settings)

        stands = [Stand(make_app()), Stand(make_app())]
        with serve_app(stands[0]) as one, serve_app(stands[1]) as two:
            yield make_app, stands, [one, two]
        for service in made:
            service.close()


@pytest.fixture
def hosts(amber):
    make_app, stands, urls = amber
    for s in stands:
        s.seen.clear()
        s.unavailable, s.stall_s = False, 0.0
    return stands, urls


@pytest.fixture
def refused():
    """A URL whose port is bound but not listening: every connection is refused."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        yield f"http://127.0.0.1:{s.getsockname()[1]}"


async def user_homed_on(r: RemoteMemory, stand: Stand) -> str:
    """A fresh user whose home host is `stand` (asked with the cheap /health, routed like any request)."""
    for _ in range(64):
        user = f"u-{uuid.uuid4().hex[:8]}"
        await r.for_user(user).health()
        if stand.saw(user):
            stand.seen.clear()
            return user
    raise AssertionError("no user routed to this host")


def down(r: RemoteMemory, url: str) -> dict:
    return next(h for h in r.hosts_status() if h["url"] == url)


async def test_users_spread_over_hosts_and_each_keeps_its_host(hosts):
    stands, urls = hosts
    users = [f"s-{i}-{uuid.uuid4().hex[:6]}" for i in range(32)]
    async with RemoteMemory(",".join(urls), api_key=KEY) as r, RemoteMemory(urls[::-1], api_key=KEY) as listed_backwards:
        assert r.hosts == urls and r.base_url == urls[0]
        for user in users:
            await r.for_user(user).health()
            await r.for_user(user).health()
            await listed_backwards.for_user(user).health()
        homes = [[s.saw(u) for s in stands] for u in users]
        assert all(sorted(h) == [0, 3] for h in homes)  # sticky, and the same host whatever the listing order
        assert {h.index(3) for h in homes} == {0, 1}  # both hosts have users
        user = users[0]  # real work sticks too
        await r.for_user(user).remember(MemoryIn(content="I keep bees on the roof"))
        await r.for_user(user).recall("bees")
        assert [s.saw(user, "POST") for s in stands] in ([2, 0], [0, 2])


async def test_a_stopped_host_is_failed_over_and_its_users_served_elsewhere(amber, hosts, caplog):
    make_app, stands, urls = amber
    temp = Stand(make_app())
    caplog.set_level(logging.INFO, logger="amber.client")
    with serve_app(temp) as gone:
        r = RemoteMemory([urls[0], gone], api_key=KEY, cooldown_s=30)
        user = await user_homed_on(r, temp)
        await r.for_user(user).remember(MemoryIn(content="My bike is a green Brompton"))
        assert temp.saw(user, "POST") == 1 and stands[0].saw(user) == 0
    async with r:
        for _ in range(2):
            result = await r.for_user(user).recall("which bike do I ride")
            assert "Brompton" in result.text  # written through the stopped host, read through the other
        assert stands[0].saw(user, "POST") == 2
        exported = [x async for x in r.for_user(user).export()]  # the streamed export fails over too
        assert any("Brompton" in x.get("content", "") for x in exported) and stands[0].saw(user, "GET") == 1
        assert down(r, gone)["up"] is False and down(r, gone)["failures"] == 1  # the second recall skipped it
        assert down(r, gone)["down_until"] is not None and down(r, urls[0])["up"] is True
    warnings = [x for x in caplog.records if x.name == "amber.client" and x.levelno == logging.WARNING]
    assert len(warnings) == 1 and gone in warnings[0].getMessage()


async def test_503_fails_over_then_the_host_is_tried_again_after_its_cool_down(hosts, caplog):
    (one, two), urls = hosts
    caplog.set_level(logging.INFO, logger="amber.client")
    async with RemoteMemory(urls, api_key=KEY, cooldown_s=0.4) as r:
        user = await user_homed_on(r, two)
        as_user = r.for_user(user)  # shares the marks with r
        two.unavailable = True
        await as_user.recall("anything")
        assert (two.saw(user), one.saw(user)) == (1, 1)  # answered 503, then served by the other
        assert down(r, urls[1])["up"] is False
        await as_user.recall("anything")
        assert (two.saw(user), one.saw(user)) == (1, 2)  # skipped while cooling down
        two.unavailable = False
        await asyncio.sleep(0.5)
        await as_user.recall("anything")
        assert (two.saw(user), one.saw(user)) == (2, 2)  # home again
        assert down(r, urls[1]) == {"url": urls[1], "up": True, "failures": 0, "down_until": None}
    logged = [(x.levelname, urls[1] in x.getMessage()) for x in caplog.records if x.name == "amber.client"]
    assert logged == [("WARNING", True), ("INFO", True)]


async def test_cool_down_doubles_while_a_host_stays_down(hosts, refused):
    _, urls = hosts
    async with RemoteMemory([urls[0], refused], api_key=KEY, cooldown_s=0.1, max_cooldown_s=0.3) as r:
        waits = []
        for _ in range(4):
            await r.check_hosts()
            waits.append(down(r, refused)["down_until"] - time.time())
        assert all(want - 0.05 < w <= want for w, want in zip(waits, [0.1, 0.2, 0.3, 0.3])), waits  # 2x each time, capped
        assert [h["failures"] for h in r.hosts_status()] == [0, 4]


async def test_a_read_timeout_is_not_retried_on_another_host(hosts):
    stands, urls = hosts
    async with RemoteMemory(urls, api_key=KEY, timeout=0.5) as r:
        user = await user_homed_on(r, stands[1])
        stands[1].stall_s = 1.5  # it took the write; the answer is late
        with pytest.raises(Timeout):
            await r.for_user(user).remember(MemoryIn(content="Pay the plumber on Friday"))
        assert (stands[1].saw(user, "POST"), stands[0].saw(user, "POST")) == (1, 0)
        assert all(h["up"] for h in r.hosts_status())  # a slow host is not a down host


async def test_check_hosts_probes_health_and_updates_the_marks(hosts, refused):
    (one, two), urls = hosts
    async with RemoteMemory([*urls, refused], api_key=KEY) as r:
        two.unavailable = True
        status = await r.check_hosts()
        assert [(h["url"], h["up"]) for h in status] == [(urls[0], True), (urls[1], False), (refused, False)]
        two.unavailable = False
        assert [h["up"] for h in await r.check_hosts()] == [True, True, False]
        assert {p for s in (one, two) for _, p, _ in s.seen} == {"/health"}  # probing embeds and stores nothing


async def test_when_every_host_fails_the_error_names_them(hosts, refused):
    stands, urls = hosts
    with socket.socket() as other:
        other.bind(("127.0.0.1", 0))
        refused_too = f"http://127.0.0.1:{other.getsockname()[1]}"
        async with RemoteMemory(f" {refused}/ , {refused_too}", api_key=KEY, user="nobody") as r:
            assert r.hosts == [refused, refused_too] and r.base_url == refused
            with pytest.raises(StoreUnavailable) as e:
                await r.recall("x")
            assert refused in str(e.value) and refused_too in str(e.value)
            assert [h["up"] for h in r.hosts_status()] == [False, False]
            with pytest.raises(StoreUnavailable):  # all down: every host is tried anyway
                await r.recall("x")
            assert [h["failures"] for h in r.hosts_status()] == [2, 2]
    for s in stands:
        s.unavailable = True
    async with RemoteMemory(urls, api_key=KEY, user="nobody") as r:
        with pytest.raises(StoreUnavailable) as e:
            await r.recall("x")
        assert all(u in str(e.value) for u in urls) and all(s.saw("nobody") == 1 for s in stands)
