"""RemoteMemory: the memory port over HTTP, for processes that do not own the store.

The LiteLLM hook in remote mode and the stdio MCP bridge (`amber mcp --url`) use it to reach the
memory host's REST API (`/v1/*`). It returns the same core types as the in-process service
(RecallResult, Candidate, Memory, WriteResult, Page, Message, Event) and raises the same errors:
the host's 4xx answers become PermanentError subclasses, and an unreachable or failing host a
TransientError, so callers degrade exactly as they would locally.

It may be given several hosts (a list, or URLs separated by commas): each user has a home host
(core/hosts.py) and a request goes elsewhere only when it cannot have been processed where it was
sent — the connection failed, or the host said it cannot serve (503 while starting or without its
store). A read timeout or any other answer is final: the request may have landed.
"""

from __future__ import annotations

import asyncio
import copy
import dataclasses
import hashlib
import json
from urllib.parse import quote as _q
from datetime import datetime
from typing import Any, AsyncIterator, Iterable, Sequence

import httpx

from .errors import (
    Forbidden,
    InvalidInput,
    NotFound,
    PermanentError,
    StoreUnavailable,
    Timeout,
    error_class,
)
from .hosts import Host, HostPool
from .model import Category, Event, Kind, Memory, MemoryIn, MemoryPatch, Message, Page, Status, WriteResult
from .recall.fusion import Candidate
from .recall.pipeline import RecallResult
from .results import (
    BootPack,
    CacheEntry,
    CandidateAction,
    ForgetResult,
    ImportCounts,
    IngestResult,
    PurgeResult,
    ReindexReport,
    TurnsDeleted,
    VectorsHealth,
    WhyRequest,
)


# a 503 with one of these codes (or none: something in front of Amber) means this host did not run
# the request, so another may; other 503s (timeout, busy, llm_error, ...) come from a request that ran
_NOT_SERVED = frozenset({"", "memory_starting", "memory_off", "store_unavailable", "store_locked"})


def _body(r: httpx.Response) -> dict[str, Any]:
    try:
        body = r.json()
    except ValueError:
        body = {}
    return body if isinstance(body, dict) else {}


def _not_served(r: httpx.Response) -> bool:
    return r.status_code == 503 and str(_body(r).get("error") or "") in _NOT_SERVED


def _urls(base_url: str | Sequence[str]) -> list[str]:
    parts = base_url.split(",") if isinstance(base_url, str) else list(base_url)
    urls = list(dict.fromkeys(u.strip().rstrip("/") for u in parts if u and u.strip()))
    if not urls:
        raise ValueError("RemoteMemory needs an Amber host URL")
    return urls


def _error(r: httpx.Response) -> Exception:
    body = _body(r)
    code, detail = str(body.get("error") or ""), str(body.get("detail") or r.text[:300] or r.reason_phrase)
    cls = error_class(code)
    if cls is InvalidInput or (cls is None and r.status_code in (400, 422)):
        return InvalidInput(str(body.get("field") or "request"), detail)
    if cls is not None:
        return cls(detail)
    if r.status_code in (401, 403):
        return Forbidden(detail)
    if r.status_code == 404:
        return NotFound(detail)
    if r.status_code >= 500:
        return StoreUnavailable(f"Amber host answered {r.status_code}: {detail}")
    return PermanentError(f"Amber host answered {r.status_code}: {detail}")


def _candidate(d: dict[str, Any]) -> Candidate:
    """A recalled or found record, field for field as the host sent it (mcp_server/schemas.py `Item`)."""
    known = {f.name for f in dataclasses.fields(Candidate)}
    fields = {k: v for k, v in d.items() if k in known}
    fields["created_at"] = datetime.fromisoformat(d["created_at"])
    for k in ("sources", "arms", "tags"):
        if k in fields:
            fields[k] = tuple(fields[k] or ())
    return Candidate(**fields)


def _memory(d: dict[str, Any] | None) -> Memory | None:
    return Memory.model_validate(d) if d else None


class RemoteMemory:
    """Async client of one Amber host, or of several (a list, or URLs separated by commas): see the
    module docstring. `user` is sent as X-Amber-User (for trusted-client or admin keys)."""

    def __init__(
        self,
        base_url: str | Sequence[str],
        api_key: str | None = None,
        user: str | None = None,
        timeout: float = 10.0,
        *,
        client_name: str | None = None,
        http: httpx.AsyncClient | None = None,
        cooldown_s: float = 2.0,
        max_cooldown_s: float = 30.0,
    ):
        self.hosts = _urls(base_url)
        self.base_url = self.hosts[0]
        self.user = user
        self.client_name = client_name
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._http = http or httpx.AsyncClient(base_url=self.base_url, headers=headers, timeout=timeout)
        self._pool = HostPool(self.hosts, cooldown_s=cooldown_s, max_cooldown_s=max_cooldown_s)
        self._probe_timeout = min(timeout, 5.0)
        # a request naming no user is routed by its key (a user's own key stays on one host); hashed,
        # so the secret is not kept twice
        self._anon = hashlib.blake2b((api_key or "").encode(), digest_size=8).hexdigest() if api_key else ""

    def for_user(self, user: str) -> "RemoteMemory":
        """The same connection acting for another user (needs a trusted-client or admin key).
        It shares this client's connection pool and host marks: close only the original."""
        other = copy.copy(self)
        other.user = user
        return other

    async def aclose(self) -> None:
        await self._http.aclose()

    async def __aenter__(self) -> "RemoteMemory":
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.aclose()

    # ---- several hosts -------------------------------------------------------------------------

    def hosts_status(self) -> list[dict[str, Any]]:
        """Each host as {"url", "up", "failures", "down_until"} (epoch seconds while cooling down, else None)."""
        return self._pool.status()

    async def check_hosts(self) -> list[dict[str, Any]]:
        """Probe every host's /health (embeds nothing) at once, mark each up or down, return hosts_status()."""

        async def probe(host: Host) -> None:
            try:
                r = await self._http.get(host.url + "/health", timeout=self._probe_timeout)
            except httpx.HTTPError as e:
                self._pool.mark_down(host, f"/health: {type(e).__name__}")
                return
            if r.status_code == 200:
                self._pool.mark_up(host)
            else:
                self._pool.mark_down(host, f"/health answered {r.status_code}")

        await asyncio.gather(*(probe(h) for h in self._pool.hosts))
        return self.hosts_status()

    def _order(self, headers: dict[str, str]) -> list[Host]:
        return self._pool.order(headers.get("X-Amber-User") or self._anon)

    def _exhausted(self, failed: list[tuple[Host, Exception | httpx.Response]]) -> Exception:
        """The error when no host could take a request: the class today's single host would give for
        the last failure, naming every host tried."""
        where = f"Amber host at {failed[0][0].url}" if len(failed) == 1 else \
            "Amber hosts at " + ", ".join(h.url for h, _ in failed) + " (each tried)"
        last = failed[-1][1]
        if isinstance(last, httpx.Response):
            err = _error(last)
            return err if len(failed) == 1 else type(err)(f"{where} could not serve the request; the last said: {err}")
        if isinstance(last, httpx.TimeoutException):
            return Timeout(f"{where} did not answer in time")
        return StoreUnavailable(f"{where} is unreachable: {type(last).__name__}: {last}")

    # ---- transport ---------------------------------------------------------------------------

    def _headers(self) -> dict[str, str]:
        h = {}
        if self.user:
            h["X-Amber-User"] = self.user
        if self.client_name:
            h["X-Amber-Client"] = self.client_name
        return h

    async def _send(self, method: str, path: str, **kw: Any) -> httpx.Response:
        headers = {**self._headers(), **kw.pop("headers", {})}
        failed: list[tuple[Host, Exception | httpx.Response]] = []
        for host in self._order(headers):
            try:
                r = await self._http.request(method, host.url + path, headers=headers, **kw)
            except (httpx.ConnectError, httpx.ConnectTimeout) as e:  # never reached the host: try another
                self._pool.mark_down(host, type(e).__name__)
                failed.append((host, e))
                continue
            except httpx.TimeoutException as e:  # it may have run: not retried elsewhere
                raise Timeout(f"Amber host at {host.url} did not answer in time") from e
            except httpx.HTTPError as e:
                raise StoreUnavailable(f"Amber host at {host.url} is unreachable: {type(e).__name__}: {e}") from e
            if _not_served(r):
                self._pool.mark_down(host, f"answered 503 {_body(r).get('error') or ''}".strip())
                failed.append((host, r))
                continue
            self._pool.mark_up(host)
            if r.status_code >= 400:
                raise _error(r)
            return r
        last = failed[-1][1]
        raise self._exhausted(failed) from (last if isinstance(last, Exception) else None)

    async def _json(self, method: str, path: str, **kw: Any) -> Any:
        r = await self._send(method, path, **kw)
        try:
            return r.json() if r.content else None
        except ValueError as e:
            raise StoreUnavailable(f"Amber host at {r.url} sent something that is not JSON") from e

    # ---- recall and capture (the hot path) ------------------------------------------------------

    async def recall(
        self,
        query: str,
        *,
        namespace: str | None = None,
        project: str | None = None,
        budget_tokens: int | None = None,
        top_k: int | None = None,
        preset: str | None = None,
        echo: Sequence[str] = (),
        why: str | None = None,
        destination: str | None = None,
    ) -> RecallResult:
        body = {"query": query, "namespace": namespace, "project": project, "budget_tokens": budget_tokens,
                "top_k": top_k, "preset": preset, "echo": list(echo) or None, "why": why, "model": destination}
        d = await self._json("POST", "/v1/recall", json={k: v for k, v in body.items() if v is not None})
        return RecallResult(items=[_candidate(i) for i in d["items"]], text=d["text"], tokens=int(d["tokens"]))

    async def why(self, last: int = 1, request: str | None = None) -> list[WhyRequest]:
        """What recall injected into the caller's recent requests and why (the host keeps it)."""
        params = {"last": last, **({"request": request} if request else {})}
        return [WhyRequest.model_validate(r) for r in (await self._json("GET", "/v1/why", params=params))["requests"]]

    async def search(
        self,
        query: str,
        *,
        top_k: int | None = None,
        filter: bool = True,
        project: str | None = None,
        namespace: str | None = None,
    ) -> list[Candidate]:
        body = {"query": query, "filter": filter, "top_k": top_k, "project": project, "namespace": namespace}
        d = await self._json("POST", "/v1/search", json={k: v for k, v in body.items() if v is not None})
        return [_candidate(i) for i in d["hits"]]

    async def ingest(self, messages: Sequence[Message | dict[str, Any]], commands: bool = True) -> IngestResult:
        msgs = [m.model_dump(mode="json") if isinstance(m, Message) else m for m in messages]
        return IngestResult.model_validate(await self._json("POST", "/v1/messages", json={"messages": msgs, "commands": commands}))

    async def messages(
        self, *, since: datetime | None = None, until: datetime | None = None, session: str | None = None, text: str | None = None
    ) -> list[Message]:
        pairs = (("since", since), ("until", until), ("session", session), ("text", text))
        params = {k: v.isoformat() if isinstance(v, datetime) else v for k, v in pairs if v is not None}
        d = await self._json("GET", "/v1/messages", params=params)
        return [Message.model_validate(m) for m in d["messages"]]

    async def delete_message(self, message_id: str) -> TurnsDeleted:
        return TurnsDeleted.model_validate(await self._json("DELETE", f"/v1/messages/{_q(message_id, safe='')}"))

    async def delete_messages(
        self,
        *,
        ids: Sequence[str] | None = None,
        session: str | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
        everything: bool = False,
    ) -> TurnsDeleted:
        body: dict[str, Any] = {"ids": list(ids) if ids is not None else None, "session": session,
                                "since": since.isoformat() if since else None, "until": until.isoformat() if until else None}
        body = {k: v for k, v in body.items() if v is not None}
        if everything:
            body["all"] = True
        return TurnsDeleted.model_validate(await self._json("POST", "/v1/messages/delete", json=body))

    async def forget(self, what: str, *, preview: bool = False) -> ForgetResult:
        d = await self._json("POST", "/v1/forget/preview" if preview else "/v1/forget", json={"what": what})
        return ForgetResult.model_validate(d)

    async def remember(self, data: MemoryIn) -> WriteResult:
        d = await self._json("POST", "/v1/memories", json=data.model_dump(mode="json", exclude_unset=True))
        return WriteResult.model_validate(d)

    # ---- memories ------------------------------------------------------------------------------

    async def list(
        self,
        *,
        namespace: str | None = None,
        kind: Kind | str | None = None,
        category: Category | str | None = None,
        status: Status | str | None = "active",
        text: str | None = None,
        limit: int = 50,
        cursor: str | None = None,
    ) -> Page:
        # None means every status in process; over HTTP an absent status means "active", so say "any"
        filters = {"namespace": namespace, "kind": kind, "category": category, "status": "any" if status is None else status,
                   "text": text, "limit": limit, "cursor": cursor}
        params = {k: getattr(v, "value", v) for k, v in filters.items() if v is not None}
        return Page.model_validate(await self._json("GET", "/v1/memories", params=params))

    async def get(self, memory_id: str) -> Memory:
        return Memory.model_validate(await self._json("GET", f"/v1/memories/{memory_id}"))

    async def update(self, memory_id: str, patch: MemoryPatch) -> Memory:
        body = patch.model_dump(mode="json", exclude_unset=True)
        return Memory.model_validate(await self._json("PATCH", f"/v1/memories/{memory_id}", json=body))

    async def delete(self, memory_id: str) -> Memory:
        return Memory.model_validate(await self._json("DELETE", f"/v1/memories/{memory_id}"))

    async def purge_trash(self, ids: Sequence[str] | None = None) -> PurgeResult:
        d = await self._json("POST", "/v1/trash/purge", json={"ids": list(ids)} if ids is not None else {})
        return PurgeResult.model_validate(d)

    async def restore(self, memory_id: str) -> Memory:
        return Memory.model_validate(await self._json("POST", f"/v1/memories/{memory_id}/restore"))

    async def archive(self, memory_id: str) -> Memory:
        return Memory.model_validate(await self._json("POST", f"/v1/memories/{memory_id}/archive"))

    async def pin(self, memory_id: str, pinned: bool = True) -> Memory:
        verb = "pin" if pinned else "unpin"
        return Memory.model_validate(await self._json("POST", f"/v1/memories/{memory_id}/{verb}"))

    async def supersede(self, memory_id: str, data: MemoryIn) -> WriteResult:
        body = data.model_dump(mode="json", exclude_unset=True)
        return WriteResult.model_validate(await self._json("POST", f"/v1/memories/{memory_id}/supersede", json=body))

    async def namespaces(self) -> dict[str, int]:
        return (await self._json("GET", "/v1/namespaces"))["namespaces"]

    async def events(self, memory_id: str | None = None, limit: int = 200) -> list[Event]:
        params = {"limit": limit, **({"memory_id": memory_id} if memory_id else {})}
        return [Event.model_validate(e) for e in (await self._json("GET", "/v1/events", params=params))["events"]]

    # ---- boot pack, precious, glossary, digest ------------------------------------------------

    async def boot(self) -> BootPack:
        return BootPack.model_validate(await self._json("GET", "/v1/boot"))

    async def precious_list(self) -> list[Memory]:
        return [Memory.model_validate(m) for m in (await self._json("GET", "/v1/precious"))["items"]]

    async def precious_add(self, quote: str, *, source_ids: Sequence[str] = (), importance: float = 0.8) -> WriteResult:
        body = {"quote": quote, "source_ids": list(source_ids), "importance": importance}
        return WriteResult.model_validate(await self._json("POST", "/v1/precious", json=body))

    async def glossary_get(self, term: str | None = None) -> list[Memory]:
        if term is None:
            d = await self._json("GET", "/v1/glossary")
        else:
            try:
                d = await self._json("GET", f"/v1/glossary/{_q(term, safe='')}")
            except NotFound:
                return []
        return [Memory.model_validate(m) for m in d["entries"]]

    async def glossary_set(self, term: str, definition: str, aliases: Sequence[str] = ()) -> WriteResult:
        body = {"term": term, "definition": definition, "aliases": list(aliases)}
        return WriteResult.model_validate(await self._json("POST", "/v1/glossary", json=body))

    async def glossary_delete(self, term: str) -> list[Memory]:
        return [Memory.model_validate(m) for m in (await self._json("DELETE", f"/v1/glossary/{_q(term, safe='')}"))["entries"]]

    async def digest_get(self) -> Memory | None:
        return _memory((await self._json("GET", "/v1/digest"))["digest"])

    async def digest_set(self, text: str) -> Memory:
        return Memory.model_validate((await self._json("PUT", "/v1/digest", json={"text": text}))["digest"])

    # ---- review queue ------------------------------------------------------------------------

    async def candidates(self) -> list[Memory]:
        return [Memory.model_validate(m) for m in (await self._json("GET", "/v1/candidates"))["candidates"]]

    async def candidate(self, memory_id: str, action: str, target_id: str | None = None) -> CandidateAction:
        body = {"target_id": target_id} if target_id else None
        return CandidateAction.model_validate(await self._json("POST", f"/v1/candidates/{memory_id}/{action}", json=body))

    # ---- export / import, cache, health --------------------------------------------------------

    async def export(self) -> AsyncIterator[dict[str, Any]]:
        headers = self._headers()
        failed: list[tuple[Host, Exception | httpx.Response]] = []
        for host in self._order(headers):
            try:
                async with self._http.stream("GET", host.url + "/v1/export", headers=headers) as r:
                    if r.status_code >= 400:
                        await r.aread()
                    if _not_served(r):
                        self._pool.mark_down(host, "answered 503")
                        failed.append((host, r))
                        continue
                    self._pool.mark_up(host)
                    if r.status_code >= 400:
                        raise _error(r)
                    # split on "\n" only: httpx's aiter_lines also splits at U+2028, U+0085 and other
                    # characters JSON carries unescaped inside strings, which cut a line in two
                    pending = b""
                    async for chunk in r.aiter_bytes():
                        *whole, pending = (pending + chunk).split(b"\n")
                        for line in whole:
                            if line.strip():
                                yield json.loads(line)
                    if pending.strip():
                        yield json.loads(pending)
                    return
            except (httpx.ConnectError, httpx.ConnectTimeout) as e:
                self._pool.mark_down(host, type(e).__name__)
                failed.append((host, e))
            except httpx.HTTPError as e:
                raise StoreUnavailable(f"Amber host at {host.url} is unreachable: {e}") from e
        raise self._exhausted(failed)

    async def import_(self, lines: Iterable[dict[str, Any]]) -> ImportCounts:
        body = "".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines).encode()
        return ImportCounts.model_validate(
            await self._json("POST", "/v1/import", content=body, headers={"Content-Type": "application/x-ndjson"}))

    async def cache_get(self, namespace: str, key: str) -> CacheEntry:
        return CacheEntry.model_validate(await self._json("GET", f"/v1/cache/{_q(namespace, safe='')}/{_q(key, safe='')}"))

    async def cache_put(self, namespace: str, key: str, value: Any, ttl_s: float | None = None) -> CacheEntry:
        d = await self._json("PUT", f"/v1/cache/{_q(namespace, safe='')}/{_q(key, safe='')}", json={"value": value, "ttl_s": ttl_s})
        return CacheEntry.model_validate(d)

    async def cache_delete(self, namespace: str, key: str) -> None:
        await self._send("DELETE", f"/v1/cache/{_q(namespace, safe='')}/{_q(key, safe='')}")

    async def health(self) -> dict[str, Any]:
        """The host's /health. Raises TransientError if it cannot be reached."""
        return await self._json("GET", "/health")

    async def vectors_health(self) -> VectorsHealth:
        return VectorsHealth.model_validate(await self._json("GET", "/v1/vectors/health"))

    async def reindex(self, user: str | None = None) -> ReindexReport:
        return ReindexReport.model_validate(await self._json("POST", "/v1/reindex", json={"user": user} if user else {}))

