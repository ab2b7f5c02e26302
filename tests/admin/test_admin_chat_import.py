"""The admin page's Maintenance view brings in chat history, in a real browser (Debian's chromium via
Playwright) against a real `amber serve`: a chosen export is read first (dry run: nothing stored,
its report shown), imported when confirmed with a progress bar and its report, and the same file
again finds nothing new. It lands in the connected person's memory only; a file that is no export
is refused in words."""

from __future__ import annotations

import zipfile
from pathlib import Path

import httpx
import pytest
from admin_kit import KEYS, auth, login
from playwright.sync_api import expect

pytestmark = pytest.mark.e2e
FIX = Path(__file__).resolve().parents[1] / "fixtures" / "chat_exports"


def chatgpt_zip(tmp: Path) -> Path:
    """The hand-written ChatGPT fixture, zipped as ChatGPT hands it out."""
    out = tmp / "chatgpt-export.zip"
    with zipfile.ZipFile(out, "w") as z:
        for f in sorted((FIX / "chatgpt").iterdir()):
            z.write(f, f.name)
    return out


def turns(url: str, who: str) -> dict[str, str]:
    r = httpx.get(f"{url}/v1/messages", headers=auth(who), timeout=30)
    assert r.status_code == 200, r.text
    return {m["id"]: m["content"] for m in r.json()["messages"]}


def test_chat_history_dry_run_then_import_with_progress_and_report(host, page_for, tmp_path):
    url, _ = host
    export = chatgpt_zip(tmp_path)
    page, watch = page_for()
    login(page, url, KEYS["alice"])
    page.click("button[data-view=maintenance]")
    report = page.get_by_test_id("chat-import-report")

    page.set_input_files("#chat-import-file", str(export))
    expect(report).to_contain_text("Dry run: 9 new turns would come in. Nothing is stored yet.")
    expect(report).to_contain_text("do not remember 1")  # the conversation marked do-not-remember, left out
    expect(report.locator("tr", has_text="extraction")).to_contain_text("windows, about")
    expect(report.locator("tr", has_text="ChatGPT custom instructions")).to_contain_text("1 found; the newest would be kept as 2 profile facts")
    assert not any(i.startswith("chatgpt:") for i in turns(url, "alice"))  # a dry run stores nothing
    go = page.get_by_role("button", name="Import 9 turns")
    expect(go).to_be_visible()

    go.click()
    expect(report).to_contain_text("Imported: 9 turns stored.")
    expect(report.locator("tr", has_text="ChatGPT custom instructions")).to_contain_text("kept as 2 profile facts")
    expect(page.get_by_test_id("chat-import-stage")).to_have_text("done: 9 turns stored")
    bar = page.get_by_test_id("chat-import-bar")
    assert bar.evaluate("b => [b.value, b.max]") == [9, 9]
    expect(page.get_by_test_id("notice")).to_contain_text("Chat history imported.")
    mine = turns(url, "alice")
    assert {"chatgpt:u1", "chatgpt:a2b", "chatgpt:k2"} <= set(mine)
    assert not any(i.startswith("chatgpt:") for i in turns(url, "bob"))  # only the connected person's memory
    expect(go).to_be_hidden()

    page.set_input_files("#chat-import-file", str(export))  # the same export again: nothing new
    expect(report).to_contain_text("Dry run: nothing new to bring in.")
    expect(report.locator("tr", has_text="already in this memory")).to_contain_text("9")
    expect(go).to_be_hidden()
    assert not watch.dialogs and not watch.errors, (watch.dialogs, watch.errors)


def test_an_admin_imports_for_the_person_it_acts_for_and_a_wrong_file_is_refused(host, page_for, tmp_path):
    url, _ = host
    page, watch = page_for()
    login(page, url, KEYS["admin"], user="bob")
    page.click("button[data-view=maintenance]")
    claude = tmp_path / "conversations.json"
    claude.write_bytes((FIX / "claude" / "conversations.json").read_bytes())
    page.set_input_files("#chat-import-file", str(claude))
    report = page.get_by_test_id("chat-import-report")
    expect(report).to_contain_text("new turns would come in")
    page.get_by_role("button", name="Import 8 turns").click()
    expect(report).to_contain_text("turns stored.")
    assert any(i.startswith("claude:") for i in turns(url, "bob"))
    assert not any(i.startswith("claude:") for i in turns(url, "alice"))

    wrong = tmp_path / "notes.json"
    wrong.write_text('{"hello": "this is not a chat export"}')
    page.set_input_files("#chat-import-file", str(wrong))
    expect(page.get_by_test_id("error")).to_contain_text("no ChatGPT, Claude.ai, Open WebUI or Claude Code conversations found")
    expect(report).to_contain_text("The export could not be read; nothing was stored.")
    expect(page.locator("#chat-import-progress")).to_be_hidden()
    assert not watch.dialogs and not watch.errors, (watch.dialogs, watch.errors)
