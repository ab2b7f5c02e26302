"""REST for moving a user's memory in bulk: export and import (JSON lines), and the admin's view of
the vector collections and their re-embedding."""

from __future__ import annotations

import json
from typing import Annotated

from fastapi import APIRouter, Body, Depends, Request
from starlette.responses import StreamingResponse

from core import InvalidInput, parse_jsonl

from core import LocalMemory
from core import ImportCounts, ReindexReport, VectorsHealth

from .rest_deps import port
from .schemas import ReindexIn

router = APIRouter(prefix="/v1")
Port = Annotated[LocalMemory, Depends(port)]
IMPORT_MAX_BYTES = 64 * 1024 * 1024


@router.get("/export", tags=["export"], summary="Everything of this user as JSON lines",
            responses={200: {"content": {"application/x-ndjson": {}}}})
async def export(p: Port) -> StreamingResponse:
    lines = p.export().__aiter__()
    # the first line is read before the answer starts: a store that cannot be read is a 503 with
    # Retry-After, not a 200 cut short (a failure later in the stream can only end it early)
    try:
        first = [await lines.__anext__()]
    except StopAsyncIteration:
        first = []

    async def body():
        for line in first:
            yield json.dumps(line, ensure_ascii=False) + "\n"
        async for line in lines:
            yield json.dumps(line, ensure_ascii=False) + "\n"

    return StreamingResponse(body(), media_type="application/x-ndjson")


@router.post("/import", response_model=ImportCounts, tags=["export"], summary="Load an export (JSON lines); all-or-nothing validation",
             openapi_extra={"requestBody": {"content": {"application/x-ndjson": {"schema": {"type": "string"}}}, "required": True}})
async def import_(request: Request, p: Port) -> ImportCounts:
    raw = bytearray()
    async for chunk in request.stream():
        raw += chunk
        if len(raw) > IMPORT_MAX_BYTES:
            raise InvalidInput("body", f"an import is at most {IMPORT_MAX_BYTES // (1024 * 1024)} MiB; split it")
    lines = list(parse_jsonl(bytes(raw).split(b"\n")))  # each line decoded strictly: bad UTF-8 names its line
    if not lines:
        raise InvalidInput("body", "no lines to import")
    return await p.import_(lines)


@router.get("/vectors/health", tags=["admin"], summary="Per user: vector collections vs the configured embedder (admin)")
async def vectors_health(p: Port) -> VectorsHealth:
    return await p.vectors_health()


@router.post("/reindex", tags=["admin"], summary="Re-embed one user or all users (admin)")
async def reindex(p: Port, body: Annotated[ReindexIn | None, Body()] = None) -> ReindexReport:
    return await p.reindex(body.user if body else None)
