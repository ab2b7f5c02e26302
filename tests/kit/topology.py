"""The several-hosts topology, started piece by piece on 127.0.0.1 under a temp dir:
`chroma run` + `redis-server` + Amber hosts (`amber serve`) + a LiteLLM proxy with several
workers in remote mode, in front of the fake upstreams.

    with Topology(tmp_dir) as topo:          # chroma, redis, two hosts, a proxy with 2 workers
        topo.hosts[0].rest("POST", "/v1/memories", user="ann", json={...})
        topo.hosts[1].kill()                  # SIGKILL, as a crash would
        topo.hosts[1].start()                 # back on the same port

Used by tests/topology/test_several_hosts.py and importable by benchmarks (bench/ puts the
repository root on sys.path). deploy/compose.yaml is the same shape as containers.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Iterator

import httpx
import yaml

from tests.fakes.upstreams import FakeUpstreams
from tests.hook.harness import MASTER_KEY, Proxy, proxy_config, wait_for
from tests.kit.servers import chroma_server, free_port, start_all, stop_process, wait_answering

BIN = Path(sys.executable).parent
# the hosts' keys: the proxies' trusted-client key (acts for the user named in X-Amber-User) and an
# admin key (run records, any user)
RELAY_KEY = "sk-amber-topology-relay"
ADMIN_KEY = "sk-amber-topology-admin"
API_KEYS = [
    {"name": "relay", "secret": "os.environ/AMBER_TEST_RELAY_KEY", "trusted_client": True, "scopes": ["memory:read", "memory:write"]},
    {"name": "admin", "secret": "os.environ/AMBER_TEST_ADMIN_KEY", "scopes": ["memory:read", "memory:write", "memory:admin"]},
]
# crons that do not fire while a test runs (Feb 30th never comes)
NEVER = "0 0 30 2 *"

__all__ = ["ADMIN_KEY", "MASTER_KEY", "RELAY_KEY", "AmberHost", "Topology", "amber_host", "redis_server", "wait_for"]


def _clean_env(**extra: str) -> dict[str, str]:
    """The caller's environment without its AMBER_* variables (a developer's shell must not leak in)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("AMBER_")}
    env.update({"LITELLM_LOCAL_MODEL_COST_MAP": "True", "OMP_WAIT_POLICY": "PASSIVE"})
    env.update(extra)
    return env


@contextlib.contextmanager
def redis_server(path: Path, *, port: int | None = None) -> Iterator[str]:
    """Debian's `redis-server` on 127.0.0.1 and a free port, append-only file under `path`, no RDB
    snapshots; yields its URL (`redis://127.0.0.1:N/0`) once PING answers; terminated after."""
    exe = shutil.which("redis-server") or "/usr/bin/redis-server"
    if not Path(exe).exists():
        raise RuntimeError("redis-server is not installed (`make redis` installs Debian's package)")
    path.mkdir(parents=True, exist_ok=True)
    port = port or free_port()
    log = open(path / "redis.log", "wb")
    proc = subprocess.Popen(
        [exe, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "yes", "--dir", str(path)],
        stdout=log, stderr=subprocess.STDOUT,
    )
    url = f"redis://127.0.0.1:{port}/0"
    try:
        import redis

        client = redis.Redis.from_url(url, socket_timeout=1, socket_connect_timeout=1)
        deadline = time.monotonic() + 20
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"redis-server exited with {proc.returncode}: {(path / 'redis.log').read_text(errors='replace')[-2000:]}")
            try:
                if client.ping():
                    break
            except redis.RedisError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError("redis-server did not answer PING within 20 s")
            time.sleep(0.1)
        client.close()
        yield url
    finally:
        stop_process(proc, timeout=10)
        log.close()


class AmberHost:
    """`amber serve` as a subprocess on 127.0.0.1: its settings in a config file (`amber:` section,
    the API keys) and in AMBER_* variables (store, Redis, port), as an operator would set them."""

    def __init__(
        self,
        workdir: Path,
        *,
        chroma_url: str | None = None,
        redis_url: str | None = None,
        amber: dict[str, Any] | None = None,
        env: dict[str, str] | None = None,
        port: int | None = None,
        name: str = "host",
    ):
        self.workdir = workdir
        self.name = name
        workdir.mkdir(parents=True, exist_ok=True)
        self.port = port or free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.config_path = workdir / "amber.yaml"
        self.config_path.write_text(yaml.safe_dump({"amber": {"api_keys": API_KEYS, "recall_timeout_s": 10, **(amber or {})}}, sort_keys=False))
        self.log_path = workdir / "amber.log"
        self.env = _clean_env(
            AMBER_CONFIG=str(self.config_path),
            AMBER_DATA_DIR=str(workdir / "data"),
            AMBER_PORT=str(self.port),
            AMBER_EMBEDDING_MODEL="hash",
            AMBER_TEST_RELAY_KEY=RELAY_KEY,
            AMBER_TEST_ADMIN_KEY=ADMIN_KEY,
            **({"AMBER_CHROMA_URL": chroma_url} if chroma_url else {}),
            **({"AMBER_REDIS_URL": redis_url} if redis_url else {}),
            **(env or {}),
        )
        self.proc: subprocess.Popen | None = None
        self._log = None

    def start(self, timeout: float = 90) -> "AmberHost":
        """Start (or start again, on the same port and data dir) and wait until /health answers."""
        if self.alive:
            return self
        self._close_log()
        self._log = open(self.log_path, "ab")
        self.proc = subprocess.Popen([str(BIN / "amber"), "serve"], cwd=self.workdir, env=self.env,
                                     stdout=self._log, stderr=subprocess.STDOUT)
        try:
            wait_answering(self.base + "/health", self.proc, what=self.name, timeout=timeout, log=self.log)
        except RuntimeError:
            self.stop()
            raise
        return self

    @property
    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def kill(self) -> None:
        """SIGKILL: no shutdown, no release of locks or leases, captured entries left unacknowledged."""
        if self.alive:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(timeout=10)
        self._close_log()

    def stop(self) -> None:
        if self.alive:
            stop_process(self.proc)
        self._close_log()

    def _close_log(self) -> None:
        if self._log is not None:
            self._log.close()
            self._log = None

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def rest(self, method: str, path: str, *, user: str | None = None, key: str = RELAY_KEY, timeout: float = 30, **kw) -> httpx.Response:
        """One REST call; `user` goes in X-Amber-User (the relay and admin keys act for the user named there)."""
        headers = {"Authorization": f"Bearer {key}", **({"X-Amber-User": user} if user else {})}
        return httpx.request(method, self.base + path, headers=headers, timeout=timeout, **kw)

    def messages(self, user: str) -> list[dict[str, Any]]:
        r = self.rest("GET", "/v1/messages", user=user)
        r.raise_for_status()
        body = r.json()
        return body["messages"] if isinstance(body, dict) else body

    def runs(self, job: str | None = None, limit: int = 200) -> list[dict[str, Any]]:
        r = self.rest("GET", "/v1/jobs/runs", key=ADMIN_KEY, params={"limit": limit, **({"job": job} if job else {})})
        r.raise_for_status()
        return r.json()["runs"]


@contextlib.contextmanager
def amber_host(workdir: Path, **kw: Any) -> Iterator[AmberHost]:
    """An `amber serve` subprocess (see AmberHost), started and stopped around the block."""
    host = AmberHost(workdir, **kw)
    try:
        yield host.start()
    finally:
        host.stop()


class Topology:
    """chroma + redis + `hosts` Amber hosts + one LiteLLM proxy with `workers` workers in remote mode
    (`server_url` lists every host), in front of fake upstreams (`up`, started here unless given).

    host_settings / proxy_settings: extra `amber:` settings for every host / for the proxy;
    host_env: extra environment of every host. redis=False gives the same shape without Redis."""

    def __init__(
        self,
        workdir: Path,
        *,
        hosts: int = 2,
        workers: int = 2,
        redis: bool = True,
        proxy: bool = True,
        up: FakeUpstreams | None = None,
        host_settings: dict[str, Any] | None = None,
        host_env: dict[str, str] | None = None,
        proxy_settings: dict[str, Any] | None = None,
    ):
        self.workdir = Path(workdir)
        self.n_hosts, self.workers, self.with_redis, self.with_proxy = hosts, workers, redis, proxy
        self._up = up
        self.host_settings = host_settings or {}
        self.host_env = host_env or {}
        self.proxy_settings = proxy_settings or {}
        self.up: FakeUpstreams | None = None
        self.chroma_url = ""
        self.redis_url: str | None = None
        self.hosts: list[AmberHost] = []
        self.proxy: Proxy | None = None
        self._stack = contextlib.ExitStack()

    def __enter__(self) -> "Topology":
        try:
            self._start()
        except BaseException:
            self._stack.close()
            raise
        return self

    def __exit__(self, *exc: Any) -> None:
        self._stack.close()

    def _start(self) -> None:
        s = self._stack
        self.up = self._up or s.enter_context(FakeUpstreams())
        self.chroma_url = s.enter_context(chroma_server(self.workdir / "chroma"))
        self.redis_url = s.enter_context(redis_server(self.workdir / "redis")) if self.with_redis else None
        amber = {
            "jobs_enabled": True,
            "extract_cron": NEVER, "consolidate_cron": NEVER, "retention_cron": NEVER,
            **self.host_settings,
        }
        # the jobs' model calls (extraction) go to the fake OpenAI upstream
        env = {"OPENAI_API_BASE": self.up.openai_base, "OPENAI_BASE_URL": self.up.openai_base, "OPENAI_API_KEY": "fake-openai", **self.host_env}
        for i in range(self.n_hosts):
            host = AmberHost(self.workdir / f"host{i + 1}", chroma_url=self.chroma_url, redis_url=self.redis_url,
                             amber=amber, env=env, name=f"host{i + 1}")
            self.hosts.append(host)
            s.callback(host.stop)
        starts = [h.start for h in self.hosts]
        if self.with_proxy:
            cfg = proxy_config(self.up, amber={
                "server_url": ",".join(h.base for h in self.hosts),
                "server_key": "os.environ/AMBER_TEST_RELAY_KEY",
                **({"redis_url": self.redis_url} if self.redis_url else {}),
                "jobs_enabled": False,
                "recall_timeout_s": 10,  # a loaded 2-core CI box has stalled a host 5 s while its minute job ran
                **self.proxy_settings,
            })
            (self.workdir / "proxy").mkdir(parents=True, exist_ok=True)
            self.proxy = Proxy(cfg, self.workdir / "proxy", env={"AMBER_TEST_RELAY_KEY": RELAY_KEY}, workers=self.workers)
            s.callback(self.proxy.stop)
            starts.append(self._start_proxy)
        start_all(*starts)

    def _start_proxy(self) -> None:
        assert self.proxy is not None
        self.proxy.start(wait_memory=False)
        # remote mode mounts nothing: wait until every worker's hook has its memory
        if not wait_for(lambda: self.proxy.log().count("remote mode") >= self.workers, timeout=90):
            raise RuntimeError(f"the proxy's workers did not reach remote mode:\n{self.proxy.log()[-4000:]}")

    def revive(self) -> None:
        """Start again every host that was killed or stopped (same port, same data dir)."""
        start_all(*[h.start for h in self.hosts if not h.alive])

    def chat(self, user: str, text: str, *, model: str = "gpt-4o-mini", timeout: float = 60) -> httpx.Response:
        """One chat completion through the proxy as end user `user`."""
        assert self.proxy is not None
        return httpx.post(
            self.proxy.base + "/v1/chat/completions", headers={"Authorization": f"Bearer {MASTER_KEY}"}, timeout=timeout,
            json={"model": model, "user": user, "messages": [{"role": "user", "content": text}]},
        )
