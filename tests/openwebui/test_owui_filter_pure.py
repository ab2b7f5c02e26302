"""The filter's pure helpers, imported straight from the file (it needs only httpx and pydantic)."""

from __future__ import annotations

import asyncio
import copy
import importlib.util
from pathlib import Path

import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st

FILE = Path(__file__).resolve().parents[2] / "openwebui_functions" / "amber_memory_filter.py"
_spec = importlib.util.spec_from_file_location("amber_memory_filter", FILE)
f = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(f)

# A block as Amber's host renders it (the filter recognises Amber's blocks by their header line).
PATCH = "<memory_context>\nBackground from Amber, the user's long-term memory.\n- [2026-01-01] (fact) \"cat is Miso\"\n</memory_context>"


def test_frontmatter_names_what_open_webui_shows():
    lines = FILE.read_text().splitlines()
    assert lines[0] == '"""'
    head = dict(line.split(": ", 1) for line in lines[1 : lines.index('"""', 1)])
    assert set(head) >= {"title", "author", "version", "license", "required_open_webui_version", "description"}


def test_a_fresh_filter_holds_only_its_valves():
    flt = f.Filter()
    assert list(vars(flt)) == ["valves"]
    assert {"amber_url", "api_key", "top_k", "budget_tokens", "namespace", "project_rules", "disable_builtin_memory", "priority", "recall_timeout_s"} <= set(f.Filter.Valves.model_fields)
    assert {"enabled", "private_namespace"} <= set(f.Filter.UserValves.model_fields)


def test_string_content_keeps_its_text_and_gets_the_patch_at_the_end():
    out = f.with_patch("What is my cat called?", PATCH)
    assert out == "What is my cat called?\n\n" + PATCH


def test_list_content_keeps_its_parts_and_gets_a_new_text_part():
    parts = [{"type": "text", "text": "look"}, {"type": "image_url", "image_url": {"url": "data:,"}}]
    out = f.with_patch(parts, PATCH)
    assert out[:2] == parts and out[2] == {"type": "text", "text": PATCH}
    assert f.strip_content(out) == parts


def test_a_second_injection_replaces_the_first():
    once = f.with_patch("hi", PATCH)
    assert f.with_patch(once, PATCH) == once
    assert f.with_patch(f.with_patch([{"type": "text", "text": "hi"}], PATCH), PATCH) == [{"type": "text", "text": "hi"}, {"type": "text", "text": PATCH}]


@given(st.text().filter(lambda t: "<memory_context" not in t and "</memory_context" not in t))
def test_strip_undoes_the_patch(text):
    assert f.strip_patch(f.with_patch(text, PATCH)) == text.strip()


def test_strip_removes_every_block_and_an_unclosed_tail():
    assert f.strip_patch(f"a {PATCH} b {PATCH}") == "a  b"
    assert f.strip_patch("question\n\n<memory_context>\nBackground from Amber, the user's long-term memory.\n- half") == "question"
    assert f.strip_patch("no patch here ") == "no patch here "


def test_project_rules_first_match_wins():
    rules = "coder-*=code, gpt-4o*=work, *=general"
    assert f.project_for(rules, "coder-7b") == "code"
    assert f.project_for(rules, "gpt-4o-mini") == "work"
    assert f.project_for(rules, "llama") == "general"
    assert f.project_for("", "llama") == ""
    assert f.project_for("broken, =x, y=", "y") == ""


def test_turns_of_a_saved_chat_keep_open_webui_ids_and_name_the_model():
    body = {
        "model": "fake-model",
        "chat_id": "c1",
        "id": "a2",
        "messages": [
            {"id": "u1", "role": "user", "content": "first", "timestamp": 1},
            {"id": "a1", "role": "assistant", "content": "reply one", "timestamp": 2},
            {"id": "u2", "role": "user", "content": "second\n\n" + PATCH, "timestamp": 1764470000},
            {"id": "a2", "role": "assistant", "content": "reply two", "timestamp": 1764470001},
        ],
    }
    turns = f._turns(body, body["messages"], {"id": "alice"}, {}, None)
    assert [(t["id"], t["role"], t["content"]) for t in turns] == [("owui-u2", "user", "second"), ("owui-u2-reply", "assistant", "reply two")]
    assert all(t["session"] == "c1" and t["client"] == "open-webui" for t in turns)
    assert turns[1]["author"] == "fake-model" and "author" not in turns[0]
    assert turns[0]["created_at"].startswith("2025-11-30T")


def test_a_reply_in_the_same_second_is_still_later_than_its_question():
    msgs = [{"id": "u", "role": "user", "content": "q", "timestamp": 1764470000}, {"id": "a", "role": "assistant", "content": "r", "timestamp": 1764470000}]
    q, r = f._turns({"chat_id": "c"}, msgs, {"id": "alice"}, {}, None)
    assert q["created_at"] == "2025-11-30T02:33:20+00:00" and r["created_at"] == "2025-11-30T02:33:20.001000+00:00"


def test_api_chat_turns_get_ids_stable_per_exchange_and_distinct_across_exchanges():
    def body(reply_id):
        return {"model": "m", "id": reply_id, "messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]}

    one = f._turns(body("r1"), body("r1")["messages"], {"id": "alice"}, {}, None)
    again = f._turns(body("r1"), body("r1")["messages"], {"id": "alice"}, {}, None)
    other = f._turns(body("r2"), body("r2")["messages"], {"id": "alice"}, {}, None)
    bob = f._turns(body("r1"), body("r1")["messages"], {"id": "bob"}, {}, None)
    assert [t["id"] for t in one] == [t["id"] for t in again]
    assert not {t["id"] for t in one} & {t["id"] for t in other}
    assert not {t["id"] for t in one} & {t["id"] for t in bob}
    assert all("session" not in t for t in one)


def test_nothing_to_capture_without_a_user_turn():
    msgs = [{"role": "system", "content": "s"}, {"role": "assistant", "content": "a"}]
    assert f._turns({}, msgs, {"id": "alice"}, {}, None) == []
    assert f._turns({}, [{"role": "user", "content": PATCH}], {"id": "alice"}, {}, None) == []


def test_iso_reads_seconds_and_milliseconds():
    assert f.iso(1764470000) == f.iso(1764470000000) == "2025-11-30T02:33:20+00:00"
    assert f.iso(None).endswith("+00:00")


def test_citation_is_one_source_group_with_an_excerpt_per_memory():
    items = [
        {"id": "m1", "text": "cat is Miso", "source": "memory", "kind": "fact", "created_at": "2026-01-02T03:04:05Z", "score": 0.9},
        {"id": "t1", "text": "I adopted Miso", "source": "message", "kind": "message", "created_at": "2026-01-01T00:00:00Z", "score": 0.5},
    ]
    ev = f._citation(items)
    assert ev["type"] == "source" and "type" not in ev["data"]  # Open WebUI saves sources without a data.type
    assert ev["data"]["document"] == ["cat is Miso", "I adopted Miso"]
    assert [m["name"].split(" ", 1)[1] for m in ev["data"]["metadata"]] == ["fact 2026-01-02", "message 2026-01-01"]


def test_a_long_paste_is_clipped_like_amber_clips_it():
    from core import MESSAGE_MAX_CHARS, clip

    assert f.MAX_TURN_CHARS == MESSAGE_MAX_CHARS
    paste = "row ok\n" * 30_000
    assert f.clip(paste) == clip(paste) and len(f.clip(paste)) <= MESSAGE_MAX_CHARS
    turns = f._turns({"chat_id": "c1"}, [{"role": "user", "content": paste}, {"role": "assistant", "content": "fine"}], {"id": "u1"}, {}, None)
    assert len(turns[0]["content"]) <= MESSAGE_MAX_CHARS and turns[0]["content"].startswith("row ok")


def test_the_filter_query_cap_is_amber_s():
    from core import QUERY_MAX_CHARS

    assert f.MAX_QUERY_CHARS == QUERY_MAX_CHARS


@given(st.text(max_size=3000))
def test_the_filter_fingerprints_turns_like_amber(text):
    """The host leaves out turns the chat already shows by comparing these digests."""
    from core import fingerprint

    assert f.fingerprint(text) == fingerprint(text)


def test_the_chat_s_turns_are_fingerprinted_without_amber_s_block():
    from core import fingerprint

    msgs = [{"role": "user", "content": "I adopted a cat"}, {"role": "assistant", "content": "Lovely!"},
            {"role": "user", "content": f"what was its name?\n\n{PATCH}"}]
    assert f._chat_texts(msgs) == ["I adopted a cat", "Lovely!", "what was its name?"]
    assert {fingerprint(t) for t in f._chat_texts(msgs)} == {f.fingerprint("i adopted  a CAT"), f.fingerprint("Lovely!"), f.fingerprint("what was its name?")}


# ---- the user's own tag, masked key, bare namespaces, regenerations, host away ---------

# A user's own text that mentions the tag (the filter once cut such a message short).
OWN_TAG = (
    "I am writing docs for our prompt format. Is it fine to wrap recalled notes in <memory_context> "
    "and </memory_context> tags, or should the closing tag be <memory_context/>? Here is a sample: "
    "<memory_context>likes tea</memory_context> Thanks!"
)


def test_the_users_own_tag_is_never_cut():
    assert f.strip_patch(OWN_TAG) == OWN_TAG
    sent = f.with_patch(OWN_TAG, PATCH)
    assert sent == OWN_TAG + "\n\n" + PATCH  # the model gets all of the user's words, then Amber's block
    assert f.strip_patch(sent) == OWN_TAG
    parts = [{"type": "text", "text": OWN_TAG}]
    assert f.strip_content(parts) == parts
    assert f.strip_content(f.with_patch(parts, PATCH)) == parts


def test_blocks_rendered_by_amber_are_recognised():
    """The filter's header match follows what Amber's host actually renders (recall and boot pack)."""
    from datetime import datetime, timezone
    from types import SimpleNamespace

    from core import render_boot
    from core.recall.fusion import Candidate
    from core.recall.render import render

    item = Candidate(id="m1", text="cat is </memory_context> Miso", source="memory", kind="fact",
                     created_at=datetime(2026, 1, 1, tzinfo=timezone.utc))
    recall_block = render([item])
    boot_block = render_boot(SimpleNamespace(content="Alice, in Lisbon"), [], [])
    for block in (recall_block, boot_block):
        assert f.strip_patch(f"{OWN_TAG}\n\n{block}") == OWN_TAG


async def test_the_outlet_leaves_the_users_own_tag_and_the_saved_chat_alone():
    flt = f.Filter()  # no key: nothing is captured, only the stripping runs
    body = {"chat_id": "c1", "messages": [{"id": "u1", "role": "user", "content": OWN_TAG},
                                          {"id": "a1", "role": "assistant", "content": "Either works."}]}
    before = copy.deepcopy(body)
    out = await flt.outlet(body, __user__={"id": "alice"})
    assert out == before
    patched = {"chat_id": "c1", "messages": [{"id": "u1", "role": "user", "content": OWN_TAG + "\n\n" + PATCH}]}
    assert (await flt.outlet(patched, __user__={"id": "alice"}))["messages"][0]["content"] == OWN_TAG


def test_the_key_valve_is_a_password_field():
    schema = f.Filter.Valves.model_json_schema()["properties"]["api_key"]
    assert schema["input"] == {"type": "password"}


def test_namespaces_bare_names_are_projects_and_bad_ones_get_a_hint():
    from core.model import NAMESPACE_RE

    assert f.NAMESPACE.pattern == NAMESPACE_RE.pattern
    assert f.namespace_for("journal") == ("project:journal", "")
    assert f.namespace_for(" project:journal ") == ("project:journal", "")
    assert f.namespace_for("client:cli") == ("client:cli", "")
    assert f.namespace_for("") == ("", "")
    ns, hint = f.namespace_for("my journal")
    assert ns == "" and "'my journal' ignored" in hint and "project:journal" in hint
    assert f.namespace_for("team:x")[0] == "" and f.namespace_for("x" * 65)[0] == ""


def test_a_refusal_names_what_the_host_said():
    req = httpx.Request("POST", "http://amber/v1/recall")
    resp = httpx.Response(422, request=req, json={"error": "invalid_input", "detail": "namespace: 'x y' is not 'default', 'project:<name>' or 'client:<name>'", "field": "namespace"})
    e = httpx.HTTPStatusError("422", request=req, response=resp)
    assert f._reason(e) == "host answered 422: namespace: 'x y' is not 'default', 'project:<name>' or 'client:<name>'"
    assert f._reason(httpx.HTTPStatusError("502", request=req, response=httpx.Response(502, request=req, text="bad gateway"))) == "host answered 502"


def test_a_regenerated_reply_lands_on_the_id_of_the_one_it_replaces():
    def body(reply_id, reply):
        return {"chat_id": "c1", "id": reply_id, "messages": [
            {"id": "u1", "role": "user", "content": "name a fruit", "timestamp": 1764470000},
            {"id": reply_id, "role": "assistant", "content": reply, "timestamp": 1764470001}]}

    first = f._turns(body("a1", "apple"), body("a1", "apple")["messages"], {"id": "alice"}, {}, None)
    again = f._turns(body("a2", "banana"), body("a2", "banana")["messages"], {"id": "alice"}, {}, None)
    assert [t["id"] for t in first] == [t["id"] for t in again] == ["owui-u1", "owui-u1-reply"]
    assert again[1]["content"] == "banana"
    # API chats (no ids): the reply is named after its question too
    api = {"id": "r1", "messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]}
    q, r = f._turns(api, api["messages"], {"id": "alice"}, {}, None)
    assert r["id"] == q["id"] + "-reply"


# ---- the retry queue: `_send` is replaced by a fake host that is down, then back ----------------


class FakeHost:
    def __init__(self, down: int = 0, status: int = 503):
        self.down, self.status, self.got = down, status, []

    async def __call__(self, valves, user_id, turns):
        if self.down:
            self.down -= 1
            if self.status == 0:
                raise httpx.ConnectError("refused")
            req = httpx.Request("POST", "http://amber/v1/messages")
            raise httpx.HTTPStatusError("down", request=req, response=httpx.Response(self.status, request=req))
        self.got.append((user_id, [t["content"] for t in turns]))
        return {"ingested": len(turns), "commands": []}


@pytest.fixture
def queue(monkeypatch):
    f._BACKLOG.clear()
    monkeypatch.setattr(f, "RETRY_FIRST_S", 0.01)
    monkeypatch.setattr(f, "RETRY_MAX_S", 0.05)
    yield f._BACKLOG
    task = f._RETRY["task"]
    if task is not None and not task.done():
        task.cancel()
    f._RETRY.update(task=None, valves=None)
    f._BACKLOG.clear()


def exchange(text: str) -> list[dict]:
    return [{"id": text, "role": "user", "content": text, "created_at": "2026-01-01T00:00:00+00:00"}]


async def test_a_turn_said_while_the_host_is_down_is_stored_when_it_is_back(queue, monkeypatch):
    host = FakeHost(down=1, status=0)
    monkeypatch.setattr(f, "_send", host)
    monkeypatch.setattr(f, "RETRY_FIRST_S", 30)  # no timer here: the next capture delivers it
    v = f.Filter.Valves(api_key="k")
    await f._capture(v, "alice", exchange("remember that my dog is called Rex"))
    assert len(queue) == 1 and host.got == []
    await f._capture(v, "bob", exchange("hello"))
    assert host.got == [("bob", ["hello"]), ("alice", ["remember that my dog is called Rex"])]
    assert len(queue) == 0


async def test_held_turns_are_retried_with_backoff_without_a_new_capture(queue, monkeypatch):
    host = FakeHost(down=4, status=503)  # the first try and three retries fail
    monkeypatch.setattr(f, "_send", host)
    await f._capture(f.Filter.Valves(api_key="k"), "alice", exchange("remember that my dog is called Rex"))
    assert len(queue) == 1
    await asyncio.wait_for(f._RETRY["task"], 5)
    assert host.got == [("alice", ["remember that my dog is called Rex"])] and len(queue) == 0


async def test_a_refusal_is_not_retried(queue, monkeypatch):
    host = FakeHost(down=1, status=422)
    monkeypatch.setattr(f, "_send", host)
    await f._capture(f.Filter.Valves(api_key="k"), "alice", exchange("x"))
    assert len(queue) == 0 and f._RETRY["task"] is None


async def test_the_queue_is_bounded_and_drops_the_oldest(queue, monkeypatch):
    monkeypatch.setattr(f, "_send", FakeHost(down=10**6, status=0))
    monkeypatch.setattr(f, "BACKLOG_MAX", 3)
    monkeypatch.setattr(f, "RETRY_FIRST_S", 30)
    for n in range(5):
        await f._capture(f.Filter.Valves(api_key="k"), "alice", exchange(f"turn {n}"))
    assert [h.turns[0]["content"] for h in queue] == ["turn 2", "turn 3", "turn 4"]
    monkeypatch.setattr(f, "BACKLOG_MAX_CHARS", 10)
    f._hold("alice", exchange("a long turn that is over the size cap"))
    assert len(queue) == 1  # the newest is kept even alone over the cap


async def test_an_exchange_held_too_long_is_dropped(queue, monkeypatch):
    host = FakeHost()
    monkeypatch.setattr(f, "_send", host)
    f._hold("alice", exchange("old"))
    queue[0].since -= f.BACKLOG_MAX_AGE_S + 1
    f._hold("alice", exchange("new"))
    assert await f._flush(f.Filter.Valves(api_key="k"))
    assert host.got == [("alice", ["new"])]


def test_users_are_named_by_id_or_by_email_as_the_valve_says():
    v = f.Filter().valves
    user = {"id": "owui-7c1e", "email": "alice@example.com"}
    assert f.person_of(v, user) == "owui-7c1e"
    v.user_key = "email"
    assert f.person_of(v, user) == "alice@example.com"
    assert f.person_of(v, {"id": "owui-9"}) == "owui-9"  # no email known: the id


@given(st.lists(st.sampled_from(["hi ", "<memory_context>", "</memory_context>", "\n", "Background from Amber, x\n",
                                 "Standing background from Amber\n", "likes tea", "<MEMORY_CONTEXT>"]), max_size=12).map("".join))
def test_the_filter_and_amber_strip_the_same_blocks(text):
    from core import strip_patch

    assert f.strip_patch(text) == strip_patch(text)


def test_the_filter_names_items_by_amber_s_handles():
    from core import handle_of

    for i in ("m1", "lt_0f3a_u", "中文", "x" * 300):
        assert f.handle_of(i) == handle_of(i)
    ev = f._citation([{"id": "m1", "text": "cat is Miso", "kind": "fact", "created_at": "2026-01-02T03:04:05Z"}])
    assert ev["data"]["metadata"][0]["name"] == f"{handle_of('m1')} fact 2026-01-02"


def test_only_an_ordinary_chat_names_its_request():
    meta = {"chat_id": "c-1", "message_id": "m-9"}
    assert f.request_name({}, meta) == "owui:c-1:m-9"
    assert f.request_name({}, {"chat_id": "temporary:abc", "message_id": "m-9"}) == ""  # a temporary chat keeps nothing
    assert f.request_name({}, {"chat_id": "channel:x", "message_id": "m-9"}) == ""
    assert f.request_name({}, {"chat_id": "c-1"}) == ""
    assert "show_memories_used" in f.Filter.UserValves.model_fields
