"""`amber doctor` against each topology it may meet, run in-process through `main(argv)` (a process of
its own adds nothing doctor could get wrong; the entry point is tested in test_cli.py): `amber serve`-style
hosts under uvicorn, a memory-off /memory gate, a LiteLLM proxy without Amber, nothing at all, and one
real LiteLLM proxy with Amber's hook (module-scoped: it is slow to start)."""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace

import httpx
import pytest
from fastapi import FastAPI
from starlette.routing import Mount

from core import Settings, build_service
from core.testing import HashEmbedder
from mcp_server.app import MemoryGate
from mcp_server.cli import main
from server_kit import KEYS
from tests.fakes.upstreams import FakeUpstreams
from tests.hook.harness import MASTER_KEY, Proxy, proxy_config
from tests.kit.servers import free_port, serve_app

pytestmark = pytest.mark.e2e

@dataclass
class Result:
    returncode: int
    stdout: str
    stderr: str
    elapsed: float


@pytest.fixture
def doctor(capsys, monkeypatch):
    """`amber doctor ARGS` in this process, run from `cwd` with the caller's AMBER_*, OPENAI_* and
    LITELLM_MASTER* variables replaced by `extra` for this call only."""
    quiet = getattr(sys.modules.get("litellm"), "suppress_debug_info", False)  # False: LiteLLM's default

    def doctor(cwd: Path, *args: str, **extra: str) -> Result:
        capsys.readouterr()
        with monkeypatch.context() as m:
            for name in [n for n in os.environ if n.startswith(("AMBER_", "OPENAI_", "LITELLM_MASTER"))]:
                m.delenv(name)
            for name, value in {"AMBER_CONFIG": str(cwd / "none.yaml"), "AMBER_EMBEDDING_MODEL": "hash", **extra}.items():
                m.setenv(name, value)
            m.chdir(cwd)
            started = time.monotonic()
            code = main(["doctor", *args])
            elapsed = time.monotonic() - started
        out, err = capsys.readouterr()
        r = Result(code, out, err, elapsed)
        assert "Traceback" not in r.stderr and "Give Feedback" not in r.stdout + r.stderr, r.stdout + r.stderr
        return r

    yield doctor
    if "litellm" in sys.modules:  # doctor's LLM check quiets LiteLLM's banners for the whole process
        sys.modules["litellm"].suppress_debug_info = quiet


def lines(r: Result, status: str) -> list[str]:
    return [x for x in r.stdout.splitlines() if x.startswith(f"[{status}")]


# -- amber serve topology ------------------------------------------------------------------------

def test_healthy_memory_host_with_an_admin_key(doctor, host, tmp_path):
    url, _ = host
    r = doctor(tmp_path, "--url", url, "--no-llm", AMBER_KEY=KEYS["admin"])
    assert r.returncode == 0 and r.stdout.rstrip().endswith("all good"), r.stdout
    assert f"memory server at {url} is healthy (embedder hash:v1)" in r.stdout
    assert "the key is accepted (admin)" in r.stdout and "every collection was built by the configured embedder" in r.stdout
    assert not lines(r, "FAIL") and not (tmp_path / "data").exists()
    assert r.elapsed < 15, r.elapsed  # a few seconds on an idle machine; generous for a shared one


def test_several_hosts_listed_each_is_checked(doctor, host, tmp_path):
    url, _ = host
    gone = f"http://127.0.0.1:{free_port()}/memory"
    r = doctor(tmp_path, "--no-llm", AMBER_SERVER_URL=f"{url},{gone}", AMBER_SERVER_KEY=KEYS["admin"])
    assert f"uses the memory hosts at {url}, {gone}" in r.stdout, r.stdout
    assert f"memory server at {url} is healthy" in r.stdout
    assert r.returncode == 1 and any(gone in x for x in lines(r, "FAIL")), r.stdout


def test_the_mcp_url_is_taken_as_its_base(doctor, host, tmp_path):
    url, _ = host
    r = doctor(tmp_path, "--url", url + "/mcp", "--no-llm", "--key", KEYS["alice"])
    assert r.returncode == 0, r.stdout
    assert f"{url}/mcp is the MCP endpoint; the memory host's base URL is {url}" in r.stdout
    assert "the key is accepted (not an admin key" in r.stdout


def test_an_unknown_key_is_named_with_the_fix(doctor, host, tmp_path):
    url, _ = host
    r = doctor(tmp_path, "--url", url, "--no-llm", AMBER_KEY="k-nobody")
    assert r.returncode == 1 and "1 problem(s) found" in r.stdout
    [fail] = lines(r, "FAIL")
    assert "does not know this key" in fail and "amber keys create" in r.stdout


def test_without_a_key_it_says_how_to_check_one(doctor, host, tmp_path):
    url, _ = host
    r = doctor(tmp_path, "--url", url, "--no-llm")
    assert r.returncode == 0 and "set AMBER_KEY (or --key) to check yours" in r.stdout


def test_nothing_running_creates_nothing_and_says_how_to_start(doctor, tmp_path):
    port = free_port()
    r = doctor(tmp_path, "--url", f"http://127.0.0.1:{port}")
    assert r.returncode == 1
    [fail] = lines(r, "FAIL")
    assert f"no Amber host answers at http://127.0.0.1:{port}/memory or http://127.0.0.1:{port}" in fail
    assert "make run" in r.stdout and "amber serve" in r.stdout and "amber doctor --store" in r.stdout
    assert list(tmp_path.iterdir()) == []  # run from any directory, it leaves nothing behind
    assert r.elapsed < 15, r.elapsed


def test_earlier_conversions_of_the_embedding_model_are_listed_not_deleted(doctor, tmp_path):
    from core.embed.model_cache import DEFAULT_QUANTISATION, model_dir_name, source_weights, weights_sha256

    cache = tmp_path / "models"
    current = cache / model_dir_name(weights_sha256(source_weights()), DEFAULT_QUANTISATION)
    older = cache / "e5-small-int8-c2-0123456789abcdef"
    cut_short = cache / "e5-small-int8-rows-c2-0123456789abcdef.tmp-4242"
    for d in (current, older, cut_short):
        d.mkdir(parents=True)
    (older / "model.onnx").write_bytes(b"\0" * (12 << 20))
    (cache / f"{current.name}.lock").write_text("")
    r = doctor(tmp_path, AMBER_MODEL_CACHE=str(cache))
    line = next(x for x in r.stdout.splitlines() if "earlier conversion" in x)
    assert "2 earlier conversion(s)" in line and "12 MB" in line and older.name in line and cut_short.name in line
    assert current.name not in line and "restarted" in line
    assert older.is_dir() and cut_short.is_dir()  # listed for the operator, never deleted by doctor
    r = doctor(tmp_path, AMBER_MODEL_CACHE=str(tmp_path / "empty"))
    assert "earlier conversion" not in r.stdout


def test_store_mode_checks_a_store_but_never_creates_one(doctor, tmp_path):
    port = f"http://127.0.0.1:{free_port()}"
    r = doctor(tmp_path, "--url", port, "--store", "--no-llm", AMBER_DATA_DIR=str(tmp_path / "data"))
    assert r.returncode == 1 and "no store at" in r.stdout and not (tmp_path / "data").exists()
    build_service(Settings(data_dir=tmp_path / "data"), embedder=HashEmbedder()).close()
    r = doctor(tmp_path, "--url", port, "--store", "--no-llm", AMBER_DATA_DIR=str(tmp_path / "data"))
    assert "[ok  ] embedder hash:v1 works" in r.stdout and "store at" in r.stdout and "opens and answers" in r.stdout
    # asked to check the store without a host, the absent host is expected, not a problem
    assert r.returncode == 0 and "[FAIL]" not in r.stdout and "no Amber host answers at " in r.stdout and ": checking the store here" in r.stdout, r.stdout
    with FakeUpstreams() as up:  # the LLM from this shell's environment, the way `amber serve`'s jobs call it
        up.script("ok")
        r = doctor(tmp_path, "--url", port, "--store", AMBER_DATA_DIR=str(tmp_path / "data"),
                   AMBER_LLM_MODEL="openai/gpt-4o-mini", OPENAI_API_BASE=up.openai_base, OPENAI_API_KEY="sk-fake")
    assert "LLM 'openai/gpt-4o-mini' answers" in r.stdout


def test_keys_with_an_empty_secret(doctor, host, tmp_path):
    url, _ = host
    keys = json.dumps([{"name": "phone", "secret": "", "user": "me"}])
    r = doctor(tmp_path, "--url", url, "--no-llm", AMBER_API_KEYS=keys)
    assert r.returncode == 1 and "empty secret" in r.stdout and "phone" in r.stdout


# -- proxy topology, faked where only the answer matters -----------------------------------------

def gate_app(gate: MemoryGate) -> FastAPI:
    proxy = FastAPI()
    proxy.get("/health/liveliness")(lambda: "I'm alive!")
    proxy.router.routes.insert(0, Mount("/memory", app=gate))
    return proxy


def test_memory_off_answers_503_with_the_reason_and_doctor_says_how_to_fix(doctor, tmp_path):
    gate = MemoryGate()
    with serve_app(gate_app(gate)) as url:
        starting = httpx.get(f"{url}/memory/health")
        assert starting.status_code == 503 and starting.json()["error"] == "memory_starting" and starting.headers["retry-after"]
        gate.off("StoreLocked: store at /srv/amber is held by process 4123", "StoreLocked")
        for path in ("/memory/health", "/memory/v1/memories", "/memory/mcp"):
            resp = httpx.get(url + path)
            assert resp.status_code == 503 and "held by process 4123" in resp.json()["detail"], path
        r = doctor(tmp_path, "--url", url, "--no-llm")
    assert r.returncode == 1
    [fail] = lines(r, "FAIL")
    assert f"the LiteLLM proxy at {url} runs, but its memory is off" in fail and "held by process 4123" in fail
    assert "stop the other process" in r.stdout and "server_url" in r.stdout


def test_a_proxy_without_amber_is_named(doctor, tmp_path):
    bare = FastAPI()
    bare.get("/health/liveliness")(lambda: "I'm alive!")
    with serve_app(bare) as url:
        r = doctor(tmp_path, "--url", url, "--no-llm")
    assert r.returncode == 1
    assert f"the LiteLLM proxy at {url} answers, but no Amber memory server is at {url}/memory" in r.stdout
    assert "litellm_hooks.amber.amber_memory" in r.stdout


def test_the_hook_mounts_the_gate_and_reports_memory_off(tmp_path, monkeypatch):
    """The proxy's side: the hook's host puts the gate at /memory as it loads, and a store held by
    another process turns it into a 503 that names the reason."""
    from litellm_hooks import host as host_mod

    data = tmp_path / "data"
    holder = build_service(Settings(data_dir=data), embedder=HashEmbedder())  # "another process" holds the lock
    ps = SimpleNamespace(app=FastAPI(), user_config_file_path=None)
    monkeypatch.setattr(host_mod, "_proxy_server", lambda: ps)
    monkeypatch.setenv("AMBER_DATA_DIR", str(data))

    async def scenario() -> tuple[dict, dict]:
        h = host_mod.Host()
        h.start_soon()
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=ps.app), base_url="http://proxy") as c:
            before = (await c.get("/memory/health")).json()
            await h.started
            after = await c.get("/memory/v1/memories")
            return before, {"status": after.status_code, **after.json()}

    try:
        before, after = asyncio.run(scenario())
    finally:
        holder.close()
    assert before["error"] == "memory_starting"
    assert after["status"] == 503 and after["error"] == "memory_off" and after["cause"] == "StoreLocked"
    assert "held by" in after["detail"]


# -- one real LiteLLM proxy with Amber's hook ----------------------------------------------------

@pytest.fixture(scope="module")
def proxy(tmp_path_factory):
    with FakeUpstreams() as up:
        p = Proxy(proxy_config(up, amber={"jobs_enabled": False, "api_keys": [
            {"name": "admin", "secret": KEYS["admin"], "scopes": ["memory:admin"]},
            {"name": "alice", "secret": KEYS["alice"], "user": "alice"},
        ]}), tmp_path_factory.mktemp("doctor-proxy"))
        try:
            p.start()
            yield p, up
        finally:
            p.stop()


def test_healthy_proxy(doctor, proxy, tmp_path):
    p, up = proxy
    up.clear()
    r = doctor(tmp_path, "--url", p.base, AMBER_KEY=KEYS["admin"], LITELLM_MASTER_KEY=MASTER_KEY)
    assert r.returncode == 0 and r.stdout.rstrip().endswith("all good"), r.stdout + r.stderr
    assert f"the LiteLLM proxy at {p.base} answers; memory server at {p.base}/memory is healthy" in r.stdout
    assert "the proxy serves model groups: claude-sonnet, gpt-4o-mini" in r.stdout
    assert "model group 'gpt-4o-mini' answers through the proxy" in r.stdout
    assert len(up.find("/chat/completions")) == 1  # the jobs' model group, called through the proxy
    assert not (tmp_path / "data").exists()
    # the proxy's /memory mount is found from the memory URL too, and without a master key it says what it skipped
    r = doctor(tmp_path, "--url", p.base + "/memory", "--no-llm", AMBER_KEY=KEYS["alice"])
    assert r.returncode == 0 and "set LITELLM_MASTER_KEY to check the proxy's model groups" in r.stdout


def test_proxy_with_a_wrong_master_key(doctor, proxy, tmp_path):
    p, _ = proxy
    r = doctor(tmp_path, "--url", p.base, "--no-llm", AMBER_KEY=KEYS["admin"], LITELLM_MASTER_KEY="sk-wrong")
    assert r.returncode == 1 and "the proxy refuses LITELLM_MASTER_KEY" in r.stdout and "master_key" in r.stdout


def test_proxy_whose_model_group_fails(doctor, proxy, tmp_path):
    p, up = proxy
    up.stop()  # the model group's upstream is gone (last test of the module: the proxy stays up)
    r = doctor(tmp_path, "--url", p.base, AMBER_KEY=KEYS["admin"], LITELLM_MASTER_KEY=MASTER_KEY)
    assert r.returncode == 1
    [fail] = lines(r, "FAIL")
    assert "model group 'gpt-4o-mini' fails through the proxy" in fail and "api_base" in r.stdout
