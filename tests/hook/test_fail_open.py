"""Memory failures never fail a chat: a recall timeout and an unreachable store both give HTTP 200
with the client's messages forwarded as sent, and a log line that says why.

Two real proxies, started side by side: one whose recall budget is too small to ever finish, and
one in remote mode whose memory host does not answer.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import anthropic
import httpx
import openai
import pytest

from tests.fakes.upstreams import free_port
from tests.hook.harness import MASTER_KEY, Proxy, proxy_config, start_together, wait_for
from tests.kit.servers import answers, stop_process

pytestmark = pytest.mark.e2e

KEY = "sk-amber-failopen-test"
HOST_KEY = "sk-amber-host-test"
HOST_PORT = free_port()


@pytest.fixture(scope="module")
def proxies(up, tmp_path_factory):
    slow = Proxy(
        proxy_config(up, amber={"recall_timeout_s": 0.0001, "api_keys": [{"name": "f", "secret": KEY, "user": "frank"}]}),
        tmp_path_factory.mktemp("slow"),
    )
    # its memory host is down until test_spooled_turns_are_replayed_when_the_host_is_back starts one
    dead = Proxy(
        proxy_config(up, amber={"server_url": f"http://127.0.0.1:{HOST_PORT}", "jobs_enabled": False}),
        tmp_path_factory.mktemp("dead"),
        env={"AMBER_SERVER_KEY": HOST_KEY},
    )
    try:
        start_together((slow, {}), (dead, {"wait_memory": False}))
        # remote mode mounts nothing: wait until the hook has its (unreachable) memory
        assert wait_for(lambda: "remote mode" in dead.log(), timeout=60), dead.log()[-3000:]
        yield slow, dead
    finally:
        slow.stop()
        dead.stop()


def chat(p: Proxy, user: str, text: str, **kw):
    return openai.OpenAI(base_url=p.base, api_key=MASTER_KEY, max_retries=0, timeout=60).chat.completions.create(
        model="gpt-4o-mini", user=user, messages=[{"role": "user", "content": text}], **kw
    )


def test_recall_timeout_forwards_the_original_messages(proxies, up):
    slow, _ = proxies
    r = httpx.post(f"{slow.base}/memory/v1/memories", headers={"Authorization": f"Bearer {KEY}"}, json={"content": "frank keeps bees"}, timeout=30)
    assert r.status_code in (200, 201)
    answer = chat(slow, "frank", "what do I keep in my garden? (timeout)")
    assert answer.choices[0].message.content == up.default_reply
    rec = up.find("/chat/completions", contains="(timeout)")[-1]
    assert rec.messages == [{"role": "user", "content": "what do I keep in my garden? (timeout)"}]
    assert wait_for(lambda: "recall timed out" in slow.log())


def test_recall_timeout_on_a_claude_stream_still_answers(proxies, up):
    slow, _ = proxies
    client = anthropic.Anthropic(base_url=slow.base, api_key=MASTER_KEY, max_retries=0, timeout=60)
    with client.messages.stream(
        model="claude-sonnet", max_tokens=32, metadata={"user_id": "frank"},
        messages=[{"role": "user", "content": "bees again? (timeout stream)"}],
    ) as s:
        assert s.get_final_text() == up.default_reply
    rec = up.find("/v1/messages", contains="(timeout stream)")[-1]
    assert "memory_context" not in json.dumps(rec.body)


def test_jobs_are_scheduled_at_proxy_start(proxies):
    slow, _ = proxies
    line = wait_for(lambda: next((ln for ln in slow.log().splitlines() if "jobs scheduled" in ln), None))
    assert line and "amber-extract" in line and "amber-retention" in line


def test_unreachable_store_forwards_the_original_messages(proxies, up):
    _, dead = proxies
    answer = chat(dead, "grace", "tell me about my week (store down)")
    assert answer.choices[0].message.content == up.default_reply
    rec = up.find("/chat/completions", contains="(store down)")[-1]
    assert rec.messages == [{"role": "user", "content": "tell me about my week (store down)"}]
    assert wait_for(lambda: "recall failed: StoreUnavailable" in dead.log())
    # capture cannot store either: the turns wait in the journal, the response is untouched
    assert wait_for(lambda: "amber capture waiting" in dead.log())
    assert wait_for(lambda: list((dead.workdir / "data" / "spool").glob("*.jsonl")))


def test_unreachable_store_streaming(proxies, up):
    _, dead = proxies
    stream = chat(dead, "grace", "stream please (store down)", stream=True)
    assert "".join(c.choices[0].delta.content or "" for c in stream if c.choices) == up.default_reply


def test_spooled_turns_are_replayed_when_the_host_is_back(proxies, up, tmp_path):
    _, dead = proxies
    chat(dead, "grace", "remember that my sister is called Maud (store down)")
    assert wait_for(lambda: dead.log().count("amber capture waiting") >= 2, timeout=90)
    cfg = tmp_path / "host.yaml"
    cfg.write_text(json.dumps({"amber": {"data_dir": str(tmp_path / "data"), "api_keys": [{"name": "relay", "secret": HOST_KEY, "trusted_client": True}]}}))
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("AMBER_")}, "AMBER_EMBEDDING_MODEL": "hash", "OMP_WAIT_POLICY": "PASSIVE"}
    amber = Path(sys.executable).parent / "amber"
    host = subprocess.Popen([str(amber), "--config", str(cfg), "serve", "--port", str(HOST_PORT), "--no-jobs"], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        base = f"http://127.0.0.1:{HOST_PORT}"
        assert wait_for(lambda: answers(base + "/health"), timeout=60), "memory host did not start"
        chat(dead, "grace", "hello again")  # journaled behind the waiting turns; new traffic does not cut the backoff short

        def stored() -> list[str]:
            r = httpx.get(base + "/v1/messages", headers={"Authorization": f"Bearer {HOST_KEY}", "X-Amber-User": "grace"}, timeout=10)
            body = r.json()
            return [m["content"] for m in (body["messages"] if isinstance(body, dict) else body)]

        everything = ("tell me about my week (store down)", "hello again", "remember that my sister is called Maud (store down)")
        # the drainer retries on its backoff timer (at most 30 s apart), oldest turn first, then the rest
        got = wait_for(lambda: (lambda c: c if all(t in c for t in everything) else None)(stored()), timeout=90)
        assert got, stored()
        # the explicit command spooled with its turn took effect on replay
        mems = httpx.get(base + "/v1/memories", headers={"Authorization": f"Bearer {HOST_KEY}", "X-Amber-User": "grace"}, timeout=10).json()
        assert any("Maud" in m["content"] for m in mems["items"])
        assert wait_for(lambda: not list((dead.workdir / "data" / "spool").glob("*.jsonl")))
    finally:
        stop_process(host, timeout=15)
