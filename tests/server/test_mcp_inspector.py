"""Amber under a client nobody here wrote: the MCP Inspector CLI (npm, pinned; `make mcp-inspector`
installs it into .cache), over Streamable HTTP and over stdio through `amber mcp --url`, against a
real `amber serve`, and through `mcp-remote` (the stdio proxy stdio-only apps use). Each case asserts what the person sees: the tools listed (the Inspector's
`--strict` portability check finds nothing), a write, a read, a wrong key, an unknown tool, a failing
call, the resources and prompts; and no bridge is left running after the Inspector exits."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from test_mcp_errors import READS, WRITES
from test_mcp_lifecycle import AMBER, GOOD, READ_ONLY, amber_serve, env

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
VERSION = "2.12.0"  # the Makefile's MCP_INSPECTOR_VERSION
INSPECTOR_DIR = ROOT / ".cache" / "mcp-inspector"
INSPECTOR = INSPECTOR_DIR / "node_modules" / ".bin" / "mcp-inspector"
REMOTE_VERSION = "0.15.1"  # the Makefile's MCP_REMOTE_VERSION
REMOTE = INSPECTOR_DIR / "node_modules" / ".bin" / "mcp-remote"


def ensure_inspector() -> Path:
    """The pinned Inspector, installed with npm into .cache/mcp-inspector (never globally) if it is not there."""
    def installed(package: str) -> str | None:
        try:
            return json.loads((INSPECTOR_DIR / "node_modules" / package / "package.json").read_text())["version"]
        except (OSError, ValueError, KeyError):
            return None

    if installed("@modelcontextprotocol/inspector") == VERSION and installed("mcp-remote") == REMOTE_VERSION:
        return INSPECTOR
    npm = shutil.which("npm")
    if npm is None:
        raise RuntimeError("npm is needed to install the MCP Inspector for these tests (`make mcp-inspector`)")
    INSPECTOR_DIR.mkdir(parents=True, exist_ok=True)
    done = subprocess.run([npm, "install", "--prefix", str(INSPECTOR_DIR), "--no-audit", "--no-fund", "--loglevel=error",
                           f"@modelcontextprotocol/inspector@{VERSION}", f"mcp-remote@{REMOTE_VERSION}"],
                          capture_output=True, text=True, timeout=900)
    if done.returncode != 0 or not INSPECTOR.exists() or not REMOTE.exists():
        raise RuntimeError(f"npm install of the MCP Inspector failed:\n{done.stdout}\n{done.stderr}")
    (INSPECTOR_DIR / f".installed-{VERSION}-{REMOTE_VERSION}").touch()  # the Makefile's stamp
    return INSPECTOR


def test_the_makefile_pins_the_same_inspector():
    made = (ROOT / "Makefile").read_text()
    assert f"MCP_INSPECTOR_VERSION := {VERSION}" in made and f"MCP_REMOTE_VERSION := {REMOTE_VERSION}" in made


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    ensure_inspector()
    tmp = tmp_path_factory.mktemp("inspector-host")
    with amber_serve(tmp) as (url, _):
        yield url, tmp


class Seen:
    """One Inspector run: its exit code, the result it printed, the error it printed."""

    def __init__(self, done: subprocess.CompletedProcess):
        self.code, self.out, self.err = done.returncode, done.stdout, done.stderr
        self.result = self._json(done.stdout).get("result")
        self.error = (self._json(done.stderr) or self._json(done.stdout)).get("error")

    @staticmethod
    def _json(text: str) -> dict:
        for line in reversed(text.strip().splitlines()):
            try:
                value = json.loads(line)
            except ValueError:
                continue
            if isinstance(value, dict):
                return value
        return {}

    def __repr__(self) -> str:
        return f"exit {self.code}\nstdout: {self.out[-2000:]}\nstderr: {self.err[-2000:]}"


def inspect(tmp: Path, target: list[str], *args: str, quiet: bool = True) -> Seen:
    home = tmp / "home"
    home.mkdir(exist_ok=True)
    run_env = {**os.environ, "HOME": str(home), "MCP_INSPECTOR_SECRET_STORE": "memory"}
    # a bridge starts Python first: on a busy machine that can take longer than the Inspector's 15 s default
    # (options after `args`: a variadic one such as --tool-arg would take a URL target for one of its pairs)
    done = subprocess.run([str(INSPECTOR), "--cli", *(["-q"] if quiet else []), *args, "--format", "json", "--connect-timeout", "90000",
                           *target], env=run_env, capture_output=True, text=True, timeout=180, stdin=subprocess.DEVNULL)
    return Seen(done)


def http(url: str, key: str | None) -> list[str]:
    return [f"{url}/mcp", "--stored-auth-only"] + (["--header", f"Authorization: Bearer {key}"] if key else [])


def stdio(url: str, key: str, tmp: Path) -> list[str]:
    # the bridge's environment as an MCP client would give it: no store of its own
    return ["-e", f"AMBER_CONFIG={tmp / 'none.yaml'}", "-e", f"PATH={os.environ['PATH']}", "--", AMBER, "mcp", "--url", url, "--key", key]


def remote(url: str, key: str, tmp: Path) -> list[str]:
    # the README's mcp-remote config: the key in AMBER_AUTH, the header from it
    return ["-e", f"AMBER_AUTH=Bearer {key}", "-e", f"HOME={tmp / 'home'}", "-e", f"PATH={os.environ['PATH']}",
            "--", str(REMOTE), f"{url}/mcp", "--header", "Authorization:${AMBER_AUTH}"]


def text(seen: Seen) -> str:
    return "\n".join(c.get("text", "") for c in seen.result["content"])


@pytest.mark.parametrize("transport", ["http", "stdio", "mcp-remote"])
def test_what_a_person_sees_in_the_inspector(served, transport):
    url, tmp = served
    target = {"http": lambda key: http(url, key), "stdio": lambda key: stdio(url, key, tmp),
              "mcp-remote": lambda key: remote(url, key, tmp)}[transport]

    listed = inspect(tmp, target(GOOD), "--method", "tools/list", "--strict")
    assert listed.code == 0, listed
    assert {t["name"] for t in listed.result["tools"]} == READS | WRITES
    assert all(t.get("title") and t.get("annotations") and t.get("outputSchema") for t in listed.result["tools"])
    narrow = inspect(tmp, target(READ_ONLY), "--method", "tools/list")
    assert narrow.code == 0 and {t["name"] for t in narrow.result["tools"]} == READS, narrow

    fact = f"Restores old typewriters ({transport})"
    wrote = inspect(tmp, target(GOOD), "--method", "tools/call", "--tool-name", "memory_upsert",
                    "--tool-args-json", json.dumps({"content": fact, "fact_key": f"preference.hobby_{transport.replace('-', '_')}"}))
    assert wrote.code == 0 and wrote.result["structuredContent"]["action"] == "created", wrote
    read = inspect(tmp, target(GOOD), "--method", "tools/call", "--tool-name", "memory_recall",
                   "--tool-args-json", json.dumps({"query": f"typewriters {transport}"}))
    assert read.code == 0 and fact in read.result["structuredContent"]["text"], read

    failed = inspect(tmp, target(GOOD), "--method", "tools/call", "--tool-name", "memory_get", "--tool-arg", "id=m_nope")
    assert failed.result and failed.result["isError"] is True, failed
    assert text(failed) == "memory_get: no memory 'm_nope' for this user; find the id again with memory_search or memory_list"
    assert "structuredContent" not in failed.result and "must have required property" not in failed.out + failed.err, failed

    unknown = inspect(tmp, target(GOOD), "--method", "tools/call", "--tool-name", "memory_telepathy")
    assert unknown.code != 0 and "memory_telepathy" in unknown.error["message"], unknown

    refused = inspect(tmp, target("k-nobody"), "--method", "tools/list", quiet=transport != "mcp-remote")
    assert refused.code != 0 and refused.result is None, refused
    if transport == "http":
        assert "Amber does not know this API key: use a key listed under api_keys" in refused.error["message"], refused
    elif transport == "stdio":
        assert "refuses the request (unknown API key): the host does not know this key" in refused.error["message"], refused
    else:  # mcp-remote takes the 401 for OAuth, finds none, and its log (the app's MCP log) says why
        assert "Dynamic Client Registration rejected (HTTP 404)" in refused.err, refused
        assert "Amber has no OAuth server: send its API key" in refused.err and "The key sent is not one this host knows" in refused.err, refused

    digest = inspect(tmp, target(GOOD), "--method", "resources/read", "--uri", "amber://digest")
    assert digest.code == 0 and "Amber has no digest for you yet" in digest.result["contents"][0]["text"], digest
    prompts = inspect(tmp, target(READ_ONLY), "--method", "prompts/list")
    assert prompts.code == 0 and [p["name"] for p in prompts.result["prompts"]] == ["recall"], prompts
    recalled = inspect(tmp, target(GOOD), "--method", "prompts/get", "--prompt-name", "recall", "--prompt-args", f"topic=typewriters {transport}")
    assert recalled.code == 0 and fact in recalled.result["messages"][0]["content"]["text"], recalled

    # every Inspector run ended its bridge: no `amber mcp` for this host is left behind
    assert not bridges_for(url), bridges_for(url)


def test_a_missing_key_over_http_says_to_send_one(served):
    url, tmp = served
    seen = inspect(tmp, http(url, None), "--method", "tools/list")
    assert seen.code != 0 and "Amber needs an API key: send 'Authorization: Bearer <key>'" in seen.error["message"], seen


def bridges_for(url: str) -> list[str]:
    found = []
    for proc in Path("/proc").iterdir():
        try:
            cmd = (proc / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        words = [w.decode(errors="replace") for w in cmd if w]
        bridge = "mcp" in words and url in words and any(w.endswith("amber") for w in words[:2])
        if bridge or any(w.endswith("mcp-remote") for w in words[:3]) and f"{url}/mcp" in words:
            found.append(" ".join(words))
    return found
