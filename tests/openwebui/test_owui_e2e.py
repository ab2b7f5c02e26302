"""End to end: a real Open WebUI (offline, on 127.0.0.1) with the Amber filter installed over its
REST API, a real Amber host, and a fake OpenAI upstream that records what the model would read.

Alice tells Open WebUI about her cat and asks it to remember something; in a new chat the model
receives both facts; Bob, on the same Open WebUI, never does. Then the private modes and forgetting,
as people use them: a temporary chat and a shared channel leave nothing in Amber (and a channel
gets none of the person's memories); "forget X" leaves X for none of twenty probes; a person's own
literal <memory_context> text reaches the model whole.

Run alone:  .venv/bin/python -m pytest -q tests/openwebui/test_owui_e2e.py
"""

from __future__ import annotations

import json
import os
import secrets
import time
import uuid

import httpx
import pytest
from fakes.upstreams import FakeUpstreams
from owui_harness import FILTER, Proc

from tests.kit.servers import free_port

pytestmark = pytest.mark.e2e

MODEL = "fake-model"


class OpenWebUI:
    def __init__(self, url: str):
        self.url = url
        self.http = httpx.Client(base_url=url, timeout=60)

    def signup(self, name: str) -> dict:
        r = self.http.post("/api/v1/auths/signup", json={"name": name, "email": f"{name.lower()}@example.com", "password": "pw-" + secrets.token_hex(8)})
        r.raise_for_status()
        return r.json()

    def allow_signups(self, admin_token: str) -> None:
        """Open WebUI closes signups after the first (admin) account; the admin reopens them."""
        config = self.call(admin_token, "GET", "/api/v1/auths/admin/config").json()
        self.call(admin_token, "POST", "/api/v1/auths/admin/config", json={**config, "ENABLE_SIGNUP": True})

    def call(self, token: str, method: str, path: str, **kw) -> httpx.Response:
        r = self.http.request(method, path, headers={"Authorization": f"Bearer {token}"}, **kw)
        assert r.status_code == 200, f"{method} {path}: {r.status_code} {r.text[:500]}"
        return r

    def chat(self, token: str, text: str, stream: bool = False) -> str:
        body = {"model": MODEL, "messages": [{"role": "user", "content": text}], "stream": stream}
        r = self.call(token, "POST", "/api/chat/completions", json=body)
        if not stream:
            return r.json()["choices"][0]["message"]["content"]
        pieces = []
        for line in r.text.splitlines():
            if line.startswith("data: ") and line != "data: [DONE]":
                event = json.loads(line[6:])
                for choice in event.get("choices") or []:
                    pieces.append((choice.get("delta") or {}).get("content") or "")
        return "".join(pieces)

    def web_chat(self, token: str, text: str, timeout: float = 60) -> dict:
        """A new chat the way the browser starts one: Open WebUI saves it and answers in a background
        task, with the filter's status and source events stored on the assistant message."""
        user_id, reply_id = str(uuid.uuid4()), str(uuid.uuid4())
        body = {
            "model": MODEL,
            "messages": [{"role": "user", "content": text}],
            "stream": True,
            "parent_id": None,
            "id": reply_id,
            "user_message": {"id": user_id, "parentId": None, "childrenIds": [], "role": "user", "content": text, "timestamp": int(time.time()), "models": [MODEL]},
            "session_id": "e2e-" + uuid.uuid4().hex,
            "features": {"memory": True},
        }
        chat_id = self.call(token, "POST", "/api/chat/completions", json=body).json()["chat_id"]

        def finished():
            chat = self.call(token, "GET", f"/api/v1/chats/{chat_id}").json()
            msgs = chat["chat"]["history"]["messages"]
            return {"chat_id": chat_id, "user": msgs[user_id], "reply": msgs[reply_id]} if msgs[reply_id].get("done") else None

        return wait_for(finished, timeout, what=f"chat {chat_id} to finish")


@pytest.fixture(scope="module")
def upstream():
    with FakeUpstreams(default_reply="Noted.") as up:
        yield up


@pytest.fixture(scope="module")
def owui(owui_python, upstream, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("open-webui")
    port = free_port()
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "AMBER_"))},
        "DATA_DIR": str(tmp / "data"),
        "WEBUI_SECRET_KEY": secrets.token_hex(16),
        "FROM_INIT_PY": "true",
        "OFFLINE_MODE": "true",
        "HF_HUB_OFFLINE": "1",
        "ENABLE_OLLAMA_API": "false",
        "ENABLE_OPENAI_API": "true",
        "OPENAI_API_BASE_URL": upstream.openai_base,
        "OPENAI_API_KEY": "sk-fake",
        # The model list is given, so Open WebUI never asks the upstream for /models.
        "OPENAI_API_CONFIGS": json.dumps({"0": {"enable": True, "model_ids": [MODEL]}}),
        "RAG_EMBEDDING_ENGINE": "openai",
        "RAG_EMBEDDING_MODEL": "fake-embed",
        "RAG_OPENAI_API_BASE_URL": upstream.openai_base,
        "RAG_OPENAI_API_KEY": "sk-fake",
        "ENABLE_TITLE_GENERATION": "false",
        "ENABLE_TAGS_GENERATION": "false",
        "ENABLE_FOLLOW_UP_GENERATION": "false",
        "ENABLE_AUTOCOMPLETE_GENERATION": "false",
        "ENABLE_RETRIEVAL_QUERY_GENERATION": "false",
        "ENABLE_SEARCH_QUERY_GENERATION": "false",
        "ENABLE_EVALUATION_ARENA_MODELS": "false",
        "ENABLE_VERSION_UPDATE_CHECK": "false",
        "ENABLE_SIGNUP": "true",
        # Channels: a reply to @model runs the chat pipeline (filters included) with chat_id channel:<id>.
        "ENABLE_CHANNELS": "true",
        "DEFAULT_USER_ROLE": "user",
        "BYPASS_MODEL_ACCESS_CONTROL": "true",
        "SCARF_NO_ANALYTICS": "true",
        "DO_NOT_TRACK": "true",
        "ANONYMIZED_TELEMETRY": "false",
    }
    argv = [str(owui_python), "-m", "uvicorn", "open_webui.main:app", "--host", "127.0.0.1", "--port", str(port)]
    proc = Proc("open-webui", argv, env, tmp, cwd=tmp)
    try:
        proc.wait_http(f"http://127.0.0.1:{port}/health", timeout=180)
        yield OpenWebUI(f"http://127.0.0.1:{port}")
    finally:
        proc.stop()
        print(f"open-webui log: {proc.log_path}")


@pytest.fixture(scope="module")
def people(owui, amber_host) -> dict:
    """Alice (the first account, so the admin) and Bob, with the Amber filter installed by Alice."""
    alice = owui.signup("Alice")
    owui.allow_signups(alice["token"])
    bob = owui.signup("Bob")
    assert alice["role"] == "admin" and bob["role"] == "user"
    install_filter(owui, alice["token"], amber_host)
    return {"alice": alice, "bob": bob}


def install_filter(owui: OpenWebUI, admin_token: str, amber_host) -> None:
    """What an admin does in Admin -> Functions, over the same REST API the page uses."""
    fid = "amber_memory"
    created = owui.call(
        admin_token, "POST", "/api/v1/functions/create",
        json={"id": fid, "name": "Amber Memory", "content": FILTER.read_text(), "meta": {"description": "Amber long-term memory"}},
    ).json()
    assert created["type"] == "filter" and created["is_active"] is False
    assert owui.call(admin_token, "POST", f"/api/v1/functions/id/{fid}/toggle").json()["is_active"] is True
    assert owui.call(admin_token, "POST", f"/api/v1/functions/id/{fid}/toggle/global").json()["is_global"] is True
    spec = owui.call(admin_token, "GET", f"/api/v1/functions/id/{fid}/valves/spec").json()
    assert {"amber_url", "api_key", "top_k", "budget_tokens", "disable_builtin_memory", "priority"} <= set(spec["properties"])
    saved = set_valves(owui, admin_token, {"amber_url": amber_host.url, "api_key": amber_host.key})
    assert saved["amber_url"] == amber_host.url


def set_valves(owui: OpenWebUI, admin_token: str, valves: dict) -> dict:
    return owui.call(admin_token, "POST", "/api/v1/functions/id/amber_memory/valves/update", json=valves).json()


def wait_for(check, timeout: float = 30.0, what: str = "condition"):
    deadline = time.monotonic() + timeout
    while True:
        got = check()
        if got:
            return got
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.3)


def last_user_text(rec) -> str:
    content = [m for m in rec.messages if m.get("role") == "user"][-1]["content"]
    return content if isinstance(content, str) else " ".join(p.get("text", "") for p in content if isinstance(p, dict))


def test_memory_follows_alice_into_a_new_chat_and_never_reaches_bob(owui, upstream, amber_host, people):
    alice, bob = people["alice"], people["bob"]

    # Alice's first chat: a plain statement (streamed) and an explicit command.
    upstream.clear()
    owui.chat(alice["token"], "My cat is called Miso.", stream=True)
    owui.chat(alice["token"], "Remember that my sister lives in Lisbon.")
    first = upstream.find("/chat/completions")
    assert [last_user_text(r).split("\n\n<memory_context>")[0] for r in first] == ["My cat is called Miso.", "Remember that my sister lives in Lisbon."]

    # Capture runs in the background after each reply; wait until both turns are on the host.
    def captured():
        r = httpx.get(f"{amber_host.url}/v1/messages", headers=amber_host.headers(alice["id"]), timeout=10)
        r.raise_for_status()
        texts = [m["content"] for m in r.json()["messages"]]
        return texts if {"My cat is called Miso.", "Remember that my sister lives in Lisbon."} <= set(texts) else None

    texts = wait_for(captured, what="Alice's turns on the Amber host")
    assert all("<memory_context>" not in t for t in texts)  # the patch was stripped before capture
    assert "Noted." in texts  # the assistant's replies are captured too
    remembered = amber_host.recall(alice["id"], "Where does my sister live?")
    assert any(i["source"] == "memory" and "Lisbon" in i["text"] for i in remembered["items"])

    # A new chat, started the way the browser does: the model reads Alice's memories at the end of
    # her message; the chat shows the status line and the memories as sources; the stored chat and
    # the captured turn hold only what she typed.
    upstream.clear()
    question = "What is my cat called, and where does my sister live?"
    chat = owui.web_chat(alice["token"], question)
    [rec] = upstream.find("/chat/completions")
    asked = last_user_text(rec)
    assert asked.startswith(question + "\n\n<memory_context>")
    assert "Miso" in asked and "Lisbon" in asked
    reply = chat["reply"]
    assert reply["content"] == "Noted."
    shown = [s["description"] for s in reply.get("statusHistory", [])]
    assert any(d.startswith("Recalled ") and d.endswith(("memory", "memories")) for d in shown), shown
    [src] = [s for s in reply.get("sources", []) if s["source"]["name"] == "Amber memory"]
    assert any("Miso" in d for d in src["document"]) and any("Lisbon" in d for d in src["document"])
    assert chat["user"]["content"] == question

    def in_session():
        r = httpx.get(f"{amber_host.url}/v1/messages", params={"session": chat["chat_id"]}, headers=amber_host.headers(alice["id"]), timeout=10)
        r.raise_for_status()
        return r.json()["messages"] if len(r.json()["messages"]) >= 2 else None

    turns = wait_for(in_session, what="the saved chat's turns on the Amber host")
    assert [(t["role"], t["content"]) for t in turns] == [("user", question), ("assistant", "Noted.")]
    assert {t["client"] for t in turns} == {"open-webui"} and turns[1]["author"] == MODEL

    # Open WebUI's own memory stays out while Amber answers (it would add the same facts twice) and
    # comes back when the admin turns the valve off. The browser asks for it (features.memory true,
    # as web_chat sends); the filter's inlet switches it off for the request. What shows it did: the
    # built-in memory's query embeds the question through the embedding upstream, and that request
    # is never made while the valve is on, and is made once it is off.
    owui.call(alice["token"], "POST", "/api/v1/memories/add", json={"content": "Alice's favourite fruit is mango", "type": "user"})
    fruit = "Which fruit do I like?"
    upstream.clear()
    owui.web_chat(alice["token"], fruit)
    [rec] = upstream.find("/chat/completions")
    assert "mango" not in json.dumps(rec.body)
    assert upstream.find("/embeddings", contains=fruit) == []  # the built-in memory query never ran
    set_valves(owui, alice["token"], {"amber_url": amber_host.url, "api_key": amber_host.key, "disable_builtin_memory": False})
    upstream.clear()
    owui.web_chat(alice["token"], fruit)
    [rec] = upstream.find("/chat/completions")
    assert "mango" in json.dumps(rec.body)
    assert upstream.find("/embeddings", contains=fruit)  # with the valve off, it runs
    set_valves(owui, alice["token"], {"amber_url": amber_host.url, "api_key": amber_host.key})

    # With the host gone, chat goes on without memory and says so.
    set_valves(owui, alice["token"], {"amber_url": f"http://127.0.0.1:{free_port()}", "api_key": amber_host.key})
    upstream.clear()
    chat = owui.web_chat(alice["token"], question)
    [rec] = upstream.find("/chat/completions")
    assert last_user_text(rec) == question
    assert chat["reply"]["content"] == "Noted."
    assert [s["description"] for s in chat["reply"].get("statusHistory", [])] == ["Memory unavailable (host unreachable)"]
    set_valves(owui, alice["token"], {"amber_url": amber_host.url, "api_key": amber_host.key})

    # Bob asks the same on the same Open WebUI: nothing of Alice's reaches the model.
    upstream.clear()
    owui.chat(bob["token"], "What is my cat called, and where does my sister live?")
    [rec] = upstream.find("/chat/completions")
    sent = json.dumps(rec.body)
    assert "Miso" not in sent and "Lisbon" not in sent
    assert "Miso" not in amber_host.recall(bob["id"], "cat called Miso sister Lisbon")["text"]


# ---- private modes, forgetting, the person's own text ---------------------------------------------


def amber(amber_host, user_id: str, method: str, path: str, **kw) -> dict:
    """Amber's REST API as the filter uses it (its client header also reads the client:open-webui namespace)."""
    headers = {**amber_host.headers(user_id), "X-Amber-Client": "open-webui"}
    r = httpx.request(method, f"{amber_host.url}/v1{path}", headers=headers, timeout=30, **kw)
    r.raise_for_status()
    return r.json()


def turns_of(amber_host, user_id: str, **params) -> list[dict]:
    return amber(amber_host, user_id, "GET", "/messages", params=params)["messages"]


def memories_of(amber_host, user_id: str, status: str = "any") -> list[dict]:
    return amber(amber_host, user_id, "GET", "/memories", params={"status": status, "limit": 500})["items"]


def idle(owui: OpenWebUI, admin_token: str) -> None:
    """Open WebUI has finished every chat task it runs in the background (channels, temporary chats)."""
    wait_for(lambda: not owui.call(admin_token, "GET", "/api/tasks").json()["tasks"], timeout=60, what="Open WebUI's chat tasks")


def temporary_chat(owui: OpenWebUI, token: str, text: str) -> str:
    """A chat in the browser's temporary mode: chat_id temporary:<socket id>, answered in a background
    task, never saved by Open WebUI."""
    sid = uuid.uuid4().hex
    chat_id = "temporary:" + sid
    body = {"model": MODEL, "messages": [{"role": "user", "content": text}], "stream": True, "chat_id": chat_id,
            "id": str(uuid.uuid4()), "session_id": sid, "features": {"memory": True}}
    owui.call(token, "POST", "/api/chat/completions", json=body)
    return chat_id


def wait_captured(amber_host, user_id: str, text: str) -> None:
    wait_for(lambda: any(t["content"] == text for t in turns_of(amber_host, user_id)), what=f"{text!r} captured")


def test_a_temporary_chat_leaves_nothing_in_amber(owui, upstream, amber_host, people):
    admin = people["alice"]["token"]
    carol = owui.signup("Carol")
    secret_plan = "Remember that I am planning to quit my job at Contoso next month."
    upstream.clear()
    chat_id = temporary_chat(owui, carol["token"], secret_plan)
    wait_for(lambda: upstream.find("/chat/completions", contains="Contoso"), what="the temporary chat's request")
    idle(owui, admin)

    # An ordinary chat afterwards is captured (so the filter is at work for Carol), and the
    # temporary one is nowhere: no turn, no memory from its "remember", nothing recalled.
    upstream.clear()
    owui.chat(carol["token"], "What am I planning to do about my job?")
    wait_captured(amber_host, carol["id"], "What am I planning to do about my job?")
    [rec] = upstream.find("/chat/completions")
    assert "Contoso" not in json.dumps(rec.body)
    assert turns_of(amber_host, carol["id"], session=chat_id) == []
    assert [t["content"] for t in turns_of(amber_host, carol["id"])] == ["What am I planning to do about my job?", "Noted."]
    assert memories_of(amber_host, carol["id"]) == []


def test_a_channel_reply_gets_no_memory_and_leaves_nothing_in_amber(owui, upstream, amber_host, people):
    """Alice mentions the model in a channel other people read: Open WebUI runs the whole chat
    pipeline, filters included, as Alice, with chat_id channel:<id>."""
    alice = people["alice"]
    amber_host.ingest(alice["id"], [{"id": "seed-" + uuid.uuid4().hex, "role": "user", "created_at": "2026-11-01T09:00:00+00:00",
                                     "content": "Remember that my grandmother's village is Oberammergau."}])
    question = "Which village is my grandmother from?"
    upstream.clear()
    owui.chat(alice["token"], question)  # in her own chat, she gets it
    [rec] = upstream.find("/chat/completions")
    assert "Oberammergau" in last_user_text(rec)
    wait_captured(amber_host, alice["id"], question)

    channel = owui.call(alice["token"], "POST", "/api/v1/channels/create", json={"name": "team-" + uuid.uuid4().hex[:6]}).json()
    before = turns_of(amber_host, alice["id"])
    remembered = len(memories_of(amber_host, alice["id"]))
    upstream.clear()
    for text in (question, "Remember that the team offsite is in Porto."):
        owui.call(alice["token"], "POST", f"/api/v1/channels/{channel['id']}/messages/post", json={"content": f"<@M:{MODEL}|{MODEL}> {text}"})
        wait_for(lambda: upstream.find("/chat/completions", contains=text), what="the channel's model request")
        idle(owui, alice["token"])
    for rec in upstream.find("/chat/completions"):
        assert "<memory_context>" not in json.dumps(rec.body) and "Oberammergau" not in json.dumps(rec.body)

    # Nothing of the channel is kept: an ordinary chat afterwards is captured, the channel is not.
    owui.chat(alice["token"], "Thanks, that is all for today.")
    wait_captured(amber_host, alice["id"], "Thanks, that is all for today.")
    after = turns_of(amber_host, alice["id"])
    assert [t["content"] for t in after[len(before):]] == ["Thanks, that is all for today.", "Noted."]
    assert turns_of(amber_host, alice["id"], session=f"channel:{channel['id']}") == []
    assert len(memories_of(amber_host, alice["id"])) == remembered
    assert "Porto" not in json.dumps(memories_of(amber_host, alice["id"]))


# Asked through Open WebUI after "forget that my dentist is Dr. Okonkwo": questions, bare words,
# paraphrases, neighbouring topics, a question about what Amber keeps, and Chinese. None says the
# name itself (each probe is captured like any chat); Amber's search is also asked for the name.
FORGET_PROBES = [
    "Who is my dentist?", "dentist", "Which doctor looks after my teeth?", "my dentist is",
    "When is my next dental check-up?", "teeth", "Where is my dentist's practice?", "What did I ask you to remember?",
    "Tell me everything you know about me.", "doctor", "the practice next to the station", "Who filled my molar?",
    "dental appointment on Tuesday", "my doctors and health people", "What is the name of the person I see for cleanings?",
    "我的牙医是谁？", "tooth ache, who do I call?", "Dr. O", "Which Dr. did I mention?", "the name of my dentist, please",
]


def test_forget_through_open_webui_leaves_nothing_for_twenty_probes(owui, upstream, amber_host, people):
    erin = owui.signup("Erin")
    for text in ("Remember that my dentist is Dr. Okonkwo.", "My dentist Dr. Okonkwo has her practice next to the station."):
        owui.chat(erin["token"], text)
        wait_captured(amber_host, erin["id"], text)
    assert any("Okonkwo" in m["content"] for m in memories_of(amber_host, erin["id"], "active"))
    upstream.clear()
    owui.chat(erin["token"], "Who is my dentist? (before)")
    [rec] = upstream.find("/chat/completions")
    assert "Okonkwo" in last_user_text(rec)

    owui.chat(erin["token"], "Forget that my dentist is Dr. Okonkwo.")
    wait_for(lambda: not any("Okonkwo" in t["content"] for t in turns_of(amber_host, erin["id"]))
             and not any("Okonkwo" in m["content"] for m in memories_of(amber_host, erin["id"], "active")),
             timeout=60, what="the forget to take effect")

    leaks = []
    for probe in FORGET_PROBES:
        upstream.clear()
        owui.chat(erin["token"], probe)
        [rec] = upstream.find("/chat/completions")
        hits = amber(amber_host, erin["id"], "POST", "/search", json={"query": probe, "top_k": 50})
        if "Okonkwo" in json.dumps(rec.body) or "Okonkwo" in json.dumps(hits):
            leaks.append(probe)
    assert leaks == [], f"{len(leaks)} of {len(FORGET_PROBES)} probes still get it: {leaks}"
    assert "Okonkwo" not in json.dumps(amber(amber_host, erin["id"], "POST", "/search", json={"query": "Okonkwo", "top_k": 50}))


def test_a_users_own_memory_context_text_reaches_the_model_whole(owui, upstream, amber_host, people):
    frank = owui.signup("Frank")
    amber_host.ingest(frank["id"], [{"id": "seed-" + uuid.uuid4().hex, "role": "user", "created_at": "2026-11-01T09:00:00+00:00",
                                     "content": "Remember that I write documentation for a prompt format."}])
    text = ("I am writing docs for our prompt format. Is it fine to wrap recalled notes in <memory_context> "
            "and </memory_context> tags? Here is a sample: <memory_context>likes tea</memory_context> Thanks!")
    upstream.clear()
    chat = owui.web_chat(frank["token"], text)
    [rec] = upstream.find("/chat/completions")
    sent = last_user_text(rec)
    # the model reads all of Frank's words, then Amber's own block after them
    assert sent.startswith(text + "\n\n<memory_context>\nBackground from Amber"), sent[:400]
    assert "prompt format" in sent[len(text):]
    assert chat["user"]["content"] == text  # the saved chat is not rewritten


def test_a_users_own_memory_context_text_is_captured_whole(owui, upstream, amber_host, people):
    grace = owui.signup("Grace")
    text = "Is <memory_context>likes tea</memory_context> a good sample for the docs?"
    owui.chat(grace["token"], text)
    wait_for(lambda: len(turns_of(amber_host, grace["id"])) >= 2, what="Grace's turns captured")
    assert [t["content"] for t in turns_of(amber_host, grace["id"])] == [text, "Noted."]


def test_what_was_used_is_named_by_handle_and_date_in_the_request_the_sources_and_the_why_record(owui, upstream, amber_host, people):
    """Provenance through a real Open WebUI: the model reads the memory's handle and date, the chat's
    sources name the same handle and date, and the Amber host keeps the request's why record under
    the chat's name (owui:<chat>:<message>), so Alice can ask why or say 'that's wrong'."""
    from core import handle_of

    alice = people["alice"]
    r = httpx.post(f"{amber_host.url}/v1/memories", json={"content": "My bike is a red Brompton", "fact_key": "profile.bike"},
                   headers=amber_host.headers(alice["id"]), timeout=10)
    r.raise_for_status()
    mem = r.json()["memory"]
    handle, date = handle_of(mem["id"]), mem["created_at"][:10]
    upstream.clear()
    chat = owui.web_chat(alice["token"], "Which bike do I ride?")
    [rec] = upstream.find("/chat/completions")
    assert f'- {handle} [{date}] (fact) "My bike is a red Brompton"' in last_user_text(rec)
    [src] = [s for s in chat["reply"].get("sources", []) if s["source"]["name"] == "Amber memory"]
    assert f"{handle} fact {date}" in [m["name"] for m in src["metadata"]]
    why = httpx.get(f"{amber_host.url}/v1/why", params={"last": 20}, headers=amber_host.headers(alice["id"]), timeout=10).json()
    named = [q for q in why["requests"] if q["request"].startswith(f"owui:{chat['chat_id']}:")]
    assert named and handle in [i["handle"] for i in named[0]["items"]]
