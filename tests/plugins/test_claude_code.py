"""Amber's Claude Code plugin, proven with the real Claude Code CLI (pinned in cc_kit.py): `claude -p
--plugin-dir plugins/claude-code` against a fake Anthropic upstream and a real Amber host.

What each test shows: a stored memory reaches the model through the prompt hook (and the boot pack
through the session hook); the README's two install commands give a plain `claude -p` the same; an
exchange is captured once and recalled in a new session; Amber's MCP tool is called through Claude
Code's own MCP client, and /amber:remember saves through it; with Amber down, hung or refusing the
key, Claude Code answers as if the plugin were not there.
"""

from __future__ import annotations

import json
import re
import shlex
import socket
import subprocess
import time

import httpx
import pytest

from cc_kit import CLI, KEYS, ROOT, claude_env, plugin_log, request_text, run_claude

pytestmark = pytest.mark.e2e

TOOL = "mcp__plugin_amber_amber__memory_recall"  # the name Claude Code gives a plugin's MCP tool


def remember(url: str, user: str, content: str, **fields) -> dict:
    r = httpx.post(f"{url}/v1/memories", json={"content": content, **fields}, headers={"Authorization": f"Bearer {KEYS[user]}"})
    assert r.status_code == 200, r.text
    return r.json()["memory"]


def captured(url: str, user: str) -> list[dict]:
    r = httpx.get(f"{url}/v1/messages", headers={"Authorization": f"Bearer {KEYS[user]}"})
    assert r.status_code == 200, r.text
    return r.json()["messages"]


def memory_block(body: dict) -> str:
    """The text of the request between Amber's fences (recall and boot pack), '' if none."""
    text = request_text(body)
    blocks, start = [], text.find("<memory_context>")
    while start >= 0:
        end = text.find("</memory_context>", start)
        blocks.append(text[start:end])
        start = text.find("<memory_context>", end)
    return "\n".join(blocks)


def test_memory_reaches_the_model_through_the_hooks(claude_cli, up, amber, tmp_path):
    url, _ = amber
    remember(url, "recall", "The deploy target is the Orinoco-7 cluster.", pinned=True)
    remember(url, "recall", "Lighthouse serves its dashboard on port 7781.", namespace="project:lighthouse")
    project = tmp_path / "lighthouse"
    project.mkdir()
    (project / ".amber.json").write_text(json.dumps({"project": "lighthouse"}))
    env = claude_env(tmp_path / "home", up.anthropic_base, AMBER_URL=url, AMBER_KEY=KEYS["recall"])

    up.clear()
    up.script("It is 7781.")
    done = run_claude("Which port does the lighthouse dashboard use?", env=env, cwd=project)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "It is 7781."
    (request,) = up.find("/v1/messages")
    block = memory_block(request.body)
    assert "port 7781" in block  # recall for the prompt, reading the project's namespace
    assert "Orinoco-7" in block  # the boot pack from session start: a pinned fact
    assert "UserPromptSubmit hook additional context: <memory_context>" in request_text(request.body)
    assert plugin_log(tmp_path / "home") == ""  # nothing went wrong, so nothing was logged

    # the same question outside the project: its namespace is not read, the pinned fact still is
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    up.clear()
    assert run_claude("Which port does the lighthouse dashboard use?", env=env, cwd=elsewhere).returncode == 0
    (request,) = up.find("/v1/messages")
    assert "dashboard on port 7781" not in request_text(request.body)  # (the first exchange, captured, may be)
    assert "Orinoco-7" in memory_block(request.body)


def test_installed_with_the_readme_commands(claude_cli, up, amber, tmp_path):
    # the two commands the README gives, run as written from the repository, then a plain `claude -p`
    url, _ = amber
    remember(url, "recall", "The greenhouse key hangs behind the blue door.")
    env = claude_env(tmp_path / "home", up.anthropic_base, AMBER_URL=url, AMBER_KEY=KEYS["recall"])
    block = re.search(r"```sh\n(claude plugin marketplace add .*?)```", (ROOT / "README.md").read_text(), re.S).group(1)
    commands = [shlex.split(line) for line in block.strip().splitlines()]
    assert [c[:3] for c in commands] == [["claude", "plugin", "marketplace"], ["claude", "plugin", "install"]]
    for command in commands:
        done = subprocess.run([str(CLI), *command[1:]], env=env, cwd=ROOT, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stdout + done.stderr
    project = tmp_path / "p"
    project.mkdir()
    up.clear()
    up.script("Behind the blue door.")
    done = run_claude("Where is the greenhouse key?", env=env, cwd=project, plugin_dir=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "Behind the blue door."
    (request,) = up.find("/v1/messages")
    assert "greenhouse key hangs behind the blue door" in memory_block(request.body)


def test_exchange_is_captured_once_and_recalled_in_a_new_session(claude_cli, up, amber, tmp_path):
    url, _ = amber
    env = claude_env(tmp_path / "home", up.anthropic_base, AMBER_URL=url, AMBER_KEY=KEYS["capture"])
    project = tmp_path / "work"
    project.mkdir()

    up.clear()
    up.script("A green Brompton is a fine bike for the commute.")
    first = run_claude("I ride a green Brompton folding bike to the office every day.", env=env, cwd=project)
    assert first.returncode == 0, first.stderr
    turns = captured(url, "capture")
    assert [(t["role"], t["content"]) for t in turns] == [
        ("user", "I ride a green Brompton folding bike to the office every day."),
        ("assistant", "A green Brompton is a fine bike for the commute."),
    ]
    assert {t["client"] for t in turns} == {"claude-code"}
    assert len({t["session"] for t in turns}) == 1 and turns[0]["session"]

    up.clear()
    up.script("You ride a green Brompton.")
    second = run_claude("Which folding bike do I ride?", env=env, cwd=project)
    assert second.returncode == 0, second.stderr
    assert second.stdout.strip() == "You ride a green Brompton."
    (request,) = up.find("/v1/messages")
    assert "green Brompton folding bike" in memory_block(request.body)  # the first session's words

    turns = captured(url, "capture")
    assert len(turns) == 4  # each session's exchange once: the stop and session-end hooks never double it
    assert len({t["session"] for t in turns}) == 2
    assert len({t["id"] for t in turns}) == 4


def test_the_mcp_tool_is_called_through_claude_code(claude_cli, up, amber, tmp_path):
    url, _ = amber
    saved = remember(url, "tools", "My sister Ingrid lives in Tromsø.")
    env = claude_env(tmp_path / "home", up.anthropic_base, AMBER_URL=url, AMBER_KEY=KEYS["tools"])
    project = tmp_path / "p"
    project.mkdir()

    up.clear()
    up.script_tool(TOOL, {"query": "Where does Ingrid live?"})
    up.script("Ingrid lives in Tromsø.")
    done = run_claude("Where does my sister live?", env=env, cwd=project, args=("--allowedTools", TOOL))
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "Ingrid lives in Tromsø."

    first, second = up.find("/v1/messages")
    assert TOOL in json.dumps(first.body)  # Claude Code offered the plugin's tool to the model
    calls = [b for m in second.messages if m["role"] == "assistant" for b in m["content"] if b.get("type") == "tool_use"]
    assert [c["name"] for c in calls] == [TOOL]
    results = [b for m in second.messages if m["role"] == "user" and isinstance(m["content"], list)
               for b in m["content"] if b.get("type") == "tool_result" and b["tool_use_id"] == calls[0]["id"]]
    assert len(results) == 1 and not results[0].get("is_error"), results
    content = json.dumps(results[0]["content"], ensure_ascii=False)
    assert saved["id"] in content and "Tromsø" in content  # Amber's answer, through Claude Code's MCP client


def test_remember_command_saves_through_the_tool(claude_cli, up, amber, tmp_path):
    # /amber:remember grants itself the upsert tool: no permission flag, no prompt
    url, _ = amber
    env = claude_env(tmp_path / "home", up.anthropic_base, AMBER_URL=url, AMBER_KEY=KEYS["tools"])
    project = tmp_path / "p"
    project.mkdir()
    up.clear()
    up.script_tool("mcp__plugin_amber_amber__memory_upsert", {"content": "My bike is a red Moulton."})
    up.script("Saved: your bike is a red Moulton.")
    done = run_claude("/amber:remember my bike is a red Moulton", env=env, cwd=project)
    assert done.returncode == 0, done.stderr
    assert "memory_upsert" in request_text(up.find("/v1/messages")[0].body)  # the command's instructions
    r = httpx.get(f"{url}/v1/memories", params={"text": "Moulton"}, headers={"Authorization": f"Bearer {KEYS['tools']}"})
    assert [m["content"] for m in r.json()["items"]] == ["My bike is a red Moulton."]


def _hung_port():
    """A port that accepts connections and never answers (the kernel queues them; nobody reads)."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(16)
    return sock


@pytest.mark.parametrize("fault", ["down", "wrong key", "hung"])
def test_claude_answers_normally_when_amber_fails(claude_cli, up, amber, tmp_path, fault):
    url, _ = amber
    remember(url, "down", "The boat is called Wavelet.", pinned=True)
    hung = _hung_port() if fault == "hung" else None
    try:
        target = {
            "down": ("http://127.0.0.1:9/memory", KEYS["down"]),  # nothing listens on the discard port
            "wrong key": (url, "k-not-a-key"),
            "hung": (f"http://127.0.0.1:{hung.getsockname()[1] if hung else 0}", KEYS["down"]),
        }[fault]
        env = claude_env(tmp_path / "home", up.anthropic_base, AMBER_URL=target[0], AMBER_KEY=target[1])
        project = tmp_path / "p"
        project.mkdir()
        up.clear()
        up.script("Smooth sailing.")
        started = time.monotonic()
        done = run_claude("What is my boat called?", env=env, cwd=project)
        elapsed = time.monotonic() - started
    finally:
        if hung:
            hung.close()
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "Smooth sailing."
    (request,) = up.find("/v1/messages")
    assert "<memory_context>" not in request_text(request.body) and "Wavelet" not in request_text(request.body)
    log = plugin_log(tmp_path / "home")
    moments = [line.split()[1] for line in log.splitlines()]
    assert {"session-start:", "prompt:", "stop:"} <= set(moments), log
    if fault == "wrong key":
        assert "HTTP 401" in log and "check AMBER_KEY" in log and KEYS["down"] not in log
    if fault == "hung":
        # the first hook gives up at its deadline (2.5 s); the later ones do not ask a host that just hung
        assert "no answer within 2.5 s" in log and "skipped, Amber did not answer" in log
        assert elapsed < 12, elapsed
    assert captured(url, "down") == []  # nothing reached Amber


def test_a_prompt_s_memories_reach_claude_by_handle_and_the_host_can_say_why(claude_cli, up, amber, tmp_path):
    """Provenance through the real CLI: the prompt hook's block names the memory by handle and date,
    and the host keeps the prompt's why record (claude-code:<session>:<prompt>), which /amber:why reads
    through memory_why; a health-tagged memory stays on the host (claude-code is not a host model)."""
    from core import handle_of

    url, _ = amber
    mem = remember(url, "recall", "The staging database is called Kestrel-4.")
    remember(url, "recall", "The staging database reminds me of my insulin pump schedule.", tags=["health"])
    env = claude_env(tmp_path / "home", up.anthropic_base, AMBER_URL=url, AMBER_KEY=KEYS["recall"])
    project = tmp_path / "kestrel"
    project.mkdir()
    up.clear()
    up.script("Kestrel-4.")
    done = run_claude("What is the staging database called?", env=env, cwd=project)
    assert done.returncode == 0, done.stderr
    (request,) = up.find("/v1/messages")
    block = memory_block(request.body)
    assert f'- {handle_of(mem["id"])} [{mem["created_at"][:10]}] (fact) ' in block and "called Kestrel-4." in block
    assert "insulin" not in block
    why = httpx.get(f"{url}/v1/why", params={"last": 20}, headers={"Authorization": f"Bearer {KEYS['recall']}"}).json()["requests"]
    named = [r for r in why if r["request"].startswith("claude-code:")]
    assert named and handle_of(mem["id"]) in [i["handle"] for i in named[0]["items"]]
