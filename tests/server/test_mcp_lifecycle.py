"""`amber mcp --url … --key …` ends with its client. Driven as a subprocess with pipes, the way Claude
Desktop, the MCP Inspector and mcp-remote start it: the bridge exits within 2 s of stdin's end, and
within 2 s of its parent dying while the pipe stays open (a grandchild holding it), with a good key,
a refused key and the host gone. An MCP client that exits must never leave an orphaned bridge."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import pytest

from tests.kit.servers import free_port, stop_process, wait_answering

pytestmark = pytest.mark.e2e

AMBER = str(Path(sys.executable).with_name("amber"))
GOOD, READ_ONLY = "k-life-alice-4c1d", "k-life-ro-9b02"
EXIT_S = 2.0  # the promise to clients: gone within 2 s of the client

CONFIG = f"""
amber:
  api_keys:
    - name: alice
      secret: {GOOD}
      user: alice
      scopes: [memory:read, memory:write]
    - name: alice-ro
      secret: {READ_ONLY}
      user: alice
      scopes: [memory:read]
"""


def env(tmp_path: Path, **extra: str) -> dict[str, str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith("AMBER_")}
    tmp_path.mkdir(parents=True, exist_ok=True)
    (tmp_path / "keys.yaml").write_text(CONFIG)
    return {**base, "AMBER_CONFIG": str(tmp_path / "keys.yaml"), "AMBER_DATA_DIR": str(tmp_path / "data"),
            "AMBER_EMBEDDING_MODEL": "hash", "LITELLM_LOCAL_MODEL_COST_MAP": "True", "OMP_WAIT_POLICY": "PASSIVE", **extra}


@contextmanager
def amber_serve(tmp_path: Path) -> Iterator[tuple[str, subprocess.Popen]]:
    port = free_port()
    proc = subprocess.Popen([AMBER, "serve", "--port", str(port), "--no-jobs"], env=env(tmp_path),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_answering(f"http://127.0.0.1:{port}/health", proc, what="amber serve", timeout=90)
        yield f"http://127.0.0.1:{port}", proc
    finally:
        stop_process(proc, timeout=30)


@pytest.fixture(scope="module")
def host(tmp_path_factory):
    with amber_serve(tmp_path_factory.mktemp("life-host")) as (url, _):
        yield url


INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "pipe-test", "version": "1"}}}


def send(proc: subprocess.Popen, msg: dict) -> None:
    proc.stdin.write((json.dumps(msg) + "\n").encode())
    proc.stdin.flush()


def handshake(proc: subprocess.Popen) -> dict:
    """The client's initialize and the answer the bridge gives it (an error for a refused key)."""
    send(proc, INIT)
    answer = json.loads(proc.stdout.readline())
    if "result" in answer:
        send(proc, {"jsonrpc": "2.0", "method": "notifications/initialized"})
    return answer


def bridge(tmp_path: Path, url: str, key: str) -> subprocess.Popen:
    return subprocess.Popen([AMBER, "mcp", "--url", url, "--key", key], env=env(tmp_path),
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def seconds_to_exit(proc: subprocess.Popen | int, limit: float = 20.0) -> float:
    """How long `proc` (a Popen, or the pid of a process that is not our child) took to exit from now."""
    started = time.monotonic()
    while time.monotonic() - started < limit:
        if isinstance(proc, subprocess.Popen):
            if proc.poll() is not None:
                return time.monotonic() - started
        elif not alive(proc):
            return time.monotonic() - started
        time.sleep(0.02)
    return float("inf")


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"  # a zombie has exited
    except FileNotFoundError:
        return False


def case_answer(case: str, answer: dict) -> None:
    if case == "good key":
        assert answer["result"]["serverInfo"]["name"] == "amber", answer
    else:
        assert "does not know this key" in answer["error"]["message"], answer


@pytest.mark.parametrize("case", ["good key", "refused key"])
def test_stdin_closed_ends_the_bridge(host, tmp_path, case):
    proc = bridge(tmp_path, host, GOOD if case == "good key" else "k-nobody")
    try:
        case_answer(case, handshake(proc))
        proc.stdin.close()
        took = seconds_to_exit(proc)
        assert took < EXIT_S, f"{case}: still running {took:.1f}s after stdin closed"
        assert proc.returncode == 0
        assert "Traceback" not in proc.stderr.read().decode()
    finally:
        if proc.poll() is None:
            proc.kill()


def test_stdin_closed_ends_the_bridge_with_the_host_gone(tmp_path):
    with amber_serve(tmp_path / "gone") as (url, server):
        proc = bridge(tmp_path, url, GOOD)
        try:
            case_answer("good key", handshake(proc))
            server.kill()
            server.wait(timeout=30)
            send(proc, {"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
            lost = json.loads(proc.stdout.readline())
            assert f"no answer from Amber at {url}/mcp" in lost["error"]["message"], lost
            proc.stdin.close()
            took = seconds_to_exit(proc)
            assert took < EXIT_S, f"still running {took:.1f}s after stdin closed, host gone"
            assert "Traceback" not in proc.stderr.read().decode()
        finally:
            if proc.poll() is None:
                proc.kill()


# A parent that starts the bridge on a pipe the test also holds (so its death closes nothing), says the
# bridge's pid and what the handshake answered, then waits to be killed.
PARENT = """
import json, os, subprocess, sys
read_fd = int(sys.argv[1])
proc = subprocess.Popen(sys.argv[2:], stdin=read_fd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, pass_fds=(read_fd,))
print(proc.pid, flush=True)
print(proc.stdout.readline().decode().strip(), flush=True)
sys.stdin.read()
"""


@pytest.mark.parametrize("case", ["good key", "refused key", "host gone"])
def test_the_parent_dying_ends_the_bridge_though_its_stdin_stays_open(host, tmp_path, case):
    with amber_serve(tmp_path / "gone") if case == "host gone" else _nothing(host) as (url, server):
        read_fd, write_fd = os.pipe()
        key = "k-nobody" if case == "refused key" else GOOD
        parent = subprocess.Popen([sys.executable, "-c", PARENT, str(read_fd), AMBER, "mcp", "--url", url, "--key", key],
                                  env=env(tmp_path), stdin=subprocess.PIPE, stdout=subprocess.PIPE, pass_fds=(read_fd,))
        os.close(read_fd)
        pid = None
        try:
            os.write(write_fd, (json.dumps(INIT) + "\n").encode())
            pid = int(parent.stdout.readline())
            case_answer("refused key" if case == "refused key" else "good key", json.loads(parent.stdout.readline()))
            if server is not None:
                server.kill()
                server.wait(timeout=30)
            parent.kill()
            parent.wait(timeout=10)
            took = seconds_to_exit(pid)
            assert took < EXIT_S, f"{case}: the bridge outlived its parent by {took:.1f}s"
        finally:
            os.close(write_fd)
            if pid is not None and alive(pid):
                os.kill(pid, signal.SIGKILL)
            if parent.poll() is None:
                parent.kill()


@contextmanager
def _nothing(url: str) -> Iterator[tuple[str, None]]:
    yield url, None
