"""The admin page inside the real LiteLLM proxy, at /memory/admin, with a user's key."""

from __future__ import annotations

import httpx
import pytest
from admin_kit import KEYS, login
from playwright.sync_api import expect

from tests.fakes.upstreams import FakeUpstreams
from tests.hook.harness import Proxy, proxy_config

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def proxy(tmp_path_factory):
    keys = [{"name": "alice", "secret": KEYS["alice"], "user": "alice"}, {"name": "bob", "secret": KEYS["bob"], "user": "bob"}]
    with FakeUpstreams() as up:
        p = Proxy(proxy_config(up, amber={"api_keys": keys, "jobs_enabled": False}), tmp_path_factory.mktemp("admin-proxy")).start()
        try:
            yield p
        finally:
            p.stop()


def test_the_page_inside_the_litellm_proxy(proxy, page_for):
    base = f"{proxy.base}/memory"
    for who, text in (("alice", "Alice reads the page through the proxy"), ("bob", "Bob keeps this to himself")):
        r = httpx.post(f"{base}/v1/memories", json={"content": text}, headers={"Authorization": f"Bearer {KEYS[who]}"}, timeout=30)
        assert r.status_code == 200, r.text
    r = httpx.get(f"{base}/admin", timeout=10)
    assert r.status_code == 200 and "frame-ancestors 'none'" in r.headers["content-security-policy"]
    page, watch = page_for()
    login(page, base, KEYS["alice"])
    expect(page.locator("#memory-list li.row-item", has_text="Alice reads the page through the proxy")).to_have_count(1)
    expect(page.get_by_test_id("health")).to_contain_text("memory server ok")
    assert "Bob" not in page.get_by_test_id("memory-list").inner_text()
    # the proxy's master key is not an Amber key: the page says so plainly
    page.click("#logout")
    login(page, base, proxy.headers["Authorization"].removeprefix("Bearer "))
    expect(page.get_by_test_id("error")).to_contain_text("This key was not accepted")
    assert not watch.dialogs and not watch.errors
