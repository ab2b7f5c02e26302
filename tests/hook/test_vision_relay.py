"""The vision relay through the real LiteLLM proxy: an image sent to a model without vision is
described first by the configured vision model, and the target gets the description as text.

One proxy for the module. "text-only" and "describer" both point at the fake upstream; the
deployment's `model_info.supports_vision` says which can see. The relay's own call never reaches
the message log, and a vision model that is down leaves the request exactly as the client sent it.
"""

from __future__ import annotations

import asyncio
import json

import pytest
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from litellm_hooks.vision import DESCRIBE_PROMPT
from litellm_hooks.targets import group_has_vision
from tests.fakes.upstreams import FakeUpstreams
from tests.hook.harness import Proxy, proxy_config, wait_for
from tests.hook.test_proxy_memory import KEYS, claude, logged, oai

PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
DATA_URL = f"data:image/png;base64,{PNG}"
GIF = "R0lGODlhAQABAIAAAP///wAAACH5BAEAAAAALAAAAAABAAEAAAICRAEAOw=="
TEXT_ONLY, DESCRIBER = "openai/text-only-model", "openai/describer-model"


class Upstreams(FakeUpstreams):
    """The shared fake, plus switches that make chosen upstream models slow or answer 503 (down)."""

    def __init__(self) -> None:
        super().__init__()
        self.down: set[str] = set()
        self.slow: dict[str, float] = {}

    async def _chat(self, request: Request) -> Response:
        body = await request.json()
        await asyncio.sleep(self.slow.get(body.get("model"), 0))
        if body.get("model") in self.down:
            self._record(request, body).status = 503
            return JSONResponse({"error": {"message": "model is down", "type": "server_error"}}, status_code=503)
        return await super()._chat(request)


@pytest.fixture(scope="module")
def up():
    with Upstreams() as fake:
        yield fake


@pytest.fixture(scope="module")
def proxy(up, tmp_path_factory):
    amber = {
        "vision_model": "describer",
        "vision_timeout_s": 2,
        "recall_timeout_s": 10,
        "jobs_enabled": False,
        "api_keys": [{"name": "relay", "secret": KEYS["relay"], "trusted_client": True}],
    }
    cfg = proxy_config(up, amber=amber)
    cfg["model_list"] += [
        {"model_name": "text-only", "litellm_params": {"model": TEXT_ONLY, "api_base": up.openai_base, "api_key": "fake-openai"},
         "model_info": {"supports_vision": False}},
        {"model_name": "describer", "litellm_params": {"model": DESCRIBER, "api_base": up.openai_base, "api_key": "fake-openai"},
         "model_info": {"supports_vision": True}},
    ]
    p = Proxy(cfg, tmp_path_factory.mktemp("vision"))
    p.start()
    try:
        yield p
    finally:
        p.stop()


def sent_to(up: Upstreams, model: str, marker: str) -> list:
    return [r for r in up.find("/chat/completions", contains=marker) if r.body.get("model") == model]


def skipped(proxy: Proxy, why: str) -> bool:
    return any("amber vision relay skipped for text-only" in ln and why in ln for ln in proxy.log().splitlines())


def image_parts(body: dict) -> list[dict]:
    items = body.get("messages") or body.get("input") or []
    return [b for m in items if isinstance(m.get("content"), list) for b in m["content"]
            if b.get("type") in ("image_url", "image", "input_image")]


@pytest.mark.e2e
def test_image_for_a_text_only_model_is_described_first(proxy, up):
    up.script("a red bicycle leaning on a brick wall", "Nice bike.")
    answer = oai(proxy).chat.completions.create(model="text-only", user="vera", messages=[
        {"role": "user", "content": [
            {"type": "text", "text": "What is in this photo? (vision chat)"},
            {"type": "image_url", "image_url": {"url": DATA_URL}},
        ]},
    ])
    assert answer.choices[0].message.content == "Nice bike."

    described = [r for r in up.find("/chat/completions", contains=DATA_URL) if r.body.get("model") == "describer-model"]
    target = sent_to(up, "text-only-model", "(vision chat)")
    assert len(described) == 1 and len(target) == 1
    assert up.requests.index(described[0]) < up.requests.index(target[0])  # the description comes first
    assert described[0].messages == [{"role": "user", "content": [
        {"type": "text", "text": DESCRIBE_PROMPT}, {"type": "image_url", "image_url": {"url": DATA_URL}},
    ]}]
    user = target[0].messages[-1]
    assert user["role"] == "user" and image_parts(target[0].body) == []
    assert user["content"][:2] == [
        {"type": "text", "text": "What is in this photo? (vision chat)"},
        {"type": "text", "text": "[Image described by describer: a red bicycle leaning on a brick wall]"},
    ]
    # the description is the user's content, not part of Amber's memory block
    assert all("Image described by" not in b["text"] for b in user["content"][2:])
    assert wait_for(lambda: "amber vision relay: images for text-only described by describer" in proxy.log())

    # the log has the user's turn and the answer; the relay's own call is not captured
    def turns():
        got = logged(proxy, "vera")
        return got if len(got) >= 2 else None

    got = wait_for(turns)
    assert [m["role"] for m in got] == ["user", "assistant"]
    assert "(vision chat)" in got[0]["content"] and "a red bicycle" in got[0]["content"]
    assert got[1]["content"] == "Nice bike."
    assert not any(DESCRIBE_PROMPT[:40] in m["content"] for m in got)


@pytest.mark.e2e
def test_anthropic_image_for_a_text_only_model_is_described(proxy, up):
    up.script("a handwritten note that says 'buy milk'", "Milk, then.")
    answer = claude(proxy).messages.create(model="text-only", max_tokens=64, metadata={"user_id": "vera"}, messages=[
        {"role": "user", "content": [
            {"type": "image", "source": {"type": "base64", "media_type": "image/gif", "data": GIF}},
            {"type": "text", "text": "What does it say? (vision messages)"},
        ]},
    ])
    assert answer.content[0].text == "Milk, then."
    described = [r for r in up.find("/chat/completions", contains=GIF) if r.body.get("model") == "describer-model"]
    assert [image_parts(r.body) for r in described] == [[{"type": "image_url", "image_url": {"url": f"data:image/gif;base64,{GIF}"}}]]
    # LiteLLM carries /v1/messages to an openai/* deployment over the Responses API
    target = [r for r in up.find("/responses", contains="(vision messages)") if r.body.get("model") == "text-only-model"][-1]
    assert image_parts(target.body) == []
    texts = [b["text"] for b in target.body["input"][-1]["content"]]
    assert texts[:2] == ["[Image described by describer: a handwritten note that says 'buy milk']", "What does it say? (vision messages)"]


@pytest.mark.e2e
def test_a_model_with_vision_keeps_its_images(proxy, up):
    before = len(up.find("/chat/completions", contains=DESCRIBE_PROMPT[:40]))
    oai(proxy).chat.completions.create(model="gpt-4o-mini", user="vera", messages=[
        {"role": "user", "content": [
            {"type": "text", "text": "Look (vision target)"},
            {"type": "image_url", "image_url": {"url": "https://example.org/seen.png"}},
        ]},
    ])
    rec = sent_to(up, "gpt-4o-mini", "(vision target)")[-1]
    assert image_parts(rec.body) == [{"type": "image_url", "image_url": {"url": "https://example.org/seen.png"}}]
    assert len(up.find("/chat/completions", contains=DESCRIBE_PROMPT[:40])) == before


@pytest.mark.e2e
def test_vision_model_down_sends_the_image_as_it_came(proxy, up):
    up.down.add("describer-model")
    try:
        image = {"type": "image_url", "image_url": {"url": "https://example.org/unseen.png"}}
        answer = oai(proxy).chat.completions.create(model="text-only", user="wes", messages=[
            {"role": "user", "content": [{"type": "text", "text": "And this? (vision down)"}, image]},
        ])
    finally:
        up.down.discard("describer-model")
    assert answer.choices[0].message.content == up.default_reply
    assert [r.status for r in up.find("/chat/completions", contains="unseen.png") if r.body.get("model") == "describer-model"][:1] == [503]
    rec = sent_to(up, "text-only-model", "(vision down)")[-1]
    assert image_parts(rec.body) == [image]
    assert "Image described by" not in json.dumps(rec.body)
    assert wait_for(lambda: skipped(proxy, "model is down"))


@pytest.mark.e2e
def test_vision_model_too_slow_sends_the_image_as_it_came(proxy, up):
    up.slow["describer-model"] = 6
    try:
        image = {"type": "image_url", "image_url": {"url": "https://example.org/slow.png"}}
        answer = oai(proxy).chat.completions.create(model="text-only", user="wes", messages=[
            {"role": "user", "content": [{"type": "text", "text": "Quick? (vision slow)"}, image]},
        ])
    finally:
        up.slow.clear()
    assert answer.choices[0].message.content == up.default_reply
    rec = sent_to(up, "text-only-model", "(vision slow)")[-1]
    assert image_parts(rec.body) == [image]
    assert [b["text"] for b in rec.messages[-1]["content"] if b["type"] == "text"][0] == "Quick? (vision slow)"
    assert wait_for(lambda: skipped(proxy, "longer than 2") or skipped(proxy, "Timeout"))


# ---- which targets see: the deployment's own word first, then LiteLLM's model map ----------------


class Router:
    def __init__(self, groups: dict[str, list[tuple[str, dict]]]):
        self.groups = groups

    def get_model_list(self, model_name=None):
        return [{"litellm_params": {"model": m}, "model_info": {"id": "x", **info}} for m, info in self.groups.get(model_name, [])]


def test_vision_comes_from_model_info_then_the_model_map():
    router = Router({
        "marked-blind": [("openai/gpt-4o", {"supports_vision": False})],
        "marked-seeing": [("ollama/llava", {"supports_vision": True})],
        "known-seeing": [("openai/gpt-4o-mini", {})],
        "known-blind": [("openai/gpt-3.5-turbo", {})],
        "unknown": [("openai/some-local-model", {})],
        "mixed": [("openai/gpt-4o-mini", {}), ("openai/gpt-3.5-turbo", {})],
    })
    assert group_has_vision(router, "marked-blind") is False
    assert group_has_vision(router, "marked-seeing") is True
    assert group_has_vision(router, "known-seeing") is True
    assert group_has_vision(router, "known-blind") is False
    assert group_has_vision(router, "unknown") is False  # the relay is opt-in: unknown models get text
    assert group_has_vision(router, "mixed") is False  # a request may land on the blind one
    assert group_has_vision(None, "gpt-4o-mini") is True  # no router: the name itself
