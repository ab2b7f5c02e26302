"""`amber mcp --url URL`, spawned for real under a real MCP client on stdio: a transport bridge to the
host's own MCP endpoint. What the client sees is what the host serves (tools, results, errors); what
can go wrong on the way (nothing answering, a wrong key, a host killed mid-session) is said clearly
and never leaves a request waiting."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path

import anyio
import httpx2
import pytest
from mcp import Client, MCPError, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

from server_kit import KEYS
from core import Actor, scope_for
from tests.kit.servers import free_port, stop_process, wait_answering

pytestmark = pytest.mark.e2e

AMBER = str(Path(sys.executable).with_name("amber"))


def env(tmp_path: Path, **extra: str) -> dict[str, str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith("AMBER_")}
    return {**base, "AMBER_CONFIG": str(tmp_path / "none.yaml"), "AMBER_DATA_DIR": str(tmp_path / "data"),
            "AMBER_EMBEDDING_MODEL": "hash", "LITELLM_LOCAL_MODEL_COST_MAP": "True", "OMP_WAIT_POLICY": "PASSIVE", **extra}


@asynccontextmanager
async def bridged(tmp_path: Path, *args: str, mode: str = "legacy", **extra: str):
    """An MCP client on the stdio of `amber mcp ARGS`; yields (client, the bridge's stderr file).
    mode "legacy" is the initialize handshake most stdio clients make; "auto" the SDK's 2026 default."""
    errlog = tmp_path / f"bridge-{time.monotonic_ns()}.err"
    with errlog.open("w") as err:
        params = StdioServerParameters(command=AMBER, args=["mcp", *args], env=env(tmp_path, **extra))
        async with Client(stdio_client(params, errlog=err), mode=mode, read_timeout_seconds=60) as c:
            yield c, errlog


@asynccontextmanager
async def direct(url: str, key: str, mode: str):
    """The same host over Streamable HTTP, as an HTTP MCP client sees it."""
    async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {key}"}, timeout=30) as http:
        async with Client(streamable_http_client(f"{url}/mcp", http_client=http), mode=mode) as c:
            yield c


def dump(result) -> dict:
    return result.model_dump(exclude={"meta"})


async def test_the_client_gets_the_hosts_own_mcp(host, tmp_path):
    url, service = host
    # the handshake (Claude Desktop and most stdio clients) and the SDK's per-request 2026 envelope, given
    # the memory base URL or the /mcp endpoint itself
    for mode, where in [("legacy", url), ("auto", f"{url}/mcp/")]:
        async with direct(url, KEYS["bob"], mode) as http:
            tools = dump(await http.list_tools())
            missing = dump(await http.call_tool("memory_get", {"id": "m_nope"}))
            with pytest.raises(MCPError) as unknown:
                await http.call_tool("no_such_tool", {})
            version, caps = http.protocol_version, http.server_capabilities
        assert len(tools["tools"]) > 10 and missing["is_error"] and unknown.value.error.code == -32602
        async with bridged(tmp_path, "--url", where, mode=mode, AMBER_KEY=KEYS["bob"]) as (c, _):
            assert (c.protocol_version, c.server_capabilities) == (version, caps), mode
            assert dump(await c.list_tools()) == tools, mode
            w = await c.call_tool("memory_upsert", {"content": f"Collects vintage maps ({mode})", "fact_key": f"preference.hobby.{mode}"})
            assert not w.is_error, w.content
            mid = w.structured_content["memory"]["id"]
            r = await c.call_tool("memory_recall", {"query": f"old maps hobby {mode}"})
            assert r.structured_content["items"][0]["id"] == mid, mode
            # the host's errors arrive as the host gave them
            assert dump(await c.call_tool("memory_get", {"id": "m_nope"})) == missing, mode
            with pytest.raises(MCPError) as bridged_unknown:
                await c.call_tool("no_such_tool", {})
            assert bridged_unknown.value.error == unknown.value.error, mode
        # written in the host's store, for the key's user; the bridge opened no store of its own
        assert service.get(scope_for(Actor("bob")), mid).content == f"Collects vintage maps ({mode})"
    assert not (tmp_path / "data").exists()


@pytest.mark.parametrize("key, words", [
    ("k-nobody", "refuses the request (unknown API key): the host does not know this key"),
    (None, "refuses the request (send an API key"),
])
async def test_a_wrong_or_missing_key_fails_the_initialize_clearly(host, tmp_path, key, words):
    url, _ = host
    args = ["--url", url] + (["--key", key] if key else [])
    with pytest.raises(BaseException) as failed:
        with anyio.fail_after(60):
            async with bridged(tmp_path, *args):
                pass
    errors = [e for e in leaves(failed.value) if isinstance(e, MCPError)]
    assert len(errors) == 1 and words in str(errors[0]) and url in str(errors[0]), failed.value
    assert "pass --key or set AMBER_KEY" in str(errors[0]) or key
    stderr = next(tmp_path.glob("bridge-*.err")).read_text()
    assert stderr.count(words) == 1 and "Traceback" not in stderr, stderr


def leaves(e: BaseException) -> list[BaseException]:
    return [x for sub in e.exceptions for x in leaves(sub)] if isinstance(e, BaseExceptionGroup) else [e]


def test_nothing_answering_at_start_is_one_line_and_exit_1(host, tmp_path):
    nobody = f"http://127.0.0.1:{free_port()}"
    url, _ = host
    for args, code, words in [
        (["--url", nobody, "--key", "k"], 1, f"amber mcp: nothing answers at {nobody} (ConnectError); start Amber"),
        (["--url", f"{url}/v1", "--key", KEYS["alice"]], 2, f"amber mcp: {url}/v1 is not an Amber memory host"),
    ]:
        r = subprocess.run([AMBER, "mcp", *args], env=env(tmp_path), capture_output=True, text=True, timeout=120, input="")
        assert r.returncode == code and r.stderr.startswith(words) and r.stderr.count("\n") == 1, (args, r.stderr)
        assert r.stdout == ""


@contextmanager
def amber_serve(tmp_path: Path, port: int):
    """`amber serve` as its own process (so it can be killed for real), in local mode on `port`."""
    proc = subprocess.Popen([AMBER, "serve", "--port", str(port), "--no-jobs"], env=env(tmp_path, AMBER_DATA_DIR=str(tmp_path / "host")),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_answering(f"http://127.0.0.1:{port}/health", proc, what="amber serve", timeout=90)
        yield proc
    finally:
        stop_process(proc, timeout=30)


async def test_a_host_killed_mid_session_answers_with_an_error_and_the_session_resumes_when_it_is_back(tmp_path):
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    with amber_serve(tmp_path, port) as first:
        async with bridged(tmp_path, "--url", url) as (c, errlog):
            w = await c.call_tool("memory_upsert", {"content": "Keeps bees on the roof", "fact_key": "preference.bees"})
            assert not w.is_error, w.content
            # a request the host has taken and not answered when it is killed gets an error, not a hang
            first.send_signal(signal.SIGSTOP)

            async def kill_soon() -> None:
                await anyio.sleep(1.5)
                first.send_signal(signal.SIGKILL)

            with anyio.fail_after(30):
                async with anyio.create_task_group() as tg:
                    tg.start_soon(kill_soon)
                    with pytest.raises(MCPError) as lost:
                        await c.call_tool("memory_recall", {"query": "bees"})
            assert f"no answer from Amber at {url}/mcp (" in str(lost.value)
            first.wait(timeout=30)
            # and so does each request while it is down, at once
            with anyio.fail_after(10), pytest.raises(MCPError) as down:
                await c.call_tool("memory_recall", {"query": "bees"})
            assert f"no answer from Amber at {url}/mcp (ConnectError); start it" in str(down.value)
            said = errlog.read_text()
            assert said.count("stopped answering") == 1 and "Traceback" not in said, said

            # back (a new process: it knows no session): the same client carries on, on a new session
            with amber_serve(tmp_path, port):
                with anyio.fail_after(60):
                    r = await c.call_tool("memory_recall", {"query": "bees on the roof"})
                assert not r.is_error and r.structured_content["items"][0]["id"] == w.structured_content["memory"]["id"]
                said = errlog.read_text()
                assert "answers again" in said and "had forgotten this session" in said and "Traceback" not in said, said
