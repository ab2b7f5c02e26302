"""The `amber` command on temp stores: in-process through `main(argv)` (stdout and stderr from capsys,
the environment from monkeypatch), and as a real process where that is the point: the installed entry
point runs, `amber serve` serves until SIGTERM, and a second process is refused the store it holds."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
import yaml

from mcp_server.cli import main
from mcp_server.identity import KeyRing
from server_kit import KEYS
from core import ApiKeyConfig
from tests.kit.servers import free_port, wait_answering

pytestmark = pytest.mark.e2e

AMBER = str(Path(sys.executable).with_name("amber"))
ROOT = Path(__file__).resolve().parents[2]


def env(tmp_path: Path, **extra: str) -> dict[str, str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith(("AMBER_", "OPENAI_"))}
    return {**base, "AMBER_CONFIG": str(tmp_path / "none.yaml"), "AMBER_DATA_DIR": str(tmp_path / "data"),
            "AMBER_EMBEDDING_MODEL": "hash", "LITELLM_LOCAL_MODEL_COST_MAP": "True", "OMP_WAIT_POLICY": "PASSIVE", **extra}


@dataclass
class Result:
    returncode: int
    stdout: str
    stderr: str


@pytest.fixture
def run(capsys, monkeypatch):
    """`amber ARGS` in this process: main(argv)'s exit status and what it wrote. With `environ`, the
    caller's AMBER_* and OPENAI_* variables give way to these for this call only (what `env` does for a
    subprocess; LITELLM_LOCAL_MODEL_COST_MAP and OMP_WAIT_POLICY are set by the root conftest)."""

    def run(*args: str, environ: dict[str, str] | None = None) -> Result:
        capsys.readouterr()
        with monkeypatch.context() as m:
            if environ is not None:
                for name in [n for n in os.environ if n.startswith(("AMBER_", "OPENAI_"))]:
                    m.delenv(name)
                for name, value in environ.items():
                    m.setenv(name, value)
            code = main(list(args))
        out, err = capsys.readouterr()
        return Result(code, out, err)

    return run


@pytest.fixture
def amber(run):
    """`amber ARGS` in this process on the temp store under `tmp_path`."""

    def amber(tmp_path: Path, *args: str, **extra: str) -> Result:
        return run(*args, environ={"AMBER_CONFIG": str(tmp_path / "none.yaml"), "AMBER_DATA_DIR": str(tmp_path / "data"),
                                   "AMBER_EMBEDDING_MODEL": "hash", **extra})

    return amber


def spawn(tmp_path: Path, *args: str, **extra: str) -> subprocess.CompletedProcess:
    return subprocess.run([AMBER, *args], env=env(tmp_path, **extra), capture_output=True, text=True, timeout=180)


def test_the_installed_entry_point_runs():
    out = subprocess.run([AMBER, "--help"], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("usage: amber") and all(c in out.stdout for c in ("serve", "mcp", "doctor", "keys", "jobs"))


def test_keys_create_prints_a_working_key_once(run):
    out = run("keys", "create", "--name", "claude code", "--user", "alice")
    assert out.returncode == 0, out.stderr
    key = re.search(r"\n    (amb_\S+)\n", out.stdout).group(1)
    digest = re.search(r"secret: sha256:([0-9a-f]{64})", out.stdout).group(1)
    assert "secret: os.environ/AMBER_KEY_CLAUDE_CODE" in out.stdout and f"export AMBER_KEY_CLAUDE_CODE={key}" in out.stdout
    assert "user: alice" in out.stdout and "scopes: [memory:read, memory:write]" in out.stdout
    # both forms of the snippet authenticate the printed key
    for secret in (key, f"sha256:{digest}"):
        ring = KeyRing([ApiKeyConfig(name="cc", secret=secret, user="alice")])
        assert ring.identify(key, {}, None).user_id == "alice"
    bad = run("keys", "create", "--name", "x")
    assert bad.returncode == 1 and "--user" in bad.stderr
    # the snippet is one item for the existing list: pasted under `api_keys:` it keeps the keys already there
    item = re.search(r"\n(    - name: claude code\n(?:      .*\n)+)", out.stdout).group(1)
    shipped = (ROOT / "config.yaml").read_text()
    pasted = yaml.safe_load(shipped.rstrip("\n") + "\n" + item)["amber"]["api_keys"]
    assert [k["name"] for k in pasted] == ["me", "claude code"] and pasted[1]["user"] == "alice"


def test_keys_create_writes_into_the_shipped_config(run, tmp_path):
    config = tmp_path / "config.yaml"
    shipped = (ROOT / "config.yaml").read_text()
    config.write_text(shipped)
    out = run("keys", "create", "--name", "owui", "--trusted-client", "--write", str(config))
    assert out.returncode == 0, out.stderr
    assert (tmp_path / "config.yaml.bak").read_text() == shipped
    merged = yaml.safe_load(config.read_text())
    assert merged["amber"]["api_keys"] == [
        {"name": "me", "secret": "os.environ/AMBER_KEY", "user": "me", "scopes": ["memory:read", "memory:write"]},
        {"name": "owui", "secret": "os.environ/AMBER_KEY_OWUI", "scopes": ["memory:read", "memory:write"], "trusted_client": True},
    ]
    assert merged["model_list"] == yaml.safe_load(shipped)["model_list"] and "# Keys for the memory server" in config.read_text()
    key = re.search(r"\n    (amb_\S+)\n", out.stdout).group(1)
    ring = KeyRing([ApiKeyConfig(**{**k, "secret": key if k["name"] == "owui" else "x"}) for k in merged["amber"]["api_keys"]])
    assert ring.identify(key, {"x-amber-user": "zoe"}, None).user_id == "zoe"
    again = run("keys", "create", "--name", "owui", "--user", "z", "--write", str(config))
    assert again.returncode == 2 and "already there" in again.stderr and yaml.safe_load(config.read_text()) == merged
    # a config with no keys yet, or none at all, gets the list
    for text, names in [("amber:\n  data_dir: ./x\n  api_keys: []\n", ["a"]), ("amber:\n  data_dir: ./x\n", ["a"]), ("model_list: []\n", ["a"])]:
        config.write_text(text)
        done = run("keys", "create", "--name", "a", "--user", "a", "--write", str(config))
        assert done.returncode == 0, (text, done.stderr)
        assert [k["name"] for k in yaml.safe_load(config.read_text())["amber"]["api_keys"]] == names, config.read_text()


def test_export_import_reindex(amber, tmp_path):
    src = tmp_path / "src.jsonl"
    lines = [
        {"type": "header", "format": "amber-export", "version": 1},
        {"type": "memory", "id": "m_cli1", "content": "Grows tomatoes on the balcony", "user_id": "x",
         "created_at": "2026-05-01T10:00:00Z", "updated_at": "2026-05-01T10:00:00Z"},
        {"type": "message", "id": "msg1", "role": "user", "content": "tomatoes again!", "created_at": "2026-05-01T10:00:00Z"},
    ]
    src.write_text("".join(json.dumps(x) + "\n" for x in lines))
    r = amber(tmp_path, "import", str(src), "--user", "gardener")
    assert r.returncode == 0 and "imported 1 memories, 1 messages and 0 audit events" in r.stderr, r.stderr
    out = tmp_path / "out.jsonl"
    r = amber(tmp_path, "export", "--user", "gardener", "-o", str(out))
    assert r.returncode == 0 and "exported 4 lines" in r.stderr  # header, memory, message, the import's audit event
    got = [json.loads(x) for x in out.read_text().splitlines()]
    assert got[1]["content"] == "Grows tomatoes on the balcony" and got[1]["user_id"] == "gardener"
    r = amber(tmp_path, "reindex")
    assert r.returncode == 0 and "gardener: 1 memories, 1 messages re-embedded" in r.stderr
    assert "reindexing" in r.stderr  # the progress bar
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"type": "header", "format": "amber-export"}\nnot json\n')
    r = amber(tmp_path, "import", str(bad))
    assert r.returncode == 2 and "line 2" in r.stderr and "Traceback" not in r.stderr, r.stderr
    # a bad file writes nothing: the error is one line naming the line and the reason
    for name, body, words in [
        ("utf8", b'{"type": "header", "format": "amber-export"}\n{"type": "message", "id": "u", "role": "user", "content": "caf\xe9", "created_at": "2026-05-01T10:00:00Z"}\n', "line 2: is not valid UTF-8"),
        ("dup", (json.dumps(lines[2]) + "\n" + json.dumps({**lines[1], "id": "m_cli9"}) + "\n" + json.dumps(lines[2]) + "\n").encode(), "line 3: message id 'msg1' repeats line 1"),
        ("ns", (json.dumps({**lines[1], "id": "m_cli8", "namespace": "../../etc"}) + "\n").encode(), "line 1: namespace '../../etc'"),
    ]:
        f = tmp_path / f"{name}.jsonl"
        f.write_bytes(body)
        r = amber(tmp_path, "import", str(f), "--user", "fresh")
        errors = [x for x in r.stderr.splitlines() if x.startswith("amber:")]
        assert r.returncode == 2 and len(errors) == 1 and words in errors[0] and "Traceback" not in r.stderr, r.stderr
    r = amber(tmp_path, "export", "--user", "fresh", "-o", str(out))
    assert [json.loads(x)["type"] for x in out.read_text().splitlines()] == ["header"]
    r = amber(tmp_path, "import", str(tmp_path / "missing.jsonl"))
    assert r.returncode == 2 and "cannot read" in r.stderr and "Traceback" not in r.stderr


def test_data_commands_through_a_running_host(amber, host, tmp_path):
    url, _ = host
    src = tmp_path / "one.jsonl"
    src.write_text(json.dumps({"type": "memory", "id": "m_cli2", "content": "Reads Le Monde daily", "user_id": "?",
                               "created_at": "2026-05-01T10:00:00Z", "updated_at": "2026-05-01T10:00:00Z"}) + "\n")
    r = amber(tmp_path, "import", str(src), "--url", url, "--key", KEYS["admin"], "--user", "reader")
    assert r.returncode == 0, r.stderr
    r = amber(tmp_path, "export", "--url", url, "--user", "reader", AMBER_KEY=KEYS["admin"])
    assert r.returncode == 0 and "Reads Le Monde daily" in r.stdout
    r = amber(tmp_path, "reindex", "--url", url, "--user", "reader", "--key", KEYS["admin"])
    assert r.returncode == 0 and "reader: 1 memories" in r.stderr
    r = amber(tmp_path, "reindex", "--url", url, "--key", KEYS["alice"])
    assert r.returncode == 1 and "memory:admin" in r.stderr
    assert not (tmp_path / "data").exists()


# `amber doctor` is tested in test_doctor.py


def test_jobs_run_by_hand(amber, tmp_path):
    r = amber(tmp_path, "jobs", "run", "retention")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)  # the run record


def test_the_entry_point_starts_itself_with_glibcs_thread_caches_off(tmp_path):
    """`amber` restarts itself once with GLIBC_TUNABLES naming the thread caches off (kept beside
    any tunable the operator set), so its store's index files hold no stray heap bytes
    (core/store/sealing.py); a process that could not restart says so when the store opens."""
    base = {k: v for k, v in env(tmp_path).items() if k != "GLIBC_TUNABLES"}
    bare = subprocess.run([AMBER, "jobs", "run", "retention"], env=base, capture_output=True, text=True, timeout=180)
    assert bare.returncode == 0, bare.stderr
    assert "GLIBC_TUNABLES" not in bare.stderr
    import mcp_server.cli as cli

    seen = []
    with pytest.MonkeyPatch.context() as m:
        m.setenv("GLIBC_TUNABLES", "glibc.malloc.arena_max=2")
        m.delenv("AMBER_RESTARTED", raising=False)
        m.delenv("LITELLM_LOCAL_MODEL_COST_MAP", raising=False)
        m.setattr(cli.os, "execve", lambda exe, argv, environ: seen.append((argv, environ)))
        cli._restart_with_malloc_settings()
    [(argv, environ)] = seen
    assert argv[1:3] == ["-m", "mcp_server.cli"]
    assert environ["GLIBC_TUNABLES"] == "glibc.malloc.arena_max=2:glibc.malloc.tcache_count=0:glibc.malloc.mmap_threshold=131072"
    assert environ["AMBER_RESTARTED"] == "1"
    assert environ["LITELLM_LOCAL_MODEL_COST_MAP"] == "True"  # LiteLLM's prices from its package, never fetched
    seen.clear()
    with pytest.MonkeyPatch.context() as m:  # the tunables set, the price list not: restarted for it alone
        m.setenv("GLIBC_TUNABLES", "glibc.malloc.tcache_count=0:glibc.malloc.mmap_threshold=131072")
        m.delenv("AMBER_RESTARTED", raising=False)
        m.delenv("LITELLM_LOCAL_MODEL_COST_MAP", raising=False)
        m.setattr(cli.os, "execve", lambda exe, argv, environ: seen.append((argv, environ)))
        cli._restart_with_malloc_settings()
    assert seen[0][1]["LITELLM_LOCAL_MODEL_COST_MAP"] == "True"
    seen.clear()
    with pytest.MonkeyPatch.context() as m:  # the operator's own threshold is kept; only what is missing is added
        m.setenv("GLIBC_TUNABLES", "glibc.malloc.mmap_threshold=65536")
        m.delenv("AMBER_RESTARTED", raising=False)
        m.setattr(cli.os, "execve", lambda exe, argv, environ: seen.append((argv, environ)))
        cli._restart_with_malloc_settings()
    assert seen[0][1]["GLIBC_TUNABLES"] == "glibc.malloc.mmap_threshold=65536:glibc.malloc.tcache_count=0"
    seen.clear()
    with pytest.MonkeyPatch.context() as m:  # both set: no restart
        m.setenv("GLIBC_TUNABLES", "glibc.malloc.tcache_count=0:glibc.malloc.mmap_threshold=131072")
        m.delenv("AMBER_RESTARTED", raising=False)
        m.setattr(cli.os, "execve", lambda exe, argv, environ: seen.append((argv, environ)))
        cli._restart_with_malloc_settings()
    assert seen == []
    stuck = subprocess.run([AMBER, "jobs", "run", "retention"], env={**base, "AMBER_RESTARTED": "1"}, capture_output=True, text=True, timeout=180)
    assert stuck.returncode == 0, stuck.stderr
    assert "GLIBC_TUNABLES=glibc.malloc.tcache_count=0" in stuck.stderr


def test_serve_standalone_and_the_lock(amber, tmp_path):
    port = free_port()
    proc = subprocess.Popen([AMBER, "serve", "--port", str(port)], env=env(tmp_path), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        wait_answering(f"http://127.0.0.1:{port}/health", proc, what="amber serve", timeout=90, log=lambda: proc.stderr.read() if proc.poll() is not None else "")
        w = httpx.post(f"http://127.0.0.1:{port}/v1/memories", json={"content": "Served standalone"}, timeout=10)
        assert w.status_code == 200 and w.json()["memory"]["user_id"] == "local"
        second = spawn(tmp_path, "serve", "--port", str(free_port()))  # another process: refused the store
        assert second.returncode == 2 and "held by process" in second.stderr and "--url" in second.stderr
        # what the refusal advises works: the commands go through the running host
        there = {"AMBER_SERVER_URL": f"http://127.0.0.1:{port}"}
        out = spawn(tmp_path, "export", **there)
        assert out.returncode == 0 and "Served standalone" in out.stdout, out.stderr
        assert "lines of the user the key acts for" in out.stderr, out.stderr
        job = spawn(tmp_path, "jobs", "run", "retention", **there)
        assert job.returncode == 0 and "retention started on the host" in job.stderr, job.stderr
        assert spawn(tmp_path, "jobs", "run", "retention", "--user", "x", **there).returncode == 2
    finally:
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err
    assert "jobs scheduled: amber-extract, amber-consolidate, amber-retention" in err
    r = amber(tmp_path, "export")
    assert r.returncode == 0 and "Served standalone" in r.stdout  # lock released on shutdown
    assert "of user 'local' (the default; name another with --user)" in r.stderr  # whose memory it was
