"""The admin page under a prefix (as inside the LiteLLM proxy at /memory) and in local mode (no keys)."""

from __future__ import annotations

import httpx
import pytest
from admin_kit import serve_mounted
from playwright.sync_api import expect

pytestmark = pytest.mark.e2e


@pytest.fixture
def mounted(tmp_path, monkeypatch):
    monkeypatch.setenv("AMBER_CONFIG", str(tmp_path / "none.yaml"))
    with serve_mounted(tmp_path / "data") as url:
        yield url


def test_under_a_prefix_in_local_mode(mounted, page_for):
    url = mounted
    base = f"{url}/memory"
    w = httpx.post(f"{base}/v1/memories", json={"content": "I keep my notes in a paper diary"}, timeout=30)
    assert w.status_code == 200 and w.json()["memory"]["user_id"] == "me"
    page, watch = page_for()
    requested: list[str] = []
    page.on("request", lambda r: requested.append(r.url))
    page.goto(f"{base}/admin/")  # the trailing slash redirects back under the same prefix
    assert page.url == f"{base}/admin"
    # local mode: no key to paste, the page connects by itself
    expect(page.get_by_test_id("health")).to_contain_text("local mode")
    expect(page.get_by_test_id("who")).to_have_text("Memory of me \u00b7 local mode")  # whose memory: the local user
    item = page.locator("#memory-list li.row-item", has_text="I keep my notes in a paper diary")
    expect(item).to_have_count(1)
    # a write from the page passes the local mode's same-origin check
    item.click()
    page.get_by_test_id("detail").get_by_role("button", name="Pin", exact=True).click()
    expect(page.get_by_test_id("notice")).to_contain_text("Pinned")
    assert httpx.get(f"{base}/v1/memories", timeout=10).json()["items"][0]["pinned"] is True
    # every request the page made stayed under the prefix: its URLs are relative
    assert requested and all(u.startswith(f"{base}/") for u in requested), requested
    assert any(u.startswith(f"{base}/v1/memories") for u in requested) and f"{base}/health" in requested
    assert not watch.dialogs and not watch.errors


def test_the_browser_enforces_the_pages_csp_and_refuses_to_frame_it(mounted, page_for):
    page, watch = page_for()
    page.goto(f"{mounted}/memory/admin")
    expect(page.get_by_test_id("who")).to_have_text("Memory of me \u00b7 local mode")  # whose memory: the local user
    # second line of defence: even HTML injected by a bug could not run inline code on this page
    page.evaluate(
        """() => { const s = document.createElement('script'); s.textContent = 'window.__pwned = 1'; document.body.append(s);
                   const d = document.createElement('div'); d.innerHTML = '<img src=x onerror="window.__pwned = 2">'; document.body.append(d); }"""
    )
    page.wait_for_timeout(300)
    assert page.evaluate("window.__pwned") is None
    assert sum("Content Security Policy" in e for e in watch.errors) >= 2
    # another site cannot frame the page (clickjacking)
    framer, _ = page_for()
    framer.set_content(f'<iframe src="{mounted}/memory/admin"></iframe>')
    framer.wait_for_timeout(1000)
    assert framer.frames[1].url.startswith("chrome-error://")
