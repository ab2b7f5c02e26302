"""The real Claude Code CLI for the plugin tests: installed once into the repo's ignored cache, run
headless against a fake Anthropic upstream and a real Amber host, with HOME in a temp dir.

The CLI version is pinned here and in the Makefile's `claude-code` target (the same directory), so
`make test` and a plain `pytest` use the same binary.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from collections import deque
from pathlib import Path
from typing import Any

from starlette.requests import Request
from starlette.responses import Response, StreamingResponse

from tests.fakes.upstreams import FakeUpstreams, _sse_event

ROOT = Path(__file__).resolve().parents[2]
PLUGIN = ROOT / "plugins" / "claude-code"
HOOK = PLUGIN / "hooks" / "amber_hook.py"
CLI_VERSION = "2.1.328"
CLI_DIR = ROOT / ".cache" / "claude-code"
CLI = CLI_DIR / "node_modules" / ".bin" / "claude"
# one Amber user per test, so one test's memories never answer another's question
KEYS = {user: f"k-cc-{user}-5e1f{i}" for i, user in enumerate(("recall", "capture", "tools", "down"))}


def installed_version() -> str | None:
    try:
        return json.loads((CLI_DIR / "node_modules/@anthropic-ai/claude-code/package.json").read_text())["version"]
    except (OSError, ValueError, KeyError):
        return None


def ensure_cli() -> Path:
    """The pinned CLI, installed with npm into .cache/claude-code (never globally) if it is not there."""
    if CLI.exists() and installed_version() == CLI_VERSION:
        return CLI
    npm = shutil.which("npm")
    if npm is None:
        raise RuntimeError("npm is needed to install the Claude Code CLI for these tests (Node 20 or newer)")
    CLI_DIR.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(
        [npm, "install", "--prefix", str(CLI_DIR), "--no-audit", "--no-fund", "--loglevel=error",
         f"@anthropic-ai/claude-code@{CLI_VERSION}"],
        capture_output=True, text=True, timeout=900,
    )
    if done.returncode != 0 or not CLI.exists():
        raise RuntimeError(f"npm install of the Claude Code CLI failed:\n{done.stdout}\n{done.stderr}")
    (CLI_DIR / f".installed-{CLI_VERSION}").touch()  # the Makefile's stamp: `make test` need not install it again
    return CLI


def claude_env(home: Path, upstream: str, **amber: str | None) -> dict[str, str]:
    """A headless environment: HOME in a temp dir, the fake upstream, no telemetry or updates, and the
    Amber settings given (None removes one)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AMBER_", "ANTHROPIC_", "CLAUDE"))}
    env.update(
        HOME=str(home), ANTHROPIC_BASE_URL=upstream, ANTHROPIC_API_KEY="sk-fake", DISABLE_TELEMETRY="1",
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1", DISABLE_AUTOUPDATER="1",
    )
    env.update({k: v for k, v in amber.items() if v is not None})
    return env


def run_claude(prompt: str, *, env: dict[str, str], cwd: Path, args: tuple[str, ...] = (), timeout: float = 120,
               plugin_dir: bool = True):
    """`claude -p --plugin-dir plugins/claude-code <prompt>` (without the flag: the installed plugins);
    returns the finished process."""
    cmd = [str(CLI), "-p", *(("--plugin-dir", str(PLUGIN)) if plugin_dir else ()), *args, "--", prompt]
    started = time.monotonic()
    done = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)
    done.seconds = time.monotonic() - started  # type: ignore[attr-defined]
    return done


def request_text(body: dict[str, Any]) -> str:
    """Everything a request showed the model, as one string (system, messages, tool results)."""
    return json.dumps({"system": body.get("system"), "messages": body.get("messages")}, ensure_ascii=False)


def plugin_log(home: Path) -> str:
    found = list(home.glob(".claude/plugins/data/*/hook.log"))
    return "\n".join(p.read_text() for p in found)


class ToolUpstream(FakeUpstreams):
    """The fake Anthropic upstream, which can also answer with a `tool_use` block: each scripted call
    is used once, before any text answer is taken from the usual script."""

    def __init__(self, **kw: Any):
        super().__init__(**kw)
        self.tool_calls: deque[tuple[str, dict[str, Any]]] = deque()

    def script_tool(self, name: str, arguments: dict[str, Any]) -> None:
        with self._lock:
            self.tool_calls.append((name, arguments))

    async def _messages(self, request: Request) -> Response:
        with self._lock:
            call = self.tool_calls.popleft() if self.tool_calls else None
        if call is None:
            return await super()._messages(request)
        body = await request.json()
        rec = self._record(request, body)
        rec.reply = f"tool_use {call[0]}"
        name, arguments = call
        mid, model = f"msg_{len(self.requests)}", body.get("model", "claude-fake")
        usage = {"input_tokens": 10, "output_tokens": 5, "cache_read_input_tokens": 0, "cache_creation_input_tokens": 0}

        async def events():
            yield _sse_event("message_start", {"type": "message_start", "message": {
                "id": mid, "type": "message", "role": "assistant", "model": model, "content": [],
                "stop_reason": None, "stop_sequence": None, "usage": usage}})
            yield _sse_event("content_block_start", {"type": "content_block_start", "index": 0, "content_block": {
                "type": "tool_use", "id": f"toolu_{len(self.requests):04d}", "name": name, "input": {}}})
            yield _sse_event("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": {
                "type": "input_json_delta", "partial_json": json.dumps(arguments)}})
            yield _sse_event("content_block_stop", {"type": "content_block_stop", "index": 0})
            yield _sse_event("message_delta", {"type": "message_delta", "delta": {"stop_reason": "tool_use", "stop_sequence": None},
                                               "usage": {"output_tokens": 5}})
            yield _sse_event("message_stop", {"type": "message_stop"})

        return StreamingResponse(events(), media_type="text/event-stream")
