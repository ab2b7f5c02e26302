"""`amber doctor` (is everything wired up? in plain words) and `amber keys create`."""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import secrets
import sys
from pathlib import Path

import core
from core import AmberError, RemoteMemory, Settings, StoreLocked, build_service

from .identity import hash_secret
from .llm_check import llm_status

OK, BAD, NOTE = "ok  ", "FAIL", "note"


def _say(status: str, text: str) -> None:
    print(f"[{status}] {text}")


def doctor(args: argparse.Namespace) -> int:
    failures = 0
    config = Path(os.environ.get("AMBER_CONFIG", "config.yaml"))
    _say(NOTE, f"config file {config}: {'found' if config.is_file() else 'not found (defaults and AMBER_* environment apply)'}")
    try:
        settings = Settings()
    except Exception as e:  # pydantic explains which setting is wrong
        _say(BAD, f"settings do not load: {e}")
        return 1
    _say(OK, f"settings: embedder {settings.embedding_model!r}, LLM {settings.llm_model!r}, server {settings.host}:{settings.port}")
    empty = [k.name for k in settings.api_keys if not k.secret]
    if not settings.api_keys:
        _say(NOTE, "no API keys: the server answers only this machine (loopback), as user "
             f"{settings.default_user or 'local'!r}. Create keys with `amber keys create` to use it from elsewhere.")
    elif empty:
        failures += 1
        _say(BAD, f"API keys with an empty secret (environment variable not set?): {', '.join(empty)}")
    else:
        _say(OK, f"{len(settings.api_keys)} API key(s) configured")

    if settings.server_url:
        _say(NOTE, f"remote mode: this process uses the memory host at {settings.server_url}")
        failures += _check_host(settings.server_url, os.environ.get("AMBER_KEY") or settings.server_key)
    else:
        failures += _check_store(settings)

    if args.no_llm:
        _say(NOTE, "LLM check skipped (--no-llm)")
    else:
        failures += _check_llm(settings)
    print("all good" if not failures else f"{failures} problem(s) found")
    return 0 if not failures else 1


def _check_store(settings: Settings) -> int:
    where = settings.chroma_url or str(Path(settings.data_dir).resolve())
    try:
        service = build_service(settings)
    except StoreLocked as e:
        _say(NOTE, f"store at {where} is in use by a running Amber host (that's fine): {e}")
        return _check_host(f"http://{settings.host}:{settings.port}", os.environ.get("AMBER_KEY"))
    except AmberError as e:
        _say(BAD, f"store at {where} cannot be opened: {e}")
        return 1
    try:
        h = service.health()
        bad = 0
        if h["store"]["ok"]:
            _say(OK, f"store at {where} opens and answers ({len(service.users())} user(s))")
        else:
            bad += 1
            _say(BAD, f"store at {where}: {h['store'].get('error')}")
        if h["embedder"]["ok"]:
            _say(OK, f"embedder {h['embedder']['id']} works")
        else:
            bad += 1
            _say(BAD, f"embedder {h['embedder']['id']} fails: {h['embedder'].get('error')}")
        vh = core.vector_health(service)
        if vh["ok"]:
            _say(OK, "every collection was built by the configured embedder")
        else:
            bad += 1
            stale = [u["user_id"] for u in vh["users"] if not u["ok"]]
            _say(BAD, f"collections built by another embedder for {len(stale)} user(s): run `amber reindex`")
        return bad
    finally:
        service.close()


def _check_host(url: str, key: str | None) -> int:
    async def probe() -> dict:
        async with RemoteMemory(url, api_key=key, timeout=5.0) as r:
            return await r.health()

    try:
        h = asyncio.run(probe())
    except AmberError as e:
        _say(BAD, f"memory host at {url} does not answer: {e}")
        return 1
    if h.get("ok"):
        _say(OK, f"memory host at {url} is healthy (embedder {h.get('embedder', {}).get('id')})")
        return 0
    _say(BAD, f"memory host at {url} reports a problem: {h}")
    return 1


def _check_llm(settings: Settings) -> int:
    status = asyncio.run(llm_status(settings))
    if not status["checked"]:
        _say(NOTE, f"LLM not checked: {status.get('error')}")
        return 0
    if not status["ok"]:
        _say(BAD, f"LLM {settings.llm_model!r} is not reachable (extraction and consolidation will wait): {status['error']}")
        return 1
    _say(OK, f"LLM {settings.llm_model!r} answers")
    return 0


def keys_create(args: argparse.Namespace) -> int:
    if not args.user and not args.trusted_client and "memory:admin" not in args.scopes:
        print("amber: a key needs --user, or --trusted-client, or the memory:admin scope", file=sys.stderr)
        return 1
    secret = "amb_" + secrets.token_urlsafe(32)
    env = "AMBER_KEY_" + re.sub(r"[^A-Za-z0-9]+", "_", args.name).upper().strip("_")
    lines = [
        f"    - name: {args.name}",
        f"      secret: os.environ/{env}",
        *([f"      user: {args.user}"] if args.user else []),
        f"      scopes: [{', '.join(args.scopes)}]",
        *(["      trusted_client: true"] if args.trusted_client else []),
    ]
    print(f"New API key {args.name!r} (shown only this once; Amber keeps only its hash):\n\n    {secret}\n")
    print(f"1. Give the key to the memory host's environment:\n\n    export {env}={secret}\n")
    print("2. Add it to the `amber:` section of config.yaml:\n\n  api_keys:\n" + "\n".join(lines) + "\n")
    print(f"   Or, to keep no secret anywhere on the host, use its hash as the secret:\n\n      secret: sha256:{hash_secret(secret)}\n")
    print('3. Clients send it as "Authorization: Bearer <key>" (or ?token=<key> where headers are impossible).')
    return 0
