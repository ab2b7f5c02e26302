"""REST: recall, search, captured turns (capture, list, delete), forget, memories (list, create/upsert, get, edit,
lifecycle), the trash (purge now), and whose memory a key reaches."""

from __future__ import annotations

import logging

from datetime import datetime
from typing import Annotated, Literal

from fastapi import APIRouter, Body, Depends, Path, Query, Request
from pydantic import BaseModel, Field

from core import Category, Kind, Memory, MemoryIn, MemoryPatch, Page, WriteResult

from core import LocalMemory
from core import DestinationPolicy, correct_in_turn, render_correction_note
from core import ForgetResult, IngestResult, PurgeResult, TurnsDeleted

from .rest_deps import port, utc
from .schemas import (
    EventsOut,
    ForgetIn,
    IngestIn,
    MessagesDeleteIn,
    MessagesOut,
    NamespacesOut,
    RecallIn,
    RecallOut,
    SearchIn,
    SearchOut,
    Strict,
    item,
)

log = logging.getLogger("amber.server")
router = APIRouter(prefix="/v1")
Port = Annotated[LocalMemory, Depends(port)]
MemoryId = Annotated[str, Path(min_length=1, max_length=200, description="Memory id")]
MessageIdPath = Annotated[str, Path(min_length=1, max_length=200, description="Captured turn id")]
StatusFilter = Literal["active", "candidate", "superseded", "archived", "expired", "deleted", "any"]
IdItem = Annotated[str, Field(min_length=1, max_length=200)]


# the shapes of the two routes below live with them (schemas.py holds the rest)
class PurgeIn(Strict):
    ids: list[IdItem] | None = Field(None, max_length=1000, description="Only these deleted memories; absent: the whole trash. "
                                     "An id that is not in the trash is left alone")


class WhoOut(BaseModel):
    user: str = Field(description="The user whose memory this request reaches")
    key: str = Field(description="The name of the key used ('local' without keys)")
    scopes: list[str]
    admin: bool


@router.post("/recall", response_model=RecallOut, tags=["recall"], summary="The memory block to inject for a query")
async def recall(body: RecallIn, p: Port, request: Request) -> RecallOut:
    # where the block goes decides whether it may carry memory, and which (core/destinations.py), as in the proxy's hook
    policy = DestinationPolicy.from_settings(request.app.state.amber_settings) if body.model else None
    sends = policy is None or policy.receives_memory(body.model)
    # a chat turn that names itself may correct what it was shown last, before this recall (core/correcting.py);
    # a chat whose model receives no memory was shown nothing, so only a turn naming a handle is read
    done = None
    if body.correct and body.why:
        try:
            done = await correct_in_turn(p, body.query, shown_here=sends)
        except Exception as e:  # the recall still answers: a correction is never worth a failed turn
            log.warning("correction skipped: %s: %s", type(e).__name__, e)
    if not sends:
        request.state.amber_log = f"items=0 (model {body.model} receives no memory)"
        return RecallOut(text="", items=[], tokens=0)
    r = await p.recall(  # the service packs only what may go to body.model, and keeps that as the why record
        body.query, namespace=body.namespace, project=body.project, budget_tokens=body.budget_tokens, top_k=body.top_k,
        preset=body.preset, echo=body.echo, why=body.why, destination=body.model,
    )
    items, text = r.items, r.text
    request.state.amber_log = f"items={len(items)} tokens={r.tokens}"  # for the request's one log line
    # the old words go only where the item itself could go (as in the hook): a model off the host never
    # gets the words of an item that stays on it
    note = render_correction_note(done, old_words=policy is None or bool(policy.admit([done], body.model))) if done is not None else ""
    return RecallOut(text="\n".join(t for t in (note, text) if t), items=[item(c) for c in items], tokens=r.tokens)


@router.get("/why", tags=["recall"], summary="What recall injected into your recent requests, and why")
async def why(p: Port, last: Annotated[int, Query(ge=1, le=20)] = 1,
              request_id: Annotated[str | None, Query(alias="request", max_length=200)] = None) -> dict:
    """Newest first: per request its id, time, how many candidates were weighed and whether recall
    abstained; per injected item its handle, id, kind, date, client, scores, arms, the relevance
    floor's verdict and its background, and its words as stored now ("gone" when forgotten since);
    `left_out`: the best few items weighed and kept out, each with the verdict that kept it out.
    Kept only for requests that named themselves."""
    return {"requests": await p.why(last=last, request=request_id)}


@router.post("/search", response_model=SearchOut, tags=["recall"], summary="Ranked memories and turns with scores")
async def search(body: SearchIn, p: Port) -> SearchOut:
    hits = await p.search(body.query, top_k=body.top_k, filter=body.filter, project=body.project, namespace=body.namespace)
    return SearchOut(hits=[item(c) for c in hits])


@router.post("/messages", response_model=IngestResult, tags=["messages"], summary="Capture conversation turns (idempotent by id)")
async def ingest(body: IngestIn, p: Port) -> IngestResult:
    return await p.ingest(body.messages, commands=body.commands)


@router.get("/messages", response_model=MessagesOut, tags=["messages"], summary="Captured turns, oldest first")
async def messages(
    p: Port,
    since: datetime | None = None,
    until: datetime | None = None,
    session: Annotated[str | None, Query(max_length=200)] = None,
    text: Annotated[str | None, Query(max_length=500, description="Only turns containing this (any case)")] = None,
) -> MessagesOut:
    return MessagesOut(messages=await p.messages(since=utc(since), until=utc(until), session=session, text=text))


@router.delete("/messages/{message_id:path}", response_model=TurnsDeleted, tags=["messages"],
               summary="Delete one captured turn for good (the audit keeps its id, not its words)")
async def delete_message(message_id: MessageIdPath, p: Port) -> TurnsDeleted:
    return await p.delete_message(message_id)


@router.post("/messages/delete", response_model=TurnsDeleted, tags=["messages"],
             summary="Delete captured turns by ids, conversation and/or time range (every criterion given must hold)")
async def delete_messages(body: MessagesDeleteIn, p: Port) -> TurnsDeleted:
    return await p.delete_messages(ids=body.ids, session=body.session, since=body.since, until=body.until, everything=body.all)


@router.post("/forget/preview", response_model=ForgetResult, tags=["forget"],
             summary="What forgetting this would erase: memories and captured turns (nothing is removed)")
async def forget_preview(body: ForgetIn, p: Port) -> ForgetResult:
    return await p.forget(body.what, preview=True)


@router.post("/forget", response_model=ForgetResult, tags=["forget"],
             summary="Forget: erase for good every memory that states it (any status, precious quotes included) "
                     "and the captured turns that say it; nothing forgotten can be restored")
async def forget(body: ForgetIn, p: Port) -> ForgetResult:
    return await p.forget(body.what)


@router.get("/memories", response_model=Page, tags=["memories"], summary="List memories, newest first")
async def list_memories(
    p: Port,
    namespace: Annotated[str | None, Query(max_length=80)] = None,
    kind: Kind | None = None,
    category: Category | None = None,
    status: StatusFilter = "active",
    text: Annotated[str | None, Query(max_length=500)] = None,
    limit: Annotated[int, Query(ge=1, le=500)] = 50,
    cursor: Annotated[str | None, Query(max_length=20)] = None,
) -> Page:
    return await p.list(namespace=namespace, kind=kind, category=category, status=status, text=text, limit=limit, cursor=cursor)


@router.post("/memories", response_model=WriteResult, tags=["memories"], summary="Create, or upsert by fact_key")
async def create_memory(body: MemoryIn, p: Port) -> WriteResult:
    return await p.remember(body)


@router.get("/memories/{memory_id}", response_model=Memory, tags=["memories"])
async def get_memory(memory_id: MemoryId, p: Port) -> Memory:
    return await p.get(memory_id)


@router.patch("/memories/{memory_id}", response_model=Memory, tags=["memories"], summary="Edit in place (keyed content supersedes)")
async def patch_memory(memory_id: MemoryId, body: MemoryPatch, p: Port) -> Memory:
    return await p.update(memory_id, body)


@router.delete("/memories/{memory_id}", response_model=Memory, tags=["memories"],
               summary="Move to the trash: never recalled, restorable until the trash is purged")
async def delete_memory(memory_id: MemoryId, p: Port) -> Memory:
    return await p.delete(memory_id)


@router.post("/trash/purge", response_model=PurgeResult, tags=["memories"],
             summary="Empty the trash now: deleted memories removed for good (all, or only the ids given)")
async def purge_trash(p: Port, body: Annotated[PurgeIn | None, Body()] = None) -> PurgeResult:
    return await p.purge_trash(body.ids if body else None)


@router.post("/memories/{memory_id}/archive", response_model=Memory, tags=["memories"])
async def archive_memory(memory_id: MemoryId, p: Port) -> Memory:
    return await p.archive(memory_id)


@router.post("/memories/{memory_id}/restore", response_model=Memory, tags=["memories"], summary="Bring back a deleted, archived or expired memory")
async def restore_memory(memory_id: MemoryId, p: Port) -> Memory:
    return await p.restore(memory_id)


@router.post("/memories/{memory_id}/pin", response_model=Memory, tags=["memories"])
async def pin_memory(memory_id: MemoryId, p: Port) -> Memory:
    return await p.pin(memory_id, True)


@router.post("/memories/{memory_id}/unpin", response_model=Memory, tags=["memories"])
async def unpin_memory(memory_id: MemoryId, p: Port) -> Memory:
    return await p.pin(memory_id, False)


@router.post("/memories/{memory_id}/supersede", response_model=WriteResult, tags=["memories"], summary="Replace with a new version")
async def supersede_memory(memory_id: MemoryId, body: MemoryIn, p: Port) -> WriteResult:
    return await p.supersede(memory_id, body)


@router.get("/namespaces", response_model=NamespacesOut, tags=["memories"], summary="Namespaces with their memory counts")
async def namespaces(p: Port) -> NamespacesOut:
    return NamespacesOut(namespaces=await p.namespaces())


@router.get("/events", response_model=EventsOut, tags=["audit"], summary="Audit trail, per memory or for the whole user")
async def events(
    p: Port,
    memory_id: Annotated[str | None, Query(min_length=1, max_length=200)] = None,
    limit: Annotated[int, Query(ge=1, le=1000)] = 200,
) -> EventsOut:
    return EventsOut(events=await p.events(memory_id, limit))


@router.get("/whoami", response_model=WhoOut, tags=["auth"], summary="Whose memory this key reaches, and what it may do")
async def whoami(p: Port) -> WhoOut:
    who = p.identity
    return WhoOut(user=who.user(), key=who.key_name, scopes=sorted(who.scopes), admin=who.is_admin)
