"""Helpers and fixtures for the admin page tests: a real `amber serve` with keys for two users and an admin, and
Debian's chromium driven by Playwright (its own browser download is never used)."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.kit.servers import free_port, serve_app, stop_process, wait_answering

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]
KEYS = {"alice": "k-admin-page-alice-41c2", "bob": "k-admin-page-bob-8e07", "admin": "k-admin-page-root-5a5a"}
AMBER = str(Path(sys.executable).with_name("amber"))
XSS_IMG = '<img src=x onerror="window.__pwned=1;alert(1)">'
XSS_SCRIPT = "<script>window.__pwned=2;alert(2)</script>"


def auth(name: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {KEYS[name]}"}


def server_env(tmp: Path) -> dict[str, str]:
    keys = [
        {"name": "alice", "secret": KEYS["alice"], "user": "alice"},
        {"name": "bob", "secret": KEYS["bob"], "user": "bob"},
        {"name": "admin", "secret": KEYS["admin"], "scopes": ["memory:admin"]},
    ]
    base = {k: v for k, v in os.environ.items() if not k.startswith(("AMBER_", "OPENAI_"))}
    return {**base, "AMBER_CONFIG": str(tmp / "none.yaml"), "AMBER_DATA_DIR": str(tmp / "data"), "AMBER_EMBEDDING_MODEL": "hash",
            "AMBER_API_KEYS": json.dumps(keys), "LITELLM_LOCAL_MODEL_COST_MAP": "True", "OMP_WAIT_POLICY": "PASSIVE"}


def remember(url: str, who: str, content: str, **fields) -> dict:
    r = httpx.post(f"{url}/v1/memories", json={"content": content, **fields}, headers=auth(who), timeout=30)
    assert r.status_code == 200, r.text
    return r.json()["memory"]


def seed(url: str) -> dict[str, dict]:
    """Alice: 30 memories (two pages), a keyed fact with an older version, the XSS memories, four candidates.
    Bob: a couple of his own, one with a word Alice also uses."""
    mem: dict[str, dict] = {}
    for i in range(26):
        remember(url, "alice", f"Alice filler note number {i:02d} about her garden")
    mem["old_city"] = remember(url, "alice", "Alice lives in Lisbon", fact_key="profile.city", category="profile")
    mem["city"] = remember(url, "alice", "Alice lives in Porto", fact_key="profile.city", category="profile")
    mem["edit"] = remember(url, "alice", "Alice prefers green tea", category="preference")
    mem["delete"] = remember(url, "alice", "Alice once owned a red bicycle", category="world")
    mem["xss_img"] = remember(url, "alice", f"Alice pasted {XSS_IMG} into a chat")
    mem["xss_script"] = remember(url, "alice", f"And then {XSS_SCRIPT} too")
    mem["tea"] = remember(url, "alice", "Alice drinks tea every morning", category="preference")
    mem["bike"] = remember(url, "alice", "Alice plans to buy a cargo bike", category="goal")
    mem["cand_approve"] = remember(url, "alice", "Alice might be learning the cello", status="candidate", confidence=0.6, category="skill")
    mem["cand_merge"] = remember(url, "alice", "Alice likes tea with lemon", status="candidate", confidence=0.6, category="preference")
    mem["cand_discard"] = remember(url, "alice", "Alice may dislike opera", status="candidate", confidence=0.5)
    mem["cand_supersede"] = remember(url, "alice", "Alice bought a cargo bike", status="candidate", confidence=0.7, category="goal")
    mem["bob_secret"] = remember(url, "bob", "Bob's secret: the safe number is 4711", category="world")
    mem["bob_tea"] = remember(url, "bob", "Bob prefers black tea", category="preference")
    return mem


@contextlib.contextmanager
def served(env: dict[str, str], timeout: float = 90) -> Iterator[str]:
    """`amber serve` as a real subprocess on 127.0.0.1 with `env` (server_env); yields its base URL."""
    port = free_port()
    proc = subprocess.Popen([AMBER, "serve", "--port", str(port), "--no-jobs"], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_answering(f"{url}/health", proc, what="amber serve", timeout=timeout, log=lambda: proc.stderr.read() if proc.stderr else "")
        yield url
    finally:
        stop_process(proc, timeout=30)


@pytest.fixture(scope="module")
def host(tmp_path_factory):
    """`amber serve` with keys (server_env); yields (base_url, seeded memories)."""
    with served(server_env(tmp_path_factory.mktemp("admin-host"))) as url:
        yield url, seed(url)


@pytest.fixture(scope="module")
def browser():
    if not os.access(CHROMIUM, os.X_OK):
        pytest.fail(f"{CHROMIUM} is missing: `make test` installs it (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            yield b
        finally:
            b.close()


class Watch:
    """What a page did that it should not: dialogs opened, uncaught errors, console errors."""

    def __init__(self, page):
        self.dialogs: list[str] = []
        self.errors: list[str] = []
        page.on("dialog", self._dialog)
        page.on("pageerror", lambda e: self.errors.append(str(e)))
        # the tests run under the page's own CSP: anything it blocks would be the page's bug
        page.on("console", lambda m: self.errors.append(m.text) if "Content Security Policy" in m.text else None)

    def _dialog(self, d) -> None:
        self.dialogs.append(d.message)
        d.dismiss()


@pytest.fixture
def page_for(browser):
    """page_for(**context_options) -> (page, watch); contexts are closed after the test."""
    contexts = []

    def make(**options):
        ctx = browser.new_context(viewport={"width": 1360, "height": 900}, **options)
        contexts.append(ctx)
        page = ctx.new_page()
        page.set_default_timeout(15_000)
        return page, Watch(page)

    yield make
    for ctx in contexts:
        ctx.close()


def login(page, url: str, key: str, user: str = "") -> None:
    page.goto(f"{url}/admin")
    page.fill("#key", key)
    if user:
        page.fill("#as-user", user)
    page.click("#login-form button[type=submit]")


@contextlib.contextmanager
def serve_mounted(data_dir: Path, prefix: str = "/memory") -> Iterator[str]:
    """The memory server app mounted under `prefix` of another app, as the LiteLLM proxy hosts it, in
    local mode (no keys: loopback only); uvicorn in a thread on a free port. Yields the host's base URL."""
    from starlette.applications import Starlette
    from starlette.routing import Mount

    from core import Settings, build_service
    from core.testing import HashEmbedder
    from mcp_server.app import create_app

    settings = Settings(data_dir=data_dir, embedding_model="hash", api_keys=[], default_user="me")
    service = build_service(settings, embedder=HashEmbedder())
    sub = create_app(service, settings)
    # like the hook: the host runs the mounted app's lifespan itself
    host_app = Starlette(routes=[Mount(prefix, app=sub)], lifespan=lambda app: sub.router.lifespan_context(sub))
    try:
        with serve_app(host_app) as url:
            yield url
    finally:
        service.close()
