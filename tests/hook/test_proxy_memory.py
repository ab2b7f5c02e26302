"""Amber through the real LiteLLM proxy: one client stores, another recalls; capture; isolation; cache marks.

One proxy for the module (start-up takes ~20 s); each test uses its own end users.
"""

from __future__ import annotations

import json
import uuid

import anthropic
import httpx
import openai
import pytest
from mcp import Client

from tests.hook.harness import MASTER_KEY, Proxy, proxy_config, start_together, wait_for

pytestmark = pytest.mark.e2e

KEYS = {"alice": "sk-amber-alice-test", "bob": "sk-amber-bob-test", "relay": "sk-amber-relay-test"}
LONG_SYSTEM = "You are a careful assistant. " + " ".join(f"Rule {i}: answer plainly and cite what you know." for i in range(160))


@pytest.fixture(scope="module")
def proxies(up, tmp_path_factory):
    """The memory host (embedded store) and a second proxy in remote mode that uses it, started together."""
    amber = {
        "recall_timeout_s": 10,
        "jobs_enabled": False,
        # one person known by two names: Open WebUI's email and a script's end-user id
        "users": {"dana": ["dana@example.com", "dana-laptop"]},
        "api_keys": [
            {"name": "alice", "secret": KEYS["alice"], "user": "alice"},
            {"name": "bob", "secret": KEYS["bob"], "user": "bob"},
            # acts for the user named in X-Amber-User: lets tests read the logs of their own end users
            {"name": "relay", "secret": KEYS["relay"], "trusted_client": True},
        ],
    }
    host = Proxy(proxy_config(up, amber=amber), tmp_path_factory.mktemp("proxy"))
    remote = Proxy(
        proxy_config(up, amber={"server_url": f"{host.base}/memory", "jobs_enabled": False, "boot_pack_in_system": True}),
        tmp_path_factory.mktemp("remote"),
        env={"AMBER_SERVER_KEY": KEYS["relay"]},
    )
    try:
        start_together((host, {}), (remote, {"wait_memory": False}))
        assert wait_for(lambda: "remote mode" in remote.log(), timeout=60), remote.log()[-3000:]
        yield host, remote
    finally:
        host.stop()
        remote.stop()


@pytest.fixture(scope="module")
def proxy(proxies):
    return proxies[0]


def rest(proxy: Proxy, method: str, path: str, *, key: str, user: str | None = None, **kw) -> httpx.Response:
    headers = {"Authorization": f"Bearer {KEYS[key]}", **({"X-Amber-User": user} if user else {})}
    return httpx.request(method, f"{proxy.base}/memory/v1{path}", headers=headers, timeout=30, **kw)


def logged(proxy: Proxy, user: str) -> list[dict]:
    r = rest(proxy, "GET", "/messages", key="relay", user=user)
    r.raise_for_status()
    body = r.json()
    return body["messages"] if isinstance(body, dict) else body


def last_user_blocks(rec) -> list[dict]:
    content = [m for m in rec.messages if m["role"] == "user"][-1]["content"]
    return [{"type": "text", "text": content}] if isinstance(content, str) else content


def marks(body: dict) -> int:
    return json.dumps(body).count('"cache_control"')


def oai(proxy: Proxy) -> openai.OpenAI:
    return openai.OpenAI(base_url=proxy.base, api_key=MASTER_KEY, max_retries=0, timeout=60)


def claude(proxy: Proxy) -> anthropic.Anthropic:
    return anthropic.Anthropic(base_url=proxy.base, api_key=MASTER_KEY, max_retries=0, timeout=60)


def test_memory_server_is_mounted(proxy):
    r = httpx.get(f"{proxy.base}/memory/health", timeout=10)
    assert r.status_code == 200 and r.json()["ok"] is True


async def test_stored_through_openai_recalled_through_anthropic_and_mcp(proxy, up):
    said = oai(proxy).chat.completions.create(
        model="gpt-4o-mini", user="alice", messages=[{"role": "user", "content": "remember that my favourite tea is genmaicha"}]
    )
    assert said.choices[0].message.content == up.default_reply

    def stored():
        items = rest(proxy, "GET", "/memories", key="alice").json()["items"]
        return [m for m in items if "genmaicha" in m["content"]]

    assert wait_for(stored), "the explicit command became a memory at once"

    answer = claude(proxy).messages.create(
        model="claude-sonnet", max_tokens=64, metadata={"user_id": "alice"}, system="Be brief.",
        messages=[{"role": "user", "content": "Which tea do I like?"}],
    )
    assert answer.content[0].text == up.default_reply
    rec = up.find("/v1/messages", contains="Which tea do I like?")[-1]
    blocks = last_user_blocks(rec)
    assert blocks[0]["text"] == "Which tea do I like?"
    assert blocks[-1]["text"].startswith("<memory_context>") and "genmaicha" in blocks[-1]["text"]
    assert "cache_control" not in blocks[-1]  # the patch sits after every mark
    assert rec.body["system"][0]["text"] == "Be brief."  # system text untouched (anchored only)

    async with Client(f"{proxy.base}/memory/mcp?token={KEYS['alice']}") as mcp:
        result = await mcp.call_tool("memory_recall", {"query": "favourite tea"})
    assert not result.is_error
    assert "genmaicha" in json.dumps(result.structured_content)


def test_two_users_are_isolated(proxy, up):
    oai(proxy).chat.completions.create(
        model="gpt-4o-mini", user="bob", messages=[{"role": "user", "content": "remember that my locker number is 4417"}]
    )
    assert wait_for(lambda: rest(proxy, "GET", "/memories", key="bob").json()["items"])
    oai(proxy).chat.completions.create(
        model="gpt-4o-mini", user="alice", messages=[{"role": "user", "content": "what is my locker number?"}]
    )
    rec = up.find("/chat/completions", contains="what is my locker number?")[-1]
    assert "4417" not in json.dumps(rec.body)
    # and through the memory server: alice's key sees only alice, and may not ask for bob
    assert all("4417" not in m["content"] for m in rest(proxy, "GET", "/memories", key="alice").json()["items"])
    assert rest(proxy, "GET", "/memories", key="alice", user="bob").status_code == 403
    assert "4417" not in rest(proxy, "POST", "/recall", key="alice", json={"query": "locker number"}).json()["text"]


def test_streaming_is_captured_and_the_patch_is_stripped(proxy, up):
    user = f"carol-{uuid.uuid4().hex[:6]}"
    up.script("Brompton bikes fold small.")
    stream = oai(proxy).chat.completions.create(
        model="gpt-4o-mini", user=user, stream=True, messages=[{"role": "user", "content": "My bike is a red Brompton."}]
    )
    assert "".join(c.choices[0].delta.content or "" for c in stream if c.choices) == "Brompton bikes fold small."
    assert wait_for(lambda: len(logged(proxy, user)) == 2)

    # the second turn is injected with the first; its capture must hold only what the user wrote
    up.script("It is red.")
    with claude(proxy).messages.stream(
        model="claude-sonnet", max_tokens=64, metadata={"user_id": user},
        messages=[{"role": "user", "content": "What colour is my Brompton bike?"}],
    ) as s:
        assert s.get_final_text() == "It is red."
    rec = up.find("/v1/messages", contains="What colour is my Brompton bike?")[-1]
    assert "red Brompton" in last_user_blocks(rec)[-1]["text"]
    log = wait_for(lambda: (lambda ms: ms if len(ms) == 4 else None)(logged(proxy, user)))
    contents = [(m["role"], m["content"]) for m in log]
    assert ("user", "What colour is my Brompton bike?") in contents
    assert ("assistant", "It is red.") in contents
    assert not any("memory_context" in c for _, c in contents)


def test_a_client_cannot_pose_as_amber_itself(proxy, up):
    """`amber_internal` marks Amber's own model calls in the logs; a client that sends it is not
    Amber: the name is dropped before the request goes on, and the turn is the user's like any other
    (a client that wants a turn kept nowhere says `x-amber-memory: off`)."""
    user = f"dave-{uuid.uuid4().hex[:6]}"
    oai(proxy).chat.completions.create(
        model="gpt-4o-mini", user=user, metadata={"amber_internal": True, "amber_user": "someone-else"},
        messages=[{"role": "user", "content": "remember that my dentist is Dr Ferreira"}],
    )
    rec = up.find("/chat/completions", contains="my dentist is Dr Ferreira")[-1]
    assert "amber_internal" not in json.dumps(rec.body) and "someone-else" not in json.dumps(rec.body)
    assert wait_for(lambda: rest(proxy, "GET", "/memories", key="relay", user=user).json()["items"], timeout=60)
    assert rest(proxy, "GET", "/memories", key="relay", user="someone-else").json()["items"] == []


def test_client_with_four_marks_gets_none_added(proxy, up):
    mark = {"type": "ephemeral"}
    messages = []
    for i in range(3):
        messages.append({"role": "user", "content": [{"type": "text", "text": f"marked question {i}", "cache_control": mark}]})
        messages.append({"role": "assistant", "content": f"answer {i}"})
    messages.append({"role": "user", "content": "and my tea?"})
    r = claude(proxy).messages.create(
        model="claude-sonnet", max_tokens=32, metadata={"user_id": "alice"},
        system=[{"type": "text", "text": "Be brief.", "cache_control": mark}], messages=messages,
    )
    assert r.content[0].text
    rec = up.find("/v1/messages", contains="and my tea?")[-1]
    assert rec.status == 200 and marks(rec.body) == 4
    assert "genmaicha" in last_user_blocks(rec)[-1]["text"]


def test_claude_cache_is_read_on_the_next_turn(proxy, up):
    user = f"erin-{uuid.uuid4().hex[:6]}"
    history: list[dict] = []
    usages = []
    for turn in range(3):
        history.append({"role": "user", "content": f"Turn {turn}: tell me something about tea number {turn}."})
        r = claude(proxy).messages.create(model="claude-sonnet", max_tokens=64, metadata={"user_id": user}, system=LONG_SYSTEM, messages=history)
        history.append({"role": "assistant", "content": r.content[0].text})
        usages.append(r.usage)
        wait_for(lambda: len(logged(proxy, user)) == 2 * (turn + 1))
    assert usages[0].cache_creation_input_tokens > 0
    for u in usages[1:]:
        assert u.cache_read_input_tokens > 0
        assert u.cache_read_input_tokens > u.input_tokens


def test_responses_route_gets_the_patch(proxy, up):
    r = httpx.post(
        f"{proxy.base}/responses", headers=proxy.headers, timeout=60,
        json={"model": "gpt-4o-mini", "user": "alice", "input": "Remind me which tea I like"},
    )
    assert r.status_code == 200
    rec = up.find("/responses", contains="Remind me which tea I like")[-1]
    blocks = rec.body["input"][-1]["content"]
    assert blocks[0] == {"type": "input_text", "text": "Remind me which tea I like"}
    assert blocks[-1]["type"] == "input_text" and "genmaicha" in blocks[-1]["text"]


def test_no_identity_means_no_memory(proxy, up):
    httpx.post(
        f"{proxy.base}/chat/completions", headers=proxy.headers, timeout=60,
        json={"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "anonymous tea question"}]},
    )
    rec = up.find("/chat/completions", contains="anonymous tea question")[-1]
    assert rec.messages == [{"role": "user", "content": "anonymous tea question"}]


def test_remote_mode_proxy_uses_the_memory_host(proxies, up):
    host, remote = proxies
    user = f"hana-{uuid.uuid4().hex[:6]}"
    oai(remote).chat.completions.create(
        model="gpt-4o-mini", user=user, messages=[{"role": "user", "content": "remember that my umbrella is green"}]
    )
    # captured by the remote proxy, stored by the host, the command carried out there
    assert wait_for(lambda: [m for m in rest(host, "GET", "/memories", key="relay", user=user).json()["items"] if "umbrella" in m["content"]])
    oai(remote).chat.completions.create(model="gpt-4o-mini", user=user, messages=[{"role": "user", "content": "What colour is my umbrella?"}])
    rec = up.find("/chat/completions", contains="What colour is my umbrella?")[-1]
    assert "umbrella is green" in last_user_blocks(rec)[-1]["text"]
    # the remote proxy opened no store of its own (only its capture journal lives there)
    assert not (remote.workdir / "data" / "chroma").exists()
    assert {p.name for p in (remote.workdir / "data").iterdir()} <= {"spool"}


def test_boot_pack_sits_at_the_end_of_the_system_prompt_behind_the_anchor(proxies, up):
    host, remote = proxies
    user = f"ivy-{uuid.uuid4().hex[:6]}"
    r = rest(host, "POST", "/memories", key="relay", user=user, json={"content": "Ivy is a night-shift nurse", "pinned": True})
    assert r.status_code in (200, 201), r.text
    claude(remote).messages.create(
        model="claude-sonnet", max_tokens=32, metadata={"user_id": user}, system="Be brief.",
        messages=[{"role": "user", "content": "When do I sleep? (boot)"}],
    )
    rec = up.find("/v1/messages", contains="(boot)")[-1]
    system = rec.body["system"]
    assert system[0] == {"type": "text", "text": "Be brief.", "cache_control": {"type": "ephemeral"}}
    assert "night-shift nurse" in system[-1]["text"] and "cache_control" not in system[-1]


def test_a_retried_turn_is_logged_once(proxy, up):
    user = f"jo-{uuid.uuid4().hex[:6]}"
    for _ in range(2):  # the client retries the same turn
        oai(proxy).chat.completions.create(model="gpt-4o-mini", user=user, messages=[{"role": "user", "content": "plan my week"}])
    log = wait_for(lambda: (lambda ms: ms if len(ms) >= 3 else None)(logged(proxy, user)))
    assert [m["role"] for m in log].count("user") == 1 and [m["role"] for m in log].count("assistant") == 2


def test_openai_client_on_a_claude_model_gets_anchors_in_the_anthropic_request(proxy, up):
    oai(proxy).chat.completions.create(
        model="claude-sonnet", user="alice",
        messages=[{"role": "system", "content": "Be brief."}, {"role": "user", "content": "tea for tonight? (openai to claude)"}],
    )
    rec = up.find("/v1/messages", contains="(openai to claude)")[-1]
    assert [b["text"] for b in rec.body["system"]] == ["Be brief."] and rec.body["system"][-1].get("cache_control")
    blocks = last_user_blocks(rec)
    assert blocks[0]["text"] == "tea for tonight? (openai to claude)" and blocks[0].get("cache_control")
    assert "genmaicha" in blocks[-1]["text"] and "cache_control" not in blocks[-1]


def test_anthropic_client_on_an_openai_model_gets_the_patch(proxy, up):
    claude(proxy).messages.create(
        model="gpt-4o-mini", max_tokens=32, metadata={"user_id": "alice"},
        messages=[{"role": "user", "content": "tea for breakfast? (claude to openai)"}],
    )
    # LiteLLM carries /v1/messages to OpenAI models over the Responses API
    rec = up.find("/responses", contains="(claude to openai)")[-1]
    assert "genmaicha" in json.dumps(rec.body["input"][-1]) and "cache_control" not in json.dumps(rec.body)


def test_a_client_can_ask_for_an_incognito_turn(proxy, up):
    """`x-amber-memory: read` recalls but keeps nothing; `off` does neither; `write` keeps but injects
    nothing; the metadata field does the same for clients that cannot set headers; a typo is "off"."""
    user = f"inc-{uuid.uuid4().hex[:6]}"
    rest(proxy, "POST", "/memories", key="relay", user=user, json={"content": "My locker number is 4417"}).raise_for_status()

    def ask(text: str, **kw):
        oai(proxy).chat.completions.create(model="gpt-4o-mini", user=user, messages=[{"role": "user", "content": text}], **kw)
        return last_user_blocks(up.find("/chat/completions", contains=text)[-1])

    read = ask("what is my locker number? (read)", extra_headers={"x-amber-memory": "read"})
    assert "4417" in read[-1]["text"]
    off = ask("what is my locker number? (off)", extra_headers={"x-amber-memory": "off"})
    assert off == [{"type": "text", "text": "what is my locker number? (off)"}]
    typo = ask("what is my locker number? (typo)", extra_headers={"x-amber-memory": "of"})
    assert "memory_context" not in json.dumps(typo)
    meta = ask("my new bike is a Brompton (meta read)", extra_body={"metadata": {"amber_memory": "read"}})
    assert "memory_context" in json.dumps(meta)
    wrote = ask("remember that my tram stop is Bolhão (write)", extra_headers={"x-amber-memory": "write"})
    assert "memory_context" not in json.dumps(wrote)
    ask("and a normal turn (on)")
    kept = lambda: {m["content"] for m in logged(proxy, user)}  # noqa: E731
    assert wait_for(lambda: "and a normal turn (on)" in kept() and "remember that my tram stop is Bolhão (write)" in kept(), timeout=60)
    assert not any("(read)" in t or "(off)" in t or "(typo)" in t or "(meta read)" in t for t in kept())
    mems = rest(proxy, "GET", "/memories", key="relay", user=user).json()["items"]
    assert any("Bolhão" in m["content"] for m in mems)  # the write-only turn's command took effect


def test_forget_through_the_proxy_leaves_nothing_to_inject(proxy, up):
    user = f"fg-{uuid.uuid4().hex[:6]}"

    def say(text: str, **kw) -> str:
        oai(proxy).chat.completions.create(model="gpt-4o-mini", user=user, messages=[{"role": "user", "content": text}], **kw)
        return json.dumps(last_user_blocks(up.find("/chat/completions", contains=text)[-1]), ensure_ascii=False)

    say("Remember that my passport number is P-99812345.")
    say("Remember that I work at Acme.")
    assert wait_for(lambda: len(rest(proxy, "GET", "/memories", key="relay", user=user).json()["items"]) == 2, timeout=60)
    assert "P-99812345" in say("What is my passport number? (before)")
    say("Forget that my passport number is P-99812345")
    say("Forget that I work at Acme")
    assert wait_for(lambda: not rest(proxy, "GET", "/memories", key="relay", user=user).json()["items"], timeout=60)
    # Twenty ways of asking after what was forgotten: direct questions, bare words, the number
    # itself, paraphrases and a Chinese question. None may bring it back, neither injected into
    # the request nor returned by a search of the same memory. The probes recall but are not kept
    # (x-amber-memory: read): a probe that says the number again would otherwise be stored, and
    # found, as a new turn.
    for probe in FORGET_PROBES:
        sent = say(f"{probe} (after)", extra_headers={"x-amber-memory": "read"})
        injected = sent.partition("<memory_context>")[2]  # what Amber added, not the probe's own words
        assert "99812345" not in injected and "work at Acme" not in injected, (probe, sent)
        hits = rest(proxy, "POST", "/search", key="relay", user=user, json={"query": probe, "top_k": 20})
        assert hits.status_code == 200, hits.text
        found = json.dumps(hits.json(), ensure_ascii=False)
        assert "99812345" not in found and "work at Acme" not in found, (probe, found)


FORGET_PROBES = [
    "What is my passport number?", "passport", "P-99812345", "99812345", "Which travel document number did I give you?",
    "my passport number is", "Where do I work?", "Acme", "Who is my employer?", "my job",
    "What company do I work for?", "Tell me everything you remember about me.", "What did I ask you to remember?",
    "Do you know my ID number?", "the number starting with P", "Acme Corporation office", "Where is my workplace?",
    "passport and employer details", "我的护照号码是多少？", "I need my passport details for a visa form",
]


def test_secrets_said_through_the_proxy_are_never_stored(proxy, up):
    """A key and a password pasted into a chat: the journal, the turns, the memory a "remember"
    makes and the export all hold a placeholder instead."""
    user = f"sec-{uuid.uuid4().hex[:6]}"
    key, password = "sk-proj-4fJd9QwX2LmZp7Rt8VbN3cYk6HsE1uGa0TiWoPq5", "Tr0ub4dor&3"
    for text in (f"My OpenAI key is {key}, why does it fail?", f"Remember that my wifi password is {password}"):
        oai(proxy).chat.completions.create(model="gpt-4o-mini", user=user, messages=[{"role": "user", "content": text}])
    assert wait_for(lambda: len(logged(proxy, user)) >= 4, timeout=60)
    export = rest(proxy, "GET", "/export", key="relay", user=user).text
    journal = "".join(p.read_text(errors="replace") for p in (proxy.workdir / "data" / "spool").rglob("*") if p.is_file())
    for where in (export, json.dumps(logged(proxy, user)), journal):
        assert key not in where and password not in where
    assert "[redacted: api key]" in export and "[redacted: password]" in export


def test_one_person_known_by_several_names_has_one_memory(proxy, up):
    """The identity map: what Dana says as `dana-laptop` through the proxy is recalled when she
    chats as `dana@example.com` (the Open WebUI filter's name for her) and is Dana's memory."""
    oai(proxy).chat.completions.create(
        model="gpt-4o-mini", user="dana-laptop", messages=[{"role": "user", "content": "Remember that my allotment is plot 12 by the river"}]
    )
    assert wait_for(lambda: rest(proxy, "GET", "/memories", key="relay", user="dana").json()["items"], timeout=60)
    oai(proxy).chat.completions.create(
        model="gpt-4o-mini", user="dana@example.com", messages=[{"role": "user", "content": "which plot is my allotment?"}]
    )
    sent = json.dumps(last_user_blocks(up.find("/chat/completions", contains="which plot is my allotment?")[-1]))
    assert "plot 12" in sent
    via_filter = rest(proxy, "POST", "/recall", key="relay", user="dana@example.com", json={"query": "allotment"}).json()["text"]
    assert "plot 12" in via_filter
    assert "plot 12" not in rest(proxy, "POST", "/recall", key="relay", user="bob", json={"query": "allotment plot"}).json()["text"]


def test_the_model_is_told_what_a_forget_erases(proxy, up):
    """The model answers before capture carries a forget out: the injected note says what Amber is
    erasing (or that nothing matched, or that this private turn erases nothing), and nothing is
    recalled on that turn, so the answer can be honest and does not repeat what goes."""
    user = f"note-{uuid.uuid4().hex[:6]}"
    rest(proxy, "POST", "/memories", key="relay", user=user, json={"content": "My passport number is P-55501234"}).raise_for_status()

    def sent(text: str, **kw) -> str:
        oai(proxy).chat.completions.create(model="gpt-4o-mini", user=user, messages=[{"role": "user", "content": text}], **kw)
        return json.dumps(last_user_blocks(up.find("/chat/completions", contains=text)[-1]), ensure_ascii=False)

    private = sent("Can you forget my passport number? (private)", extra_headers={"x-amber-memory": "read"})
    assert "erases nothing now" in private and "55501234" not in private.partition("(private)")[2]
    nothing = sent("Please forget my shoe size")
    assert "found nothing it is sure states this" in nothing
    found = sent("Can you forget my passport number?")
    assert "Amber is erasing 1 memory" in found and "55501234" not in found
    assert wait_for(lambda: not rest(proxy, "GET", "/memories", key="relay", user=user).json()["items"], timeout=60)
