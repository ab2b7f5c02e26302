"""Helpers for the Open WebUI tests: child processes, the Amber host client, the loader driver."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
FILTER = ROOT / "openwebui_functions" / "amber_memory_filter.py"
AMBER = Path(sys.executable).with_name("amber")


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
