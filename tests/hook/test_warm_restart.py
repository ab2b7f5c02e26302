"""A proxy restarted: the people it served find their recall indexes built before they ask.

The real LiteLLM proxy with Amber's hook (embedded store), stopped the way an operator stops it and
started again on the same data directory (core/recall/warm_start.py)."""

from __future__ import annotations

import json

import httpx
import openai
import pytest

from core import Actor, scope_for
from core.recall import warm_start
from core.scope import memory_collection, message_collection
from tests.hook.harness import MASTER_KEY, Proxy, proxy_config, wait_for

pytestmark = pytest.mark.e2e
RELAY = "sk-amber-warm-relay"


def chat(proxy: Proxy, user: str, text: str) -> None:
    client = openai.OpenAI(base_url=proxy.base, api_key=MASTER_KEY, max_retries=0, timeout=60)
    client.chat.completions.create(model="gpt-4o-mini", user=user, messages=[{"role": "user", "content": text}])


def test_the_people_a_proxy_served_find_their_indexes_built_after_a_restart(up, tmp_path):
    keys = [{"name": "relay", "secret": RELAY, "trusted_client": True}]  # reads a user's memories, as the tests' relay
    # the list is kept up to date every second: the proxy's SIGTERM ends it before anything closes
    proxy = Proxy(proxy_config(up, amber={"jobs_enabled": False, "api_keys": keys, "recall_warm_save_s": 1}), tmp_path)
    try:
        proxy.start()
        chat(proxy, "wren", "remember that my bicycle is a green Gazelle")
        assert wait_for(lambda: "green Gazelle" in json.dumps(memories(proxy, "wren")), timeout=60)
        chat(proxy, "wren", "which bicycle do I ride?")  # a recall: wren's indexes are built and held
        wren = scope_for(Actor("wren"))
        listed = tmp_path / "data" / warm_start.FILE
        assert wait_for(lambda: listed.exists() and {c for _, c in json.loads(listed.read_text())["serving"]}
                        == {memory_collection(wren), message_collection(wren)}, timeout=30)
        proxy.stop()

        proxy.start()
        assert wait_for(lambda: "recall indexes built ahead at start: 2 of 2" in proxy.log(), timeout=60), proxy.log()[-3000:]
        up.clear()
        chat(proxy, "wren", "which bicycle do I ride these days?")
        sent = up.find("/chat/completions", contains="which bicycle do I ride these days?")[-1]
        assert "green Gazelle" in json.dumps(sent.body)
    finally:
        proxy.stop()


def memories(proxy: Proxy, user: str) -> list[str]:
    r = httpx.get(f"{proxy.base}/memory/v1/memories", headers={"Authorization": f"Bearer {RELAY}", "X-Amber-User": user}, timeout=15)
    r.raise_for_status()
    return [m["content"] for m in r.json()["items"]]
