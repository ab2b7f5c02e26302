"""The real proxy with the real local embedder, fed what once killed it or stalled it.

- "ﷺ" (U+FDFA) twenty times, as a chat message, a recall query over REST and a memory: once it
  corrupted the embedder's heap and took the whole proxy down; now every request answers and the
  proxy's own process is the same one afterwards.
- A 60 KB paste: the chat answers, the turn is stored (clipped to the field limit only past
  100 000 characters), and another user's recall is served meanwhile.
- /health answers without embedding while the document lane is busy.
"""

from __future__ import annotations

import httpx
import openai
import pytest

from tests.hook.harness import MASTER_KEY, Proxy, proxy_config, wait_for

pytestmark = pytest.mark.e2e

KEY = "sk-amber-nevercrash"


@pytest.fixture(scope="module")
def proxy(up, tmp_path_factory):
    p = Proxy(
        proxy_config(up, amber={"api_keys": [{"name": "n", "secret": KEY, "user": "nadia"}], "jobs_enabled": False}),
        tmp_path_factory.mktemp("nevercrash"),
        env={"AMBER_EMBEDDING_MODEL": "local"},
    )
    p.start(timeout=180)
    yield p
    p.stop()


def chat(p: Proxy, user: str, text: str) -> str:
    client = openai.OpenAI(base_url=p.base, api_key=MASTER_KEY, max_retries=0, timeout=120)
    r = client.chat.completions.create(model="gpt-4o-mini", user=user, messages=[{"role": "user", "content": text}])
    return r.choices[0].message.content


def stored_messages(p: Proxy, user: str) -> list[str]:
    r = httpx.get(f"{p.base}/memory/v1/messages", headers={"Authorization": f"Bearer {KEY}"}, timeout=30)
    r.raise_for_status()
    body = r.json()
    return [m["content"] for m in (body["messages"] if isinstance(body, dict) else body)]


def test_the_character_that_crashed_the_proxy(proxy, up):
    pid = proxy.proc.pid
    bad = "ﷺ" * 20
    assert chat(proxy, "nadia", f"remember that {bad} is my favourite phrase") == up.default_reply
    h = {"Authorization": f"Bearer {KEY}"}
    assert httpx.post(f"{proxy.base}/memory/v1/recall", json={"query": bad * 5}, headers=h, timeout=60).status_code == 200
    assert httpx.post(f"{proxy.base}/memory/v1/memories", json={"content": bad * 10}, headers=h, timeout=60).status_code in (200, 201)
    assert chat(proxy, "nadia", bad * 50) == up.default_reply
    # the captured turns are stored, and the proxy is the same process it was
    assert wait_for(lambda: any(bad * 50 in m for m in stored_messages(proxy, "nadia")), timeout=120)
    assert proxy.proc.poll() is None and proxy.proc.pid == pid
    assert httpx.get(f"{proxy.base}/memory/health", timeout=10).json()["ok"]


def test_a_long_paste_is_answered_and_stored(proxy, up):
    paste = "".join(f"line {i}: the quarterly numbers for region {i % 7} look fine.\n" for i in range(1200))
    assert len(paste.encode()) > 60_000
    assert chat(proxy, "nadia", paste) == up.default_reply
    # while the document lane embeds it, health and recall answer
    h = httpx.get(f"{proxy.base}/memory/health", timeout=10)
    assert h.status_code == 200 and "background" in h.json()["embedder"]["lanes"]
    r = httpx.post(f"{proxy.base}/memory/v1/recall", json={"query": "favourite phrase"}, headers={"Authorization": f"Bearer {KEY}"}, timeout=30)
    assert r.status_code == 200
    assert wait_for(lambda: any(m.startswith("line 0: the quarterly") and m.rstrip().endswith("look fine.") for m in stored_messages(proxy, "nadia")), timeout=180)


def test_ready_probe_embeds_and_reports_its_time(proxy):
    body = httpx.get(f"{proxy.base}/memory/health?ready=true", timeout=30).json()
    assert body["ok"] and body["embedder"]["query_ms"] > 0
