"""The real LiteLLM proxy as a subprocess on 127.0.0.1, configured against the fake upstreams.

Used by the hook's end-to-end tests and by bench/cache_share.py.
"""

from __future__ import annotations

import functools
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import yaml

from tests.fakes.upstreams import FakeUpstreams, free_port
from tests.kit.servers import start_all, stop_process, wait_answering

ROOT = Path(__file__).resolve().parents[2]
MASTER_KEY = "sk-amber-test-master"
CALLBACK = "litellm_hooks.amber.amber_memory"


def proxy_config(up: FakeUpstreams, *, amber: dict[str, Any] | None = None, callback: bool = True) -> dict[str, Any]:
    cfg: dict[str, Any] = {
        "model_list": [
            {"model_name": "gpt-4o-mini", "litellm_params": {"model": "openai/gpt-4o-mini", "api_base": up.openai_base, "api_key": "fake-openai"}},
            {"model_name": "claude-sonnet", "litellm_params": {"model": "anthropic/claude-sonnet-4-5", "api_base": up.anthropic_base, "api_key": "fake-anthropic"}},
        ],
        "general_settings": {"master_key": "os.environ/LITELLM_MASTER_KEY"},
        "litellm_settings": {"drop_params": True, "num_retries": 0},
    }
    if callback:
        cfg["litellm_settings"]["callbacks"] = [CALLBACK]
    if amber is not None:
        cfg["amber"] = amber
    return cfg


class Proxy:
    def __init__(self, config: dict[str, Any], workdir: Path, *, env: dict[str, str] | None = None, workers: int = 1):
        self.workdir = workdir
        self.workers = workers  # >1: `--num_workers`, LiteLLM's own worker processes (remote mode only)
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.config_path = workdir / "config.yaml"
        self.config_path.write_text(yaml.safe_dump(config, sort_keys=False))
        self.log_path = workdir / "proxy.log"
        clean = {k: v for k, v in os.environ.items() if not k.startswith("AMBER_")}
        self.env = {
            **clean,
            "LITELLM_MASTER_KEY": MASTER_KEY,
            "LITELLM_LOCAL_MODEL_COST_MAP": "True",
            "OMP_WAIT_POLICY": "PASSIVE",
            "AMBER_EMBEDDING_MODEL": "hash",
            "AMBER_DATA_DIR": str(workdir / "data"),
            "PYTHONPATH": str(ROOT),
            **(env or {}),
        }
        self.proc: subprocess.Popen | None = None

    def start(self, *, wait_memory: bool = True, timeout: float | None = None) -> "Proxy":
        # each worker imports LiteLLM's proxy again after the parent has: two workers answered after
        # 112 s at load 5 on this 2-core machine, one after 30 s
        timeout = timeout if timeout is not None else (120 if self.workers == 1 else 360)
        self._log = open(self.log_path, "wb")
        self.proc = subprocess.Popen(
            [str(Path(sys.executable).parent / "litellm"), "--config", str(self.config_path), "--host", "127.0.0.1", "--port", str(self.port),
             # uvicorn's supervisor kills a worker that does not answer its ping within 5 s, and a new worker
             # answers only once it has imported LiteLLM's CLI module again (spawn): on a loaded 2-core
             # machine that took longer, so each worker was killed and restarted, forever
             *(["--num_workers", str(self.workers), "--timeout_worker_healthcheck", "120"] if self.workers > 1 else [])],
            cwd=self.workdir, env=self.env, stdout=self._log, stderr=subprocess.STDOUT,
        )
        path = "/memory/health" if wait_memory else "/health/liveliness"
        try:
            wait_answering(self.base + path, self.proc, what="proxy", timeout=timeout, log=self.log)
        except RuntimeError:
            self.stop()
            raise
        return self

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            stop_process(self.proc, timeout=15)
        if getattr(self, "_log", None):
            self._log.close()

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {MASTER_KEY}"}


def wait_for(fn, timeout: float = 15.0, interval: float = 0.2):
    """Poll until fn() returns something truthy (capture runs in LiteLLM's background worker)."""
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        last = fn()
        if last:
            return last
        time.sleep(interval)
    return last


def start_together(*starts: tuple[Proxy, dict[str, Any]]) -> None:
    """Start several proxies in parallel (each takes ~20-30 s); raise the first failure once all are done."""
    start_all(*(functools.partial(p.start, **kw) for p, kw in starts))
