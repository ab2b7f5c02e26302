"""ASGI middleware: a JSON request body is checked once, before any route reads it.

FastAPI's own parsing accepts NaN and Infinity (stored as null), hands lone surrogates
(`"\\ud800"`) to the store, which cannot encode them (a 500 that also reset the connection), and
reports malformed JSON with a character offset where the field name belongs. Here the body is
parsed strictly; a body that fails is answered 422 with a message a person can act on, and a
body that passes is handed on unchanged. The MCP endpoint answers in JSON-RPC and is left to its
SDK; an import is NDJSON and is checked line by line (core/import_check.py).
"""

from __future__ import annotations

import json
from typing import Any

from starlette.datastructures import Headers
from starlette.responses import JSONResponse

from core import JSON_MAX_DEPTH, InvalidInput, json_too_deep

from .errors import error_body
from .http_auth import route_path
from .origin import WRITE_METHODS


def _refuse_constant(name: str) -> Any:
    raise InvalidInput("body", f"{name} is not a number JSON allows; send a finite number or null")


def _surrogate_path(value: Any, path: str) -> str | None:
    if isinstance(value, str):
        return path if any(0xD800 <= ord(c) <= 0xDFFF for c in value) else None
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for k, v in items:
        found = _surrogate_path(k, path) if isinstance(k, str) else None
        found = found or _surrogate_path(v, f"{path}.{k}" if path else str(k))
        if found:
            return found
    return None


def check_json(raw: bytes) -> None:
    """Raise InvalidInput (field named when known) unless `raw` is strict JSON holding only real text."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise InvalidInput("body", f"is not valid UTF-8 (byte {e.start + 1})") from None
    try:
        value = json.loads(text, parse_constant=_refuse_constant)
    except json.JSONDecodeError as e:
        raise InvalidInput("body", f"is not JSON: {e.msg} at line {e.lineno}, column {e.colno}") from None
    except RecursionError:
        raise InvalidInput("body", f"nests arrays or objects deeper than {JSON_MAX_DEPTH} levels") from None
    if json_too_deep(value):
        raise InvalidInput("body", f"nests arrays or objects deeper than {JSON_MAX_DEPTH} levels")
    where = _surrogate_path(value, "")
    if where is not None:
        raise InvalidInput(where or "body", "holds a lone surrogate (\\ud800-\\udfff), which is not text")


class JsonBodyCheck:
    def __init__(self, app: Any):
        self.app = app

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope.get("method") not in WRITE_METHODS:
            return await self.app(scope, receive, send)
        path = route_path(scope).rstrip("/")
        media = (Headers(scope=scope).get("content-type") or "").split(";", 1)[0].strip().lower()
        if media != "application/json" or path.endswith("/mcp") or path.endswith(("/v1/import", "/v1/import/chats")):
            return await self.app(scope, receive, send)
        chunks, more = [], True
        while more:  # bounded: BodyLimitMiddleware, outside this one, cuts a body past its limit
            message = await receive()
            if message["type"] != "http.request":
                return await self.app(scope, _replay([], receive, message), send)
            chunks.append(message.get("body") or b"")
            more = message.get("more_body", False)
        raw = b"".join(chunks)
        if raw.strip():
            try:
                check_json(raw)
            except InvalidInput as e:
                return await JSONResponse(error_body("invalid_input", str(e), e.field), 422)(scope, receive, send)
        await self.app(scope, _replay([raw], receive), send)


def _replay(bodies: list[bytes], upstream: Any, end: dict | None = None) -> Any:
    """A `receive` that hands the app the body already read, then whatever the client sends next."""
    pending = [{"type": "http.request", "body": b, "more_body": False} for b in bodies] + ([end] if end else [])

    async def receive() -> dict:
        if pending:
            return pending.pop(0)
        return await upstream()

    return receive
