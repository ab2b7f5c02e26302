"""Property tests for the REST entry points: odd inputs answer 4xx or 2xx, never 5xx, and
the user they were sent for can still recall, export and boot afterwards.

Inputs are built to hit the edges the schema fuzzer (test_schemathesis.py) rarely reaches: Unicode
(lone surrogates, U+FDFA which NFKC turns into 18 characters, right-to-left and zero-width marks,
Amber's own fence tags), lengths at and just past each limit, deep nesting, and timestamps without a
zone, at the ends of the calendar, with offsets up to ±14:00 or not times at all. Each body is sent as
JSON text written here (so lone surrogates travel as `\\ud800` escapes, and NaN as `NaN`), to the real
app under uvicorn with the tests' hash embedder. PROPERTY_EXAMPLES=200 for a deeper run.
"""

from __future__ import annotations

import json
import os
import uuid
from datetime import datetime, timedelta, timezone
from urllib.parse import quote

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core import MEMORY_MAX_CHARS, MESSAGE_MAX_CHARS, QUERY_MAX_CHARS
from server_kit import auth

pytestmark = pytest.mark.e2e

EXAMPLES = int(os.environ.get("PROPERTY_EXAMPLES", "25"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, database=None, suppress_health_check=list(HealthCheck))

# ---- inputs ----------------------------------------------------------------------------------

PIECES = [
    "\ufdfa",  # one character, eighteen after NFKC
    "\u202e", "\u200f", "\u061c",  # right-to-left override and marks
    "\u200b", "\u200d", "\ufeff", "\u2060",  # zero-width
    "\ud800", "\udfff",  # lone surrogates: not text
    "\x00", "\x1b[31m", "\r\n", "\t",
    "e\u0301", "\u0130", "\u00df", "\U0001d538", "\U0001f469\u200d\U0001f469\u200d\U0001f467",
    "<memory_context>", "</memory_context>", "</MEMORY_CONTEXT >",
    "remember that ", "forget that ", "记住", "忘记",
    "\u0627\u0644\u0639\u0631\u0628\u064a\u0629", "שלום", "日本語",
]
chars = st.characters(exclude_categories=())  # every code point, surrogates included
text = st.lists(st.one_of(st.sampled_from(PIECES), st.text(chars, max_size=12)), max_size=6).map("".join)


def sized(limit: int) -> st.SearchStrategy[str]:
    """Text of exactly limit-1, limit or limit+1 characters, of one repeated odd character."""
    return st.tuples(st.sampled_from([limit - 1, limit, limit + 1]), st.sampled_from(["a", "\ufdfa", "\u200b", "é", "\U0001f600"])).map(
        lambda t: t[1] * t[0]
    )


def content(limit: int) -> st.SearchStrategy[str]:
    return st.one_of(text, text.filter(bool), sized(limit))


offsets = st.integers(-14 * 60, 14 * 60).map(lambda m: timezone(timedelta(minutes=m)))
FIXED_TIMES = [
    "2026-11-30T10:00:00", "2026-11-30T10:00:00Z", "2026-11-30T10:00:00+14:00", "2026-11-30T10:00:00-12:00",
    "0001-01-01T00:00:00", "0001-01-01T00:00:00+14:00", "9999-12-31T23:59:59", "9999-12-31T23:59:59-14:00",
    "1970-01-01T00:00:00Z", "2026-02-30T00:00:00Z", "2026-01-01T24:00:00Z", "2026-01-01T10:00:00+25:00",
    "2026-13-01", "2026-01-01", "", "now", "\ud800", 0, -1, 1e20, -1e20, 253402300800, True, [], {},
]
times = st.one_of(
    st.sampled_from(FIXED_TIMES),
    st.datetimes(min_value=datetime(1, 1, 2), max_value=datetime(9999, 12, 30), timezones=st.one_of(st.none(), offsets)).map(
        lambda d: d.isoformat()
    ),
)
numbers = st.one_of(st.integers(-(2**70), 2**70), st.floats(allow_nan=True, allow_infinity=True), st.sampled_from([0, 1, -1, 0.5, 1e308]))
scalars = st.one_of(st.none(), st.booleans(), numbers, text)
nested = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(text, inner, max_size=3)), max_leaves=12)
ids = st.one_of(text, st.sampled_from(["m1", "x" * 200, "x" * 201, "../../etc", "a/b", "a b", "%2F", ""]))


def deep(depth: int) -> str:
    return "[" * depth + "]" * depth


def q(part: str) -> str:
    """A path or query part percent-encoded; a lone surrogate becomes bytes that are not UTF-8, as a raw client could send."""
    return quote(part, safe="", errors="surrogatepass")


def body(value) -> bytes:
    """JSON as a client might write it: lone surrogates escaped, NaN and Infinity as bare words."""
    return json.dumps(value, ensure_ascii=True, allow_nan=True).encode()


SEEN: dict[str, set[int]] = {}  # route -> classes of answers seen (2 and 4), so a property is not passing vacuously

# ---- harness ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def http(host):
    url, _ = host
    with httpx.Client(base_url=url, timeout=60) as c:
        yield c


def user() -> dict[str, str]:
    return auth("admin", **{"X-Amber-User": f"prop-{uuid.uuid4().hex[:8]}"})


def send(c: httpx.Client, h: dict, method: str, path: str, raw: bytes | None = None, *, media: str = "application/json", **kw) -> httpx.Response:
    headers = {**h, "Content-Type": media} if raw is not None else h
    r = c.request(method, path, content=raw, headers=headers, **kw)
    SEEN.setdefault(path.split("?")[0] if not path.startswith("/v1/cache") else "/v1/cache", set()).add(r.status_code // 100)
    assert r.status_code < 500, (method, path, raw[:300] if raw else kw, r.status_code, r.text[:300])
    if r.status_code >= 400:  # a refusal a person can act on: the error shape, a reason
        err = r.json()
        assert err["error"] and err["detail"], r.text
    return r


def still_works(c: httpx.Client, h: dict) -> None:
    """The user is not poisoned: recall, boot and export answer, and the export is whole JSON lines."""
    for method, path, payload in [("POST", "/v1/recall", {"query": "what do you know about me?"}),
                                  ("POST", "/v1/search", {"query": "anything"}), ("GET", "/v1/boot", None),
                                  ("GET", "/v1/messages", None), ("GET", "/v1/memories?status=any", None)]:
        r = c.request(method, path, json=payload, headers=h)
        assert r.status_code == 200, (path, r.text[:300])
    r = c.get("/v1/export", headers=h)
    assert r.status_code == 200
    lines = [json.loads(x) for x in r.content.split(b"\n") if x.strip()]  # JSON lines end at "\n" only (not U+2028)
    assert lines and lines[0]["type"] == "header"


# ---- properties ------------------------------------------------------------------------------

memory_in = st.fixed_dictionaries(
    {"content": content(MEMORY_MAX_CHARS)},
    optional={
        "fact_key": st.one_of(text, st.sampled_from(["profile.city", "preference.tea", "NOT A KEY!!", "profile." + "x" * 200])),
        "namespace": st.one_of(text, st.sampled_from(["default", "project:amber", "client:x", "../../etc", "project:" + "x" * 80])),
        "kind": st.one_of(text, st.sampled_from(["fact", "event", "instruction", "precious", "glossary", "digest"])),
        "category": st.one_of(text, st.sampled_from(["profile", "preference", "world"])),
        "title": st.one_of(st.none(), text), "aliases": st.lists(text, max_size=3), "tags": st.lists(text, max_size=25),
        "importance": numbers, "confidence": numbers, "pinned": scalars, "status": st.sampled_from(["active", "candidate", "deleted", "x"]),
        "valid_from": times, "valid_to": times, "expire_at": times, "source_ids": st.lists(ids, max_size=3),
    },
)


def test_memories_create_and_patch(http):
    h = user()
    first = send(http, h, "POST", "/v1/memories", body({"content": "I live in Lyon", "fact_key": "profile.city"})).json()["memory"]["id"]

    @FUZZ
    @given(data=memory_in, patch=memory_in, raw=st.one_of(st.none(), st.integers(1, 3000).map(deep)))
    def run(data, patch, raw):
        made = send(http, h, "POST", "/v1/memories", body(data) if raw is None else f'{{"content": "x", "tags": {raw}}}'.encode())
        target = made.json()["memory"]["id"] if made.status_code == 200 else first
        patch.pop("kind", None), patch.pop("status", None), patch.pop("namespace", None)
        send(http, h, "PATCH", f"/v1/memories/{q(target)}", body(patch))
        still_works(http, h)

    run()


turn = st.fixed_dictionaries(
    {"id": ids, "role": st.sampled_from(["user", "assistant", "system", "tool", "robot"]), "content": content(MESSAGE_MAX_CHARS),
     "created_at": times},
    optional={"session": st.one_of(st.none(), text), "client": st.one_of(st.none(), text), "author": st.one_of(st.none(), text)},
)


def test_messages_capture_list_and_delete(http):
    h = user()

    @FUZZ
    @given(turns=st.lists(turn, max_size=3), commands=scalars, since=times, until=times)
    def run(turns, commands, since, until):
        send(http, h, "POST", "/v1/messages", body({"messages": turns, "commands": commands}))
        send(http, h, "GET", f"/v1/messages?since={q(str(since))}&until={q(str(until))}")
        send(http, h, "POST", "/v1/messages/delete", body({"since": since, "until": until, "session": "no-such-session"}))
        still_works(http, h)

    run()


def test_recall_search_and_forget_preview(http):
    h = user()
    send(http, h, "POST", "/v1/memories", body({"content": "My cat is called Miso \ufdfa \u202e"}))
    query = st.fixed_dictionaries(
        {"query": content(QUERY_MAX_CHARS)},
        optional={"budget_tokens": numbers, "top_k": numbers, "namespace": st.one_of(st.none(), text), "project": st.one_of(st.none(), text),
                  "preset": st.one_of(text, st.sampled_from(["fast", "balanced", "thorough"])),
                  "echo": st.lists(st.one_of(text, st.just("0123456789abcdef")), max_size=3)},
    )

    @FUZZ
    @given(q=query, what=content(2000))
    def run(q, what):
        send(http, h, "POST", "/v1/recall", body(q))
        q.pop("budget_tokens", None), q.pop("preset", None), q.pop("echo", None)
        send(http, h, "POST", "/v1/search", body(q))
        send(http, h, "POST", "/v1/forget/preview", body({"what": what}))
        still_works(http, h)

    run()


def test_cache_put(http):
    h = user()

    @FUZZ
    @given(ns=st.one_of(text, st.sampled_from(["owui", "x" * 64, "x" * 65])), key=st.one_of(text, st.just("k" * 201)),
           value=st.one_of(nested, st.integers(1, 3000).map(deep), st.sampled_from(["x" * (64 * 1024 - 2), "x" * (64 * 1024 + 1)])),
           ttl=st.one_of(st.none(), numbers))
    def run(ns, key, value, ttl):
        path = f"/v1/cache/{q(ns or '-')}/{q(key or '-')}"
        raw = f'{{"value": {value}}}'.encode() if isinstance(value, str) and value.startswith("[") else body({"value": value, "ttl_s": ttl})
        r = send(http, h, "PUT", path, raw)
        if r.status_code == 200:
            assert send(http, h, "GET", path).status_code in (200, 404)  # 404: a ttl already past
        still_works(http, h)

    run()


def import_line(kind: str) -> st.SearchStrategy[dict]:
    if kind == "memory":
        return st.fixed_dictionaries(
            {"type": st.just("memory"), "id": ids, "content": content(MEMORY_MAX_CHARS), "user_id": st.just("ignored"),
             "created_at": times, "updated_at": times},
            optional={"fact_key": st.sampled_from(["profile.city", "NOT A KEY!!"]), "namespace": st.sampled_from(["default", "../../etc"]),
                      "status": st.sampled_from(["active", "superseded", "x"]), "valid_from": times, "expire_at": times, "tags": nested},
        )
    if kind == "message":
        return turn.map(lambda t: {"type": "message", **t})
    return st.fixed_dictionaries({"type": st.just("event"), "id": ids, "user_id": st.just("x"), "action": text, "actor": text, "at": times,
                                  "detail": nested, "memory_ids": st.lists(ids, max_size=2)})


HEADER = {"type": "header", "format": "amber-export", "version": 1, "user_id": "someone", "embedder": "hash:v1"}


def test_import_lines(http):
    h = user()
    lines = st.lists(st.sampled_from(["memory", "message", "event"]).flatmap(import_line), max_size=4)

    @FUZZ
    @given(header=st.one_of(st.just(HEADER), st.just({**HEADER, "version": 99}), nested), rows=lines,
           junk=st.one_of(st.none(), st.sampled_from([b"\xff\xfe", b"NaN", b"{", b"[]", deep(3000).encode(), b'{"type": "memory", "x": ' + deep(900).encode() + b"}"])))
    def run(header, rows, junk):
        raw = b"\n".join([body(header), *(body(r) for r in rows), *([junk] if junk else [])]) + b"\n"
        send(http, h, "POST", "/v1/import", raw, media="application/x-ndjson")
        still_works(http, h)

    run()


def test_the_properties_saw_both_answers():
    """Each route above both accepted and refused something (run after them, in file order)."""
    for route in ("/v1/memories", "/v1/messages", "/v1/recall", "/v1/search", "/v1/forget/preview", "/v1/cache", "/v1/import"):
        assert SEEN.get(route) == {2, 4}, (route, SEEN.get(route))
