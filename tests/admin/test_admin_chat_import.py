"""The admin page's Maintenance view brings in chat history, in a real browser (Debian's chromium via
Playwright) against a real `amber serve`: a chosen export is read first (dry run: nothing stored,
its report shown), imported when confirmed with a progress bar and its report, and the same file
again finds nothing new. It lands in the connected person's memory only; a file that is no export
is refused in words. The bar first counts the upload's bytes, part-way and in words, for the dry run
and for the import, then moves as the turns are stored, not only at the end; with "extract facts
now" a host whose model is a fake OpenAI-compatible upstream (the network edge only) extracts right
after the import and the report shows the facts."""

from __future__ import annotations

import json
import re
import zipfile
from pathlib import Path

import httpx
import pytest
from admin_kit import KEYS, auth, login, served, server_env
from playwright.sync_api import expect

from tests.fakes.upstreams import FakeUpstreams
from tests.jobs.jobs_helpers import fact, facts

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

    page.fill("#chat-import-owui", "x" * 201)  # refused before anything is read: the answer is one error, not a stream
    page.set_input_files("#chat-import-file", str(claude))
    expect(page.get_by_test_id("error")).to_contain_text("openwebui_user")
    expect(report).to_contain_text("The export could not be read; nothing was stored.")
    assert not watch.dialogs and not watch.errors, (watch.dialogs, watch.errors)


# every value the bar is given, with its max at the time (window.__bar), and every label it is given
# (window.__stages): the page sets them as the upload goes and as progress lines come
RECORD_BAR = """() => {
  const bar = document.getElementById("chat-import-bar"), stage = document.getElementById("chat-import-stage");
  const own = Object.getOwnPropertyDescriptor(HTMLProgressElement.prototype, "value");
  const text = Object.getOwnPropertyDescriptor(Node.prototype, "textContent");
  window.__bar = [];
  window.__stages = [];
  Object.defineProperty(bar, "value", { configurable: true, get() { return own.get.call(this); },
    set(v) { own.set.call(this, v); window.__bar.push([this.value, this.max]); } });
  Object.defineProperty(stage, "textContent", { configurable: true, get() { return text.get.call(this); },
    set(v) { text.set.call(this, v); window.__stages.push(v); } });
}"""


def many_turns(tmp: Path, conversations: int = 40, each: int = 8) -> Path:
    """A ChatGPT export of 320 turns: the import stores them in several batches."""
    convs = []
    for c in range(conversations):
        t0 = 1_690_000_000 + c * 1000
        mapping = {f"m{c}-0": {"id": f"m{c}-0", "parent": None, "children": [f"m{c}-1"], "message": None}}
        for i in range(1, each + 1):
            mapping[f"m{c}-{i}"] = {"id": f"m{c}-{i}", "parent": f"m{c}-{i - 1}", "children": [f"m{c}-{i + 1}"] if i < each else [],
                                    "message": {"id": f"m{c}-{i}", "author": {"role": "user" if i % 2 else "assistant"},
                                                "create_time": t0 + i, "content": {"content_type": "text",
                                                                                   "parts": [f"Garden diary {c}, note {i}"]}}}
        convs.append({"id": f"many-{c}", "title": f"Diary {c}", "create_time": t0, "current_node": f"m{c}-{each}", "mapping": mapping})
    out = tmp / "conversations.json"
    out.write_text(json.dumps(convs))
    return out


def test_the_bar_moves_part_way_through_an_import(host, page_for, tmp_path):
    url, _ = host
    page, watch = page_for()
    login(page, url, KEYS["admin"], user="dora")
    page.click("button[data-view=maintenance]")
    export = many_turns(tmp_path)
    page.set_input_files("#chat-import-file", str(export))
    report = page.get_by_test_id("chat-import-report")
    expect(report).to_contain_text("Dry run: 320 new turns would come in.")
    page.evaluate(RECORD_BAR)
    page.get_by_role("button", name="Import 320 turns").click()
    expect(report).to_contain_text("Imported: 320 turns stored.")
    expect(report.locator("tr", has_text="extraction")).to_contain_text("queued for the next scheduled extraction")
    size = export.stat().st_size
    values = [v for v in page.evaluate("window.__bar") if v[1] != size]  # the upload's bytes came first: see the test below
    assert values[0] == [0, 320] and values[-1] == [320, 320], values
    between = [v for v, top in values if 0 < v < top]
    assert len(between) >= 2 and between == sorted(between), values  # it moved as the batches were stored, forward only
    assert not watch.dialogs and not watch.errors, (watch.dialogs, watch.errors)


def with_attachments(tmp: Path, megabytes: int = 80) -> Path:
    """A ChatGPT ZIP of 64 turns that also carries the chats' files, as real exports do (the import
    reads none of them): most of its bytes are there, so its upload takes a while on its own."""
    out = tmp / "chatgpt-with-files.zip"
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as z:
        z.write(many_turns(tmp, conversations=8), "conversations.json")
        with z.open("file-0001-garden.png", "w") as f:
            for _ in range(megabytes):
                f.write(bytes(1 << 20))
    return out


def test_the_bar_counts_the_upload_then_the_import(host, page_for, tmp_path):
    url, _ = host
    export = with_attachments(tmp_path)
    size = export.stat().st_size
    page, watch = page_for()
    login(page, url, KEYS["admin"], user="erin")
    page.click("button[data-view=maintenance]")
    report = page.get_by_test_id("chat-import-report")
    page.evaluate(RECORD_BAR)
    page.set_input_files("#chat-import-file", str(export))
    expect(report).to_contain_text("Dry run: 64 new turns would come in. Nothing is stored yet.")
    dry_run = page.evaluate("[window.__bar, window.__stages]")
    page.evaluate(RECORD_BAR)
    page.get_by_role("button", name="Import 64 turns").click()
    expect(report).to_contain_text("Imported: 64 turns stored.")
    expect(page.get_by_test_id("chat-import-stage")).to_have_text("done: 64 turns stored")
    imported = page.evaluate("[window.__bar, window.__stages]")
    for (values, stages), then in [(dry_run, "reading "), (imported, "importing ")]:
        n = stages.index(then + export.name + "\u2026")  # the file is up: the import's own stages follow
        sent = [re.fullmatch(r"uploading (\d+) of (\d+) MB", s) for s in stages[:n]]
        assert all(sent) and any(0 < int(m[1]) < int(m[2]) for m in sent), stages  # bytes part-way, in words, before that
        assert not any(s.startswith("uploading") for s in stages[n:]), stages
        part_way = [v for v, top in values if top == size and 0 < v < size]
        assert part_way and part_way == sorted(part_way), values  # the bar took the bytes sent, forward only
    values = imported[0]
    assert values[-1] == [64, 64] and [0, 64] in values, values  # then the turns stored, of the dry run's count
    r = httpx.get(f"{url}/v1/messages", headers={**auth("admin"), "X-Amber-User": "erin"}, timeout=30)
    assert {f"chatgpt:m{c}-1" for c in range(8)} <= {m["id"] for m in r.json()["messages"]}, r.text
    assert not watch.dialogs and not watch.errors, (watch.dialogs, watch.errors)


@pytest.fixture(scope="module")
def model_host(tmp_path_factory):
    """`amber serve` whose model (settings llm_model) is a fake OpenAI-compatible upstream; yields (url, upstream)."""
    tmp = tmp_path_factory.mktemp("admin-model-host")
    with FakeUpstreams() as up:
        env = {**server_env(tmp), "AMBER_LLM_MODEL": "openai/gpt-4o-mini", "OPENAI_API_BASE": up.openai_base, "OPENAI_API_KEY": "sk-fake"}
        with served(env) as url:
            yield url, up


def test_extract_facts_now_shows_them_in_the_report(model_host, page_for, tmp_path):
    url, up = model_host
    up.script(json.dumps(facts(fact("Grows tomato seedlings on a north windowsill", "profile.gardening"))),
              json.dumps(facts()), json.dumps(facts()))
    page, watch = page_for()
    login(page, url, KEYS["alice"])
    page.click("button[data-view=maintenance]")
    page.set_input_files("#chat-import-file", str(chatgpt_zip(tmp_path)))
    report = page.get_by_test_id("chat-import-report")
    expect(report).to_contain_text("Dry run: 9 new turns would come in.")
    assert up.requests == []  # a dry run asks no model
    page.get_by_label("extract facts now").check()
    page.evaluate(RECORD_BAR)
    page.get_by_role("button", name="Import 9 turns").click()
    expect(report).to_contain_text("Imported: 9 turns stored. 1 facts extracted now.")
    expect(report.locator("tr", has_text="facts extracted")).to_contain_text("1 added, 0 superseded, 0 for review")
    expect(report.locator("tr", has_text="extraction run")).to_contain_text("3 windows, 3 LLM calls")
    expect(page.get_by_test_id("chat-import-stage")).to_have_text("done: 9 turns stored, 1 facts extracted")
    assert len(up.find("/chat/completions")) == 3
    # after the turns, the bar counted the extraction's windows
    assert [1, 3] in page.evaluate("window.__bar") and [2, 3] in page.evaluate("window.__bar")
    r = httpx.get(f"{url}/v1/memories", headers=auth("alice"), timeout=30)
    assert any(m["fact_key"] == "profile.gardening" for m in r.json()["items"]), r.text
    assert not watch.dialogs and not watch.errors, (watch.dialogs, watch.errors)
