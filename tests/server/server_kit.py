"""Helpers for the memory server tests: API keys for two users, a read-only key, an admin key and a
trusted client; settings on a temp dir; the real app under uvicorn on 127.0.0.1."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from pathlib import Path
from typing import Iterator

import uvicorn

from core import ApiKeyConfig, Settings

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


def make_settings(data_dir: Path, *, keys: bool = True, **kw) -> Settings:
    return Settings(data_dir=data_dir, embedding_model="hash", api_keys=key_configs() if keys else [], **kw)


@contextlib.contextmanager
def serve(app, host: str = "127.0.0.1", **config) -> Iterator[str]:
    """Run an ASGI app under uvicorn in a thread on a free port; yields its base URL."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, **{"log_level": "warning", "lifespan": "on", **config}))
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


def auth(name: str, **extra: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {KEYS[name]}", **extra}
