"""REST: boot pack, precious, glossary, digest, review queue, export/import, client cache, admin."""

from __future__ import annotations

import json
from typing import Annotated, Literal

from fastapi import APIRouter, Body, Depends, Path, Request
from starlette.responses import Response, StreamingResponse

from core import InvalidInput, NotFound, WriteResult, parse_jsonl

from .local import LocalMemory
from .rest_deps import port
from .schemas import (
    ActionOut,
    BootOut,
    CacheIn,
    CacheOut,
    CandidatesOut,
    DigestIn,
    DigestOut,
    GlossaryIn,
    GlossaryOut,
    GlossaryPut,
    ImportOut,
    ItemsOut,
    PreciousIn,
    ReindexIn,
    TargetIn,
)

router = APIRouter(prefix="/v1")
Port = Annotated[LocalMemory, Depends(port)]
MemoryId = Annotated[str, Path(min_length=1, max_length=200)]
Term = Annotated[str, Path(min_length=1, max_length=200)]
IMPORT_MAX_BYTES = 64 * 1024 * 1024


@router.get("/boot", response_model=BootOut, tags=["boot"], summary="Boot pack: digest, logs, precious, glossary, pinned, today")
async def boot(p: Port) -> dict:
    return await p.boot()


@router.get("/precious", response_model=ItemsOut, tags=["precious"], summary="Verbatim quotes kept (append-only)")
async def precious_list(p: Port) -> ItemsOut:
    return ItemsOut(items=await p.precious_list())


@router.post("/precious", response_model=WriteResult, tags=["precious"], summary="Keep a quote verbatim")
async def precious_add(body: PreciousIn, p: Port) -> WriteResult:
    return await p.precious_add(body.quote, source_ids=body.source_ids, importance=body.importance)


@router.get("/glossary", response_model=GlossaryOut, tags=["glossary"])
async def glossary_list(p: Port) -> GlossaryOut:
    return GlossaryOut(entries=await p.glossary_get())


@router.post("/glossary", response_model=WriteResult, tags=["glossary"], summary="Define or redefine a term")
async def glossary_set(body: GlossaryIn, p: Port) -> WriteResult:
    return await p.glossary_set(body.term, body.definition, body.aliases)


@router.get("/glossary/{term}", response_model=GlossaryOut, tags=["glossary"], summary="A term, by name or alias")
async def glossary_get(term: Term, p: Port) -> GlossaryOut:
    entries = await p.glossary_get(term)
    if not entries:
        raise NotFound(f"no glossary entry {term!r}")
    return GlossaryOut(entries=entries)


@router.put("/glossary/{term}", response_model=WriteResult, tags=["glossary"])
async def glossary_put(term: Term, body: GlossaryPut, p: Port) -> WriteResult:
    return await p.glossary_set(term, body.definition, body.aliases)


@router.delete("/glossary/{term}", response_model=GlossaryOut, tags=["glossary"])
async def glossary_delete(term: Term, p: Port) -> GlossaryOut:
    return GlossaryOut(entries=await p.glossary_delete(term))


@router.get("/digest", response_model=DigestOut, tags=["digest"])
async def digest_get(p: Port) -> DigestOut:
    return DigestOut(digest=await p.digest_get())


@router.put("/digest", response_model=DigestOut, tags=["digest"], summary="Replace the digest (at most 500 characters)")
async def digest_set(body: DigestIn, p: Port) -> DigestOut:
    return DigestOut(digest=await p.digest_set(body.text))


@router.get("/candidates", response_model=CandidatesOut, tags=["review"], summary="The review queue")
async def candidates(p: Port) -> CandidatesOut:
    return CandidatesOut(candidates=await p.candidates())


@router.post("/candidates/{memory_id}/{action}", response_model=ActionOut, tags=["review"])
async def candidate_action(
    memory_id: MemoryId,
    action: Literal["approve", "discard", "merge", "supersede"],
    p: Port,
    body: Annotated[TargetIn | None, Body()] = None,
) -> dict:
    return await p.candidate(memory_id, action, body.target_id if body else None)


@router.get("/export", tags=["export"], summary="Everything of this user as JSON lines",
            responses={200: {"content": {"application/x-ndjson": {}}}})
async def export(p: Port) -> StreamingResponse:
    lines = p.export()

    async def body():
        async for line in lines:
            yield json.dumps(line, ensure_ascii=False) + "\n"

    return StreamingResponse(body(), media_type="application/x-ndjson")


@router.post("/import", response_model=ImportOut, tags=["export"], summary="Load an export (JSON lines); all-or-nothing validation",
             openapi_extra={"requestBody": {"content": {"application/x-ndjson": {"schema": {"type": "string"}}}, "required": True}})
async def import_(request: Request, p: Port) -> dict:
    raw = bytearray()
    async for chunk in request.stream():
        raw += chunk
        if len(raw) > IMPORT_MAX_BYTES:
            raise InvalidInput("body", f"an import is at most {IMPORT_MAX_BYTES // (1024 * 1024)} MiB; split it")
    lines = list(parse_jsonl(bytes(raw).split(b"\n")))  # each line decoded strictly: bad UTF-8 names its line
    if not lines:
        raise InvalidInput("body", "no lines to import")
    return await p.import_(lines)


CacheNs = Annotated[str, Path(min_length=1, max_length=64)]
CacheKey = Annotated[str, Path(min_length=1, max_length=200)]


@router.get("/cache/{namespace}/{key}", response_model=CacheOut, tags=["cache"], summary="A client's cached value for this user")
async def cache_get(namespace: CacheNs, key: CacheKey, p: Port) -> dict:
    return await p.cache_get(namespace, key)


@router.put("/cache/{namespace}/{key}", response_model=CacheOut, tags=["cache"])
async def cache_put(namespace: CacheNs, key: CacheKey, body: CacheIn, p: Port) -> dict:
    return await p.cache_put(namespace, key, body.value, body.ttl_s)


@router.delete("/cache/{namespace}/{key}", status_code=204, tags=["cache"])
async def cache_delete(namespace: CacheNs, key: CacheKey, p: Port) -> Response:
    await p.cache_delete(namespace, key)
    return Response(status_code=204)


@router.get("/vectors/health", tags=["admin"], summary="Per user: vector collections vs the configured embedder (admin)")
async def vectors_health(p: Port) -> dict:
    return await p.vectors_health()


@router.post("/reindex", tags=["admin"], summary="Re-embed one user or all users (admin)")
async def reindex(p: Port, body: Annotated[ReindexIn | None, Body()] = None) -> dict:
    return await p.reindex(body.user if body else None)

