"""Fixtures for the memory server: real store on a temp dir, the real app under uvicorn on
127.0.0.1, and API keys for two users, a read-only key, an admin key and a trusted client."""

from __future__ import annotations

import contextlib
import os
import socket
import threading
import time
from pathlib import Path
from typing import Iterator

import pytest
import uvicorn

from core import ApiKeyConfig, Settings, build_service
from core.testing import HashEmbedder
from mcp_server.app import create_app

KEYS = {
    "alice": "k-alice-7f3a9c",
    "bob": "k-bob-2d81e4",
    "alice_ro": "k-alice-ro-55aa01",
    "admin": "k-admin-9e9e9e",
    "owui": "k-owui-31c4d0",
}


def key_configs() -> list[ApiKeyConfig]:
    return [
        ApiKeyConfig(name="alice", secret=KEYS["alice"], user="alice"),
        ApiKeyConfig(name="bob", secret=KEYS["bob"], user="bob"),
        ApiKeyConfig(name="alice-ro", secret=KEYS["alice_ro"], user="alice", scopes=["memory:read"]),
        ApiKeyConfig(name="admin", secret=KEYS["admin"], scopes=["memory:admin"]),
        ApiKeyConfig(name="owui", secret=KEYS["owui"], trusted_client=True),
    ]


@pytest.fixture(autouse=True)
def _no_project_config(monkeypatch, tmp_path_factory):
    # the repo's config.yaml is for people running the proxy; tests build their own settings
    monkeypatch.setenv("AMBER_CONFIG", str(tmp_path_factory.getbasetemp() / "no-config.yaml"))
    for name in list(os.environ):
        if name.startswith("AMBER_") and name != "AMBER_CONFIG":
            monkeypatch.delenv(name)


def make_settings(data_dir: Path, *, keys: bool = True, **kw) -> Settings:
    os.environ.setdefault("AMBER_CONFIG", str(data_dir / "no-config.yaml"))
    return Settings(data_dir=data_dir, embedding_model="hash", api_keys=key_configs() if keys else [], **kw)


@contextlib.contextmanager
def serve(app, host: str = "127.0.0.1") -> Iterator[str]:
    """Run an ASGI app under uvicorn in a thread on a free port; yields its base URL."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("uvicorn did not start")
        time.sleep(0.02)
    try:
        yield f"http://{host}:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=15)
        sock.close()


@pytest.fixture(scope="module")
def host(tmp_path_factory):
    """A running memory server with the test keys; yields (base_url, service)."""
    os.environ["AMBER_CONFIG"] = str(tmp_path_factory.getbasetemp() / "no-config.yaml")
    data = tmp_path_factory.mktemp("amber-host")
    settings = make_settings(data)
    service = build_service(settings, embedder=HashEmbedder())
    with serve(create_app(service, settings)) as url:
        yield url, service
    service.close()


def auth(name: str, **extra: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {KEYS[name]}", **extra}
