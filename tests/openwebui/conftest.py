"""Fixtures for the Open WebUI filter: Open WebUI's own venv (installed on first use), a real Amber
host on 127.0.0.1, the filter loaded by Open WebUI's loader, and a real Open WebUI server.

Open WebUI pins versions that clash with Amber's .venv, so it lives in .venv-owui (see
install_owui.sh); tests here run in .venv and talk to Open WebUI's side through subprocesses.
"""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import sys
from pathlib import Path

import pytest
from owui_harness import AMBER, HERE, AmberHost, Driver, Proc

from tests.kit.servers import free_port

# ---- Open WebUI's venv ---------------------------------------------------------------------------


@pytest.fixture(scope="session")
def owui_python() -> Path:
    """Python of .venv-owui; installs Open WebUI (no torch) on first use, ~3 min from a cold cache."""
    # Same interpreter as Amber's venv unless told otherwise: it exists wherever `make test` runs.
    env = {**os.environ, "OWUI_PYTHON": os.environ.get("OWUI_PYTHON") or getattr(sys, "_base_executable", sys.executable)}
    r = subprocess.run(["bash", str(HERE / "install_owui.sh")], capture_output=True, text=True, timeout=1200, env=env)
    if r.returncode != 0:
        pytest.fail(f"installing Open WebUI failed ({r.returncode}):\n{r.stderr[-4000:]}")
    return Path(r.stdout.strip().splitlines()[-1])


# ---- Amber host -----------------------------------------------------------------------------------


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


@pytest.fixture(scope="module")
def driver(owui_python, tmp_path_factory) -> Driver:
    d = Driver(owui_python, tmp_path_factory.mktemp("owui-driver"))
    yield d
    d.close()
