"""The memory host goes away for ~25 s while people keep chatting through a remote-mode proxy:
every answered turn is stored exactly once after it comes back, nothing is set aside, the drainer
backs off instead of retrying on every chat, and the journal on disk holds no secret.

Real processes on 127.0.0.1: `amber serve` (hash embedder) and the LiteLLM proxy in remote mode.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import uuid
from collections import Counter
from pathlib import Path

import httpx
import openai
import pytest

from tests.fakes.upstreams import free_port
from tests.hook.harness import MASTER_KEY, Proxy, proxy_config, start_together, wait_for
from tests.kit.servers import start_all, stop_process, wait_answering

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(240)]

HOST_KEY = "sk-amber-outage-host"
USERS = ("olga", "omar", "otto")
RATE_S = 1 / 3  # a chat every 333 ms


class MemoryHost:
    def __init__(self, workdir: Path):
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.config = workdir / "host.yaml"
        self.config.write_text(json.dumps({"amber": {"data_dir": str(workdir / "data"), "jobs_enabled": False,
                                                     "api_keys": [{"name": "relay", "secret": HOST_KEY, "trusted_client": True}]}}))
        self.env = {**{k: v for k, v in os.environ.items() if not k.startswith("AMBER_")}, "AMBER_EMBEDDING_MODEL": "hash", "OMP_WAIT_POLICY": "PASSIVE"}
        self.log = workdir / "host.log"
        self.proc: subprocess.Popen | None = None

    def launch(self) -> None:
        with open(self.log, "ab") as log:
            self.proc = subprocess.Popen([str(Path(sys.executable).parent / "amber"), "--config", str(self.config), "serve",
                                          "--port", str(self.port), "--no-jobs"], env=self.env, stdout=log, stderr=subprocess.STDOUT)

    def start(self) -> None:
        self.launch()
        wait_answering(self.base + "/health", self.proc, what="memory host", timeout=60, log=lambda: self.log.read_text(errors="replace"))

    def stop(self) -> None:
        if self.proc is not None:
            stop_process(self.proc, timeout=15)

    def said(self, user: str, needle: str) -> list[str]:
        r = httpx.get(self.base + "/v1/messages", params={"text": needle}, timeout=15,
                      headers={"Authorization": f"Bearer {HOST_KEY}", "X-Amber-User": user})
        r.raise_for_status()
        return [m["content"] for m in r.json()["messages"] if m["role"] == "user"]


@pytest.fixture(scope="module")
def deployment(up, tmp_path_factory):
    host = MemoryHost(tmp_path_factory.mktemp("host"))
    proxy = Proxy(proxy_config(up, amber={"server_url": host.base, "jobs_enabled": False}),
                  tmp_path_factory.mktemp("proxy"), env={"AMBER_SERVER_KEY": HOST_KEY})
    try:
        start_all(host.start, lambda: start_together((proxy, {"wait_memory": False})))
        assert wait_for(lambda: "remote mode" in proxy.log(), timeout=60), proxy.log()[-3000:]
        yield host, proxy
    finally:
        proxy.stop()
        host.stop()


def journal(proxy: Proxy) -> str:
    spool = proxy.workdir / "data" / "spool"
    return "".join(p.read_text(errors="replace") for p in spool.iterdir() if p.is_file()) if spool.is_dir() else ""


def test_an_outage_under_steady_chat_loses_and_doubles_nothing(deployment):
    host, proxy = deployment
    client = openai.OpenAI(base_url=proxy.base, api_key=MASTER_KEY, max_retries=0, timeout=30)
    run = uuid.uuid4().hex[:8]
    acked: list[tuple[str, str]] = []

    def chat_for(seconds: float, until=None) -> None:
        end = time.monotonic() + seconds
        while time.monotonic() < end or (until is not None and not until()):
            started = time.monotonic()
            user, marker = USERS[len(acked) % 3], f"turn-{run}-{len(acked)}"
            r = client.chat.completions.create(model="gpt-4o-mini", user=user, messages=[{"role": "user", "content": f"note {marker} please"}])
            assert r.choices[0].message.content  # answered: from here on the turn must not be lost
            acked.append((user, marker))
            time.sleep(max(0.0, RATE_S - (time.monotonic() - started)))

    chat_for(3)
    assert wait_for(lambda: host.said(USERS[0], f"turn-{run}-0"), timeout=30), proxy.log()[-3000:]
    waiting_before = proxy.log().count("amber capture waiting")

    host.stop()
    outage = time.monotonic()
    secret = f"Zq{run}x9"
    client.chat.completions.create(model="gpt-4o-mini", user=USERS[0], messages=[{"role": "user", "content": f"my password is {secret}"}])
    chat_for(15)
    assert list((proxy.workdir / "data" / "spool").glob("*.jsonl")), "turns wait in the journal"
    assert secret not in journal(proxy)  # redacted before it touched the disk
    host.launch()  # chats go on while it starts
    chat_for(2, until=lambda: _answers(host))
    outage_s = time.monotonic() - outage
    chat_for(2)

    def stored() -> Counter:
        return Counter(said.split()[1] for user in USERS for said in host.said(user, f"turn-{run}-"))

    assert wait_for(lambda: len(stored()) >= len(acked), timeout=45, interval=1), proxy.log()[-4000:]
    assert stored() == Counter(marker for _, marker in acked), "every answered turn stored exactly once"
    assert not (proxy.workdir / "data" / "spool" / "quarantine.ndjson").exists()
    assert wait_for(lambda: not list((proxy.workdir / "data" / "spool").glob("*.jsonl")), timeout=10)
    # the drainer backed off: a round per backoff step (1, 2, 4, 8, 16 s), not one per chat
    rounds = proxy.log().count("amber capture waiting") - waiting_before
    assert rounds <= 8, (rounds, len(acked), outage_s)
    assert "amber capture resumed" in proxy.log()
    print(json.dumps({"acked": len(acked), "outage_s": round(outage_s, 1), "drain_rounds_during_outage": rounds, "lost": 0, "doubled": 0}))


def _answers(host: MemoryHost) -> bool:
    try:
        return httpx.get(host.base + "/health", timeout=2).status_code == 200
    except httpx.HTTPError:
        return False
