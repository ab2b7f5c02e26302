"""The client snippets in plugins/ work as shown: each HTTP config connects a real MCP client to a
host serving Amber at /memory (URL and key substituted), and the Claude Desktop stdio bridge runs."""

from __future__ import annotations

import json
import re
import shlex
import sys
import tomllib
from pathlib import Path

import httpx2
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from core import build_service
from mcp_server.app import create_app
from server_kit import KEYS, host_app, make_settings, serve

pytestmark = pytest.mark.e2e

PLUGINS = Path(__file__).resolve().parents[2] / "plugins"
SHOWN = "http://127.0.0.1:4000/memory"
AMBER = str(Path(sys.executable).with_name("amber"))


@pytest.fixture
def proxy_like(tmp_path):
    """Amber mounted at /memory on a host app, like inside the LiteLLM proxy."""
    settings = make_settings(tmp_path / "data")
    service = build_service(settings)
    sub = create_app(service, settings)

    app = host_app(sub)
    app.mount("/memory", sub)
    with serve(app) as url:
        yield url + "/memory"
    service.close()


def expand(value: str, key: str) -> str:
    # each app's own variable syntax: ${AMBER_KEY}, ${env:AMBER_KEY}, ${input:amber-key}
    return re.sub(r"\$\{(?:env:)?AMBER_KEY\}|\$\{input:amber-key\}|\$AMBER_KEY", key, value)


def http_configs() -> dict[str, tuple[str, dict[str, str]]]:
    cc = json.loads((PLUGINS / "claude-code/.mcp.json").read_text())["mcpServers"]["amber"]
    cursor = json.loads((PLUGINS / "cursor/mcp.json").read_text())["mcpServers"]["amber"]
    vscode = json.loads((PLUGINS / "vscode/mcp.json").read_text())["servers"]["amber"]
    codex = tomllib.loads((PLUGINS / "codex/config.toml").read_text())["mcp_servers"]["amber"]
    assert cc["type"] == "http" and vscode["type"] == "http"
    readme = (PLUGINS / "README.md").read_text()
    cmd = shlex.split(re.search(r"`(claude mcp add [^`]+)`", readme).group(1))
    assert cmd[:6] == ["claude", "mcp", "add", "--transport", "http", "amber"]
    header_name, header_value = cmd[cmd.index("--header") + 1].split(": ", 1)
    return {
        "claude-code-cli": (cmd[6], {header_name: header_value}),
        # the plugin reads AMBER_URL and falls back to the proxy's address
        "claude-code-json": (re.sub(r"\$\{AMBER_URL:-([^}]*)\}", r"\1", cc["url"]), cc["headers"]),
        "cursor": (cursor["url"], cursor["headers"]),
        "vscode": (vscode["url"], vscode["headers"]),
        "codex": (codex["url"], {"Authorization": "Bearer ${AMBER_KEY}"} if codex["bearer_token_env_var"] == "AMBER_KEY" else {}),
    }


async def test_http_snippets_connect(proxy_like):
    configs = http_configs()
    assert set(configs) == {"claude-code-cli", "claude-code-json", "cursor", "vscode", "codex"}
    for name, (url, headers) in configs.items():
        assert url == f"{SHOWN}/mcp", name
        real = {k: expand(v, KEYS["alice"]) for k, v in headers.items()}
        async with httpx2.AsyncClient(headers=real, timeout=30) as http:
            async with Client(streamable_http_client(url.replace(SHOWN, proxy_like), http_client=http)) as c:
                r = await c.call_tool("memory_upsert", {"content": f"Configured through {name}"})
                assert not r.is_error, (name, r.content)


async def test_claude_desktop_stdio_bridge_snippet(proxy_like, tmp_path):
    cfg = json.loads((PLUGINS / "claude-desktop/claude_desktop_config.json").read_text())["mcpServers"]["amber"]
    assert cfg["command"].endswith("/amber") and cfg["args"][:2] == ["mcp", "--url"] and cfg["args"][2] == SHOWN
    args = [a.replace(SHOWN, proxy_like) for a in cfg["args"]]
    env = {"AMBER_KEY": KEYS["bob"], "AMBER_CONFIG": str(tmp_path / "none.yaml"), "PATH": "/usr/bin:/bin"}
    async with Client(StdioServerParameters(command=AMBER, args=args, env=env), read_timeout_seconds=60) as c:
        r = await c.call_tool("memory_upsert", {"content": "Configured through Claude Desktop"})
        assert not r.is_error and r.structured_content["action"] == "created"
    remote = json.loads((PLUGINS / "claude-desktop/claude_desktop_config.mcp-remote.json").read_text())["mcpServers"]["amber"]
    assert remote["command"] == "npx" and f"{SHOWN}/mcp" in remote["args"]
    assert remote["env"]["AMBER_AUTH"].startswith("Bearer ") and "Authorization:${AMBER_AUTH}" in remote["args"]
