"""REST for the client cache: small per-user values a client keeps between requests (core/client_cache.py)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Path
from starlette.responses import Response

from core import LocalMemory
from core import CacheEntry

from .rest_deps import port
from .schemas import CacheIn

router = APIRouter(prefix="/v1")
Port = Annotated[LocalMemory, Depends(port)]

CacheNs = Annotated[str, Path(min_length=1, max_length=64)]
CacheKey = Annotated[str, Path(min_length=1, max_length=200)]


@router.get("/cache/{namespace}/{key}", response_model=CacheEntry, tags=["cache"], summary="A client's cached value for this user")
async def cache_get(namespace: CacheNs, key: CacheKey, p: Port) -> CacheEntry:
    return await p.cache_get(namespace, key)


@router.put("/cache/{namespace}/{key}", response_model=CacheEntry, tags=["cache"])
async def cache_put(namespace: CacheNs, key: CacheKey, body: CacheIn, p: Port) -> CacheEntry:
    return await p.cache_put(namespace, key, body.value, body.ttl_s)


@router.delete("/cache/{namespace}/{key}", status_code=204, tags=["cache"])
async def cache_delete(namespace: CacheNs, key: CacheKey, p: Port) -> Response:
    await p.cache_delete(namespace, key)
    return Response(status_code=204)
