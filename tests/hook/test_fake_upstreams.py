"""The caching Anthropic fake behaves like the documented API, so benchmarks built on it mean something."""

from __future__ import annotations

import httpx
import pytest

from tests.fakes.upstreams import FakeUpstreams, PromptCache

MARK = {"type": "ephemeral"}
LONG = "word " * 2000  # ~2.5k tokens by the fake's estimate


def body(*user_blocks, system=LONG, system_mark=True):
    sys_block = {"type": "text", "text": system, **({"cache_control": MARK} if system_mark else {})}
    return {"system": [sys_block], "messages": [{"role": "user", "content": list(user_blocks)}]}


def text(t, marked=False):
    return {"type": "text", "text": t, **({"cache_control": MARK} if marked else {})}


def test_a_fifth_mark_is_refused():
    cache = PromptCache(min_cache_tokens=1)
    with pytest.raises(ValueError, match="maximum of 4"):
        cache.usage(body(*(text(f"b{i}", marked=True) for i in range(4))))
    cache.usage(body(*(text(f"b{i}", marked=True) for i in range(3))))  # four in all is fine


def test_write_then_read_the_same_prefix_and_string_equals_one_text_block():
    cache = PromptCache()
    first = cache.usage(body(text("hello", marked=True)))
    assert first["cache_creation_input_tokens"] > 0 and first["cache_read_input_tokens"] == 0
    plain = {"system": LONG, "messages": [{"role": "user", "content": "hello"}, {"role": "assistant", "content": "hi"},
                                          {"role": "user", "content": [text("again", marked=True)]}]}
    second = cache.usage(plain)
    assert second["cache_read_input_tokens"] == first["cache_creation_input_tokens"]


def test_below_the_minimum_nothing_is_cached():
    cache = PromptCache(min_cache_tokens=10_000)
    assert cache.usage(body(text("x", marked=True)))["cache_creation_input_tokens"] == 0
    assert cache.usage(body(text("x", marked=True)))["cache_read_input_tokens"] == 0


def test_lookback_is_twenty_blocks():
    cache = PromptCache()
    cache.usage(body(system_mark=True))  # system cached
    near = body(*(text(f"n{i}") for i in range(19)), text("end", marked=True), system_mark=False)
    far = body(*(text(f"f{i}") for i in range(20)), text("end", marked=True), system_mark=False)
    assert cache.usage(far)["cache_read_input_tokens"] == 0
    assert cache.usage(near)["cache_read_input_tokens"] > 0


def test_changing_the_system_prompt_misses_everything_after_it():
    cache = PromptCache()
    cache.usage(body(text("q", marked=True)))
    assert cache.usage(body(text("q", marked=True), system=LONG + " memory"))["cache_read_input_tokens"] == 0


def test_server_records_and_reports_cache_usage():
    with FakeUpstreams() as up:
        up.script("scripted")
        r = httpx.post(f"{up.anthropic_base}/v1/messages", json={"model": "c", "max_tokens": 5, **body(text("hi", marked=True))})
        assert r.status_code == 200 and r.json()["content"][0]["text"] == "scripted"
        assert r.json()["usage"]["cache_creation_input_tokens"] > 0
        bad = {"model": "c", "max_tokens": 5, **body(*(text(f"b{i}", marked=True) for i in range(4)))}
        assert httpx.post(f"{up.anthropic_base}/v1/messages", json=bad).status_code == 400
        assert [rec.status for rec in up.find("/v1/messages")] == [200, 400]
