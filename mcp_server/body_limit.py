"""ASGI middleware: refuse request bodies past a size limit, before anything reads them.

A declared `Content-Length` over the limit is answered 413 at once; a chunked body is counted as
it streams and cut off the moment it passes the limit. Imports (`/v1/import`) get a larger limit:
an export file is the one body that is legitimately big.
"""

from __future__ import annotations

import json
from typing import Any

MAX_BODY_BYTES = 2 * 1024 * 1024
MAX_IMPORT_BYTES = 256 * 1024 * 1024
MAX_CHAT_EXPORT_BYTES = 4 * 1024 * 1024 * 1024  # a chat app's export (mcp_server/rest_import.py), streamed to disk


class BodyLimitMiddleware:
    def __init__(self, app: Any, *, max_bytes: int = MAX_BODY_BYTES, max_import_bytes: int = MAX_IMPORT_BYTES):
        self.app = app
        self.max_bytes = max_bytes
        self.max_import_bytes = max_import_bytes

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        path = scope.get("path", "").rstrip("/")
        limit = self.max_import_bytes if path.endswith("/v1/import") else MAX_CHAT_EXPORT_BYTES if path.endswith("/v1/import/chats") else self.max_bytes
        declared = dict(scope.get("headers") or []).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > limit:
            return await _too_large(send, limit)
        seen = 0
        state = {"started": False, "refused": False}

        async def limited_receive() -> dict:
            nonlocal seen
            if state["refused"]:
                return {"type": "http.disconnect"}
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body") or b"")
                if seen > limit:
                    # answer now; the app sees a client that went away and its replies are dropped
                    state["refused"] = True
                    if not state["started"]:
                        state["started"] = True
                        await _too_large(send, limit)
                    return {"type": "http.disconnect"}
            return message

        async def guarded_send(message: dict) -> None:
            if state["refused"]:
                return
            if message["type"] == "http.response.start":
                state["started"] = True
            await send(message)

        try:
            await self.app(scope, limited_receive, guarded_send)
        except Exception:
            if not state["refused"]:
                raise


async def _too_large(send: Any, limit: int) -> None:
    body = json.dumps({"error": "payload_too_large", "detail": f"request body is over {limit // (1024 * 1024)} MB"}).encode()
    await send({"type": "http.response.start", "status": 413, "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})
