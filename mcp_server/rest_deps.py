"""What every REST route needs: the caller's memory port, built from the identity the auth
middleware resolved for this request."""

from __future__ import annotations

from datetime import datetime, timezone

from fastapi import Request

from core import Forbidden

from core import LocalMemory


def port(request: Request) -> LocalMemory:
    identity = getattr(request.state, "amber_identity", None)
    if identity is None:  # the auth middleware guards every /v1 route; this is a second lock
        raise Forbidden("no identity on this request")
    app = request.app
    return LocalMemory(app.state.amber_memory, identity)


def utc(dt: datetime | None) -> datetime | None:
    """Naive timestamps from clients are taken as UTC."""
    if dt is not None and dt.tzinfo is None:
        return dt.replace(tzinfo=timezone.utc)
    return dt
