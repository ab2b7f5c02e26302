"""core.cache_plan: patch placement and Claude cache anchors (a pure function)."""

from __future__ import annotations

import copy
import json

from hypothesis import given, settings
from hypothesis import strategies as st

from core import CacheTarget, count_marks, plan_cache

CLAUDE = CacheTarget(claude=True)
OPENAI = CacheTarget(claude=False)
PATCH = "<memory_context>\n- [2026-01-01] (fact) \"likes tea\"\n</memory_context>"


def texts(content) -> list[str]:
    if isinstance(content, str):
        return [content]
    return [b.get("text", "") for b in content]


def unmarked(value):
    """A request part with marks removed and plain strings as one text block: what the cache keys on."""
    if isinstance(value, str):
        return [{"type": "text", "text": value}]
    if isinstance(value, list):
        return [unmarked(v) if not isinstance(v, dict) else {k: unmarked(x) if k == "content" else x for k, x in v.items() if k != "cache_control"} for v in value]
    return value


def convo(turns: int, system: str | None = "You are helpful.") -> list[dict]:
    msgs = [{"role": "system", "content": system}] if system else []
    for i in range(turns):
        msgs.append({"role": "user", "content": f"question {i}"})
        msgs.append({"role": "assistant", "content": f"answer {i}"})
    msgs.append({"role": "user", "content": "latest question"})
    return msgs


def test_patch_is_the_unmarked_last_block_of_the_last_user_message():
    msgs = convo(2)
    out = plan_cache(msgs, PATCH, OPENAI)
    last = out.messages[-1]
    assert last["content"][-1] == {"type": "text", "text": PATCH}
    assert texts(last["content"]) == ["latest question", PATCH]
    assert out.anchors == () and count_marks(out.messages) == 0
    assert out.messages[:-1] == msgs[:-1]  # nothing else moved


def test_inputs_are_not_mutated():
    msgs = convo(3)
    before = copy.deepcopy(msgs)
    plan_cache(msgs, PATCH, CLAUDE)
    assert msgs == before


def test_claude_gets_tail_and_system_anchors_and_the_patch_stays_after_every_mark():
    out = plan_cache(convo(2), PATCH, CLAUDE)
    assert out.anchors == ("tail", "system")
    last = out.messages[-1]["content"]
    assert last[0]["cache_control"] == {"type": "ephemeral"}
    assert "cache_control" not in last[-1]
    assert out.messages[0]["content"] == [{"type": "text", "text": "You are helpful.", "cache_control": {"type": "ephemeral"}}]
    assert out.marks_total == 2


def test_one_hour_ttl():
    out = plan_cache(convo(1), PATCH, CacheTarget(claude=True, ttl="1h"))
    assert out.messages[-1]["content"][0]["cache_control"] == {"type": "ephemeral", "ttl": "1h"}


def test_client_marks_with_short_ttl_keep_ours_short():
    msgs = convo(1)
    msgs[1]["content"] = [{"type": "text", "text": "question 0", "cache_control": {"type": "ephemeral"}}]
    out = plan_cache(msgs, PATCH, CacheTarget(claude=True, ttl="1h"))
    assert out.messages[-1]["content"][0]["cache_control"] == {"type": "ephemeral"}


def test_a_client_already_using_four_marks_gets_none_added():
    msgs = [{"role": "system", "content": [{"type": "text", "text": "sys", "cache_control": {"type": "ephemeral"}}]}]
    for i in range(3):
        msgs.append({"role": "user", "content": [{"type": "text", "text": f"q{i}", "cache_control": {"type": "ephemeral"}}]})
        msgs.append({"role": "assistant", "content": f"a{i}"})
    msgs.append({"role": "user", "content": "now"})
    out = plan_cache(msgs, PATCH, CLAUDE)
    assert out.anchors == () and out.marks_total == 4
    assert out.messages[-1]["content"][-1]["text"] == PATCH


def test_tool_marks_count_toward_the_limit():
    out = plan_cache(convo(1), PATCH, CLAUDE, existing_marks=3)
    assert out.anchors == ("tail",) and out.marks_total == 4


def test_anthropic_style_system_apart_and_boot_pack_behind_the_system_anchor():
    msgs = convo(1, system=None)
    out = plan_cache(msgs, PATCH, CLAUDE, system="Be brief.", system_apart=True, boot_pack="BOOT")
    assert out.system == [
        {"type": "text", "text": "Be brief.", "cache_control": {"type": "ephemeral"}},
        {"type": "text", "text": "BOOT"},
    ]
    assert out.anchors == ("tail", "system")


def test_system_untouched_for_openai_targets_without_boot_pack():
    out = plan_cache(convo(1), PATCH, OPENAI, system="Be brief.", system_apart=True)
    assert out.system == "Be brief."


def test_bridge_anchor_when_the_previous_tail_is_beyond_the_lookback():
    msgs = convo(1)
    # the assistant's last turn used many tool calls: 25 blocks between the two user turns
    msgs.insert(-1, {"role": "assistant", "content": [{"type": "text", "text": f"step {i}"} for i in range(25)]})
    out = plan_cache(msgs, PATCH, CLAUDE)
    assert out.anchors == ("tail", "system", "bridge")
    prev_user = [m for m in out.messages if m["role"] == "user"][-2]
    assert prev_user["content"][-1]["cache_control"] == {"type": "ephemeral"}


def test_no_user_message_means_no_patch():
    msgs = [{"role": "system", "content": "s"}]
    out = plan_cache(msgs, PATCH, OPENAI)
    assert out.messages == msgs


def test_marked_tail_of_the_client_is_not_marked_twice():
    msgs = convo(1)
    msgs[-1] = {"role": "user", "content": [{"type": "text", "text": "latest", "cache_control": {"type": "ephemeral"}}]}
    out = plan_cache(msgs, PATCH, CLAUDE)
    assert out.anchors == ("system",) and out.marks_total == 2


def test_responses_blocks_use_input_text():
    out = plan_cache([{"role": "user", "content": "hi"}], PATCH, CacheTarget(block_type="input_text"))
    assert out.messages[0]["content"] == [{"type": "input_text", "text": "hi"}, {"type": "input_text", "text": PATCH}]


# ---- properties ----------------------------------------------------------------------------------

mark = st.sampled_from([None, {"type": "ephemeral"}, {"type": "ephemeral", "ttl": "1h"}])
word = st.text(alphabet="abcdefgh 记住", min_size=1, max_size=12)


@st.composite
def block(draw):
    b = {"type": "text", "text": draw(word)}
    m = draw(mark)
    if m:
        b["cache_control"] = m
    return b


content = st.one_of(word, st.lists(block(), min_size=1, max_size=4))
message = st.builds(lambda r, c: {"role": r, "content": c}, st.sampled_from(["user", "assistant"]), content)


@st.composite
def request(draw):
    msgs = draw(st.lists(message, min_size=0, max_size=30))
    system = draw(st.one_of(st.none(), content))
    apart = draw(st.booleans())
    if system is not None and not apart:
        msgs = [{"role": "system", "content": system}, *msgs]
    return msgs, (system if apart else None), apart


def total_marks(msgs, system, tools_marks):
    return count_marks(msgs) + count_marks(system) + tools_marks


@settings(max_examples=300, deadline=None)
@given(request(), st.text(min_size=0, max_size=40), st.booleans(), st.integers(0, 4), st.sampled_from(["5m", "1h"]), st.text(max_size=8))
def test_plan_properties(req, patch, claude, tool_marks, ttl, boot):
    msgs, system, apart = req
    before = total_marks(msgs, system, tool_marks)
    out = plan_cache(msgs, patch, CacheTarget(claude=claude, ttl=ttl), system=system, system_apart=apart, existing_marks=tool_marks, boot_pack=boot)
    after = total_marks(out.messages, out.system, tool_marks)
    # never more than 4 marks, counting the client's own (a client already over stays as it was)
    assert after <= max(4, before)
    assert after == out.marks_total
    if not claude:
        assert after == before
    # system text identical apart from the boot pack appended at its end
    if apart:
        if system is not None or boot:
            got = [b["text"] for b in unmarked(out.system)] if out.system is not None else []
            want = ([b["text"] for b in unmarked(system)] if system is not None else []) + ([boot] if boot else [])
            assert got == want
    elif system is not None:
        got = [b["text"] for b in unmarked(out.messages[0]["content"])]
        assert got == [b["text"] for b in unmarked(system)] + ([boot] if boot else [])
    # the patch is the unmarked last block of the last user message
    users = [m for m in out.messages if m["role"] == "user"]
    if patch and users:
        last = users[-1]["content"][-1]
        assert last == {"type": "text", "text": patch}
    # every other message keeps its text, in order
    orig_users = [m for m in msgs if m["role"] == "user"]
    for o, n in zip(orig_users[:-1], users[:-1]):
        assert [b["text"] for b in unmarked(o["content"])] == [b["text"] for b in unmarked(n["content"])]
    assert json.dumps(msgs)  # inputs still plain data
