"""REST for bringing chat history in: `POST /v1/import/chats`, the export as the request body (a
ZIP, or one JSON/JSONL file), streamed to a temporary file and read from there one conversation at
a time. A person imports into their own memory; an admin or trusted-client key names the person
in `X-Amber-User`, as on every route. With `Accept: application/x-ndjson` the answer is a stream
of progress lines ending with the report (or an error); otherwise it is the report. With
`extract=true` the host runs the extraction of what came in right after storing it, with its
configured model, and the report says what came of it (mcp_server/chat_import_run.py, as the CLI's
`--extract`); without it the import's windows wait for the host's scheduled extraction.
"""

from __future__ import annotations

import asyncio
import json
import logging
import tempfile
from pathlib import Path
from typing import Annotated, Any

import anyio.to_thread
from fastapi import APIRouter, Depends, Query, Request
from starlette.responses import StreamingResponse

from core import WRITE, Actor, AmberError, InvalidInput, LocalMemory, scope_for, user_hash

from .chat_import_run import extract_now, import_turns
from .errors import classify, error_body
from .rest_deps import port

router = APIRouter(prefix="/v1")
Port = Annotated[LocalMemory, Depends(port)]
log = logging.getLogger("amber.import")
CHAT_IMPORT_MAX_BYTES = 4 * 1024 * 1024 * 1024  # the body limit for this route (mcp_server/body_limit.py)
Source = Query("auto", pattern="^(auto|chatgpt|claude|openwebui|claude-code)$",
               description="what the export is; `auto` tells it from the structure")


async def _spool(request: Request, folder: str) -> Path:
    path = Path(folder) / "export.upload"
    seen = 0
    with open(path, "wb") as f:
        async for chunk in request.stream():
            seen += len(chunk)
            if seen > CHAT_IMPORT_MAX_BYTES:
                raise InvalidInput("body", f"an export is at most {CHAT_IMPORT_MAX_BYTES >> 30} GiB")
            await anyio.to_thread.run_sync(f.write, chunk)
    if seen == 0:
        raise InvalidInput("body", "send the export (a ZIP, or a JSON or JSONL file) as the request body")
    return path


def _warm(service: Any, scope: Any) -> None:
    try:
        service.recaller.warm(scope, wait=False)  # in the recall index pool
    except Exception as e:  # the first recall builds it then; nothing is lost
        log.warning("could not build the recall index after an import: %s", e)


@router.post("/import/chats", tags=["export"], summary="Bring in chat history: a ChatGPT, Claude.ai, Open WebUI or Claude Code export",
             openapi_extra={"requestBody": {"content": {"application/zip": {"schema": {"type": "string", "format": "binary"}},
                                                        "application/octet-stream": {"schema": {"type": "string", "format": "binary"}},
                                                        "application/json": {"schema": {"type": "string"}}}, "required": True}})
async def import_chats_route(request: Request, p: Port, source: str = Source, dry_run: bool = False,
                             openwebui_user: Annotated[str | None, Query(max_length=200)] = None,
                             extract: Annotated[bool, Query(description="run the extraction of what came in now, with the "
                                                                        "host's model (not in a dry run)")] = False) -> Any:
    p.identity.require(WRITE)
    scope = scope_for(Actor(p.identity.user(), client=p.identity.client, via=p.identity.actor_via))
    service = p.service
    settings = request.app.state.amber_settings  # the host's: the size cap, the identity map, the model
    folder = tempfile.mkdtemp(prefix="amber-import-")  # the upload lives only while the import runs

    def cleanup() -> None:
        for f in Path(folder).iterdir():
            f.unlink(missing_ok=True)
        Path(folder).rmdir()

    try:
        path = await _spool(request, folder)
    except BaseException:
        cleanup()
        raise

    def store(progress: Any) -> dict[str, Any]:
        report = import_turns(service, settings, scope, path, source=source, dry_run=dry_run, openwebui_user=openwebui_user,
                              extract=extract, progress=progress, display_name="the upload")
        cleanup()  # the turns are in: the upload is not kept while extraction runs
        if report["stored"]:  # their next recall would build its index of every turn: start it now
            _warm(service, scope)
        return report

    async def run(progress: Any = lambda e: None) -> dict[str, Any]:
        report = await anyio.to_thread.run_sync(store, progress)
        if extract and not dry_run:
            await extract_now(service, settings, scope.user_id, report, progress=progress)
        return report

    if "application/x-ndjson" not in request.headers.get("accept", ""):
        try:
            return await run()
        finally:
            if Path(folder).exists():
                cleanup()

    loop = asyncio.get_running_loop()
    events: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue()
    last: dict[str, Any] = {}  # the latest progress, to say how far an import got that stopped

    def progress(e: dict[str, Any]) -> None:  # from the import's thread, or from the loop while extracting
        last.update(e)
        try:
            here = asyncio.get_running_loop() is loop
        except RuntimeError:
            here = False
        if here:  # in order with the report that follows it
            events.put_nowait({"progress": e})
        else:
            loop.call_soon_threadsafe(events.put_nowait, {"progress": e})

    async def work() -> None:
        try:
            events.put_nowait({"report": await run(progress)})
        except AmberError as e:  # the answer has started: the error is its last line
            status, code = classify(e)
            events.put_nowait({"error": {**error_body(code, str(e), e.field if isinstance(e, InvalidInput) else None), "status": status}})
        except Exception as e:  # Amber's own bug: logged in full here, named (not its text: paths, secrets) in the answer
            log.exception("chat import for user %s stopped", user_hash(scope.user_id))
            events.put_nowait({"error": {**error_body("internal", _stopped(e, last, dry_run)), "status": 500}})
        finally:
            events.put_nowait(None)
            if Path(folder).exists():
                cleanup()

    task = asyncio.ensure_future(work())

    async def lines():
        while (item := await events.get()) is not None:
            yield json.dumps(item, ensure_ascii=False) + "\n"
        await task

    return StreamingResponse(lines(), media_type="application/x-ndjson")


def _stopped(e: Exception, last: dict[str, Any], dry_run: bool) -> str:
    """What a person reads when an import stopped on an error Amber did not expect: where it was,
    the kind of error (its message stays in the host's log), and that running it again is safe."""
    if last.get("stage") == "extract":
        where = f"while extracting facts (after {last.get('windows', 0)} windows); the turns are stored and the rest of " \
                "the extraction waits for the host's scheduled run"
    elif dry_run:
        where = f"while reading the export (after {last.get('conversations', 0)} conversations); nothing was stored"
    else:
        where = f"while importing (after {last.get('stored', 0)} turns stored); running the same import again stores only the rest"
    return f"the import stopped on an unexpected error ({type(e).__name__}) {where}. It has been logged on the host."
