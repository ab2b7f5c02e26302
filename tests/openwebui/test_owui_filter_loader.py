"""The filter as Open WebUI runs it: loaded by Open WebUI's own loader (in .venv-owui), called with a
fake `__user__` and event emitter, against a real Amber host (`amber serve`) on 127.0.0.1."""

from __future__ import annotations

import copy
import socket
import threading
import uuid
from datetime import datetime, timezone

import httpx
import pytest

pytestmark = pytest.mark.e2e


def uid(name: str) -> str:
    return f"{name}-{uuid.uuid4().hex[:8]}"


def valves(host, **extra) -> dict:
    return {"amber_url": host.url, "api_key": host.key, **extra}


def remember(host, user: str, text: str) -> None:
    now = datetime.now(timezone.utc).isoformat()
    out = host.ingest(user, [{"id": uuid.uuid4().hex, "role": "user", "content": f"remember that {text}", "created_at": now}])
    assert out["ingested"] == 1


def chat(question: str) -> dict:
    return {
        "model": "fake-model",
        "messages": [
            {"role": "system", "content": "You are a helpful assistant."},
            {"role": "user", "content": "Hello there"},
            {"role": "assistant", "content": "Hi! How can I help?"},
            {"role": "user", "content": question},
        ],
        "features": {"memory": True},
    }


def statuses(result: dict) -> list[str]:
    return [e["data"]["description"] for e in result["events"] if e["type"] == "status"]


def sources(result: dict) -> list[dict]:
    return [e["data"] for e in result["events"] if e["type"] in ("source", "citation")]


def test_loads_through_open_webui_as_a_filter(driver):
    assert driver.hello["kind"] == "filter"
    fm = driver.hello["frontmatter"]
    for key in ("title", "author", "version", "license", "required_open_webui_version", "description"):
        assert fm.get(key), key
    assert driver.hello["instance_attrs"] == ["valves"]


def test_inlet_injects_recalled_memory_at_the_end_of_the_last_user_message(driver, amber_host):
    alice = uid("alice")
    remember(amber_host, alice, "my cat is called Miso")
    body = chat("What is my cat called?")
    res = driver.call(valves(amber_host), handler="inlet", body=copy.deepcopy(body), user={"id": alice, "name": "Alice"})

    assert not res["raised"], res["error"]
    out = res["body"]
    # Everything before the last user message is untouched, byte for byte (the provider's prefix cache).
    assert out["messages"][:3] == body["messages"][:3]
    last = out["messages"][3]["content"]
    assert last.startswith("What is my cat called?\n\n<memory_context>")
    assert last.endswith("</memory_context>") and "Miso" in last
    assert out["features"]["memory"] is False  # Open WebUI's own memory is off for this request

    cited = sources(res)
    assert len(cited) == 1 and cited[0]["source"]["name"] == "Amber memory"
    assert any("Miso" in d for d in cited[0]["document"])
    n = len(cited[0]["document"])
    assert statuses(res) == [f"Recalled {n} {'memory' if n == 1 else 'memories'}"]


def test_list_content_gets_the_patch_as_a_new_last_part(driver, amber_host):
    alice = uid("alice")
    remember(amber_host, alice, "my favourite colour is teal")
    parts = [
        {"type": "text", "text": "Which colour should I paint this?"},
        {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}},
    ]
    body = {"model": "fake-model", "messages": [{"role": "user", "content": parts}]}
    res = driver.call(valves(amber_host), handler="inlet", body=body, user={"id": alice})
    content = res["body"]["messages"][0]["content"]
    assert content[:2] == parts
    assert len(content) == 3 and content[2]["type"] == "text"
    assert content[2]["text"].startswith("<memory_context>") and "teal" in content[2]["text"]


def test_builtin_memory_stays_on_when_the_valve_says_so(driver, amber_host):
    res = driver.call(valves(amber_host, disable_builtin_memory=False), handler="inlet", body=chat("Anything?"), user={"id": uid("carol")})
    assert not res["raised"]
    assert res["body"]["features"] == {"memory": True}


def test_no_user_sees_another_users_memories_even_concurrently(driver, amber_host):
    alice, bob = uid("alice"), uid("bob")
    remember(amber_host, alice, "my cat is called Miso")
    remember(amber_host, bob, "my dog is called Rex")
    calls = []
    for _ in range(4):
        calls.append({"handler": "inlet", "body": chat("What are my pets called?"), "user": {"id": alice}})
        calls.append({"handler": "inlet", "body": chat("What are my pets called?"), "user": {"id": bob}})
    out = driver.calls(valves(amber_host), calls, concurrent=True)

    for n, res in enumerate(out["results"]):
        text = res["body"]["messages"][-1]["content"]
        docs = " ".join(d for s in sources(res) for d in s["document"])
        mine, theirs = ("Miso", "Rex") if n % 2 == 0 else ("Rex", "Miso")
        assert mine in text and mine in docs
        assert theirs not in text and theirs not in docs
    assert out["instance_attrs"] == ["valves"]  # nothing per request was left on the shared instance


def test_user_valve_off_leaves_the_request_alone(driver, amber_host):
    alice = uid("alice")
    remember(amber_host, alice, "my cat is called Miso")
    body = chat("What is my cat called?")
    res = driver.call(valves(amber_host), handler="inlet", body=copy.deepcopy(body), user={"id": alice}, user_valves={"enabled": False})
    assert res["body"] == body and res["events"] == []


class Silent:
    """A TCP listener that accepts connections and never answers: a hung host."""

    def __init__(self):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.port = self.sock.getsockname()[1]
        self.conns: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        try:
            while True:
                self.conns.append(self.sock.accept()[0])
        except OSError:
            pass

    def close(self):
        for c in self.conns:
            c.close()
        self.sock.close()


def closed_port() -> int:
    with socket.socket() as s:  # bound, then released: nothing listens there
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.parametrize("case", ["unreachable", "wrong key", "hung host", "no key"])
def test_recall_failures_never_break_the_chat(driver, amber_host, case):
    silent = Silent()
    try:
        v = {
            "unreachable": lambda: {"amber_url": f"http://127.0.0.1:{closed_port()}", "api_key": amber_host.key},
            "wrong key": lambda: valves(amber_host, api_key="not-a-key"),
            "hung host": lambda: {"amber_url": f"http://127.0.0.1:{silent.port}", "api_key": amber_host.key, "recall_timeout_s": 0.5},
            "no key": lambda: {"amber_url": amber_host.url, "api_key": ""},
        }[case]()
        body = chat("What is my cat called?")
        res = driver.call(v, handler="inlet", body=copy.deepcopy(body), user={"id": uid("alice")})
    finally:
        silent.close()
    assert not res["raised"], res["error"]
    assert res["body"] == body  # passed through unchanged: no patch, built-in memory untouched
    [status] = statuses(res)
    assert status.startswith("Memory unavailable")


def test_outlet_strips_the_patch_and_captures_the_exchange(driver, amber_host):
    alice = uid("alice")
    remember(amber_host, alice, "my cat is called Miso")
    v = valves(amber_host)
    inlet = driver.call(v, handler="inlet", body=chat("What is my cat called? I also own a parrot named Kiwi."), user={"id": alice})
    sent = inlet["body"]
    assert "<memory_context>" in sent["messages"][-1]["content"]

    # What Open WebUI hands the outlet for an API chat: the inlet's messages plus the reply, no ids.
    outlet_body = {
        "model": "fake-model",
        "messages": [*sent["messages"], {"role": "assistant", "content": "Your cat is Miso and your parrot is Kiwi."}],
        "chat_id": "",
        "id": "msg-" + uuid.uuid4().hex,
    }
    res = driver.call(v, handler="outlet", body=outlet_body, user={"id": alice})
    assert not res["raised"], res["error"]
    user_turn = res["body"]["messages"][-2]["content"]
    assert user_turn == "What is my cat called? I also own a parrot named Kiwi."
    assert driver.drain() == 1

    got = amber_host.recall(alice, "parrot Kiwi")
    said = [i for i in got["items"] if i["source"] == "message"]
    texts = [i["text"] for i in said]
    assert "What is my cat called? I also own a parrot named Kiwi." in texts
    assert all("<memory_context>" not in t for t in texts)
    # The other user never sees it.
    assert "Kiwi" not in amber_host.recall(uid("bob"), "parrot Kiwi")["text"]


def test_explicit_remember_through_the_outlet_takes_effect_at_once(driver, amber_host):
    alice = uid("alice")
    v = valves(amber_host)
    body = {
        "model": "fake-model",
        "chat_id": "chat-" + uuid.uuid4().hex,
        "id": "a1",
        "messages": [
            {"id": "u1", "role": "user", "content": "remember that I take my coffee black", "timestamp": 1764470000},
            {"id": "a1", "role": "assistant", "content": "Noted.", "timestamp": 1764470001, "model": "fake-model"},
        ],
    }
    driver.call(v, handler="outlet", body=body, user={"id": alice})
    driver.drain()
    got = amber_host.recall(alice, "how do I take my coffee?")
    assert any(i["source"] == "memory" and "coffee black" in i["text"] for i in got["items"])

    # ... and the next chat's inlet brings it back.
    res = driver.call(v, handler="inlet", body=chat("How do I like my coffee?"), user={"id": alice})
    assert "coffee black" in res["body"]["messages"][-1]["content"]


def test_capture_failure_is_silent_and_the_reply_unchanged(driver):
    body = {"model": "m", "messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]}
    res = driver.call({"amber_url": f"http://127.0.0.1:{closed_port()}", "api_key": "k"}, handler="outlet", body=copy.deepcopy(body), user={"id": uid("alice")})
    assert not res["raised"] and res["body"] == body
    assert driver.drain() == 1  # the background capture ran, failed, and was logged


def test_namespaces_follow_the_valves(driver, amber_host):
    alice = uid("alice")
    for ns, text in (("project:journal", "I am training for the Berlin marathon"), ("project:code", "the repo indents with tabs")):
        r = httpx.post(f"{amber_host.url}/v1/memories", json={"content": text, "namespace": ns}, headers=amber_host.headers(alice), timeout=30)
        assert r.status_code == 200, r.text

    def recalled(v: dict, model: str = "fake-model", user_valves: dict | None = None) -> str:
        body = {"model": model, "messages": [{"role": "user", "content": "How is my marathon training, and how does the repo indent?"}]}
        res = driver.call(valves(amber_host, **v), handler="inlet", body=body, user={"id": alice}, user_valves=user_valves)
        assert not res["raised"], res["error"]
        return res["body"]["messages"][-1]["content"]

    plain = recalled({})
    assert "Berlin" not in plain and "indents with tabs" not in plain
    journal = recalled({}, user_valves={"private_namespace": "project:journal"})
    assert "Berlin marathon" in journal and "indents with tabs" not in journal
    shared = recalled({"namespace": "project:journal"})
    assert "Berlin marathon" in shared and "indents with tabs" not in shared
    coding = recalled({"project_rules": "coder-*=code"}, model="coder-7b")
    assert "indents with tabs" in coding and "Berlin" not in coding
    assert "indents with tabs" not in recalled({"project_rules": "coder-*=code"}, model="chat-model")


def stored_turns(host, user: str) -> list[str]:
    r = httpx.get(f"{host.url}/v1/messages", headers=host.headers(user), timeout=30)
    r.raise_for_status()
    return [m["content"] for m in r.json()["messages"]]


@pytest.mark.parametrize("chat_id", ["temporary:sock-81ab", "channel:c-42"])
def test_temporary_chats_and_channels_leave_nothing(driver, amber_host, chat_id):
    alice = uid("alice")
    remember(amber_host, alice, "my salary is 4200 a month")
    v = valves(amber_host)
    meta = {"chat_id": chat_id}
    question = "I am planning to quit my job at Contoso next month. What about my salary?"
    inlet = driver.call(v, handler="inlet", body={**chat(question), "chat_id": chat_id}, user={"id": alice}, metadata=meta)
    sent = inlet["body"]["messages"][-1]["content"]
    if chat_id.startswith("channel:"):
        assert sent == question  # other people read a channel: no private memory goes there
    else:
        assert "4200" in sent  # a temporary chat may still use what the person already has
    outlet_body = {"model": "fake-model", "chat_id": chat_id, "id": "msg-" + uuid.uuid4().hex,
                   "messages": [*inlet["body"]["messages"], {"role": "assistant", "content": "Noted."}]}
    res = driver.call(v, handler="outlet", body=outlet_body, user={"id": alice}, metadata=meta)
    assert not res["raised"], res["error"]
    assert driver.drain() == 0
    assert not any("Contoso" in t for t in stored_turns(amber_host, alice))


# ---- the user's own tag, bare namespaces, regenerations, host away ---------------------

OWN_TAG = (
    "I am writing docs for our prompt format. Is it fine to wrap recalled notes in <memory_context> "
    "and </memory_context> tags? Here is a sample: <memory_context>likes tea</memory_context> Thanks!"
)


def test_a_users_own_memory_tag_reaches_the_model_whole_and_the_chat_is_not_rewritten(driver, amber_host):
    alice = uid("alice")
    remember(amber_host, alice, "I write documentation for a prompt format")
    v = valves(amber_host)
    inlet = driver.call(v, handler="inlet", body=chat(OWN_TAG), user={"id": alice})
    sent = inlet["body"]["messages"][-1]["content"]
    assert sent.startswith(OWN_TAG + "\n\n<memory_context>\nBackground from Amber")
    saved = {"model": "fake-model", "chat_id": "chat-" + uuid.uuid4().hex, "id": "a1",
             "messages": [{"id": "u1", "role": "user", "content": OWN_TAG, "timestamp": 1764470000},
                          {"id": "a1", "role": "assistant", "content": "Either works.", "timestamp": 1764470001}]}
    res = driver.call(v, handler="outlet", body=copy.deepcopy(saved), user={"id": alice})
    assert res["body"] == saved
    assert driver.drain() == 1


def test_a_bare_private_namespace_reads_the_project(driver, amber_host):
    alice = uid("alice")
    r = httpx.post(f"{amber_host.url}/v1/memories", json={"content": "I am training for the Berlin marathon", "namespace": "project:journal"},
                   headers=amber_host.headers(alice), timeout=30)
    assert r.status_code == 200, r.text
    body = {"model": "fake-model", "messages": [{"role": "user", "content": "How is my marathon training?"}]}
    res = driver.call(valves(amber_host), handler="inlet", body=copy.deepcopy(body), user={"id": alice}, user_valves={"private_namespace": "journal"})
    assert "Berlin marathon" in res["body"]["messages"][-1]["content"]
    bad = driver.call(valves(amber_host), handler="inlet", body=copy.deepcopy(body), user={"id": alice}, user_valves={"private_namespace": "my journal"})
    assert not bad["raised"]
    [status] = statuses(bad)
    assert "'my journal' ignored" in status and "project:journal" in status and "422" not in status


def _replies(host, user: str) -> list[str]:
    r = httpx.get(f"{host.url}/v1/messages", headers=host.headers(user), timeout=30)
    r.raise_for_status()
    return [m["content"] for m in r.json()["messages"] if m["role"] == "assistant"]


def _regenerate(driver, host, alice: str) -> None:
    v = valves(host)
    chat_id = "chat-" + uuid.uuid4().hex
    for reply_id, reply in (("a1", "The capital of Australia is Sydney."), ("a2", "The capital of Australia is Canberra.")):
        body = {"model": "fake-model", "chat_id": chat_id, "id": reply_id,
                "messages": [{"id": "u1", "role": "user", "content": "What is the capital of Australia?", "timestamp": 1764470000},
                             {"id": reply_id, "role": "assistant", "content": reply, "timestamp": 1764470001}]}
        driver.call(v, handler="outlet", body=body, user={"id": alice})
        driver.drain()


def test_a_regenerated_answer_is_not_kept_next_to_the_discarded_one(driver, amber_host):
    alice = uid("alice")
    _regenerate(driver, amber_host, alice)
    assert len(_replies(amber_host, alice)) == 1


def test_the_regenerated_answer_is_the_one_kept(driver, amber_host):
    alice = uid("alice")
    _regenerate(driver, amber_host, alice)
    assert _replies(amber_host, alice) == ["The capital of Australia is Canberra."]


def test_a_remember_said_while_the_host_is_down_is_stored_once_it_is_back(driver, amber_host):
    alice = uid("alice")
    down = {"amber_url": f"http://127.0.0.1:{closed_port()}", "api_key": amber_host.key}
    said = {"model": "fake-model", "chat_id": "chat-" + uuid.uuid4().hex, "id": "a1",
            "messages": [{"id": "u-" + uuid.uuid4().hex, "role": "user", "content": "remember that my dog is called Rex", "timestamp": 1764470000},
                         {"id": "a1", "role": "assistant", "content": "Noted.", "timestamp": 1764470001}]}
    driver.call(down, handler="outlet", body=said, user={"id": alice})
    driver.drain()
    assert "Rex" not in amber_host.recall(alice, "what is my dog called?")["text"]

    # Amber is back: the next exchange (any user's) is captured, and what waited goes with it.
    later = {"model": "fake-model", "messages": [{"role": "user", "content": "hello again"}, {"role": "assistant", "content": "hi"}], "id": "r2"}
    driver.call(valves(amber_host), handler="outlet", body=later, user={"id": uid("bob")})
    driver.drain()
    got = amber_host.recall(alice, "what is my dog called?")
    assert any(i["source"] == "memory" and "Rex" in i["text"] for i in got["items"])
