"""Amber's errors as HTTP answers: 4xx naming the field for the caller's mistakes, 503 for
"try again later", and a logged 500 only for Amber's own bugs.

Body: {"error": code, "detail": message, "field": name-or-null}. Each error class carries its code
and status (core/errors.py), so `core.RemoteMemory` reads the code back into the same class.
"""

from __future__ import annotations

import logging
import threading
import time

from fastapi import Request
from fastapi.exceptions import RequestValidationError
from pydantic import ValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.responses import JSONResponse

from core import AmberError, InvalidInput

log = logging.getLogger("amber.server")


def error_body(code: str, detail: str, field: str | None = None) -> dict:
    return {"error": code, "detail": detail, "field": field}


def classify(exc: Exception) -> tuple[int, str]:
    """(status, code) of an exception: Amber's carry their own (core/errors.py), anything else is a bug."""
    if isinstance(exc, AmberError):
        return exc.status, exc.code
    return 500, "internal"


def amber_error_response(exc: AmberError) -> JSONResponse:
    status, code = classify(exc)
    field = exc.field if isinstance(exc, InvalidInput) else None
    headers = {"Retry-After": "5"} if status == 503 else None
    return JSONResponse(error_body(code, str(exc), field), status_code=status, headers=headers)


def _loc(loc: tuple) -> str:
    # ("body", "messages", 0, "role") -> "messages.0.role"; the first element names where, not what
    parts = [str(p) for p in loc]
    if len(parts) > 1 and parts[0] in ("body", "query", "path", "header", "cookie"):
        parts = parts[1:]
    return ".".join(parts) or "body"


def validation_response(errors: list[dict]) -> JSONResponse:
    first = errors[0] if errors else {"loc": ("body",), "msg": "invalid"}
    field = _loc(tuple(first.get("loc", ())))
    detail = "; ".join(f"{_loc(tuple(e.get('loc', ())))}: {e.get('msg')}" for e in errors[:5])
    return JSONResponse(error_body("invalid_input", detail, field), status_code=422)


_QUIET_S = 30.0  # 503s of one kind closer than this to each other are one outage: logged once
_runs: dict[str, tuple[float, int]] = {}  # error code -> (last 503 of it, how many answered since the logged one)
_runs_lock = threading.Lock()


def _log_unavailable(request: Request, code: str, exc: AmberError) -> None:
    """One line per outage, not per request: under load a down part is asked hundreds of times a
    second, and the part itself (core/outage.py) also logs when it goes and comes back."""
    now = time.monotonic()
    with _runs_lock:
        last, quiet = _runs.get(code, (float("-inf"), 0))
        starts = now - last > _QUIET_S
        _runs[code] = (now, 0 if starts else quiet + 1)
    if starts:
        log.warning("%s %s: %s (503; more %s answers in a row are logged at debug level)", request.method, request.url.path, exc, code)
    else:
        log.debug("%s %s: %s", request.method, request.url.path, exc)


async def on_amber_error(request: Request, exc: AmberError) -> JSONResponse:
    status, code = classify(exc)
    if status == 503:
        _log_unavailable(request, code, exc)
    elif status >= 500:
        log.warning("%s %s: %s", request.method, request.url.path, exc)
    return amber_error_response(exc)


async def on_request_validation(request: Request, exc: RequestValidationError) -> JSONResponse:
    return validation_response(list(exc.errors()))


async def on_pydantic_validation(request: Request, exc: ValidationError) -> JSONResponse:
    return validation_response(list(exc.errors()))


async def on_http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
    code = {404: "not_found", 405: "method_not_allowed", 401: "unauthenticated", 403: "forbidden"}.get(exc.status_code, "http_error")
    return JSONResponse(error_body(code, str(exc.detail)), status_code=exc.status_code, headers=getattr(exc, "headers", None))


async def on_unexpected(request: Request, exc: Exception) -> JSONResponse:
    log.exception("unexpected error on %s %s", request.method, request.url.path)
    return JSONResponse(error_body("internal", "Amber hit an unexpected error; it has been logged"), status_code=500)


HANDLERS = {
    AmberError: on_amber_error,
    RequestValidationError: on_request_validation,
    ValidationError: on_pydantic_validation,
    StarletteHTTPException: on_http_error,
    Exception: on_unexpected,
}
