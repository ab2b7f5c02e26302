"""The admin page in a real browser (Debian's chromium via Playwright) against a real `amber serve`."""

from __future__ import annotations

import os
import re

import httpx
import pytest
from admin_kit import KEYS, XSS_IMG, XSS_SCRIPT, auth, login
from playwright.sync_api import expect

pytestmark = pytest.mark.e2e
SHOTS = os.environ.get("AMBER_ADMIN_SCREENSHOTS")  # a directory: save screenshots there while developing


def shot(page, name: str) -> None:
    if SHOTS:
        page.screenshot(path=os.path.join(SHOTS, f"{name}.png"), full_page=True)


def get(url: str, memory_id: str, who: str = "alice") -> dict:
    r = httpx.get(f"{url}/v1/memories/{memory_id}", headers=auth(who), timeout=10)
    assert r.status_code == 200, r.text
    return r.json()


def row(page, content: str):
    """The list row whose memory text is exactly `content`."""
    exact = page.locator(".content").filter(has_text=re.compile("^" + re.escape(content) + "$"))
    return page.locator("#memory-list li.row-item").filter(has=exact)


def test_the_page_is_static_locked_down_and_holds_no_data(host):
    url, _ = host
    r = httpx.get(f"{url}/admin", timeout=10)  # no key: the page, but nothing of anyone's
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
    csp = r.headers["content-security-policy"]
    for rule in ("default-src 'none'", "script-src 'self'", "frame-ancestors 'none'", "base-uri 'none'"):
        assert rule in csp
    assert "unsafe-inline" not in csp and "unsafe-eval" not in csp
    assert r.headers["x-frame-options"] == "DENY" and r.headers["x-content-type-options"] == "nosniff"
    html = r.text
    assert "Alice" not in html and "safe number is 4711" not in html
    # no inline script or inline handlers (the CSP would block them anyway), and only relative URLs
    assert not re.search(r"<script(?![^>]*\bsrc=)[^>]*>", html)
    assert not re.search(r"\son[a-z]+\s*=", html)
    assert not re.search(r"""(src|href)=["'](/|https?:)""", html)
    js = httpx.get(f"{url}/admin/admin.js", timeout=10)
    assert js.status_code == 200 and js.headers["content-type"].startswith("text/javascript")
    # memory text is user data: the script never parses strings as HTML
    for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function"):
        assert sink not in js.text, sink
    assert httpx.get(f"{url}/admin/admin.css", timeout=10).headers["content-type"].startswith("text/css")
    slash = httpx.get(f"{url}/admin/", timeout=10)
    assert slash.status_code == 308 and slash.headers["location"] == "../admin"
    assert httpx.get(f"{url}/admin/secrets.txt", timeout=10).status_code in (401, 404)
    assert httpx.get(f"{url}/v1/memories", timeout=10).status_code == 401  # the data still needs a key


def test_a_bad_key_gets_a_clear_error(host, page_for):
    url, _ = host
    page, watch = page_for()
    login(page, url, "not-a-real-key")
    expect(page.get_by_test_id("error")).to_contain_text("This key was not accepted: unknown API key")
    expect(page.locator("#app")).to_be_hidden()
    # an admin key must say whom it acts for; the error names the field in the page's words
    login(page, url, KEYS["admin"])
    expect(page.get_by_test_id("error")).to_contain_text("Act as user")
    expect(page.get_by_test_id("error")).to_contain_text("acts for the user named")
    # a user's key cannot act for another user
    login(page, url, KEYS["bob"], user="alice")
    expect(page.get_by_test_id("error")).to_contain_text("Not allowed: key 'bob' acts only for its own user")
    shot(page, "bad-key")
    assert page.evaluate("sessionStorage.getItem('amber.key')") is None  # a refused key is not kept
    assert not watch.dialogs and not watch.errors


def test_alice_sees_her_memories_as_text_and_not_bobs(host, page_for):
    url, _ = host
    # bypass_csp: the page must be safe by how it renders, not only because the CSP blocks inline code
    page, watch = page_for(bypass_csp=True)
    login(page, url, KEYS["alice"])
    expect(page.locator("#app")).to_be_visible()
    expect(page.get_by_test_id("health")).to_contain_text("memory server ok")
    expect(page.get_by_test_id("health")).to_contain_text("API keys")
    expect(row(page, "Alice lives in Porto")).to_have_count(1)
    listed = page.get_by_test_id("memory-list").inner_text()
    assert "Bob" not in listed and "safe number is 4711" not in listed
    assert "Alice lives in Lisbon" not in listed  # superseded: not in the active list
    # the XSS memories show as the characters they are, and nothing ran
    expect(row(page, f"Alice pasted {XSS_IMG} into a chat")).to_have_count(1)
    expect(row(page, f"And then {XSS_SCRIPT} too")).to_have_count(1)
    assert page.locator("#memory-list img, #memory-list script").count() == 0
    row(page, f"Alice pasted {XSS_IMG} into a chat").click()
    expect(page.get_by_test_id("detail-content")).to_have_text(f"Alice pasted {XSS_IMG} into a chat")
    assert page.locator("#detail img, #detail script").count() == 0
    shot(page, "list-xss")
    # pagination: 26 fillers + 7 others = 33 active, 25 a page
    expect(page.locator("#page-info")).to_contain_text("page 1 · 25 shown")
    page.click("#next-page")
    expect(page.locator("#page-info")).to_contain_text("page 2 · 8 shown")
    assert "Alice filler note number 00" in page.get_by_test_id("memory-list").inner_text()  # oldest last
    page.click("#prev-page")
    expect(page.locator("#page-info")).to_contain_text("page 1 · 25 shown")
    # filters: category and text
    page.select_option("#f-category", "profile")
    page.click("#filters button[type=submit]")
    expect(page.locator("#memory-list li.row-item")).to_have_count(1)
    page.select_option("#f-category", "")
    page.select_option("#f-status", "any")
    page.fill("#f-text", "lives in")
    page.click("#filters button[type=submit]")
    expect(page.locator("#memory-list li.row-item")).to_have_count(2)  # Porto and the superseded Lisbon
    page.wait_for_timeout(300)  # any late handler would have fired by now
    assert page.evaluate("window.__pwned") is None
    assert not watch.dialogs, watch.dialogs
    assert not watch.errors, watch.errors


def test_detail_shows_the_audit_trail_and_the_supersede_chain(host, page_for):
    url, mem = host
    page, watch = page_for()
    login(page, url, KEYS["alice"])
    row(page, "Alice lives in Porto").click()
    detail = page.get_by_test_id("detail")
    expect(page.get_by_test_id("detail-content")).to_have_text("Alice lives in Porto")
    expect(detail).to_contain_text("profile.city")
    chain = page.get_by_test_id("chain")
    expect(chain.locator("li")).to_have_count(2)
    expect(chain.locator("li").nth(0)).to_contain_text("Alice lives in Porto")
    expect(chain.locator("li").nth(1)).to_contain_text("Alice lives in Lisbon")
    expect(chain.locator("li").nth(1)).to_contain_text("superseded")
    events = page.get_by_test_id("events")
    expect(events).to_contain_text("supersede")
    expect(events).to_contain_text("key:alice")
    shot(page, "detail-chain")
    # follow the chain to the old version
    chain.get_by_role("button", name="Alice lives in Lisbon").click()
    expect(page.get_by_test_id("detail-content")).to_have_text("Alice lives in Lisbon")
    expect(detail.get_by_role("button", name="Edit")).to_be_disabled()
    # pin and unpin
    row(page, "Alice lives in Porto").click()
    expect(page.get_by_test_id("detail-content")).to_have_text("Alice lives in Porto")
    detail.get_by_role("button", name="Pin", exact=True).click()
    expect(page.get_by_test_id("notice")).to_contain_text("Pinned")
    expect(detail.get_by_role("button", name="Unpin")).to_be_visible()
    assert get(url, mem["city"]["id"])["pinned"] is True
    expect(page.get_by_test_id("events")).to_contain_text("pin")
    detail.get_by_role("button", name="Unpin").click()
    expect(detail.get_by_role("button", name="Pin", exact=True)).to_be_visible()
    assert get(url, mem["city"]["id"])["pinned"] is False
    # archive: kept, but out of the active list
    row(page, "Alice filler note number 25 about her garden").click()
    detail.get_by_role("button", name="Archive").click()
    expect(page.get_by_test_id("notice")).to_contain_text("Archived")
    expect(row(page, "Alice filler note number 25 about her garden")).to_have_count(0)
    expect(detail).to_contain_text("archived")
    expect(detail.get_by_role("button", name="Archive")).to_be_disabled()
    archived = httpx.get(f"{url}/v1/memories", params={"status": "archived"}, headers=auth("alice"), timeout=10).json()["items"]
    assert [m["content"] for m in archived] == ["Alice filler note number 25 about her garden"]
    # restore: back in the active list and in recall
    detail.get_by_role("button", name="Restore").click()
    expect(page.get_by_test_id("notice")).to_contain_text("Restored")
    expect(row(page, "Alice filler note number 25 about her garden")).to_have_count(1)
    expect(detail.get_by_role("button", name="Restore")).to_have_count(0)
    assert get(url, archived[0]["id"])["status"] == "active"
    assert not watch.dialogs and not watch.errors


def test_edit_and_delete(host, page_for):
    url, mem = host
    page, watch = page_for()
    login(page, url, KEYS["alice"])
    detail = page.get_by_test_id("detail")
    row(page, "Alice prefers green tea").click()
    detail.get_by_role("button", name="Edit").click()
    page.fill("#e-content", "Alice prefers jasmine tea")
    page.fill("#e-tags", "drinks, morning")
    page.fill("#e-importance", "0.8")
    shot(page, "edit")
    detail.get_by_role("button", name="Save").click()
    expect(page.get_by_test_id("notice")).to_contain_text("Saved")
    expect(page.get_by_test_id("detail-content")).to_have_text("Alice prefers jasmine tea")
    saved = get(url, mem["edit"]["id"])
    assert saved["content"] == "Alice prefers jasmine tea" and saved["tags"] == ["drinks", "morning"] and saved["importance"] == 0.8
    expect(page.get_by_test_id("events")).to_contain_text("update")
    expect(row(page, "Alice prefers jasmine tea")).to_have_count(1)
    # a value the server refuses: the error names the field, nothing is written
    detail.get_by_role("button", name="Edit").click()
    page.fill("#e-content", "")
    page.fill("#e-confidence", "0.5")
    detail.get_by_role("button", name="Save").click()
    expect(page.get_by_test_id("error")).to_contain_text("Please check \u201ccontent\u201d")
    after = get(url, mem["edit"]["id"])
    assert after["content"] == "Alice prefers jasmine tea" and after["confidence"] == 1.0
    # delete asks inside the page first; Cancel keeps it
    row(page, "Alice once owned a red bicycle").click()
    detail.get_by_role("button", name="Delete…").click()
    detail.get_by_role("button", name="Cancel").click()
    assert get(url, mem["delete"]["id"])["status"] == "active"
    detail.get_by_role("button", name="Delete…").click()
    expect(detail).to_contain_text("Move this memory to the trash?")
    shot(page, "delete-confirm")
    detail.get_by_role("button", name="Yes, delete").click()
    expect(page.get_by_test_id("notice")).to_contain_text("Deleted")
    expect(row(page, "Alice once owned a red bicycle")).to_have_count(0)
    assert get(url, mem["delete"]["id"])["status"] == "deleted"
    assert not watch.dialogs and not watch.errors


def active_with(url: str, text: str) -> list[dict]:
    r = httpx.get(f"{url}/v1/memories", params={"text": text}, headers=auth("alice"), timeout=10)
    return r.json()["items"]


def test_review_queue_approve_discard_merge_supersede(host, page_for):
    url, mem = host
    page, watch = page_for()
    login(page, url, KEYS["alice"])
    expect(page.locator("#review-count")).to_have_text("4")
    page.get_by_role("button", name=re.compile("Review queue")).click()
    cards = page.get_by_test_id("candidate-list").locator("li.card")
    expect(cards).to_have_count(4)
    shot(page, "review")
    cards.filter(has_text="cello").get_by_role("button", name="Approve").click()
    expect(page.get_by_test_id("notice")).to_contain_text("Approved")
    expect(cards).to_have_count(3)
    assert [m["status"] for m in active_with(url, "cello")] == ["active"]
    cards.filter(has_text="opera").get_by_role("button", name="Discard").click()
    expect(page.get_by_test_id("notice")).to_contain_text("Discarded")
    expect(cards).to_have_count(2)
    assert get(url, mem["cand_discard"]["id"])["status"] == "deleted" and not active_with(url, "opera")
    # merge into an active memory picked from a filtered list: the target is marked seen again
    card = cards.filter(has_text="lemon")
    card.get_by_role("button", name="Merge into…").click()
    card.get_by_placeholder("filter active memories").fill("every morning")
    target = card.locator("select.target")
    expect(target.locator("option")).to_have_count(1)
    expect(target.locator("option")).to_have_text("Alice drinks tea every morning")
    shot(page, "merge-picker")
    card.get_by_role("button", name="Merge into the selected memory").click()
    expect(page.get_by_test_id("notice")).to_contain_text("Merged")
    expect(cards).to_have_count(1)
    assert get(url, mem["tea"]["id"])["seen_count"] == 2 and not active_with(url, "lemon")
    # supersede: the candidate replaces the picked memory, which stays in the chain
    card = cards.filter(has_text="bought a cargo bike")
    card.get_by_role("button", name="Supersede…").click()
    card.get_by_placeholder("filter active memories").fill("plans to buy")
    expect(card.locator("select.target option")).to_have_count(1)
    expect(card.locator("select.target option")).to_have_text("Alice plans to buy a cargo bike")
    card.get_by_role("button", name="Replace the selected memory").click()
    expect(page.get_by_test_id("notice")).to_contain_text("Superseded")
    expect(page.get_by_test_id("candidate-list")).to_contain_text("Nothing waits for review")
    expect(page.locator("#review-count")).to_have_text("")
    assert get(url, mem["bike"]["id"])["status"] == "superseded"
    assert [m["content"] for m in active_with(url, "cargo bike")] == ["Alice bought a cargo bike"]
    assert not watch.dialogs and not watch.errors


def test_search_digest_and_glossary(host, page_for):
    url, _ = host
    page, watch = page_for()
    login(page, url, KEYS["alice"])
    page.get_by_role("button", name="Search", exact=True).click()
    page.fill("#search-q", "where does Alice live")
    page.click("#search-form button[type=submit]")
    results = page.get_by_test_id("search-results")
    expect(results.locator("li").first).to_be_visible()
    expect(results).to_contain_text("Alice lives in Porto")
    assert re.search(r"\b0\.\d{4}\b", results.inner_text())  # the fused score is shown
    assert "Bob" not in results.inner_text()
    shot(page, "search")
    results.locator("li", has_text="Alice lives in Porto").first.click()
    expect(page.get_by_test_id("detail-content")).to_have_text("Alice lives in Porto")

    page.get_by_role("button", name="Digest").click()
    expect(page.locator("#digest-meta")).to_contain_text("No digest yet")
    page.fill("#digest-text", "Alice lives in Porto, drinks jasmine tea and gardens.")
    page.get_by_role("button", name="Save digest").click()
    expect(page.get_by_test_id("notice")).to_contain_text("Digest saved")
    expect(page.locator("#digest-meta")).to_contain_text("Last written")
    d = httpx.get(f"{url}/v1/digest", headers=auth("alice"), timeout=10).json()["digest"]
    assert d["content"] == "Alice lives in Porto, drinks jasmine tea and gardens."

    page.get_by_role("button", name="Glossary").click()
    expect(page.get_by_test_id("glossary-list")).to_contain_text("No terms yet")
    page.fill("#g-term", "Quinta")
    page.fill("#g-def", "Alice's allotment garden by the river")
    page.fill("#g-aliases", "the plot, allotment")
    page.get_by_role("button", name="Save term").click()
    expect(page.get_by_test_id("glossary-list")).to_contain_text("Quinta — Alice's allotment garden by the river")
    expect(page.get_by_test_id("glossary-list")).to_contain_text("also: the plot, allotment")
    shot(page, "glossary")
    g = httpx.get(f"{url}/v1/glossary/Quinta", headers=auth("alice"), timeout=10)
    assert g.status_code == 200 and g.json()["entries"][0]["title"] == "Quinta"
    page.fill("#g-term", "")  # a missing field is named
    page.fill("#g-def", "x")
    page.get_by_role("button", name="Save term").click()
    expect(page.get_by_test_id("error")).to_contain_text("Please check \u201cterm\u201d")
    assert not watch.dialogs and not watch.errors


def test_a_reload_before_the_page_has_loaded_stays_signed_in(host, page_for):
    """The key is kept for the tab as soon as the server has accepted it, not once every part of
    the page has loaded: here the review count never answers, so the sign-in never finishes its
    loading, and a reload once the list shows must still find the key (it once lost it)."""
    url, _ = host
    page, watch = page_for()
    held = []
    page.route("**/v1/candidates", lambda route: held.append(route))  # left unanswered
    login(page, url, KEYS["admin"], user="alice")
    expect(row(page, "Alice lives in Porto")).to_have_count(1)
    assert held  # the review count was asked for and is still on its way
    assert page.evaluate("[sessionStorage.getItem('amber.key'), sessionStorage.getItem('amber.user')]") == [KEYS["admin"], "alice"]
    page.unroute("**/v1/candidates")
    page.reload()
    expect(page.get_by_test_id("who")).to_have_text("Memory of alice \u00b7 admin key \u201cadmin\u201d")
    expect(row(page, "Alice lives in Porto")).to_have_count(1)
    assert not watch.dialogs and not watch.errors


def test_bob_sees_none_of_alices(host, page_for):
    url, mem = host
    page, watch = page_for()
    login(page, url, KEYS["bob"])
    expect(row(page, "Bob prefers black tea")).to_have_count(1)
    page.select_option("#f-status", "any")
    page.click("#filters button[type=submit]")
    expect(page.locator("#memory-list li.row-item")).to_have_count(2)
    assert "Alice" not in page.get_by_test_id("memory-list").inner_text()
    expect(page.locator("#review-count")).to_have_text("")
    page.get_by_role("button", name="Search", exact=True).click()
    page.fill("#search-q", "Alice tea garden Porto")
    page.click("#search-form button[type=submit]")
    expect(page.get_by_test_id("search-results").locator("li").first).to_be_visible()
    assert "Alice" not in page.get_by_test_id("search-results").inner_text()
    page.get_by_role("button", name="Digest").click()
    expect(page.locator("#digest-meta")).to_contain_text("No digest yet")  # Alice's digest stays hers
    # even asking by id from inside the page, with Bob's key: not found
    status = page.evaluate(
        """async (id) => (await fetch('v1/memories/' + id, {headers: {Authorization: 'Bearer ' + sessionStorage.getItem('amber.key')}})).status""",
        mem["city"]["id"],
    )
    assert status == 404
    assert not watch.dialogs and not watch.errors


def test_an_admin_key_acting_for_alice(host, page_for):
    url, _ = host
    page, watch = page_for()
    login(page, url, KEYS["admin"], user="alice")
    expect(page.get_by_test_id("who")).to_have_text("Memory of alice \u00b7 admin key \u201cadmin\u201d")
    expect(row(page, "Alice lives in Porto")).to_have_count(1)
    assert "Bob" not in page.get_by_test_id("memory-list").inner_text()
    # the key survives a reload (session storage) and the page reconnects by itself
    page.reload()
    expect(row(page, "Alice lives in Porto")).to_have_count(1)
    page.click("#logout")
    expect(page.get_by_test_id("login")).to_be_visible()
    assert page.evaluate("sessionStorage.getItem('amber.key')") is None
    assert not watch.dialogs and not watch.errors
