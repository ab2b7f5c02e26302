"""The admin page's daily views in a real browser (Debian's chromium via Playwright) against a real
`amber serve`: Today, Jobs, Raw messages, Precious, Maintenance, on a wide and a narrow screen.
Screenshots of each view go to this test's tmp dir (artefacts, never committed)."""

from __future__ import annotations

import json
import re
from datetime import datetime, timedelta, timezone
from pathlib import Path

import httpx
import pytest
from admin_kit import KEYS, XSS_IMG, XSS_SCRIPT, auth, login
from playwright.sync_api import expect

pytestmark = pytest.mark.e2e
NARROW = {"width": 390, "height": 844}


@pytest.fixture(scope="module")
def shots(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("admin-screenshots")


def shot(page, shots: Path, name: str) -> None:
    page.screenshot(path=str(shots / f"{name}.png"), full_page=True)


@pytest.fixture(scope="module")
def day(host):
    """Alice's day: turns from two clients (one with markup in it), a precious quote; Bob's own turn."""
    url, mem = host
    now = datetime.now(timezone.utc)
    turns = [
        ("t-cb-1", "user", "Planning the allotment: beans or peas?", "chatbox", "s-garden"),
        ("t-cb-2", "assistant", "Peas like the cool spring; beans want warmth.", "chatbox", "s-garden"),
        ("t-cc-1", "user", f"Fix the parser {XSS_IMG} please", "claude-code", "s-code"),
        ("t-cc-2", "assistant", f"Escaped it: {XSS_SCRIPT}", "claude-code", "s-code"),
        ("t-cc-3", "user", "Also rename the config loader", "claude-code", "s-code"),
    ]
    # minutes apart, all of them today even just after midnight (the view shows today's turns)
    start = max(now - timedelta(minutes=10), now.replace(hour=0, minute=0, second=0, microsecond=0))
    step = (now - start) / (len(turns) + 1)
    msgs = [{"id": i, "role": r, "content": c, "client": cl, "session": s, "created_at": (start + step * (n + 1)).isoformat()}
            for n, (i, r, c, cl, s) in enumerate(turns)]
    r = httpx.post(f"{url}/v1/messages", json={"messages": msgs, "commands": False}, headers=auth("alice"), timeout=30)
    assert r.status_code == 200, r.text
    bob = [{"id": "t-bob", "role": "user", "content": "Bob's turn about the safe", "client": "chatbox", "created_at": now.isoformat()}]
    assert httpx.post(f"{url}/v1/messages", json={"messages": bob}, headers=auth("bob"), timeout=30).status_code == 200
    r = httpx.post(f"{url}/v1/precious", json={"quote": "Grandma said: plant when the lilac blooms."}, headers=auth("alice"), timeout=30)
    assert r.status_code == 200, r.text
    return url, mem, r.json()["memory"]


def no_harm(page, watch) -> None:
    assert page.evaluate("window.__pwned") is None  # stored markup stayed text
    assert not watch.dialogs and not watch.errors, (watch.dialogs, watch.errors)


def fits(page) -> None:
    """Nothing wider than the screen: the page never scrolls sideways (wide tables scroll in their own box)."""
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")


def test_every_script_is_static_public_and_never_parses_html(host):
    url, _ = host
    html = httpx.get(f"{url}/admin", timeout=10).text
    scripts = re.findall(r'<script src="admin/([^"]+)"', html)
    assert scripts[0] == "admin-kit.js" and {"admin.js", "admin-today.js", "admin-jobs.js", "admin-messages.js", "admin-care.js"} <= set(scripts)
    for name in scripts:
        r = httpx.get(f"{url}/admin/{name}", timeout=10)  # public: no key
        assert r.status_code == 200 and r.headers["content-type"].startswith("text/javascript"), name
        assert "script-src 'self'" in r.headers["content-security-policy"]
        for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function"):
            assert sink not in r.text, (name, sink)
        assert len(r.text.splitlines()) <= 600, name  # modules stay small


def test_today_by_client_with_digest_counts_and_jobs(day, page_for, shots):
    url, _, _ = day
    httpx.put(f"{url}/v1/digest", json={"text": "Alice gardens and writes parsers."}, headers=auth("alice"), timeout=10)
    page, watch = page_for()
    login(page, url, KEYS["alice"])
    page.click("button[data-view=today]")
    clients = page.get_by_test_id("today-clients")
    expect(clients.locator("li[data-client=claude-code]")).to_contain_text("claude-code — 3 turn(s) in 1 conversation(s)")
    expect(clients.locator("li[data-client=chatbox]")).to_contain_text("chatbox — 2 turn(s) in 1 conversation(s)")
    expect(clients.locator("li").first).to_have_attribute("data-client", "claude-code")  # busiest first
    expect(clients).not_to_contain_text("Bob")
    expect(page.get_by_test_id("today-counts").locator("li[data-kind=precious]")).to_have_text("1 precious")
    expect(page.get_by_test_id("today-counts").locator("li[data-kind=fact]")).to_contain_text("fact")
    expect(page.get_by_test_id("today-digest")).to_have_text("Alice gardens and writes parsers.")
    expect(page.get_by_test_id("today-jobs")).to_contain_text("Only an admin key sees the jobs.")
    shot(page, shots, "today")
    no_harm(page, watch)


def test_jobs_run_now_and_every_run_listed(day, page_for, shots):
    url, _, _ = day
    assert httpx.get(f"{url}/v1/jobs/runs", headers=auth("alice"), timeout=10).status_code == 403  # runs cover every user
    page, watch = page_for()
    login(page, url, KEYS["admin"], user="alice")
    page.click("button[data-view=jobs]")
    expect(page.get_by_test_id("runs")).to_contain_text("No job has run yet.")
    page.click("#jobs-run button[data-job=retention]")
    done = page.locator("#runs-body tr[data-job=retention][data-status=ok]")
    expect(done).to_have_count(1, timeout=30_000)
    expect(done).to_contain_text("$0.0000")
    runs = httpx.get(f"{url}/v1/jobs/runs", headers=auth("admin"), timeout=10).json()["runs"]
    assert [r["job"] for r in runs] == ["retention"] and runs[0]["status"] == "ok"
    shot(page, shots, "jobs")
    # Today shows the last jobs to an admin
    page.click("button[data-view=today]")
    expect(page.get_by_test_id("today-jobs")).to_contain_text("retention")
    no_harm(page, watch)


def test_raw_messages_browse_search_and_delete(day, page_for, shots):
    url, _, _ = day
    page, watch = page_for()
    login(page, url, KEYS["alice"])
    page.click("button[data-view=messages]")
    rows = page.get_by_test_id("messages-list").locator("li.turn")
    expect(rows).to_have_count(5)
    expect(rows.first).to_contain_text("Also rename the config loader")  # newest first
    expect(page.get_by_test_id("messages-list")).to_contain_text(XSS_IMG)  # shown as the text it is
    shot(page, shots, "messages")
    page.fill("#m-text", "peas")
    page.click("#messages-form button[type=submit]")
    expect(rows).to_have_count(2)
    # delete one, confirming inside the page
    row = page.locator("li.turn[data-id=t-cb-2]")
    row.get_by_role("button", name="delete").click()
    row.get_by_role("button", name="Yes, delete").click()
    expect(rows).to_have_count(1)
    ids = lambda: [m["id"] for m in httpx.get(f"{url}/v1/messages", headers=auth("alice"), timeout=10).json()["messages"]]
    assert "t-cb-2" not in ids() and "t-cb-1" in ids()
    # everything shown: the code conversation
    page.fill("#m-text", "")
    page.fill("#m-session", "s-code")
    page.click("#messages-form button[type=submit]")
    expect(rows).to_have_count(3)
    page.click("#messages-bulk button.danger")
    page.get_by_role("button", name="Yes, delete them").click()
    expect(page.get_by_test_id("notice")).to_contain_text("Deleted 3 turn(s).")
    assert ids() == ["t-cb-1"]
    assert [m["id"] for m in httpx.get(f"{url}/v1/messages", headers=auth("bob"), timeout=10).json()["messages"]] == ["t-bob"]
    no_harm(page, watch)


def test_precious_quotes_open_their_detail(day, page_for, shots):
    url, _, quote = day
    page, watch = page_for()
    login(page, url, KEYS["alice"])
    page.click("button[data-view=precious]")
    card = page.get_by_test_id("precious-list").locator(f"li[data-id='{quote['id']}']")
    expect(card.locator("blockquote")).to_have_text("Grandma said: plant when the lilac blooms.")
    shot(page, shots, "precious")
    card.get_by_role("button", name="details").click()
    expect(page.get_by_test_id("detail-content")).to_have_text("Grandma said: plant when the lilac blooms.")
    expect(page.get_by_test_id("events")).to_contain_text("create")  # its audit trail
    no_harm(page, watch)


def test_maintenance_vectors_reindex_export_import(day, page_for, shots, tmp_path):
    url, _, _ = day
    page, watch = page_for()
    login(page, url, KEYS["alice"])
    page.click("button[data-view=maintenance]")
    expect(page.get_by_test_id("vectors")).to_contain_text("Only an admin key sees vector health")
    no_harm(page, watch)
    page, watch = page_for(accept_downloads=True)
    login(page, url, KEYS["admin"], user="alice")
    page.click("button[data-view=maintenance]")
    expect(page.get_by_test_id("vectors").locator("tr[data-user=alice]")).to_contain_text("ok")
    expect(page.get_by_test_id("vectors").locator("tr[data-user=bob]")).to_be_visible()
    page.click("#reindex")
    page.get_by_role("button", name="Yes, reindex").click()
    # one user at a time, so the page can count them off ("user 2 of 3 (bob)…")
    expect(page.get_by_test_id("reindex-status")).to_contain_text(re.compile(r"Reindexed \d+ users? in"), timeout=60_000)
    expect(page.get_by_test_id("reindex-status")).to_contain_text("alice:")
    with page.expect_download() as dl:
        page.get_by_test_id("export").click()
    lines = [json.loads(x) for x in Path(dl.value.path()).read_text().splitlines()]
    assert lines[0]["type"] == "header" and any(x.get("content") == "Alice lives in Porto" for x in lines)
    assert not any("safe number is 4711" in json.dumps(x) for x in lines)  # only the acted-for user
    f = tmp_path / "one.jsonl"
    f.write_text(json.dumps({"type": "memory", "id": "m_imported_by_page", "content": "Imported from the admin page", "user_id": "?",
                             "created_at": "2026-05-01T10:00:00Z", "updated_at": "2026-05-01T10:00:00Z"}) + "\n")
    page.set_input_files("#import-file", str(f))
    expect(page.get_by_test_id("transfer-status")).to_contain_text("Imported 1 memories, 0 turns")
    assert httpx.get(f"{url}/v1/memories/m_imported_by_page", headers=auth("alice"), timeout=10).status_code == 200
    bad = tmp_path / "bad.jsonl"
    bad.write_text("not json\n")
    page.set_input_files("#import-file", str(bad))
    expect(page.get_by_test_id("error")).to_contain_text("line 1")
    expect(page.get_by_test_id("transfer-status")).to_have_text("Nothing was imported.")
    shot(page, shots, "maintenance")
    no_harm(page, watch)


def test_narrow_screen(day, page_for, shots):
    url, _, _ = day
    page, watch = page_for()
    page.set_viewport_size(NARROW)
    login(page, url, KEYS["admin"], user="alice")
    for view, testid in [("today", "today-clients"), ("jobs", "runs"), ("messages", "messages-list"),
                         ("precious", "precious-list"), ("maintenance", "vectors")]:
        page.click(f"button[data-view={view}]")
        expect(page.get_by_test_id(testid)).to_be_visible()
        page.wait_for_load_state("networkidle")
        fits(page)
        shot(page, shots, f"narrow-{view}")
    no_harm(page, watch)
