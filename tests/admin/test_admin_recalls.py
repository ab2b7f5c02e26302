"""The admin page's Recent recalls view in a real browser (Debian's chromium via Playwright) against
a real `amber serve`: what each named request injected and why, and the Correct and Forget buttons,
which retire the item so no later recall injects it."""

from __future__ import annotations

import re

import httpx
import pytest
from admin_kit import KEYS, XSS_IMG, auth, login, remember, served, server_env
from playwright.sync_api import expect

from core import handle_of

pytestmark = pytest.mark.e2e


def open_recalls(page_for, url: str):
    """Alice's admin page on its Recent recalls view; (page, watch)."""
    page, watch = page_for()
    login(page, url, KEYS["alice"])
    page.click("button[data-view=recalls]")
    return page, watch


def test_recent_recalls_explain_and_correct_what_was_injected(host, page_for):
    url, _ = host
    post = lambda path, body: httpx.post(f"{url}{path}", json=body, headers=auth("alice"), timeout=30)  # noqa: E731
    city = post("/v1/memories", {"content": "Recalls test: I live in Ningbo", "fact_key": "profile.home_city"}).json()["memory"]
    pet = post("/v1/memories", {"content": f"Recalls test: my ferret is called Pip {XSS_IMG}"}).json()["memory"]
    post("/v1/recall", {"query": "Recalls test: where do I live, and my ferret Pip?", "why": "admin-test-1"}).raise_for_status()
    post("/v1/recall", {"query": "Explain quantum tunnelling in one line", "why": "admin-test-2"}).raise_for_status()

    page, watch = open_recalls(page_for, url)
    req = page.locator("li.recall[data-request=admin-test-1]")
    expect(req.locator(f"li[data-handle='{handle_of(city['id'])}']")).to_contain_text("I live in Ningbo")
    expect(req.locator(f"li[data-handle='{handle_of(city['id'])}']")).to_contain_text("found by")
    expect(req).to_contain_text("weighed")

    row = req.locator(f"li[data-handle='{handle_of(city['id'])}']")
    row.locator("input.correct-input").fill("Recalls test: I live in Hangzhou now")
    row.locator("button[data-action=correct]").click()
    expect(page.locator("#notice")).to_contain_text("Replaced")
    old = httpx.get(f"{url}/v1/memories/{city['id']}", headers=auth("alice"), timeout=30).json()
    assert old["status"] == "superseded"
    new = httpx.get(f"{url}/v1/memories/{old['superseded_by']}", headers=auth("alice"), timeout=30).json()
    assert new["fact_key"] == "profile.home_city" and new["content"] == "Recalls test: I live in Hangzhou now"

    req = page.locator("li.recall[data-request=admin-test-1]")
    req.locator(f"li[data-handle='{handle_of(pet['id'])}'] button[data-action=forget]").click()
    expect(page.locator("#notice")).to_contain_text("Forgot")
    expect(req.locator(f"li[data-handle='{handle_of(pet['id'])}']")).to_contain_text("forgotten since")
    text = post("/v1/recall", {"query": "Recalls test: where do I live, and my ferret Pip?"}).json()["text"]
    assert "Ningbo" not in text and "Pip" not in text and "Hangzhou" in text
    assert page.evaluate("window.__pwned") is None and not watch.dialogs and not watch.errors, (watch.dialogs, watch.errors)


@pytest.fixture(scope="module")
def calibrated_host(tmp_path_factory):
    """`amber serve` with the bundled embedder, whose relevance floors are calibrated (the other
    tests' hash embedder never abstains, so nothing is ever left out there)."""
    with served({**server_env(tmp_path_factory.mktemp("admin-left-out")), "AMBER_EMBEDDING_MODEL": "local"}, timeout=120) as url:
        yield url


def test_recent_recalls_show_what_was_weighed_and_left_out_and_why(calibrated_host, page_for):
    url = calibrated_host
    singer = remember(url, "alice", "My favourite singer is Adele.")
    asked = (("Say something cheerful.", "left-out-1"), ("Which singer do I like most?", "used-1"), ("Tell me a pun about bread.", "talk-1"))
    for query, request in asked:
        httpx.post(f"{url}/v1/recall", json={"query": query, "why": request}, headers=auth("alice"), timeout=60).raise_for_status()

    page, watch = open_recalls(page_for, url)
    small_talk = page.locator("li.recall[data-request=left-out-1]")
    expect(small_talk).to_contain_text("recall abstained")
    small_talk.locator("details.left-out summary").click()
    row = small_talk.locator(f"details.left-out li[data-handle='{handle_of(singer['id'])}']")
    expect(row).to_contain_text("My favourite singer is Adele.")
    expect(row).to_contain_text(re.compile("as close to prompts about nobody|not close enough"))
    expect(row).to_contain_text("background")
    used = page.locator("li.recall[data-request=used-1]")
    expect(used.locator(f"li[data-handle='{handle_of(singer['id'])}']")).to_contain_text(
        re.compile("close in meaning|closer to this prompt than to prompts about nobody"))
    expect(used.locator("details.left-out")).to_have_count(0)
    talk = page.locator("li.recall[data-request=talk-1]")  # small talk: the reason in words, not the verdict's name
    talk.locator("details.left-out summary").click()
    expect(talk.locator(f"details.left-out li[data-handle='{handle_of(singer['id'])}']")).to_contain_text("not about you")
    assert not watch.dialogs and not watch.errors, (watch.dialogs, watch.errors)
