"""Fake model upstreams on 127.0.0.1 for end-to-end tests and benchmarks: the network edge only.

One Starlette app answers like the OpenAI API (`/v1/chat/completions` JSON + SSE, `/v1/embeddings`,
`/v1/responses`) and like the Anthropic API (`/v1/messages` JSON + SSE). Every request is recorded;
answers come from a script (or a default). The Anthropic side simulates prompt caching the way the
real API documents it, so cache placement can be measured:

- the prefix tools -> system -> messages is cut into blocks; a block's identity ignores `cache_control`,
  and a plain-string content equals one text block with that string;
- a marked block at position m reads the longest cached prefix ending at a position in [m-20, m];
- marked prefixes at least `min_cache_tokens` long are written (TTL 5 min or 1 h);
- a fifth mark is a 400, like the real API;
- usage reports `cache_read_input_tokens`, `cache_creation_input_tokens` and uncached `input_tokens`.

Usage:
    with FakeUpstreams() as up:
        up.openai_base      # http://127.0.0.1:PORT/v1  (api_base for openai/* models)
        up.anthropic_base   # http://127.0.0.1:PORT     (api_base for anthropic/* models)
        up.script("first answer", "second answer")
        ... up.requests ...
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import socket
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Callable

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

MAX_MARKS = 4


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class Recorded:
    path: str
    headers: dict[str, str]
    body: dict[str, Any]
    status: int = 200
    usage: dict[str, Any] = field(default_factory=dict)
    reply: str = ""

    @property
    def messages(self) -> list[dict[str, Any]]:
        return self.body.get("messages") or []


# ---- the prompt-cache simulation (pure apart from the cache dict it is given) -------------------


def _canon(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _canon(v) for k, v in sorted(value.items()) if k != "cache_control"}
    if isinstance(value, list):
        return [_canon(v) for v in value]
    return value


def request_blocks(body: dict[str, Any]) -> list[tuple[str, bool, int]]:
    """(block identity, marked, tokens) for tools, system, then message blocks, in prefix order."""
    out: list[tuple[str, bool, int]] = []

    def add(kind: str, block: Any) -> None:
        ident = json.dumps([kind, _canon(block)], sort_keys=True, ensure_ascii=False)
        marked = isinstance(block, dict) and bool(block.get("cache_control"))
        out.append((ident, marked, max(1, len(ident) // 4)))

    for tool in body.get("tools") or []:
        add("tool", tool)
    system = body.get("system")
    for block in [{"type": "text", "text": system}] if isinstance(system, str) else (system or []):
        add("system", block)
    for msg in body.get("messages") or []:
        content = msg.get("content")
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else (content or [])
        for block in blocks:
            add(msg.get("role", "user"), block)
    return out


class PromptCache:
    def __init__(self, *, min_cache_tokens: int = 1024, lookback: int = 20, clock: Callable[[], float] = time.monotonic):
        self.min_cache_tokens = min_cache_tokens
        self.lookback = lookback
        self.clock = clock
        self.entries: dict[str, float] = {}  # prefix hash -> expiry
        self.lock = threading.Lock()

    def usage(self, body: dict[str, Any]) -> dict[str, int]:
        """Usage for one request; raises ValueError on more than four marks."""
        blocks = request_blocks(body)
        marks = [i for i, b in enumerate(blocks) if b[1]]
        if len(marks) > MAX_MARKS:
            raise ValueError(f"A maximum of {MAX_MARKS} blocks with cache_control may be provided. Found {len(marks)}.")
        hashes, cum, h, total = [], [], hashlib.sha256(), 0
        for ident, _, tokens in blocks:
            h.update(ident.encode())
            hashes.append(h.copy().hexdigest())
            total += tokens
            cum.append(total)
        now = self.clock()
        ttl = 3600.0 if _mark_ttl(body) == "1h" else 300.0
        with self.lock:
            self.entries = {k: v for k, v in self.entries.items() if v > now}
            read_end = -1
            for m in marks:
                for j in range(m, max(-1, m - self.lookback - 1), -1):
                    if hashes[j] in self.entries:
                        read_end = max(read_end, j)
                        break
            read = cum[read_end] if read_end >= 0 else 0
            written_end = read_end
            for m in marks:
                if cum[m] >= self.min_cache_tokens:
                    self.entries[hashes[m]] = now + ttl
                    if m > written_end:
                        written_end = m
            if read_end >= 0:
                self.entries[hashes[read_end]] = now + ttl  # a hit refreshes the entry
            creation = (cum[written_end] if written_end >= 0 else 0) - read
        return {"input_tokens": total - read - creation, "cache_read_input_tokens": read, "cache_creation_input_tokens": creation}


def _mark_ttl(body: dict[str, Any]) -> str:
    return "1h" if '"ttl": "1h"' in json.dumps(body) else "5m"


# ---- the fake server ---------------------------------------------------------------------------


class FakeUpstreams:
    def __init__(self, *, min_cache_tokens: int = 1024, lookback: int = 20, default_reply: str = "Noted."):
        self.cache = PromptCache(min_cache_tokens=min_cache_tokens, lookback=lookback)
        self.default_reply = default_reply
        self.latency_s = 0.0  # how long a completion "thinks" before answering (benchmarks set it)
        self.requests: list[Recorded] = []
        self._script: deque[str] = deque()
        self._lock = threading.Lock()
        self.port = free_port()
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None

    # -- control
    @property
    def openai_base(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def anthropic_base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def script(self, *answers: str) -> None:
        with self._lock:
            self._script.extend(answers)

    def clear(self) -> None:
        with self._lock:
            self.requests.clear()
            self._script.clear()

    def find(self, path_suffix: str, contains: str | None = None) -> list[Recorded]:
        with self._lock:
            found = [r for r in self.requests if r.path.endswith(path_suffix)]
        return [r for r in found if contains is None or contains in json.dumps(r.body, ensure_ascii=False)]

    def _next_reply(self, body: dict[str, Any]) -> str:
        with self._lock:
            return self._script.popleft() if self._script else self.default_reply

    def _record(self, request: Request, body: dict[str, Any]) -> Recorded:
        rec = Recorded(path=request.url.path, headers=dict(request.headers), body=body)
        with self._lock:
            self.requests.append(rec)
        return rec

    # -- endpoints
    async def _chat(self, request: Request) -> Response:
        body = await request.json()
        rec = self._record(request, body)
        if self.latency_s:
            await asyncio.sleep(self.latency_s)
        rec.reply = text = self._next_reply(body)
        prompt = max(1, len(json.dumps(body.get("messages"), ensure_ascii=False)) // 4)
        usage = {"prompt_tokens": prompt, "completion_tokens": max(1, len(text) // 4), "total_tokens": prompt + max(1, len(text) // 4)}
        rec.usage = usage
        cid, model, created = f"chatcmpl-{len(self.requests)}", body.get("model", "fake"), int(time.time())
        if not body.get("stream"):
            return JSONResponse(
                {
                    "id": cid,
                    "object": "chat.completion",
                    "created": created,
                    "model": model,
                    "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
                    "usage": usage,
                }
            )

        async def events():
            base = {"id": cid, "object": "chat.completion.chunk", "created": created, "model": model}
            yield _sse({**base, "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}}]})
            for piece in _pieces(text):
                yield _sse({**base, "choices": [{"index": 0, "delta": {"content": piece}}]})
            yield _sse({**base, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
            if (body.get("stream_options") or {}).get("include_usage"):
                yield _sse({**base, "choices": [], "usage": usage})
            yield "data: [DONE]\n\n"

        return StreamingResponse(events(), media_type="text/event-stream")

    async def _embeddings(self, request: Request) -> Response:
        body = await request.json()
        self._record(request, body)
        texts = body.get("input")
        texts = [texts] if isinstance(texts, str) else list(texts or [])
        data = [{"object": "embedding", "index": i, "embedding": _vector(str(t))} for i, t in enumerate(texts)]
        return JSONResponse({"object": "list", "data": data, "model": body.get("model", "fake"), "usage": {"prompt_tokens": 1, "total_tokens": 1}})

    async def _responses(self, request: Request) -> Response:
        body = await request.json()
        rec = self._record(request, body)
        rec.reply = text = self._next_reply(body)
        return JSONResponse(
            {
                "id": f"resp_{len(self.requests)}",
                "object": "response",
                "created_at": int(time.time()),
                "status": "completed",
                "model": body.get("model", "fake"),
                "output": [
                    {
                        "type": "message",
                        "id": f"msg_{len(self.requests)}",
                        "status": "completed",
                        "role": "assistant",
                        "content": [{"type": "output_text", "text": text, "annotations": []}],
                    }
                ],
                "usage": {"input_tokens": 10, "output_tokens": 2, "total_tokens": 12},
            }
        )

    async def _messages(self, request: Request) -> Response:
        body = await request.json()
        rec = self._record(request, body)
        try:
            usage = self.cache.usage(body)
        except ValueError as e:
            rec.status = 400
            return JSONResponse({"type": "error", "error": {"type": "invalid_request_error", "message": str(e)}}, status_code=400)
        rec.reply = text = self._next_reply(body)
        usage["output_tokens"] = max(1, len(text) // 4)
        rec.usage = usage
        mid, model = f"msg_{len(self.requests)}", body.get("model", "claude-fake")
        if not body.get("stream"):
            return JSONResponse(
                {
                    "id": mid,
                    "type": "message",
                    "role": "assistant",
                    "model": model,
                    "content": [{"type": "text", "text": text}],
                    "stop_reason": "end_turn",
                    "stop_sequence": None,
                    "usage": usage,
                }
            )

        async def events():
            start_usage = {**usage, "output_tokens": 1}
            yield _sse_event("message_start", {"type": "message_start", "message": {
                "id": mid, "type": "message", "role": "assistant", "model": model, "content": [],
                "stop_reason": None, "stop_sequence": None, "usage": start_usage}})
            yield _sse_event("content_block_start", {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}})
            for piece in _pieces(text):
                yield _sse_event("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": piece}})
            yield _sse_event("content_block_stop", {"type": "content_block_stop", "index": 0})
            yield _sse_event("message_delta", {"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                                               "usage": {"output_tokens": usage["output_tokens"]}})
            yield _sse_event("message_stop", {"type": "message_stop"})

        return StreamingResponse(events(), media_type="text/event-stream")

    def app(self) -> Starlette:
        return Starlette(
            routes=[
                Route("/v1/chat/completions", self._chat, methods=["POST"]),
                Route("/chat/completions", self._chat, methods=["POST"]),
                Route("/v1/embeddings", self._embeddings, methods=["POST"]),
                Route("/embeddings", self._embeddings, methods=["POST"]),
                Route("/v1/responses", self._responses, methods=["POST"]),
                Route("/responses", self._responses, methods=["POST"]),
                Route("/v1/messages", self._messages, methods=["POST"]),
            ]
        )

    # -- lifecycle: uvicorn in a daemon thread with its own loop
    def start(self) -> "FakeUpstreams":
        # The proxy's HTTP client keeps idle connections pooled longer than uvicorn's default 5 s keep-alive;
        # a server closing one just as the client reuses it fails that request ("Can not write request body").
        # Real providers keep idle connections open far longer, so the fake does too.
        config = uvicorn.Config(self.app(), host="127.0.0.1", port=self.port, log_level="warning", lifespan="off",
                                timeout_keep_alive=600)
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=lambda: asyncio.run(self._server.serve()), daemon=True)
        self._thread.start()
        deadline = time.monotonic() + 10
        while not self._server.started:
            if time.monotonic() > deadline:
                raise RuntimeError("fake upstream did not start")
            time.sleep(0.02)
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> "FakeUpstreams":
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()


def _sse(obj: dict[str, Any]) -> str:
    return f"data: {json.dumps(obj)}\n\n"


def _sse_event(name: str, obj: dict[str, Any]) -> str:
    return f"event: {name}\ndata: {json.dumps(obj)}\n\n"


def _pieces(text: str, size: int = 8) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


def _vector(text: str, dim: int = 64) -> list[float]:
    v = [0.0] * dim
    for word in text.casefold().split() or [text]:
        h = int.from_bytes(hashlib.blake2b(word.encode(), digest_size=8).digest(), "big")
        v[h % dim] += 1.0 if (h >> 32) & 1 else -1.0
    norm = sum(x * x for x in v) ** 0.5 or 1.0
    return [x / norm for x in v]
