"""`amber mcp` over stdio, spawned for real, owning the store (the bridge to a running host, `amber mcp --url`,
is tested in test_stdio_bridge.py)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import anyio
import pytest
from mcp import Client, StdioServerParameters

from mcp_server.cli import main

pytestmark = pytest.mark.e2e

AMBER = str(Path(sys.executable).with_name("amber"))


def env(tmp_path: Path, **extra: str) -> dict[str, str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith("AMBER_")}
    return {
        **base,
        "AMBER_CONFIG": str(tmp_path / "none.yaml"),
        "AMBER_DATA_DIR": str(tmp_path / "data"),
        "AMBER_EMBEDDING_MODEL": "hash",
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
        "OMP_WAIT_POLICY": "PASSIVE",
        **extra,
    }


async def test_stdio_server_owns_the_store(tmp_path, capsys, monkeypatch):
    params = StdioServerParameters(command=AMBER, args=["mcp"], env=env(tmp_path))
    async with Client(params, read_timeout_seconds=60) as c:
        tools = {t.name for t in (await c.list_tools()).tools}
        assert {"memory_recall", "memory_upsert", "memory_boot"} <= tools
        w = await c.call_tool("memory_upsert", {"content": "Bakes sourdough every Sunday", "fact_key": "project.baking"})
        assert not w.is_error and w.structured_content["action"] == "created"
        r = await c.call_tool("memory_recall", {"query": "sourdough bread"})
        assert "sourdough" in r.structured_content["text"]

        # while it holds the store, a second process is told how to connect instead
        second = subprocess.run([AMBER, "export"], env=env(tmp_path), capture_output=True, text=True, timeout=120)
        assert second.returncode == 2
        assert "held by process" in second.stderr and "amber mcp --url" in second.stderr

    # after it exits the lock is free and the data is there, for the local user (`amber export` in this process)
    for name in ("AMBER_CONFIG", "AMBER_DATA_DIR", "AMBER_EMBEDDING_MODEL"):
        monkeypatch.setenv(name, env(tmp_path)[name])
    capsys.readouterr()
    code = await anyio.to_thread.run_sync(main, ["export"])  # main() runs its own event loop
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "Bakes sourdough every Sunday" in out and '"user_id": "local"' in out
