"""Memory failures never fail a chat: a recall timeout and an unreachable store both give HTTP 200
with the client's messages forwarded as sent, and a log line that says why.

Two real proxies, started side by side: one whose recall budget is too small to ever finish, and
one in remote mode whose memory host does not answer.
"""

from __future__ import annotations

import json
import threading

import anthropic
import httpx
import openai
import pytest

from tests.fakes.upstreams import FakeUpstreams, free_port
from tests.hook.harness import MASTER_KEY, Proxy, proxy_config, wait_for

pytestmark = pytest.mark.e2e

KEY = "sk-amber-failopen-test"


@pytest.fixture(scope="module")
def up():
    with FakeUpstreams() as fake:
        yield fake


@pytest.fixture(scope="module")
def proxies(up, tmp_path_factory):
    slow = Proxy(
        proxy_config(up, amber={"recall_timeout_s": 0.0001, "api_keys": [{"name": "f", "secret": KEY, "user": "frank"}]}),
        tmp_path_factory.mktemp("slow"),
    )
    dead = Proxy(proxy_config(up, amber={"server_url": f"http://127.0.0.1:{free_port()}"}), tmp_path_factory.mktemp("dead"))
    errors: list[BaseException] = []

    def start(p: Proxy, **kw) -> None:
        try:
            p.start(**kw)
        except BaseException as e:  # reported below, after both threads finish
            errors.append(e)

    threads = [threading.Thread(target=start, args=(slow,)), threading.Thread(target=start, args=(dead,), kwargs={"wait_memory": False})]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    try:
        if errors:
            raise errors[0]
        # remote mode mounts nothing: wait until the hook has its (unreachable) backend
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
    # capture fails too, and says so, without touching the response
    assert wait_for(lambda: "amber capture skipped" in dead.log())


def test_unreachable_store_streaming(proxies, up):
    _, dead = proxies
    stream = chat(dead, "grace", "stream please (store down)", stream=True)
    assert "".join(c.choices[0].delta.content or "" for c in stream if c.choices) == up.default_reply
