"""The vision relay's pure parts and the relay itself over the scripted LLM: images found in both
request shapes, replaced in place by framed text, marks kept, inputs never mutated."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core import count_marks
from core.errors import LLMError
from core.testing import ScriptedLLM
from litellm_hooks.vision import DESCRIBE_PROMPT, VisionRelay, find_images, frame, replace_images

PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
DATA_URL = f"data:image/png;base64,{PNG}"
HTTP_URL = "https://example.org/cat.jpg"
GOLDEN = Path(__file__).parent / "golden" / "vision_request.json"


def openai_chat() -> list[dict]:
    return [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": [
            {"type": "text", "text": "What are these?"},
            {"type": "image_url", "image_url": {"url": DATA_URL, "detail": "low"}},
            {"type": "image_url", "image_url": HTTP_URL},
        ]},
        {"role": "assistant", "content": "Two pictures."},
        {"role": "user", "content": [{"type": "text", "text": "And this one?"}, {"type": "image_url", "image_url": {"url": DATA_URL}}]},
    ]


def anthropic_messages() -> list[dict]:
    return [
        {"role": "user", "content": [
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG}},
            {"type": "image", "source": {"type": "url", "url": HTTP_URL}, "cache_control": {"type": "ephemeral"}},
            {"type": "text", "text": "Compare them."},
        ]},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "screenshot", "input": {}}]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "t1", "content": [
                {"type": "text", "text": "screen:"},
                {"type": "image", "source": {"type": "base64", "media_type": "image/jpeg", "data": "AAAA"}},
            ]},
        ]},
    ]


def test_finds_openai_images_as_data_and_http_urls():
    refs = find_images(openai_chat())
    assert [(r.path, r.url) for r in refs] == [((1, 1), DATA_URL), ((1, 2), HTTP_URL), ((3, 1), DATA_URL)]


def test_finds_anthropic_images_including_inside_tool_results():
    refs = find_images(anthropic_messages())
    assert [(r.path, r.url) for r in refs] == [
        ((0, 0), DATA_URL),
        ((0, 1), HTTP_URL),
        ((2, 0, 1), "data:image/jpeg;base64,AAAA"),
    ]


def test_nothing_to_send_on_is_not_an_image():
    msgs = [
        {"role": "user", "content": "just text"},
        {"role": "user", "content": [{"type": "image", "source": {"type": "file", "file_id": "file_1"}}]},
        {"role": "user", "content": [{"type": "image_url", "image_url": {"url": ""}}, {"type": "text", "text": "x"}]},
        "not a message",
    ]
    assert find_images(msgs) == []
    assert find_images(None) == []


def test_replace_keeps_order_text_and_other_messages_and_mutates_nothing():
    msgs = openai_chat()
    before = copy.deepcopy(msgs)
    out = replace_images(msgs, {(1, 1): "[A]", (1, 2): "[B]", (3, 1): "[A]"})
    assert msgs == before
    assert out[0] is msgs[0] and out[2] is msgs[2]  # untouched messages are shared, not copied
    assert out[1]["content"] == [
        {"type": "text", "text": "What are these?"},
        {"type": "text", "text": "[A]"},
        {"type": "text", "text": "[B]"},
    ]
    assert out[3]["content"] == [{"type": "text", "text": "And this one?"}, {"type": "text", "text": "[A]"}]


def test_replace_with_nothing_gives_back_the_same_list():
    msgs = openai_chat()
    assert replace_images(msgs, {}) is msgs


def test_a_mark_on_an_image_moves_to_its_text_block():
    msgs = anthropic_messages()
    marks = count_marks(msgs)
    out = replace_images(msgs, {(0, 0): "[A]", (0, 1): "[B]", (2, 0, 1): "[C]"})
    assert count_marks(out) == marks == 1
    assert out[0]["content"][1] == {"type": "text", "text": "[B]", "cache_control": {"type": "ephemeral"}}
    assert out[0]["content"][0] == {"type": "text", "text": "[A]"}
    assert out[2]["content"][0]["content"] == [{"type": "text", "text": "screen:"}, {"type": "text", "text": "[C]"}]
    assert out[2]["content"][0]["tool_use_id"] == "t1"
    assert "cache_control" in msgs[0]["content"][1] and msgs[0]["content"][1]["type"] == "image"


def test_frame_names_the_vision_model():
    assert frame("describer", "  a red door \n") == "[Image described by describer: a red door]"


async def test_relay_describes_each_distinct_image_once_and_frames_it():
    llm = ScriptedLLM(["a tabby cat on a sofa", "a chart: sales 3, 5, 8"])
    relay = VisionRelay(llm, "describer")
    msgs = openai_chat()
    before = copy.deepcopy(msgs)
    out = await relay.relay(msgs)
    assert msgs == before
    assert len(llm.calls) == 2  # DATA_URL appears twice, described once
    first = llm.calls[0]
    assert first == [{"role": "user", "content": [
        {"type": "text", "text": DESCRIBE_PROMPT},
        {"type": "image_url", "image_url": {"url": DATA_URL}},
    ]}]
    assert llm.calls[1][0]["content"][1]["image_url"]["url"] == HTTP_URL
    assert out[1]["content"][1] == {"type": "text", "text": "[Image described by describer: a tabby cat on a sofa]"}
    assert out[1]["content"][2] == {"type": "text", "text": "[Image described by describer: a chart: sales 3, 5, 8]"}
    assert out[3]["content"][1] == out[1]["content"][1]
    assert find_images(out) == []


async def test_relay_remembers_descriptions_across_requests():
    # the next turn re-sends the same image: same words, no second call, the prompt prefix stays the same
    llm = ScriptedLLM(["a lighthouse at dusk"])
    relay = VisionRelay(llm, "describer")
    turn1 = [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": HTTP_URL}}]}]
    first = await relay.relay(turn1, "ann")
    turn2 = [*turn1, {"role": "assistant", "content": "A lighthouse."}, {"role": "user", "content": "Which coast?"}]
    second = await relay.relay(turn2, "ann")
    assert len(llm.calls) == 1
    assert second[0] == first[0]


async def test_a_description_is_kept_for_its_person_only_and_never_for_a_private_request():
    # kept for everyone, one person's image (a lab report behind a signed URL since expired) would be
    # described to whoever sends its URL, and the quick answer would tell them someone had sent it
    llm = ScriptedLLM(["a lab report", "a lab report", "a lab report", "a lab report"])
    relay = VisionRelay(llm, "describer")
    await relay.describe(HTTP_URL, "ann")
    await relay.describe(HTTP_URL, "bob")
    assert len(llm.calls) == 2
    await relay.describe(HTTP_URL, None)  # a private (`off`) or unnamed request
    await relay.describe(HTTP_URL, None)
    assert len(llm.calls) == 4 and len(relay._known) == 2
    assert not any(HTTP_URL.encode() in k for k in relay._known)  # digests, not the URLs


async def test_relay_forgets_the_oldest_beyond_its_bound():
    llm = ScriptedLLM(["one", "two", "one again"])
    relay = VisionRelay(llm, "describer", remember=1)
    for url in ("https://e.org/1.png", "https://e.org/2.png", "https://e.org/1.png"):
        await relay.describe(url, "ann")
    assert len(llm.calls) == 3


async def test_relay_without_images_returns_the_same_object_and_calls_nothing():
    llm = ScriptedLLM([])
    relay = VisionRelay(llm, "describer")
    msgs = [{"role": "system", "content": "s"}, {"role": "user", "content": [{"type": "text", "text": "hi"}]}]
    before = copy.deepcopy(msgs)
    assert await relay.relay(msgs) is msgs
    assert msgs == before and llm.calls == []


async def test_relay_fails_whole_when_any_description_fails():
    llm = ScriptedLLM(["a cat", LLMError("vision model down")])
    relay = VisionRelay(llm, "describer")
    msgs = openai_chat()
    before = copy.deepcopy(msgs)
    with pytest.raises(LLMError, match="vision model down"):
        await relay.relay(msgs)
    assert msgs == before


async def test_long_descriptions_are_cut():
    relay = VisionRelay(ScriptedLLM(["x" * 50]), "describer", max_chars=10)
    assert await relay.describe(HTTP_URL) == "x" * 10


async def test_what_the_vision_model_reads_and_what_the_target_reads_golden():
    # a change to the prompt or the framing shows up in review as a diff of this file
    llm = ScriptedLLM(["A cat asleep on a windowsill; the sign above reads \"NO DOGS\"."])
    relay = VisionRelay(llm, "describer")
    out = await relay.relay([{"role": "user", "content": [{"type": "image_url", "image_url": {"url": HTTP_URL}}]}])
    got = json.dumps({"vision_model_reads": llm.calls[0], "target_reads": out}, ensure_ascii=False, indent=1) + "\n"
    assert got == GOLDEN.read_text()


_mark = st.one_of(st.none(), st.just({"type": "ephemeral"}))
_block = st.one_of(
    st.builds(lambda t, m: {"type": "text", "text": t, **({"cache_control": m} if m else {})}, st.text(max_size=5), _mark),
    st.builds(lambda u, m: {"type": "image_url", "image_url": {"url": u}, **({"cache_control": m} if m else {})},
              st.sampled_from([DATA_URL, HTTP_URL]), _mark),
    st.builds(lambda d, m: {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": d},
                            **({"cache_control": m} if m else {})}, st.sampled_from(["AAAA", PNG]), _mark),
)
_messages = st.lists(st.builds(lambda r, c: {"role": r, "content": c}, st.sampled_from(["user", "assistant"]),
                               st.one_of(st.text(max_size=5), st.lists(_block, max_size=4))), max_size=5)


@given(_messages)
def test_replacing_removes_every_image_and_keeps_marks_order_and_input(msgs):
    before = copy.deepcopy(msgs)
    refs = find_images(msgs)
    out = replace_images(msgs, {r.path: f"[{r.url[:8]}]" for r in refs})
    assert msgs == before
    assert find_images(out) == []
    assert count_marks(out) == count_marks(msgs)
    assert [len(m["content"]) if isinstance(m["content"], list) else m["content"] for m in out] == [
        len(m["content"]) if isinstance(m["content"], list) else m["content"] for m in msgs
    ]
