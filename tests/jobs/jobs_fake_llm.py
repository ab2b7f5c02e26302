"""A scripted OpenAI-compatible upstream on 127.0.0.1: records each request, answers from a script.

Amber reaches it through LiteLLM (`LiteLLMClient("openai/fake-model", api_base=upstream.base_url)`),
so the whole path from our code to the wire is real; only the model's answers are scripted.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Callable
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route
from tests.kit.servers import free_port

Answer = Any  # dict/list (sent as JSON text), str (sent as is), Fail, or a callable(request_body) -> one of those


class Fail:
    """Answer with an HTTP error instead of a completion."""

    def __init__(self, status: int = 500, message: str = "scripted failure"):
        self.status = status
        self.message = message


class FakeUpstream:
    def __init__(self, default: Answer | None = None, delay_s: float = 0.0):
        self.delay_s = delay_s  # a slow model, to make runs overlap
        self.script: list[Answer] = []
        self.default = default
        self.requests: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self.port = free_port()
        self.base_url = f"http://127.0.0.1:{self.port}/v1"
        app = Starlette(routes=[Route("/v1/chat/completions", self._chat, methods=["POST"])])
        self._server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=self.port, log_level="warning",
                                                    timeout_keep_alive=600))
        self._thread = threading.Thread(target=self._server.run, daemon=True)

    def start(self) -> FakeUpstream:
        self._thread.start()
        deadline = time.monotonic() + 10
        while not self._server.started:
            if time.monotonic() > deadline:
                raise RuntimeError("fake upstream did not start")
            time.sleep(0.01)
        return self

    def stop(self) -> None:
        self._server.should_exit = True
        self._thread.join(timeout=10)

    def push(self, *answers: Answer) -> None:
        with self._lock:
            self.script.extend(answers)

    def _next(self, body: dict[str, Any]) -> Answer:
        with self._lock:
            self.requests.append(body)
            if self.script:
                answer = self.script.pop(0)
            elif self.default is not None:
                answer = self.default
            else:
                answer = Fail(500, "fake upstream: script exhausted")
        return answer(body) if callable(answer) and not isinstance(answer, Fail) else answer

    async def _chat(self, request: Request) -> JSONResponse:
        body = await request.json()
        answer = self._next(body)
        if self.delay_s:
            await asyncio.sleep(self.delay_s)
        if isinstance(answer, Fail):
            return JSONResponse({"error": {"message": answer.message, "type": "server_error"}}, status_code=answer.status)
        text = answer if isinstance(answer, str) else json.dumps(answer, ensure_ascii=False)
        prompt_chars = sum(len(str(m.get("content", ""))) for m in body.get("messages", []))
        return JSONResponse(
            {
                "id": f"chatcmpl-{len(self.requests)}",
                "object": "chat.completion",
                "created": int(time.time()),
                "model": body.get("model", "fake-model"),
                "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
                # roughly four characters a token, enough for cost accounting tests
                "usage": {"prompt_tokens": prompt_chars // 4 + 1, "completion_tokens": len(text) // 4 + 1,
                          "total_tokens": prompt_chars // 4 + len(text) // 4 + 2},
            }
        )


def user_text(body: dict[str, Any]) -> str:
    """The last user message of a recorded request (what the job asked about)."""
    for m in reversed(body.get("messages", [])):
        if m.get("role") == "user":
            c = m.get("content")
            return c if isinstance(c, str) else json.dumps(c, ensure_ascii=False)
    return ""


Responder = Callable[[dict[str, Any]], Answer]
