"""`amber mcp` over stdio, spawned for real: owning the store, and as a bridge to a running host."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters

from server_kit import KEYS
from core import Actor, scope_for

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


async def test_stdio_server_owns_the_store(tmp_path):
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

    # after it exits the lock is free and the data is there, for the local user
    out = subprocess.run([AMBER, "export"], env=env(tmp_path), capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "Bakes sourdough every Sunday" in out.stdout and '"user_id": "local"' in out.stdout


async def test_stdio_bridge_round_trips_to_a_running_host(host, tmp_path):
    url, service = host
    params = StdioServerParameters(command=AMBER, args=["mcp", "--url", url], env=env(tmp_path, AMBER_KEY=KEYS["bob"]))
    async with Client(params, read_timeout_seconds=60) as c:
        w = await c.call_tool("memory_upsert", {"content": "Collects vintage maps", "fact_key": "preference.hobby"})
        assert not w.is_error, w.content
        mid = w.structured_content["memory"]["id"]
        r = await c.call_tool("memory_recall", {"query": "old maps hobby"})
        assert r.structured_content["items"][0]["id"] == mid
        boot = await c.call_tool("memory_boot", {})
        assert boot.structured_content["counts"]["fact"] >= 1
        review = await c.call_tool("candidates_review", {})
        assert not review.is_error
        missing = await c.call_tool("memory_get", {"id": "m_nope"})
        assert missing.is_error and "no memory" in missing.content[0].text
        # every other tool works through the bridge too
        ok = {}
        for tool, args in [
            ("memory_search", {"query": "maps"}),
            ("memory_list", {"kind": "fact"}),
            ("memory_get", {"id": mid}),
            ("memory_pin", {"id": mid}),
            ("glossary_set", {"term": "MapCon", "definition": "the yearly map fair", "aliases": ["mc"]}),
            ("glossary_get", {"term": "mc"}),
            ("digest_set", {"text": "Bob: map collector"}),
            ("digest_get", {}),
            ("memory_ingest", {"messages": [{"role": "user", "content": "remember that I have 212 maps"}]}),
            ("memory_export", {"limit": 2}),
            ("namespaces_list", {}),
            ("memory_supersede", {"id": mid, "content": "Collects vintage sea charts"}),
            ("messages_list", {"text": "212 maps"}),
            ("memory_forget", {"what": "I have 212 maps"}),
            ("messages_delete", {"session": "no-such-conversation"}),
        ]:
            r = await c.call_tool(tool, args)
            assert not r.is_error, (tool, r.content)
            ok[tool] = r.structured_content
        assert ok["glossary_get"]["entries"][0]["title"] == "MapCon"
        assert ok["memory_ingest"]["commands"][0]["action"] == "remember"
        assert ok["memory_export"]["truncated"] is True
        assert ok["messages_list"]["total"] == 1 and ok["memory_forget"]["done"] is False and ok["memory_forget"]["messages"] == 1
        assert ok["messages_delete"] == {"deleted": 0, "ids": []}
        gone = await c.call_tool("memory_forget", {"what": "I have 212 maps", "preview": False})
        assert gone.structured_content["done"] is True and gone.structured_content["messages"] == 1
        assert (await c.call_tool("messages_list", {"text": "212 maps"})).structured_content["total"] == 0
        new = ok["memory_supersede"]["memory"]["id"]
        assert (await c.call_tool("memory_archive", {"id": new})).structured_content["status"] == "archived"
        assert (await c.call_tool("memory_delete", {"id": new})).structured_content["status"] == "deleted"
    # the write landed in the host's store, for the key's user
    assert service.get(scope_for(Actor("bob")), mid).content == "Collects vintage maps"
    assert service.digest_get(scope_for(Actor("bob"))).content == "Bob: map collector"
    assert not (tmp_path / "data").exists()  # the bridge opened no store of its own


async def test_bridge_with_a_dead_host_answers_with_a_tool_error(tmp_path):
    params = StdioServerParameters(command=AMBER, args=["mcp", "--url", "http://127.0.0.1:9", "--key", "k"], env=env(tmp_path))
    async with Client(params, read_timeout_seconds=60) as c:
        r = await c.call_tool("memory_recall", {"query": "anything"})
        assert r.is_error and "unavailable" in r.content[0].text
