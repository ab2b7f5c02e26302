"""The admin page's two verbs that remove, in a real browser (Debian's chromium via Playwright) against a
real `amber serve`: Forget (preview, then erase for good), the trash (restore, purge now), precious
quotes that can be forgotten but not deleted, no Restore where restoring cannot work; and the page
saying whose memory it shows, an error banner that goes with the next success, long user ids that wrap."""

from __future__ import annotations

import re
from datetime import datetime, timezone

import httpx
import pytest
from admin_kit import KEYS, auth, login, remember
from playwright.sync_api import expect

pytestmark = pytest.mark.e2e
LONG_USER = "user-" + "x" * 250  # 255 characters, no place a line would break by itself


def status_of(url: str, memory_id: str, who: str = "alice") -> str | int:
    r = httpx.get(f"{url}/v1/memories/{memory_id}", headers=auth(who), timeout=10)
    return r.json()["status"] if r.status_code == 200 else r.status_code


def delete(url: str, memory_id: str, who: str = "alice") -> None:
    assert httpx.delete(f"{url}/v1/memories/{memory_id}", headers=auth(who), timeout=10).status_code == 200


def trash(url: str, who: str = "alice") -> list[str]:
    r = httpx.get(f"{url}/v1/memories", params={"status": "deleted", "limit": 500}, headers=auth(who), timeout=10)
    return [m["content"] for m in r.json()["items"]]


def row(page, content: str):
    exact = page.locator(".content").filter(has_text=re.compile("^" + re.escape(content) + "$"))
    return page.locator("#memory-list li.row-item").filter(has=exact)


def show_status(page, status: str) -> None:
    page.select_option("#f-status", status)
    page.click("#filters button[type=submit]")


def no_overflow(page, selector: str) -> None:
    """Nothing sticks out sideways: not the element's content, not the page."""
    box = page.locator(selector).first
    assert box.evaluate("e => e.scrollWidth <= e.clientWidth + 1"), selector
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1"), "the page scrolls sideways"


def test_the_page_says_whose_memory_it_shows(host, page_for):
    url, _ = host
    page, watch = page_for()
    login(page, url, KEYS["alice"])
    expect(page.get_by_test_id("who")).to_have_text("Memory of alice \u00b7 key \u201calice\u201d")
    page.click("#logout")
    login(page, url, KEYS["admin"], user="bob")
    expect(page.get_by_test_id("who-user")).to_have_text("bob")
    expect(page.get_by_test_id("who")).to_contain_text("admin key \u201cadmin\u201d")
    expect(row(page, "Bob prefers black tea")).to_have_count(1)
    assert not watch.dialogs and not watch.errors


def test_forget_shows_what_goes_then_erases_it_for_good(host, page_for):
    url, _ = host
    mine = remember(url, "alice", "Alice's allergist is Dr. Varga on Rua Augusta")
    his = remember(url, "bob", "Bob's allergist is Dr. Varga too")
    said = {"id": "t-allergist", "role": "user", "content": "I saw my allergist Dr. Varga today",
            "created_at": datetime.now(timezone.utc).isoformat()}
    assert httpx.post(f"{url}/v1/messages", json={"messages": [said]}, headers=auth("alice"), timeout=30).status_code == 200
    page, watch = page_for()
    login(page, url, KEYS["alice"])
    page.click("button[data-view=forget]")
    # something nothing says: told so, and nothing to confirm
    page.fill("#forget-what", "zebra migration routes")
    page.get_by_role("button", name="Preview").click()
    expect(page.get_by_test_id("forget-nothing")).to_contain_text("Amber holds nothing that says \u201czebra migration routes\u201d")
    expect(page.get_by_role("button", name="Yes, forget for good")).to_have_count(0)
    # the preview lists what goes; Cancel removes nothing
    page.fill("#forget-what", "allergist")
    page.get_by_role("button", name="Preview").click()
    plan = page.get_by_test_id("forget-plan")
    expect(plan.get_by_test_id("forget-memories").locator("li")).to_have_count(1)
    expect(plan).to_contain_text("Alice's allergist is Dr. Varga on Rua Augusta")
    expect(plan).to_contain_text("1 captured conversation turn that says it")
    expect(plan).to_contain_text("Nothing forgotten can be restored")
    assert "Bob" not in plan.inner_text()
    plan.get_by_role("button", name="Cancel").click()
    expect(plan).to_have_count(0)
    assert status_of(url, mine["id"]) == "active"
    page.get_by_role("button", name="Preview").click()
    page.get_by_role("button", name="Yes, forget for good").click()
    expect(page.get_by_test_id("notice")).to_contain_text("Forgotten: 1 memory and 1 conversation turn erased for good")
    expect(page.get_by_test_id("forget-plan")).to_have_count(0)
    r = httpx.get(f"{url}/v1/memories/{mine['id']}", headers=auth("alice"), timeout=10)
    assert r.status_code == 404 and "forgotten" in r.json()["detail"]
    assert httpx.post(f"{url}/v1/memories/{mine['id']}/restore", headers=auth("alice"), timeout=10).status_code == 404
    assert httpx.get(f"{url}/v1/messages", params={"text": "allergist"}, headers=auth("alice"), timeout=10).json()["messages"] == []
    assert status_of(url, his["id"], "bob") == "active"  # Bob's memory is his
    # not in any list: forgotten is not the trash
    page.get_by_role("button", name="Memories").click()
    show_status(page, "any")
    page.fill("#f-text", "allergist")
    page.click("#filters button[type=submit]")
    expect(page.get_by_test_id("memory-list")).to_contain_text("No memories match")
    assert not watch.dialogs and not watch.errors


def test_a_memory_forgotten_from_its_detail_closes_and_is_gone(host, page_for):
    url, _ = host
    m = remember(url, "alice", "Alice keeps a rowing machine in the attic")
    page, watch = page_for()
    login(page, url, KEYS["alice"])
    row(page, m["content"]).click()
    detail = page.get_by_test_id("detail")
    detail.get_by_role("button", name="Forget…").click()
    expect(detail.get_by_test_id("forget-plan")).to_contain_text("Alice keeps a rowing machine in the attic")
    detail.get_by_role("button", name="Cancel").click()  # the detail as it was
    expect(detail.get_by_role("button", name="Delete…")).to_be_visible()
    detail.get_by_role("button", name="Forget…").click()
    detail.get_by_role("button", name="Yes, forget for good").click()
    expect(page.get_by_test_id("notice")).to_contain_text("Forgotten: 1 memory")
    expect(detail).to_be_hidden()
    expect(row(page, m["content"])).to_have_count(0)
    assert status_of(url, m["id"]) == 404
    assert not watch.dialogs and not watch.errors


def test_precious_quotes_offer_forget_never_delete(host, page_for):
    url, _ = host
    kept = httpx.post(f"{url}/v1/precious", json={"quote": "Dad said: measure twice, cut once."}, headers=auth("alice"), timeout=30).json()["memory"]
    regret = httpx.post(f"{url}/v1/precious", json={"quote": "Ex said: you will never finish that boat."}, headers=auth("alice"), timeout=30).json()["memory"]
    assert httpx.delete(f"{url}/v1/memories/{kept['id']}", headers=auth("alice"), timeout=10).status_code == 409  # why no Delete is offered
    page, watch = page_for()
    login(page, url, KEYS["alice"])
    # the detail: Forget, no Delete, no Archive
    row(page, kept["content"]).click()
    detail = page.get_by_test_id("detail")
    expect(page.get_by_test_id("detail-content")).to_have_text(kept["content"])
    expect(detail.get_by_role("button", name="Forget…")).to_be_visible()
    expect(detail.get_by_role("button", name="Delete…")).to_have_count(0)
    expect(detail.get_by_role("button", name="Archive")).to_be_disabled()
    # the Precious view: forget one quote there
    page.click("button[data-view=precious]")
    card = page.get_by_test_id("precious-list").locator(f"li[data-id='{regret['id']}']")
    card.get_by_role("button", name="forget…").click()
    expect(card.get_by_test_id("forget-plan")).to_contain_text("Ex said: you will never finish that boat.")
    card.get_by_role("button", name="Yes, forget for good").click()
    expect(page.get_by_test_id("notice")).to_contain_text("Forgotten: 1 memory")
    expect(page.get_by_test_id("precious-list").locator(f"li[data-id='{regret['id']}']")).to_have_count(0)
    expect(page.get_by_test_id("precious-list").locator(f"li[data-id='{kept['id']}']")).to_have_count(1)
    assert status_of(url, regret["id"]) == 404 and status_of(url, kept["id"]) == "active"
    assert not watch.dialogs and not watch.errors


def test_the_trash_restores_and_purges_now(host, page_for):
    url, _ = host
    one = remember(url, "alice", "Alice's trash: an old shopping list")
    two = remember(url, "alice", "Alice's trash: a cancelled dentist visit")
    three = remember(url, "alice", "Alice's trash: a typo she fixed")
    bobs = remember(url, "bob", "Bob's trash: an old shopping list")
    for m in (one, two, three):
        delete(url, m["id"])
    delete(url, bobs["id"], "bob")
    page, watch = page_for()
    login(page, url, KEYS["alice"])
    expect(page.get_by_test_id("trash-bar")).to_be_hidden()  # only over the trash
    show_status(page, "deleted")
    bar = page.get_by_test_id("trash-bar")
    expect(bar).to_contain_text("restored until they are purged")
    # a deleted memory's detail: Restore and Purge now, no Delete
    row(page, one["content"]).click()
    detail = page.get_by_test_id("detail")
    expect(detail.get_by_role("button", name="Restore")).to_be_visible()
    expect(detail.get_by_role("button", name="Delete…")).to_have_count(0)
    detail.get_by_role("button", name="Purge now…").click()
    expect(detail).to_contain_text("removed for good and can no longer be restored")
    detail.get_by_role("button", name="Yes, purge").click()
    expect(page.get_by_test_id("notice")).to_contain_text("Purged: removed for good")
    expect(row(page, one["content"])).to_have_count(0)
    assert status_of(url, one["id"]) == 404
    # Purge now over the list: what the filters select, counted before anything goes
    page.fill("#f-text", "dentist")
    page.click("#filters button[type=submit]")
    expect(page.locator("#memory-list li.row-item")).to_have_count(1)
    bar.get_by_role("button", name="Purge now…").click()
    expect(bar).to_contain_text("Purge 1 deleted memory for good?")
    bar.get_by_role("button", name="Cancel").click()
    assert status_of(url, two["id"]) == "deleted"
    bar.get_by_role("button", name="Purge now…").click()
    bar.get_by_role("button", name="Yes, purge 1").click()
    expect(page.get_by_test_id("notice")).to_contain_text("Purged 1 memory from the trash")
    assert status_of(url, two["id"]) == 404 and status_of(url, three["id"]) == "deleted"
    # and the whole trash
    page.fill("#f-text", "")
    page.click("#filters button[type=submit]")
    expect(row(page, three["content"])).to_have_count(1)
    left = len(trash(url))
    bar.get_by_role("button", name="Purge now…").click()
    expect(bar).to_contain_text(f"Purge {left} deleted memor")
    bar.get_by_role("button", name=f"Yes, purge {left}").click()
    expect(page.get_by_test_id("memory-list")).to_contain_text("No memories match")
    assert trash(url) == [] and trash(url, "bob") == ["Bob's trash: an old shopping list"]  # Bob's trash is his
    bar.get_by_role("button", name="Purge now…").click()
    expect(page.get_by_test_id("notice")).to_contain_text("The trash is empty")
    # the Forget view leads to the trash too
    show_status(page, "active")
    expect(bar).to_be_hidden()
    page.click("button[data-view=forget]")
    page.click("#show-trash")
    expect(page.locator("#f-status")).to_have_value("deleted")
    expect(bar).to_be_visible()
    assert not watch.dialogs and not watch.errors


def test_no_restore_where_restoring_cannot_work(host, page_for):
    url, _ = host
    old = remember(url, "alice", "Alice works at Acme", fact_key="profile.employer", category="profile")
    delete(url, old["id"])
    remember(url, "alice", "Alice works at Globex", fact_key="profile.employer", category="profile")
    assert httpx.post(f"{url}/v1/memories/{old['id']}/restore", headers=auth("alice"), timeout=10).status_code == 409
    free = remember(url, "alice", "Alice once sang in a choir")
    delete(url, free["id"])
    page, watch = page_for()
    login(page, url, KEYS["alice"])
    show_status(page, "deleted")
    detail = page.get_by_test_id("detail")
    row(page, "Alice works at Acme").click()
    expect(page.get_by_test_id("detail-content")).to_have_text("Alice works at Acme")
    expect(detail.get_by_role("button", name="Restore")).to_have_count(0)
    expect(detail.get_by_test_id("no-restore")).to_have_text("Cannot be restored while Alice works at Globex holds profile.employer.")
    expect(detail.get_by_role("button", name="Purge now…")).to_be_visible()  # it can still go for good
    detail.get_by_test_id("no-restore").get_by_role("button", name="Alice works at Globex").click()
    expect(page.get_by_test_id("detail-content")).to_have_text("Alice works at Globex")
    # a deleted memory nothing blocks is restored from the page
    row(page, "Alice once sang in a choir").click()
    detail.get_by_role("button", name="Restore").click()
    expect(page.get_by_test_id("notice")).to_contain_text("Restored")
    assert status_of(url, free["id"]) == "active"
    # a superseded version offers no Restore either
    show_status(page, "superseded")
    row(page, "Alice lives in Lisbon").click()
    expect(page.get_by_test_id("detail-content")).to_have_text("Alice lives in Lisbon")
    expect(detail.get_by_role("button", name="Restore")).to_have_count(0)
    assert not watch.dialogs and not watch.errors


def test_an_error_banner_goes_with_the_next_success(host, page_for):
    url, _ = host
    page, watch = page_for()
    login(page, url, KEYS["alice"])
    error = page.get_by_test_id("error")
    # a refusal from the server
    page.click("button[data-view=glossary]")
    page.fill("#g-def", "a definition without its term")
    page.get_by_role("button", name="Save term").click()
    expect(error).to_contain_text("Please check \u201cterm\u201d")
    page.click("button[data-view=digest]")  # the next thing that works
    expect(page.locator("#digest-meta")).to_contain_text("No digest yet")
    expect(error).to_be_hidden()
    # a refusal by the page itself stays until something succeeds
    page.click("button[data-view=forget]")
    page.get_by_role("button", name="Preview").click()
    expect(error).to_have_text("Type what to forget first.")
    page.wait_for_timeout(300)
    expect(error).to_be_visible()
    page.get_by_role("button", name="Memories").click()
    expect(row(page, "Alice lives in Porto")).to_have_count(1)
    expect(error).to_be_hidden()
    assert not watch.dialogs and not watch.errors


def test_long_user_ids_wrap(host, page_for):
    url, _ = host
    r = httpx.post(f"{url}/v1/memories", json={"content": "A memory of a user with a very long id"},
                   headers=auth("admin") | {"X-Amber-User": LONG_USER}, timeout=30)
    assert r.status_code == 200, r.text
    page, watch = page_for()
    login(page, url, KEYS["admin"], user=LONG_USER)
    expect(page.get_by_test_id("who-user")).to_have_text(LONG_USER)
    no_overflow(page, ".tabs")
    page.click("button[data-view=maintenance]")
    cell = page.get_by_test_id("vectors").locator(f"tr[data-user='{LONG_USER}'] td.user-id")
    expect(cell).to_have_text(LONG_USER)
    no_overflow(page, "#view-maintenance .card")
    page.set_viewport_size({"width": 390, "height": 844})
    no_overflow(page, "#view-maintenance .card")
    page.click("#reindex")
    expect(page.get_by_test_id("reindex-status")).to_contain_text(LONG_USER)
    no_overflow(page, "#view-maintenance .card")
    assert not watch.dialogs and not watch.errors
