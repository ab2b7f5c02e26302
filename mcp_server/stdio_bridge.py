"""`amber mcp --url URL`: MCP over stdio, carried to a running Amber host's MCP endpoint.

A client that speaks only stdio (Claude Desktop, some Codex setups) starts this process. It forwards
every JSON-RPC message from stdin to the host's Streamable HTTP endpoint (`<base>/mcp`, the one HTTP
clients use, with the same `Authorization: Bearer <key>`) and everything the host sends to stdout,
both ways at once. It knows no tool: tools, resources, prompts, notifications and whatever the host
adds later pass through as they are, answered by the host itself.

What a transport owes its client, it adds:
- at start, one look that an Amber host answers at the URL (exit 1 and one line naming it if not);
- an HTTP refusal (no key, an unknown key, a key without the scope) answers the request, `initialize`
  included, with a JSON-RPC error saying what to change, and one line on stderr;
- a host that stops answering answers each pending request with an error instead of a hang (one line
  on stderr); once it is back, restarted with its sessions forgotten, the bridge opens a new session,
  repeating the client's `initialize`, and sends the refused request again;
- it ends when its client does: within a second or so of stdin's end (EOF) or of its parent process
  exiting (a client killed hard may leave the pipe open in a grandchild, so the parent is watched too),
  whatever state the host and the key are in. It reads stdin itself, without a blocking thread, so
  nothing can keep the process waiting on a line that will never come.
"""

from __future__ import annotations

import json
import logging
import math
import os
import sys
from dataclasses import dataclass, field
from typing import Any, AsyncIterator, Callable

import anyio
import httpx2
from mcp.client.streamable_http import streamable_http_client
from mcp.server.stdio import stdio_server
from mcp.shared.inbound import (
    MCP_METHOD_HEADER,
    MCP_NAME_HEADER,
    MCP_PROTOCOL_VERSION_HEADER,
    NAME_BEARING_METHODS,
    encode_header_value,
    mcp_param_headers,
    x_mcp_header_map,
)
from mcp.shared.message import ClientMessageMetadata, SessionMessage
from mcp.types import (
    CONNECTION_CLOSED,
    PROTOCOL_VERSION_META_KEY,
    ErrorData,
    JSONRPCError,
    JSONRPCMessage,
    JSONRPCNotification,
    JSONRPCRequest,
    JSONRPCResponse,
    RequestId,
)

from .identity import CLIENT_HEADER, USER_HEADER

log = logging.getLogger("amber.mcp_bridge")
REPLAY_TIMEOUT_S = 30.0
GOODBYE_S = 0.5  # after the client went: time to pass on its last messages and end the host's session politely
PARENT_POLL_S = 0.1


def endpoint_of(url: str) -> str:
    """The host's MCP endpoint from what the user passed: the memory base URL
    (`http://127.0.0.1:4100`, the proxy's `http://127.0.0.1:4000/memory`) or the endpoint itself."""
    url = url.strip().rstrip("/")
    return url if url.endswith("/mcp") else f"{url}/mcp"


def run(url: str, key: str | None, user: str | None) -> int:
    if not log.isEnabledFor(logging.DEBUG):  # one line per HTTP request is noise in an MCP client's log
        logging.getLogger("httpx2").setLevel(logging.WARNING)
    return anyio.run(_run, endpoint_of(url), key, user)


async def _run(endpoint: str, key: str | None, user: str | None) -> int:
    problem = await start_problem(endpoint)
    if problem:
        code, line = problem
        print(f"amber mcp: {line}", file=sys.stderr)
        return code
    source = ClientInput(0)
    async with stdio_server(stdin=source) as (read, write):
        async with write:  # closing it ends the transport's stdout writer, so the process can exit
            await Bridge(endpoint, key, user).serve(read, write, client_gone=source.parent_gone)
    return 0


class ClientInput:
    """The client's side of stdin, line by line, for the stdio transport. Reads only when the descriptor
    is readable (never a thread blocked in read), and ends at EOF or once the parent process is gone."""

    def __init__(self, fd: int) -> None:
        self.fd, self.parent, self.buffer = fd, os.getppid(), b""

    def parent_gone(self) -> bool:
        return os.getppid() != self.parent

    async def chunk(self) -> bytes:
        while True:
            if self.parent_gone():
                log.debug("the client process is gone; ending")
                return b""
            try:
                with anyio.move_on_after(PARENT_POLL_S):
                    await anyio.wait_readable(self.fd)
                    return os.read(self.fd, 65536)
            except PermissionError:  # a regular file (`amber mcp < requests.jsonl`): reading never blocks
                return os.read(self.fd, 65536)

    def __aiter__(self) -> "ClientInput":
        return self

    async def __anext__(self) -> str:
        while b"\n" not in self.buffer:
            data = await self.chunk()
            if not data:
                if self.buffer:  # a last line without its newline
                    line, self.buffer = self.buffer, b""
                    return line.decode("utf-8", "replace")
                raise StopAsyncIteration
            self.buffer += data
        line, _, self.buffer = self.buffer.partition(b"\n")
        return line.decode("utf-8", "replace") + "\n"


async def start_problem(endpoint: str) -> tuple[int, str] | None:
    """One look at the host before serving: (exit code, what to change) when it cannot work, else None.
    An MCP client shows a bridge's stderr; a bridge that starts and then fails every message hides it."""
    base = endpoint[: -len("/mcp")]
    try:
        async with httpx2.AsyncClient(timeout=5.0) as http:
            resp = await http.get(f"{base}/health")
    except httpx2.HTTPError as e:
        return 1, f"nothing answers at {base} ({type(e).__name__}); start Amber (`make run` or `amber serve`) or correct --url"
    body = _json(resp.content)
    if body.get("error") in ("memory_off", "memory_starting", "memory_elsewhere"):
        return 2, f"{base}: {body.get('detail')}"
    if "store" not in body:
        return 2, (f"{base} is not an Amber memory host (GET /health answered {resp.status_code}); the proxy's "
                   "memory base URL is http://127.0.0.1:4000/memory, `amber serve`'s is http://127.0.0.1:4100")
    return None


@dataclass
class Note:
    """What HTTP said about one request whose JSON-RPC answer the SDK can only guess at."""

    status: int | None  # None: no HTTP answer at all (refused connection, dropped stream)
    detail: str
    stale_session: bool = False  # 404 for a session id the host no longer knows (it restarted)


@dataclass(eq=False)
class Link:
    """One streamable HTTP connection to the host (with its own MCP session, when the era has them)."""

    write: Any = None
    scope: anyio.CancelScope = field(default_factory=anyio.CancelScope)
    done: anyio.Event = field(default_factory=anyio.Event)  # asks the link to end (politely: the SDK ends the session)
    closed: anyio.Event = field(default_factory=anyio.Event)
    stale: bool = False
    replay: tuple[RequestId, anyio.Event, list[JSONRPCMessage]] | None = None  # a repeated initialize, awaiting its answer


@dataclass
class Pending:
    request: JSONRPCRequest
    link: Link | None = None
    retried: bool = False


class Bridge:
    def __init__(self, endpoint: str, key: str | None, user: str | None) -> None:
        self.endpoint, self.key = endpoint, key
        self.headers = {CLIENT_HEADER: "mcp-stdio"}
        if key:
            self.headers["Authorization"] = f"Bearer {key}"
        if user:
            self.headers[USER_HEADER] = user
        self.pending: dict[RequestId, Pending] = {}
        self.notes: dict[RequestId, Note] = {}
        self.link: Link | None = None
        self.init: JSONRPCRequest | None = None  # the client's initialize, repeated on a new session
        self.version: str | None = None  # the handshake's protocol version, sent as a header
        self.param_headers: dict[str, dict[tuple[str, ...], str]] = {}  # tool -> its x-mcp-header map
        self.down = False  # said once per outage
        self.said_refused = False
        self.replays = 0

    async def serve(self, client_read: Any, client_write: Any, client_gone: Callable[[], bool] = lambda: False) -> None:
        self.client_write = client_write
        self.outbox, outbox_read = anyio.create_memory_object_stream[JSONRPCMessage](math.inf)
        async with anyio.create_task_group() as tg:
            self.tg = tg
            self.sent_all = anyio.Event()
            tg.start_soon(self.sender, outbox_read)
            async with self.outbox:
                async for item in client_read:
                    if isinstance(item, Exception):  # a line that is no JSON-RPC message
                        log.warning("ignored a line from the client that is no JSON-RPC message (%s)", item)
                        continue
                    msg = item.message
                    if isinstance(msg, JSONRPCRequest):
                        if msg.method == "initialize":
                            self.init, self.version = msg, None
                        self.pending[msg.id] = Pending(msg)
                    elif isinstance(msg, JSONRPCNotification) and msg.method == "notifications/cancelled":
                        self.pending.pop((msg.params or {}).get("requestId"), None)  # no answer will come
                    await self.outbox.send(msg)
            # the client closed stdin: pass on what it sent last, then end the host's session politely
            # (a client whose process is gone sent all it will send: no goodbye)
            with anyio.move_on_after(0 if client_gone() else GOODBYE_S) as goodbye:
                await self.sent_all.wait()
                link = self.link
                if link is not None:
                    link.done.set()
                    await link.closed.wait()
            if goodbye.cancelled_caught:
                log.debug("the host's session did not end within %.1fs of the client's; left it to expire", GOODBYE_S)
            tg.cancel_scope.cancel()

    # -- to the host ------------------------------------------------------------------------------

    async def sender(self, outbox_read: Any) -> None:
        async with outbox_read:
            async for msg in outbox_read:
                await self.send(msg)
        self.sent_all.set()

    async def send(self, msg: JSONRPCMessage) -> None:
        if self.link is None or self.link.stale:
            problem = await self.connect()
            if problem is not None:
                if isinstance(msg, JSONRPCRequest):
                    await self.answer(msg.id, problem)
                return
        link = self.link
        assert link is not None
        if isinstance(msg, JSONRPCRequest) and msg.id in self.pending:
            self.pending[msg.id].link = link
        try:
            await link.write.send(SessionMessage(msg, metadata=ClientMessageMetadata(headers=self.stamp(msg))))
        except (anyio.BrokenResourceError, anyio.ClosedResourceError):  # the link ended meanwhile
            if isinstance(msg, JSONRPCRequest):
                closed = ErrorData(code=CONNECTION_CLOSED, message=f"the connection to {self.endpoint} closed; try again")
                await self.answer(msg.id, closed)

    def stamp(self, msg: JSONRPCMessage) -> dict[str, str]:
        """The HTTP headers that repeat what the message says, as the SDK's own client sends them."""
        if isinstance(msg, JSONRPCRequest):
            params = msg.params if isinstance(msg.params, dict) else {}
            meta = params.get("_meta")
            version = meta.get(PROTOCOL_VERSION_META_KEY) if isinstance(meta, dict) else None
            if isinstance(version, str):  # the per-request envelope (2026-07-28 on): headers mirror it
                headers = {MCP_PROTOCOL_VERSION_HEADER: version, MCP_METHOD_HEADER: msg.method}
                name = params.get(NAME_BEARING_METHODS.get(msg.method, ""))
                if isinstance(name, str):
                    headers[MCP_NAME_HEADER] = encode_header_value(name)
                arguments = params.get("arguments")
                if msg.method == "tools/call" and name in self.param_headers and isinstance(arguments, dict):
                    headers.update(mcp_param_headers(self.param_headers[name], arguments))
                return headers
            if msg.method == "initialize":
                return {}
        return {MCP_PROTOCOL_VERSION_HEADER: self.version} if self.version else {}

    async def connect(self) -> ErrorData | None:
        """A new link (the old one, if any, is stale: the host forgot its session). A client that made
        the initialize handshake gets it repeated on the new session; the problem if that fails."""
        old = self.link
        if old is not None:
            old.scope.cancel()
        self.link = link = await self.tg.start(self.run_link)
        if self.init is None or self.version is None:  # no handshake made yet (or none in this era)
            return None
        self.replays += 1
        init = self.init.model_copy(update={"id": f"amber-bridge-{self.replays}"})
        link.replay = (init.id, anyio.Event(), [])
        await link.write.send(SessionMessage(init))
        with anyio.move_on_after(REPLAY_TIMEOUT_S):
            await link.replay[1].wait()
        answer, link.replay = link.replay[2], None
        if not answer or isinstance(answer[0], JSONRPCError):
            link.stale = True
            return self.explain(answer[0], init.id) if answer else ErrorData(
                code=CONNECTION_CLOSED, message=f"{self.endpoint} did not answer a new initialize in {REPLAY_TIMEOUT_S:.0f}s")
        log.warning("%s had forgotten this session (restarted?); opened a new one", self.endpoint)
        await link.write.send(SessionMessage(JSONRPCNotification(jsonrpc="2.0", method="notifications/initialized")))
        return None

    async def run_link(self, *, task_status: Any) -> None:
        link = Link()
        with link.scope:
            try:
                async with (
                    httpx2.AsyncClient(headers=self.headers, timeout=httpx2.Timeout(30.0, read=300.0),
                                       transport=HostTransport(self)) as http,
                    streamable_http_client(self.endpoint, http_client=http) as (read, write),
                ):
                    link.write = write
                    task_status.started(link)
                    async with anyio.create_task_group() as tg:
                        tg.start_soon(self.receive, read, link)
                        await link.done.wait()
                        tg.cancel_scope.cancel()
            except Exception as e:  # the SDK's transport failed as a whole
                log.warning("the connection to %s failed (%s: %s)", self.endpoint, type(e).__name__, e)
            finally:
                link.done.set()
                if self.link is link:
                    self.link = None
                closed = ErrorData(code=CONNECTION_CLOSED, message=f"the connection to {self.endpoint} closed before it answered")
                with anyio.CancelScope(shield=True):
                    for rid, p in list(self.pending.items()):
                        if p.link is link:
                            await self.answer(rid, closed)
                if link.replay is not None:
                    link.replay[1].set()
                link.closed.set()

    # -- to the client ----------------------------------------------------------------------------

    async def receive(self, read: AsyncIterator[Any], link: Link) -> None:
        async for item in read:
            if isinstance(item, Exception):
                log.debug("from the host: %r", item)
                continue
            msg = item.message
            if isinstance(msg, JSONRPCResponse | JSONRPCError):
                if link.replay is not None and msg.id == link.replay[0]:
                    link.replay[2].append(msg)
                    link.replay[1].set()
                    continue
                pending = self.pending.get(msg.id)
                if pending is not None and pending.link is not link:
                    continue  # an answer on a link this request has left
                if isinstance(msg, JSONRPCError) and await self.retry(msg, link):
                    continue
                self.pending.pop(msg.id, None)
                if isinstance(msg, JSONRPCError):
                    msg = JSONRPCError(jsonrpc="2.0", id=msg.id, error=self.explain(msg, msg.id))
                elif pending is not None:
                    self.observe(pending.request, msg)
            await self.to_client(msg)
        link.done.set()

    async def retry(self, msg: JSONRPCError, link: Link) -> bool:
        """A request the host refused only because it no longer knows the session goes again, once, on a new one."""
        note, pending = self.notes.get(msg.id), self.pending.get(msg.id)
        if note is None or not note.stale_session or pending is None or pending.retried:
            return False
        del self.notes[msg.id]
        pending.retried, pending.link, link.stale = True, None, True
        await self.outbox.send(pending.request)
        return True

    def observe(self, request: JSONRPCRequest, msg: JSONRPCResponse) -> None:
        result = msg.result if isinstance(msg.result, dict) else {}
        if request.method == "initialize":
            self.version = result.get("protocolVersion")
        elif request.method == "tools/list":
            for tool in result.get("tools") or []:
                if isinstance(tool, dict) and isinstance(tool.get("name"), str):
                    headers = x_mcp_header_map(tool.get("inputSchema"))
                    if headers:
                        self.param_headers[tool["name"]] = headers

    def explain(self, msg: JSONRPCError, rid: RequestId) -> ErrorData:
        """The host's own JSON-RPC errors pass as they are; where the SDK had only an HTTP status or a
        broken stream to go on, say what happened and what to change."""
        note = self.notes.pop(rid, None)
        if note is None:
            return msg.error
        where = self.endpoint
        if note.status is None:
            text = f"no answer from Amber at {where} ({note.detail}); start it (`make run` or `amber serve`) or check --url"
        elif note.status == 401:
            how = ("the host does not know this key; use one from its config.yaml (`amber keys create` makes one)"
                   if self.key else "pass --key or set AMBER_KEY")
            text = f"{where} refuses the request ({note.detail}): {how}"
        elif note.status == 403:
            text = f"{where} refuses this key ({note.detail}); check the key's user and scopes, or --user"
        elif note.stale_session:
            text = f"{where} no longer knows this session (it restarted) and a new one could not be opened"
        else:
            text = f"{where} answered {note.status}: {note.detail}"
        if note.status in (401, 403, 422) and not self.said_refused:
            self.said_refused = True
            log.error("%s", text)
        return ErrorData(code=msg.error.code, message=text, data={"status": note.status})

    async def answer(self, rid: RequestId, error: ErrorData) -> None:
        self.pending.pop(rid, None)
        self.notes.pop(rid, None)
        await self.to_client(JSONRPCError(jsonrpc="2.0", id=rid, error=error))

    async def to_client(self, msg: JSONRPCMessage) -> None:
        try:
            await self.client_write.send(SessionMessage(msg))
        except (anyio.BrokenResourceError, anyio.ClosedResourceError):
            log.debug("the client is gone; dropped %r", msg)

    # -- what HTTP said (HostTransport) -----------------------------------------------------------

    def noted(self, rid: RequestId | None, note: Note) -> None:
        if rid is not None:
            self.notes[rid] = note
        if note.status is None and not self.down:
            self.down = True
            log.warning("%s stopped answering (%s); requests get an error until it is back", self.endpoint, note.detail)

    def answered(self) -> None:
        if self.down:
            self.down = False
            log.warning("%s answers again", self.endpoint)


class HostTransport(httpx2.AsyncBaseTransport):
    """Beneath the SDK's streamable HTTP client. A host that does not answer becomes a 503 (the SDK then
    answers that one request with an error, where a raised error would end the whole connection), and
    every refusal or broken stream is noted by JSON-RPC id with the host's own words, for `explain`."""

    def __init__(self, bridge: Bridge) -> None:
        self.bridge = bridge
        self.inner = httpx2.AsyncHTTPTransport()

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        rid = request_id(request)
        try:
            response = await self.inner.handle_async_request(request)
        except httpx2.TransportError as e:
            self.bridge.noted(rid, Note(None, type(e).__name__))
            return httpx2.Response(503, json={"error": "unreachable", "detail": str(e)}, request=request)
        if response.status_code < 400:
            self.bridge.answered()
            if rid is not None:
                response.stream = WatchedStream(response.stream, self.bridge, rid)
            return response
        body = _json(await response.aread())
        stale = response.status_code == 404 and "mcp-session-id" in request.headers  # the host restarted
        refused = response.status_code in (401, 403)  # the bridge knows the fix: --key, AMBER_KEY, --user
        if stale or refused or "jsonrpc" not in body:  # else the JSON-RPC error in the body speaks for itself
            data = (body.get("error") or {}).get("data") if "jsonrpc" in body else body
            data = data if isinstance(data, dict) else {}
            detail = str(data.get("detail") or data.get("error") or response.reason_phrase)[:300]
            self.bridge.noted(rid, Note(response.status_code, detail, stale))
        return response

    async def aclose(self) -> None:
        await self.inner.aclose()


class WatchedStream(httpx2.AsyncByteStream):
    """A response body that notes it broke off (the host went away mid-answer)."""

    def __init__(self, stream: Any, bridge: Bridge, rid: RequestId) -> None:
        self.stream, self.bridge, self.rid = stream, bridge, rid

    async def __aiter__(self) -> AsyncIterator[bytes]:
        try:
            async for chunk in self.stream:
                yield chunk
        except httpx2.TransportError as e:
            self.bridge.noted(self.rid, Note(None, f"the connection broke while it answered: {type(e).__name__}"))
            raise

    async def aclose(self) -> None:
        await self.stream.aclose()


def request_id(request: httpx2.Request) -> RequestId | None:
    """The JSON-RPC id of a request POSTed to the host (None for notifications, responses, GET, DELETE)."""
    if request.method != "POST":
        return None
    body = _json(request.content)
    return body.get("id") if "method" in body else None


def _json(raw: bytes) -> dict[str, Any]:
    try:
        body = json.loads(raw)
    except ValueError:
        return {}
    return body if isinstance(body, dict) else {}
