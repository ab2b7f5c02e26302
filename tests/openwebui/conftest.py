"""Fixtures for the Open WebUI filter: Open WebUI's own venv (installed on first use), a real Amber
host on 127.0.0.1, the filter loaded by Open WebUI's loader, and a real Open WebUI server.

Open WebUI pins versions that clash with Amber's .venv, so it lives in .venv-owui (see
install_owui.sh); tests here run in .venv and talk to Open WebUI's side through subprocesses.
"""

from __future__ import annotations

import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
FILTER = ROOT / "openwebui_functions" / "amber_memory_filter.py"
AMBER = Path(sys.executable).with_name("amber")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Proc:
    """A child process with its output in a log file, stopped (process group and all) at the end."""

    def __init__(self, name: str, argv: list[str], env: dict[str, str], log_dir: Path, cwd: Path | None = None):
        self.name = name
        self.log_path = log_dir / f"{name}.log"
        self._log = open(self.log_path, "wb")
        self.p = subprocess.Popen(argv, env=env, cwd=cwd, stdout=self._log, stderr=subprocess.STDOUT, start_new_session=True)

    def log_tail(self, n: int = 60) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-n:])
        except OSError:
            return ""

    def wait_http(self, url: str, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.p.poll() is not None:
                raise RuntimeError(f"{self.name} exited with {self.p.returncode}:\n{self.log_tail()}")
            try:
                if httpx.get(url, timeout=2).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.25)
        raise RuntimeError(f"{self.name} not healthy at {url} after {timeout}s:\n{self.log_tail()}")

    def stop(self) -> None:
        if self.p.poll() is None:
            os.killpg(self.p.pid, signal.SIGTERM)
            try:
                self.p.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(self.p.pid, signal.SIGKILL)
                self.p.wait(timeout=5)
        self._log.close()


# ---- Open WebUI's venv ---------------------------------------------------------------------------


@pytest.fixture(scope="session")
def owui_python() -> Path:
    """Python of .venv-owui; installs Open WebUI (no torch) on first use, ~3 min from a cold cache."""
    r = subprocess.run(["bash", str(HERE / "install_owui.sh")], capture_output=True, text=True, timeout=1200)
    if r.returncode != 0:
        pytest.fail(f"installing Open WebUI failed ({r.returncode}):\n{r.stderr[-4000:]}")
    return Path(r.stdout.strip().splitlines()[-1])


# ---- Amber host -----------------------------------------------------------------------------------


class AmberHost:
    def __init__(self, url: str, key: str, proc: Proc):
        self.url = url
        self.key = key
        self.proc = proc

    def headers(self, user: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.key}", "X-Amber-User": user}

    def recall(self, user: str, query: str, **extra: Any) -> dict:
        r = httpx.post(f"{self.url}/v1/recall", json={"query": query, **extra}, headers=self.headers(user), timeout=30)
        r.raise_for_status()
        return r.json()

    def ingest(self, user: str, messages: list[dict]) -> dict:
        r = httpx.post(f"{self.url}/v1/messages", json={"messages": messages, "commands": True}, headers=self.headers(user), timeout=30)
        r.raise_for_status()
        return r.json()


@pytest.fixture(scope="session")
def amber_host(tmp_path_factory) -> AmberHost:
    """`amber serve` on a free 127.0.0.1 port, fresh data dir, one trusted-client key for Open WebUI."""
    tmp = tmp_path_factory.mktemp("amber-host")
    port, key = free_port(), "owui-" + secrets.token_hex(16)
    env = {
        **os.environ,
        "AMBER_DATA_DIR": str(tmp / "data"),
        "AMBER_HOST": "127.0.0.1",
        "AMBER_PORT": str(port),
        "AMBER_CONFIG": str(tmp / "no-config.yaml"),  # the repo's config.yaml is not this host's
        "AMBER_JOBS_ENABLED": "false",
        "AMBER_API_KEYS": json.dumps(
            [{"name": "open-webui", "secret": key, "trusted_client": True, "scopes": ["memory:read", "memory:write"]}]
        ),
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
        "OMP_WAIT_POLICY": "PASSIVE",
    }
    proc = Proc("amber", [str(AMBER), "serve"], env, tmp, cwd=tmp)
    try:
        proc.wait_http(f"http://127.0.0.1:{port}/health", timeout=90)
    except Exception:
        proc.stop()
        raise
    yield AmberHost(f"http://127.0.0.1:{port}", key, proc)
    proc.stop()


# ---- the filter, loaded by Open WebUI's loader ----------------------------------------------------


class Driver:
    """Talks to owui_driver.py, which runs in .venv-owui and holds one loaded Filter instance."""

    def __init__(self, python: Path, log_dir: Path):
        self._err = open(log_dir / "driver.log", "wb")
        env = {**os.environ, "DATA_DIR": str(log_dir / "owui-data"), "WEBUI_SECRET_KEY": "driver", "OFFLINE_MODE": "true"}
        self.p = subprocess.Popen(
            [str(python), str(HERE / "owui_driver.py"), str(FILTER)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._err, env=env, cwd=log_dir, text=True,
        )
        self.log_path = log_dir / "driver.log"
        self.hello = self._read()

    def _read(self) -> dict:
        line = self.p.stdout.readline()
        if not line:
            raise RuntimeError("driver exited:\n" + self.log_path.read_text(errors="replace")[-4000:])
        out = json.loads(line)
        if "driver_error" in out:
            raise RuntimeError(out["driver_error"])
        return out

    def request(self, req: dict) -> dict:
        self.p.stdin.write(json.dumps(req) + "\n")
        self.p.stdin.flush()
        return self._read()

    def calls(self, valves: dict, calls: list[dict], concurrent: bool = False) -> dict:
        return self.request({"op": "calls", "valves": valves, "calls": calls, "concurrent": concurrent})

    def call(self, valves: dict, **call: Any) -> dict:
        return self.calls(valves, [call])["results"][0]

    def drain(self) -> int:
        return self.request({"op": "drain"})["drained"]

    def close(self) -> None:
        if self.p.poll() is None:
            self.p.stdin.close()
            try:
                self.p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.p.kill()
                self.p.wait(timeout=5)
        self._err.close()


@pytest.fixture(scope="module")
def driver(owui_python, tmp_path_factory) -> Driver:
    d = Driver(owui_python, tmp_path_factory.mktemp("owui-driver"))
    yield d
    d.close()
