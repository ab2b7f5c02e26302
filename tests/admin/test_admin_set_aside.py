"""The admin page's Maintenance view shows the captured turns set aside, in a real browser (Debian's
chromium via Playwright) against a real `amber serve` whose data directory holds a capture journal
with a turn memory refused by name (set aside by the proxy's own drainer code, as in a proxy that
hosts memory, where the page and the journal share the data directory). Only an admin key sees them.
The shared capture queue's set-aside entries come through the same endpoint (its reading is tested
with Redis in tests/core/test_coordination.py)."""

from __future__ import annotations

import asyncio

import httpx
import pytest
from admin_kit import KEYS, auth, login, served, server_env
from playwright.sync_api import expect

from core import InvalidInput
from litellm_hooks.spool import Spool

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def host_with_a_set_aside_turn(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("set-aside-host")
    spool = Spool(tmp / "data" / "spool")
    spool.append({"user": "alice", "client": "chatbox", "command": None,
                  "messages": [{"id": "sa-1", "role": "user", "content": "my tram stop is Bolhão"}]})

    async def refuse(user, entries):
        raise InvalidInput("messages", "sa-1 names a turn that cannot be stored")

    asyncio.run(spool.drain_once(refuse))
    assert (tmp / "data" / "spool" / "quarantine.ndjson").exists()
    with served(server_env(tmp)) as url:
        yield url


def test_maintenance_shows_turns_set_aside_to_an_admin(host_with_a_set_aside_turn, page_for):
    url = host_with_a_set_aside_turn
    page, watch = page_for()
    login(page, url, KEYS["admin"], user="alice")
    page.click("button[data-view=maintenance]")
    box = page.get_by_test_id("set-aside")
    expect(box).to_contain_text("The proxy's journal: 1 set aside.")
    row = box.locator("tr", has_text="my tram stop is Bolhão")
    expect(row).to_contain_text("chatbox")
    expect(row).to_contain_text("InvalidInput")
    expect(row).to_contain_text("alice")
    expect(box).not_to_contain_text("shared capture queue")  # no Redis on this host
    assert not watch.errors and not watch.dialogs, (watch.errors, watch.dialogs)


def test_only_an_admin_key_sees_them(host_with_a_set_aside_turn, page_for):
    url = host_with_a_set_aside_turn
    assert httpx.get(f"{url}/v1/capture/set-aside", headers=auth("alice"), timeout=30).status_code == 403
    r = httpx.get(f"{url}/v1/capture/set-aside", headers=auth("admin"), timeout=30)
    assert r.status_code == 200 and r.json()["journal"]["count"] == 1 and r.json()["queue"] is None, r.text
    assert httpx.post(f"{url}/v1/capture/replay", headers=auth("admin"), timeout=30).status_code == 422  # no queue here
    page, watch = page_for()
    login(page, url, KEYS["alice"])
    page.click("button[data-view=maintenance]")
    expect(page.get_by_test_id("set-aside")).to_contain_text("Only an admin key sees the turns set aside.")
    assert not watch.errors, watch.errors
