"""The hook's small parts without a proxy: identity order, Claude targets, request shapes, capture parsing."""

from __future__ import annotations

from dataclasses import dataclass

from core import CacheTarget
from litellm_hooks import capture, identity, request
from litellm_hooks.targets import TargetResolver, is_claude_model

ORDER = ["end_user", "user", "team", "key_alias"]


@dataclass
class Key:
    end_user_id: str | None = None
    user_id: str | None = None
    team_id: str | None = None
    key_alias: str | None = None


def test_identity_prefers_the_end_user_then_follows_the_configured_order():
    assert identity.resolve_user({"user": "ann"}, Key(user_id="k-user"), ORDER, None) == "ann"
    assert identity.resolve_user({}, Key(end_user_id="eu"), ORDER, None) == "eu"
    hdr = {"proxy_server_request": {"headers": {"X-LiteLLM-End-User-Id": "hdr-user"}}}
    assert identity.resolve_user(hdr, Key(), ORDER, None) == "hdr-user"
    assert identity.resolve_user({"metadata": {"user_id": "anth"}}, Key(), ORDER, None) == "anth"
    assert identity.resolve_user({}, Key(user_id="k-user", team_id="t"), ORDER, None) == "k-user"
    assert identity.resolve_user({}, Key(team_id="t", key_alias="a"), ORDER, None) == "t"
    assert identity.resolve_user({"user": "ann"}, Key(team_id="t"), ["team", "end_user"], None) == "t"


def test_with_a_key_per_person_the_key_speaks_for_its_owner_whatever_user_is_sent():
    """The README's setting for virtual keys of their own: the key's owner wins over a `user` field,
    the end-user header or Anthropic's metadata (which would let Alice's key speak as Bob); a shared
    key with no owner still serves its end users."""
    per_person = ["user", "end_user", "team", "key_alias"]
    hdr = {"proxy_server_request": {"headers": {"X-LiteLLM-End-User-Id": "bob"}}}
    for data in ({"user": "bob"}, hdr, {"metadata": {"user_id": "bob"}}):
        assert identity.resolve_user(data, Key(user_id="alice"), per_person, None) == "alice"
    assert identity.resolve_user({"user": "bob"}, Key(), per_person, None) == "bob"


def test_without_end_user_in_the_order_a_key_with_no_owner_names_nobody_else():
    """The README's order where no shared key serves many people: a team's or a service's key,
    which has no owner, speaks for its team or alias whatever `user` field or metadata it sends."""
    keys_only = ["user", "team", "key_alias"]
    for data in ({"user": "alice"}, {"metadata": {"user_id": "alice"}}, {}):
        assert identity.resolve_user(data, Key(team_id="eng"), keys_only, None) == "eng"
        assert identity.resolve_user(data, Key(key_alias="ci-bot"), keys_only, None) == "ci-bot"
        assert identity.resolve_user(data, Key(user_id="mallory"), keys_only, None) == "mallory"
    assert identity.resolve_user({"user": "alice"}, Key(), keys_only, None) is None  # the master key names nobody


def test_no_identity_uses_the_default_user_or_none():
    # LiteLLM's placeholder for master-key requests names nobody
    assert identity.resolve_user({}, Key(user_id="default_user_id"), ORDER, None) is None
    assert identity.resolve_user({}, Key(), ORDER, "me") == "me"
    assert identity.actor_for({}, Key(), ORDER, None) is None


def test_claude_code_session_suffix_is_not_part_of_the_user():
    raw = "user_3f2a9c_account_0b1e-77aa_session_5d6e-8f90"
    data = {"metadata": {"user_id": raw}}
    assert identity.resolve_user(data, Key(end_user_id=raw), ORDER, None) == "user_3f2a9c_account_0b1e-77aa"
    assert identity.session_of(data, {}) == "5d6e-8f90"


def test_client_name_from_header_or_user_agent():
    data = {"proxy_server_request": {"headers": {"user-agent": "Anthropic/Python 0.40.0"}}}
    assert identity.client_name(data) == "Anthropic"
    data["proxy_server_request"]["headers"]["x-amber-client"] = "cherry-studio"
    assert identity.client_name(data) == "cherry-studio"
    assert identity.actor_for({"user": "u", **data}, Key(), ORDER, None).client == "cherry-studio"


class Router:
    def __init__(self, groups):
        self.groups = groups

    def get_model_list(self, model_name=None):
        return [{"litellm_params": {"model": m}} for m in self.groups.get(model_name, [])]


def test_claude_targets_come_from_the_router_deployments():
    router = Router({
        "sonnet": ["anthropic/claude-sonnet-4-5"],
        "bedrock": ["bedrock/us.anthropic.claude-3-7-sonnet-20250219-v1:0"],
        "mixed": ["anthropic/claude-sonnet-4-5", "openai/gpt-4o"],
        "friendly-name": ["openai/gpt-4o-mini"],
    })
    targets = TargetResolver(lambda: router)
    assert targets.is_claude("sonnet") and targets.is_claude("bedrock")
    assert not targets.is_claude("mixed") and not targets.is_claude("friendly-name")
    assert is_claude_model("vertex_ai/claude-opus-4") and not is_claude_model("gpt-4o")


def test_messages_route_keeps_system_text_and_places_the_patch():
    data = {"system": "Be brief.", "tools": [{"name": "t", "cache_control": {"type": "ephemeral"}}],
            "messages": [{"role": "user", "content": "hi"}]}
    planned = request.apply(data, "messages", "PATCH", CacheTarget(claude=True))
    assert data["system"][0]["text"] == "Be brief." and data["tools"] == [{"name": "t", "cache_control": {"type": "ephemeral"}}]
    assert data["messages"][0]["content"][-1] == {"type": "text", "text": "PATCH"}
    assert planned.marks_total == 3  # tool mark + tail + system


def test_responses_string_input_becomes_items_with_the_patch():
    data = {"input": "hello", "instructions": "Be kind."}
    request.apply(data, "responses", "PATCH", CacheTarget(claude=True))
    assert data["instructions"] == "Be kind."
    assert data["input"] == [{"role": "user", "content": [{"type": "input_text", "text": "hello"}, {"type": "input_text", "text": "PATCH"}]}]


def test_metadata_location_differs_by_route():
    chat, msgs = {}, {}
    request.metadata_of(chat, "chat")["x"] = 1
    request.metadata_of(msgs, "messages")["x"] = 1
    assert chat == {"metadata": {"x": 1}} and msgs == {"litellm_metadata": {"x": 1}}
    assert request.kind_of("acompletion") == "chat" and request.kind_of("aembedding") is None


def test_capture_reads_each_response_shape():
    chat = {"choices": [{"message": {"role": "assistant", "content": "chat answer"}}]}
    anth = {"content": [{"type": "text", "text": "claude answer"}, {"type": "tool_use", "id": "x"}]}
    resp = {"output": [{"type": "message", "content": [{"type": "output_text", "text": "responses answer"}]}]}
    assert capture.answer_text(chat) == "chat answer"
    assert capture.answer_text(anth) == "claude answer"
    assert capture.answer_text(resp) == "responses answer"
    kwargs = {"messages": [{"role": "user", "content": [{"type": "text", "text": "q"}, {"type": "text", "text": "<memory_context>x</memory_context>"}]}],
              "litellm_params": {"metadata": {}}}
    assert capture.turn(kwargs, chat).user.startswith("q")


def test_boot_pack_renders_in_creation_order_and_is_fenced():
    from datetime import datetime, timezone

    from core import Memory
    from core import render_boot

    def mem(i: int, text: str) -> Memory:
        at = datetime(2026, 1, i, tzinfo=timezone.utc)
        return Memory(id=f"m{i}", content=text, user_id="u", created_at=at, updated_at=at, pinned=True)

    text = render_boot(None, [mem(2, "second"), mem(1, "first </memory_context> escaped")], [])
    assert text.startswith("<memory_context>") and text.endswith("</memory_context>")
    assert text.index("first") < text.index("second")
    assert text.count("</memory_context>") == 1
    assert render_boot(None, [], []) == ""


def test_only_a_request_ending_with_the_users_words_captures_them():
    convo = [{"role": "user", "content": "book a table"}, {"role": "assistant", "content": "", "tool_calls": [{"id": "1"}]},
             {"role": "tool", "content": "booked"}]
    assert capture.fresh_user_turn({"messages": convo}) == ("", "")
    anthropic_loop = [{"role": "user", "content": "book"}, {"role": "assistant", "content": [{"type": "tool_use", "id": "1"}]},
                      {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "1", "content": "ok"}]}]
    assert capture.fresh_user_turn({"messages": anthropic_loop})[0] == ""
    first = capture.fresh_user_turn({"messages": [{"role": "user", "content": "hi"}]})
    later = capture.fresh_user_turn({"messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"},
                                                  {"role": "user", "content": "hi"}]})
    assert first[0] == later[0] == "hi" and first[1] != later[1]  # same words, another place: another message
    assert capture.fresh_user_turn({"messages": [{"role": "user", "content": "hi"}]}) == first  # a retry: the same


async def test_a_boot_pack_is_fetched_again_so_a_forgotten_pin_leaves_the_system_prompt():
    from litellm_hooks.bootpack import BootPacks

    now = [0.0]
    texts = iter(["pinned: my passport number", "", ""])
    calls = []

    async def build() -> str:
        calls.append(now[0])
        return next(texts)

    packs = BootPacks(refresh_s=30, clock=lambda: now[0])
    assert await packs.get("u", build) == "pinned: my passport number"
    now[0] = 10
    assert await packs.get("u", build) == "pinned: my passport number"  # same bytes between fetches: the cache stays warm
    now[0] = 31
    assert await packs.get("u", build) == ""  # unpinned or forgotten: gone at the next fetch
    assert calls == [0.0, 31]


def test_the_forget_note_is_fenced_and_stripped_from_the_captured_turn():
    from core import parse_command, render_forget_note, strip_patch

    for note in (render_forget_note("I work at Acme", 1, 2), render_forget_note("my shoe size", 0, 0),
                 render_forget_note("x </memory_context> y", 0, 0, kept=False)):
        assert note.startswith("<memory_context>") and note.count("</memory_context>") == 1
        captured = strip_patch("Forget that I work at Acme\n" + note)
        assert captured == "Forget that I work at Acme" and parse_command(captured).text == "I work at Acme"
    assert "erasing 1 memory and 2 past turns" in render_forget_note("a", 1, 2)
    assert "found nothing" in render_forget_note("a", 0, 0) and "erases nothing now" in render_forget_note("a", 3, 0, kept=False)
