"""`amber import-chats`: on the store (dry run, real run, re-run, errors in one line) and through a
running host (`--url`, a folder uploaded as a ZIP)."""

from __future__ import annotations

import json
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
    assert {m.id for m in service.messages(scope_for(Actor("coder")))} >= {"claude-code:e1", "claude-code:e8"}
    r = amber(tmp_path, "import-chats", str(FIX / "claude"), "--url", url, "--key", KEYS["alice_ro"])
    assert r.returncode == 2 and "403" in r.stderr
    assert not (tmp_path / "data").exists()
