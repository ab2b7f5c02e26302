"""REST for the curated side of a user's memory: the boot pack, precious quotes, the glossary, the
digest and the review queue of candidate memories."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Body, Depends, Path, Query, Request

from core import NotFound, WriteResult

from core import LocalMemory
from core import BootPack, CandidateAction, DestinationPolicy, boot_for_model

from .rest_deps import port
from .schemas import (
    CandidatesOut,
    DigestIn,
    DigestOut,
    GlossaryIn,
    GlossaryOut,
    GlossaryPut,
    ItemsOut,
    PreciousIn,
    TargetIn,
)

router = APIRouter(prefix="/v1")
Port = Annotated[LocalMemory, Depends(port)]
MemoryId = Annotated[str, Path(min_length=1, max_length=200)]
Term = Annotated[str, Path(min_length=1, max_length=200)]


@router.get("/boot", response_model=BootPack, tags=["boot"], summary="Boot pack: digest, logs, precious, glossary, pinned, today")
async def boot(p: Port, request: Request,
               model: Annotated[str | None, Query(max_length=200, description=(
                   "The model the pack goes to: the host's destination policy decides what it may carry (nothing for a model "
                   "that may receive no memory; no precious, health or private items for a model off the host). Omitted: "
                   "the whole pack, for the person's own use"))] = None) -> BootPack:
    pack = await p.boot()
    return pack if model is None else boot_for_model(pack, DestinationPolicy.from_settings(request.app.state.amber_settings), model)


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


@router.post("/candidates/{memory_id}/{action}", response_model=CandidateAction, tags=["review"])
async def candidate_action(
    memory_id: MemoryId,
    action: Literal["approve", "discard", "merge", "supersede"],
    p: Port,
    body: Annotated[TargetIn | None, Body()] = None,
) -> CandidateAction:
    return await p.candidate(memory_id, action, body.target_id if body else None)
