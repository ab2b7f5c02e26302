"""`amber import-chats`: on the store (dry run, real run, re-run, errors in one line) and through a
running host (`--url`, a folder uploaded as a ZIP)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from core import Actor, scope_for
from server_kit import KEYS
from test_cli import amber, run  # noqa: F401  (fixtures: `amber ARGS` in this process on a temp store)

FIX = Path(__file__).resolve().parents[1] / "fixtures" / "chat_exports"


def test_dry_run_then_import_then_again(amber, tmp_path):
    r = amber(tmp_path, "import-chats", str(FIX / "chatgpt"), "--user", "me", "--dry-run")
    assert r.returncode == 0, r.stderr
    assert "dry run: 4 conversations (chatgpt), do_not_remember 1 left out whole" in r.stdout
    assert "9 new turns would be stored" in r.stdout and "tokens" in r.stdout
    r = amber(tmp_path, "import-chats", str(FIX / "chatgpt"), "--user", "me", "--json")
    assert r.returncode == 0, r.stderr
    report = json.loads(r.stdout)
    # one hidden message is the person's custom instructions: counted as such, and kept as profile facts
    assert report["stored"] == 9 and report["skipped"]["hidden"] == 1 and report["skipped"]["custom_instructions"] == 1
    assert report["extraction"]["windows"] == 3
    assert "importing" in r.stderr  # the progress bar
    r = amber(tmp_path, "import-chats", str(FIX / "chatgpt"), "--user", "me")
    assert r.returncode == 0 and "0 turns stored (9 already there, 0 forgotten and kept out)" in r.stdout


def test_a_long_import_shows_its_progress_while_it_runs(amber, tmp_path):
    """The bar on stderr (tqdm, also when stderr is a file or a pipe) moves as each batch of turns is
    stored, not only at the end: an export of thousands of turns is not silent for minutes."""
    convs = []
    for c in range(20):
        ids = [f"long{c}-{i}" for i in range(1, 81)]
        convs.append({"id": f"long-{c}", "title": None, "create_time": 1_690_000_000 + c * 1000, "current_node": ids[-1], "mapping": {
            m: {"id": m, "parent": ids[i - 1] if i else None, "children": ids[i + 1:i + 2], "message": {
                "id": m, "author": {"role": "assistant" if i % 2 else "user"}, "create_time": 1_690_000_000 + c * 1000 + i,
                "content": {"content_type": "text", "parts": [f"Allotment notes {c}, entry {i}"]}}} for i, m in enumerate(ids)}})
    export = tmp_path / "conversations.json"
    export.write_text(json.dumps(convs))
    r = amber(tmp_path, "import-chats", str(export), "--user", "me")
    assert r.returncode == 0 and "1600 turns stored" in r.stdout, r.stderr
    stored = [int(n) for n in re.findall(r"stored=(\d+)", r.stderr)]
    assert any(0 < n < 1600 for n in stored), r.stderr  # part-way figures, written while it ran


def test_errors_are_one_line(amber, tmp_path):
    for args, words in [
        ((str(FIX / "chatgpt_multipart_missing"),), "conversations-002.json is missing"),
        ((str(FIX / "openwebui_two_users"),), "chats of 2 people"),
        ((str(FIX / "chatgpt"), "--source", "claude"), "holds a chatgpt export, not claude"),
        ((str(tmp_path / "nowhere.zip"),), "does not exist"),
    ]:
        r = amber(tmp_path, "import-chats", *args)
        errors = [x for x in r.stderr.splitlines() if x.startswith("amber:")]
        assert r.returncode == 2 and len(errors) == 1 and words in errors[0] and "Traceback" not in r.stderr, r.stderr


def test_through_a_running_host(amber, host, tmp_path):
    url, service = host
    r = amber(tmp_path, "import-chats", str(FIX / "claude_code"), "--url", url, "--key", KEYS["admin"], "--user", "coder")
    assert r.returncode == 0 and "4 turns stored" in r.stdout, r.stderr
    assert "uploading" in r.stderr and "importing" in r.stderr and "stored=4" in r.stderr  # the host's progress, streamed
    assert {m.id for m in service.messages(scope_for(Actor("coder")))} >= {"claude-code:e1", "claude-code:e8"}
    r = amber(tmp_path, "import-chats", str(FIX / "claude"), "--url", url, "--key", KEYS["alice_ro"])
    assert r.returncode == 2 and "403" in r.stderr
    assert not (tmp_path / "data").exists()


def test_extract_now_turns_the_import_into_dated_memories(amber, tmp_path):
    """`--extract`: the import's windows go to the configured model at once, and the report says
    what came of them; each fact is dated from when it was said, not from the import."""
    from datetime import datetime, timezone

    from core import Settings, build_service
    from fakes.upstreams import FakeUpstreams
    from tests.jobs.jobs_helpers import fact, facts

    with FakeUpstreams() as up:
        up.script(json.dumps(facts(fact("Grows tomato seedlings on a north windowsill", "profile.gardening"))),
                  json.dumps(facts()), json.dumps(facts()))
        r = amber(tmp_path, "import-chats", str(FIX / "chatgpt"), "--user", "me", "--extract", "--json",
                  AMBER_LLM_MODEL="openai/gpt-4o-mini", OPENAI_API_BASE=up.openai_base, OPENAI_API_KEY="sk-fake")
        calls = len(up.find("/chat/completions"))
    assert r.returncode == 0, r.stderr
    report = json.loads(r.stdout)
    x = report["extracted"]
    assert x["status"] == "ok" and x["facts"]["added"] == 1 and x["windows"]["processed"] == 3 and x["llm_calls"] == calls == 3, x
    assert "extracting" in r.stderr  # its progress bar
    from mcp_server.cli_import import summary

    assert "extracted now: 1 facts added, 0 superseded, 0 for review, from 3 windows (3 LLM calls)" in summary(report)
    service = build_service(Settings(data_dir=tmp_path / "data", embedding_model="hash"))
    try:
        [m] = [m for m in service.list(scope_for(Actor("me")), limit=50).items if m.fact_key == "profile.gardening"]
        assert m.valid_from < datetime(2025, 1, 1, tzinfo=timezone.utc)  # the conversation's own time (the fixture's are before 2025)
    finally:
        service.close()


def test_extract_now_through_a_running_host(amber, host, tmp_path):
    """`--extract --url`: the host extracts with its own model and reports the same figures."""
    from fakes.upstreams import FakeUpstreams
    from tests.jobs.jobs_helpers import fact, facts

    url, service = host
    with FakeUpstreams() as up:
        up.script(json.dumps(facts(fact("Is planning a trip to Lisbon in May", "goal.trip", category="goal"))), json.dumps(facts()), json.dumps(facts()))
        # the host is this process: the variables its model client reads are set for the call
        r = amber(tmp_path, "import-chats", str(FIX / "chatgpt_multipart"), "--url", url, "--key", KEYS["admin"], "--user", "kim",
                  "--extract", OPENAI_API_BASE=up.openai_base, OPENAI_API_KEY="sk-fake")
    assert r.returncode == 0, r.stderr
    assert "9 turns stored" in r.stdout and "extracted now: 1 facts added, 0 superseded, 0 for review, from 3 windows (3 LLM calls)" in r.stdout
    assert "extracting" in r.stderr and "3/3" in r.stderr  # the host's extraction, window by window
    assert any(m.fact_key == "goal.trip" for m in service.list(scope_for(Actor("kim")), limit=50).items)
    r = amber(tmp_path, "import-chats", str(FIX / "claude"), "--url", url, "--key", KEYS["admin"], "--user", "kim")
    assert r.returncode == 0 and "queued for the next extraction job" in r.stdout, r.stdout
