"""The filter's pure helpers, imported straight from the file (it needs only httpx and pydantic)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

FILE = Path(__file__).resolve().parents[2] / "openwebui_functions" / "amber_memory_filter.py"
_spec = importlib.util.spec_from_file_location("amber_memory_filter", FILE)
f = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(f)

PATCH = "<memory_context>\nBackground from Amber.\n- [2026-01-01] (fact) \"cat is Miso\"\n</memory_context>"


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
    assert f.strip_patch("question\n\n<memory_context>\nhalf") == "question"
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
    assert [(t["id"], t["role"], t["content"]) for t in turns] == [("owui-u2", "user", "second"), ("owui-a2", "assistant", "reply two")]
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
    assert [m["name"] for m in ev["data"]["metadata"]] == ["fact 2026-01-02", "message 2026-01-01"]


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
            {"role": "user", "content": "what was its name? <memory_context>x</memory_context>"}]
    assert f._chat_texts(msgs) == ["I adopted a cat", "Lovely!", "what was its name?"]
    assert {fingerprint(t) for t in f._chat_texts(msgs)} == {f.fingerprint("i adopted  a CAT"), f.fingerprint("Lovely!"), f.fingerprint("what was its name?")}
