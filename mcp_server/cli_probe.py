"""HTTP probes for `amber doctor`: find which Amber host answers and ask it, without opening anything.

Kept apart from the report so what is asked (and how each answer is read) is in one place.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import httpx

STARTING_WAIT_S = 8.0  # a proxy that has just started answers "starting" for a second or two


@dataclass
class Found:
    host: str | None = None  # the memory server's base URL
    proxy: str | None = None  # the LiteLLM proxy's base URL when it hosts the memory server
    health: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    problem: tuple[str, str] | None = None  # (what is wrong, how to fix it) when no host was usable


class Probe:
    def __init__(self, http: httpx.Client, key: str | None):
        self.http, self.key = http, key

    def get(self, base: str, path: str, *, params: dict | None = None, timeout: float | None = None,
            auth: bool = True) -> httpx.Response | None:
        headers = {"Authorization": f"Bearer {self.key}"} if auth and self.key else {}
        try:
            return self.http.get(base + path, params=params, headers=headers, **({"timeout": timeout} if timeout else {}))
        except httpx.HTTPError:
            return None

    @staticmethod
    def json(resp: httpx.Response | None) -> dict[str, Any] | None:
        if resp is None:
            return None
        try:
            body = resp.json()
        except ValueError:
            return None
        return body if isinstance(body, dict) else None

    def detail(self, resp: httpx.Response) -> str:
        body = self.json(resp) or {}
        err = body.get("error")
        if isinstance(err, dict):  # LiteLLM's shape
            text = str(err.get("message") or err)
        else:
            text = str(body.get("detail") or err or resp.text or resp.reason_phrase)
        return text.strip().splitlines()[0][:300] if text.strip() else f"HTTP {resp.status_code}"

    def chat(self, proxy: str, master: str, model: str) -> tuple[bool, str]:
        """One tiny completion through the proxy's model group, kept out of memory (x-amber-memory: off)."""
        try:
            resp = self.http.post(
                f"{proxy}/v1/chat/completions", timeout=30.0,
                headers={"Authorization": f"Bearer {master}", "x-amber-memory": "off"},
                json={"model": model, "max_tokens": 5, "messages": [{"role": "user", "content": "Reply with the word: ok"}]},
            )
        except httpx.HTTPError as e:
            return False, f"the proxy did not answer: {type(e).__name__}"
        return (True, "") if resp.status_code == 200 else (False, self.detail(resp))


def proxy_models(probe: Probe, proxy: str, master: str) -> tuple[int, list[str] | None, str]:
    """The proxy's model groups (its OpenAI-style model list, read with the master key)."""
    try:
        resp = probe.http.get(f"{proxy}/v1/models", headers={"Authorization": f"Bearer {master}"})
    except httpx.HTTPError as e:
        return 0, None, type(e).__name__
    body = probe.json(resp)
    if resp.status_code != 200 or body is None:
        return resp.status_code, None, probe.detail(resp)
    return 200, sorted({str(m.get("id")) for m in body.get("data") or [] if isinstance(m, dict)}), ""


def find_host(probe: Probe, candidates: list[str]) -> Found:
    """Ask each candidate's /health in turn; the first Amber host that answers wins. What the others
    said is kept as notes (or as the problem, when nothing usable answers)."""
    found = Found()
    queue = list(candidates)
    while queue:
        base = queue.pop(0).rstrip("/")
        proxy = base[: -len("/memory")] if base.endswith("/memory") else None
        resp = _health(probe, base)
        body = probe.json(resp)
        if resp is None:  # the usual case for the address not in use; the final verdict names both
            continue
        if body and "store" in body and "version" in body:
            found.host, found.proxy, found.health = base, proxy, body
            if found.problem:  # another address was wrong, but this one works: say it in passing
                found.notes.append(found.problem[0])
                found.problem = None
            return found
        error = (body or {}).get("error")
        if error == "memory_starting":
            found.problem = (f"the LiteLLM proxy at {proxy} is still starting its memory after {STARTING_WAIT_S:.0f} s",
                             "wait a little and run `amber doctor` again; if it stays so, read the proxy's log")
        elif error == "memory_off":
            fix = ("stop the other process that holds the store, or make this proxy its client: `server_url:` (that host's "
                   "address) in config.yaml's `amber:` section; then restart the proxy") if body.get("cause") == "StoreLocked" \
                else "correct what the reason names (config.yaml's `amber:` section or the environment), then restart the proxy"
            found.problem = (f"the LiteLLM proxy at {proxy} runs, but its memory is off: {body.get('detail')}", fix)
        elif error == "memory_elsewhere" and body.get("memory_host"):
            found.notes.append(f"the LiteLLM proxy at {proxy} keeps no memory itself; it uses the memory host at {body['memory_host']}")
            queue.insert(0, str(body["memory_host"]))
        elif proxy and resp.status_code == 404 and _answers(probe, proxy + "/health/liveliness"):
            found.problem = (f"the LiteLLM proxy at {proxy} answers, but no Amber memory server is at {base}",
                             "add `litellm_hooks.amber.amber_memory` to `litellm_settings: callbacks` in its config.yaml and start "
                             "it from Amber's directory (`make run`); if it is there, the proxy's log says why memory is off")
        else:
            found.notes.append(f"{base} answers, but not as an Amber host (HTTP {resp.status_code})")
    return found


def _health(probe: Probe, base: str) -> httpx.Response | None:
    deadline = time.monotonic() + STARTING_WAIT_S
    while True:
        resp = probe.get(base, "/health", auth=False)
        if resp is None or resp.status_code != 503 or (probe.json(resp) or {}).get("error") != "memory_starting":
            return resp
        if time.monotonic() > deadline:
            return resp
        time.sleep(0.5)


def _answers(probe: Probe, url: str) -> bool:
    try:
        return probe.http.get(url).status_code < 500
    except httpx.HTTPError:
        return False
