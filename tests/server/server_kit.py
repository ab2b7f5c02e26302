"""Helpers for the memory server tests: API keys for two users, a read-only key, an admin key and a
trusted client; settings on a temp dir; the real app under uvicorn on 127.0.0.1."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path


from core import ApiKeyConfig, Settings
from tests.kit.servers import serve_app

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


serve = serve_app  # the real app under uvicorn on 127.0.0.1


def host_app(sub):
    """A host app (FastAPI, like the LiteLLM proxy) that runs the memory app's lifespan itself, as the hook does;
    mount `sub` on it where the test wants it."""
    from fastapi import FastAPI

    return FastAPI(lifespan=lambda app: sub.router.lifespan_context(sub))


def auth(name: str, **extra: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {KEYS[name]}", **extra}


def zipped(folder: Path) -> bytes:
    """A folder (an export as its app gives it) as one ZIP upload."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for f in sorted(folder.rglob("*")):
            if f.is_file():
                z.write(f, str(f.relative_to(folder)))
    return buf.getvalue()
