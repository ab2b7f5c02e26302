"""Why this memory and "that's wrong" through the real LiteLLM proxy (fake upstreams on 127.0.0.1):
the x-amber-memories header names the handles the upstream got, GET /memory/v1/why answers for the
last request, a correction in the chat retires the wrong fact for good, and a proxy in remote mode
gets the same from the memory host (which keeps the why record, since it recalled)."""

from __future__ import annotations

import httpx
import openai
import pytest

from tests.hook.harness import MASTER_KEY, Proxy, proxy_config, start_together, wait_for

pytestmark = pytest.mark.e2e

KEYS = {"ana": "sk-amber-why-ana", "relay": "sk-amber-why-relay"}


@pytest.fixture(scope="module")
def proxies(up, tmp_path_factory):
    amber = {"recall_timeout_s": 10, "jobs_enabled": False,
             "api_keys": [{"name": "ana", "secret": KEYS["ana"], "user": "ana"},
                          {"name": "relay", "secret": KEYS["relay"], "trusted_client": True}]}
    host = Proxy(proxy_config(up, amber=amber), tmp_path_factory.mktemp("why-host"))
    remote = Proxy(proxy_config(up, amber={"server_url": f"{host.base}/memory", "jobs_enabled": False}),
                   tmp_path_factory.mktemp("why-remote"), env={"AMBER_SERVER_KEY": KEYS["relay"]})
    try:
        start_together((host, {}), (remote, {"wait_memory": False}))
        assert wait_for(lambda: "remote mode" in remote.log(), timeout=60), remote.log()[-3000:]
        yield host, remote
    finally:
        host.stop()
        remote.stop()


def rest(proxy: Proxy, method: str, path: str, *, key: str, user: str | None = None, **kw) -> httpx.Response:
    headers = {"Authorization": f"Bearer {KEYS[key]}", **({"X-Amber-User": user} if user else {})}
    return httpx.request(method, f"{proxy.base}/memory/v1{path}", headers=headers, timeout=30, **kw)


def ask(proxy: Proxy, user: str, text: str):
    client = openai.OpenAI(base_url=proxy.base, api_key=MASTER_KEY, max_retries=0, timeout=60)
    return client.chat.completions.with_raw_response.create(model="gpt-4o-mini", user=user, messages=[{"role": "user", "content": text}])


def sent(up, text: str) -> str:
    rec = up.find("/chat/completions", contains=text)[-1]
    content = rec.body["messages"][-1]["content"]
    return content if isinstance(content, str) else "\n".join(b.get("text", "") for b in content)


def test_header_why_and_a_correction_through_the_proxy(proxies, up):
    host, _ = proxies
    r = rest(host, "POST", "/memories", key="ana", json={"content": "I live in Shanghai", "fact_key": "profile.city"})
    r.raise_for_status()
    old = r.json()["memory"]["id"]

    raw = ask(host, "ana", "Where do I live, remind me?")
    shown = raw.headers.get("x-amber-memories", "").split()
    block = sent(up, "Where do I live, remind me?")
    assert shown and all(h in block for h in shown) and "Shanghai" in block
    why = rest(host, "GET", "/why", key="ana").json()["requests"]
    assert [i["handle"] for i in why[0]["items"]] == shown and why[0]["items"][0]["id"] == old
    assert why[0]["items"][0]["text"] == "I live in Shanghai" and why[0]["items"][0]["arms"]

    ask(host, "ana", "That's wrong, I moved to Hangzhou")
    note = sent(up, "That's wrong, I moved to Hangzhou")
    assert "corrected" in note and "Hangzhou" in note
    assert rest(host, "GET", f"/memories/{old}", key="ana").json()["status"] == "superseded"
    ask(host, "ana", "So where do I live now?")
    after = sent(up, "So where do I live now?")
    assert "Hangzhou" in after and "Shanghai" not in after


def test_a_remote_proxy_gets_its_header_and_the_host_keeps_the_why(proxies, up):
    host, remote = proxies
    rest(host, "POST", "/memories", key="relay", user="bea", json={"content": "My cat is called Miso"}).raise_for_status()
    raw = ask(remote, "bea", "What is my cat called again?")
    shown = raw.headers.get("x-amber-memories", "").split()
    assert shown and all(h in sent(up, "What is my cat called again?") for h in shown)
    why = rest(host, "GET", "/why", key="relay", user="bea").json()["requests"]
    assert [i["handle"] for i in why[0]["items"]] == shown
    assert "Miso" not in rest(host, "GET", "/why", key="ana", params={"last": 20}).text  # only bea's own


def test_a_long_paste_through_a_remote_proxy_still_gets_memory(proxies, up):
    """A memory host takes a recall query of at most 4 000 characters (REST and MCP): a remote proxy
    sent the whole turn, was refused, and a long paste went to the model with no memory. It sends
    the turn's tail, where the question is."""
    host, remote = proxies
    rest(host, "POST", "/memories", key="relay", user="cai", json={"content": "My dog is called Biscuit"}).raise_for_status()
    paste = "Here are my notes from the week. " + " ".join(f"line {i} of the log, nothing to see." for i in range(400))
    question = "Anyway, what is my dog called again?"
    assert len(paste) > 8_000
    ask(remote, "cai", f"{paste}\n\n{question}")
    assert "Biscuit" in sent(up, question)
    assert "recall failed" not in remote.log()
