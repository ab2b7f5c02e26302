"""ASGI middleware: authenticate every request but /health and the API docs, set the identity for
the request (scope state + contextvar), strip `?token=` before anything downstream can log it, and
write one quiet log line per request (user as a pseudonym, never the key or the memory text).

Amber authenticates with API keys and runs no OAuth server. OAuth-aware MCP clients (mcp-remote, the
MCP Inspector, Claude Code) probe discovery and registration URLs first and take a 401 there for "an
authorization server lives here, log in": so those paths answer 404 whatever the key, and the client
falls back to the header it was configured with. A refusal on `/mcp` itself is a JSON-RPC error (with
the `WWW-Authenticate` challenge on 401), so MCP clients show what to fix instead of a bare status."""

from __future__ import annotations

import logging
import time
from urllib.parse import parse_qsl, urlencode

from starlette.datastructures import Headers
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from core import ADMIN, READ, WRITE, AmberError, Forbidden, Identity, InvalidInput, Unauthenticated, user_hash

from .admin import PATHS as ADMIN_PATHS
from .errors import error_body
from .identity import KeyRing, current_identity
from .origin import body_type_refusal, host_allowed, local_origin

log = logging.getLogger("amber.server.http")

# the admin page and its assets are the same static bytes for everyone: its data comes from /v1 with a key
PUBLIC = {"/health", "/openapi.json", "/docs", "/docs/oauth2-redirect", "/redoc", *ADMIN_PATHS}
# where OAuth clients look for an authorization server (RFC 9728, RFC 8414, OpenID discovery, RFC 7591
# dynamic registration), also as the path-suffixed and path-prefixed variants clients try
OAUTH_ENDPOINTS = {"/register", "/authorize", "/token", "/revoke", "/oauth/register", "/oauth/authorize", "/oauth/token",
                   "/mcp/register", "/mcp/authorize", "/mcp/token"}
NO_OAUTH = ("Amber has no OAuth server: send its API key as 'Authorization: Bearer <key>' "
            "(or '?token=<key>' where a client cannot set headers)")
MCP_REFUSED = -32010  # a JSON-RPC server error code (not the SDK's -32000 closed / -32001 timeout): the request was refused before MCP saw it (key, user, scope)
MCP_SCOPES = (READ, WRITE, ADMIN)


def is_oauth_discovery(path: str) -> bool:
    return "/.well-known/" in f"{path}/" or path.rstrip("/") in OAUTH_ENDPOINTS


def is_mcp(path: str) -> bool:
    return path.rstrip("/") == "/mcp"


def refusal_text(e: AmberError, sent_key: bool) -> str:
    """What an MCP client shows its user for a refused key: what is wrong and what to change."""
    if isinstance(e, Unauthenticated) and sent_key:
        return ("Amber does not know this API key: use a key listed under api_keys in the host's config.yaml "
                "(`amber keys create --name NAME --user USER` makes one)")
    if isinstance(e, Unauthenticated):
        return ("Amber needs an API key: send 'Authorization: Bearer <key>' (or '?token=<key>' where a client cannot "
                "set headers); `amber keys create --name NAME --user USER` makes one")
    return f"Amber refuses this key: {e}; change the key's user or scopes in the host's config.yaml, or the X-Amber-User header"


def mcp_error(e: AmberError, sent_key: bool) -> dict:
    """The JSON-RPC error an MCP client reads (id null: the request was refused before its body was read);
    `data` is the REST error body, so a client can still read the code back into `core.errors`."""
    data = {**error_body(e.code, str(e), getattr(e, "field", None)), "status": e.status}
    return {"jsonrpc": "2.0", "id": None, "error": {"code": MCP_REFUSED, "message": refusal_text(e, sent_key), "data": data}}


def mcp_identity_problem(identity: Identity) -> AmberError | None:
    """A key that can identify itself but can do nothing over MCP: say so at once, not at every tool call."""
    if identity.user_id is None:
        return InvalidInput("X-Amber-User", f"key {identity.key_name!r} acts for the user named in the X-Amber-User header; "
                                            "send that header (the MCP client's `headers`)")
    if not any(identity.allows(s) for s in MCP_SCOPES):
        return Forbidden(f"key {identity.key_name!r} lacks scope {READ} (MCP needs {READ}, {WRITE} or both)")
    return None


def route_path(scope: Scope) -> str:
    """The path inside this app, also when a host mounts it under a prefix such as /memory."""
    path, root = scope.get("path", ""), scope.get("root_path", "")
    if root and path.startswith(root):
        path = path[len(root) :]
    return path or "/"


def pop_token(scope: Scope) -> str | None:
    """Remove `token` from the query string in place (the server's access log reads the same scope)."""
    raw = scope.get("query_string", b"")
    if b"token=" not in raw:
        return None
    pairs = parse_qsl(raw.decode("latin-1"), keep_blank_values=True)
    token = next((v for k, v in pairs if k == "token"), None)
    scope["query_string"] = urlencode([(k, v) for k, v in pairs if k != "token"]).encode("latin-1")
    return token


def _printable(text: str, limit: int = 300) -> str:
    """`text` for a log line: control characters (newlines too) as escapes, at most `limit` characters."""
    out = "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in text[:limit])
    return out + ("…" if len(text) > limit else "")


def _body_type_refusal(scope: Scope, path: str) -> str | None:
    headers = Headers(scope=scope)
    length = headers.get("content-length")
    has_body = "transfer-encoding" in headers or (length is not None and length.strip() not in ("", "0"))
    return body_type_refusal(scope.get("method", ""), path, headers.get("content-type"), has_body)


class AuthMiddleware:
    def __init__(self, app: ASGIApp, ring: KeyRing, allowed_hosts: list[str]):
        self.app = app
        self.ring = ring
        self.allowed_hosts = allowed_hosts

    def _identify(self, scope: Scope, token: str | None) -> Identity:
        headers = Headers(scope=scope)
        auth = headers.get("authorization", "")
        secret = auth[7:].strip() if auth[:7].lower() == "bearer " else None
        client_host = (scope.get("client") or ("", 0))[0]
        if self.ring.local_mode:
            # without keys, loopback is the only credential: refuse pages on other sites that a browser
            # would send here (DNS rebinding, cross-origin form posts)
            host = headers.get("host", "")
            if not host_allowed(host, self.allowed_hosts):
                raise Forbidden(f"host {host!r} is not in allowed_hosts")
            origin = headers.get("origin")
            if origin is not None and not local_origin(origin):  # "null" (sandboxed frames, files) too
                raise Forbidden(f"requests from pages on {origin[:100]!r} need an API key")
        return self.ring.identify(secret or token, headers, client_host)

    def _no_oauth(self, scope: Scope, token: str | None) -> str:
        """The 404 of a discovery URL; a client that sent a key there learns whether it is the problem."""
        auth = Headers(scope=scope).get("authorization", "")
        if not token and auth[:7].lower() != "bearer ":
            return NO_OAUTH
        try:
            self._identify(scope, token)
        except Unauthenticated:
            return f"{NO_OAUTH}. The key sent is not one this host knows: use a key listed under api_keys in its config.yaml"
        except (Forbidden, InvalidInput):
            pass
        return NO_OAUTH

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        token = pop_token(scope)
        path = route_path(scope)
        started = time.perf_counter()
        status = [0]
        identity: Identity | None = None

        async def send_logged(message) -> None:
            if message["type"] == "http.response.start":
                status[0] = message["status"]
            await send(message)

        try:
            if is_oauth_discovery(path):
                await JSONResponse(error_body("not_found", self._no_oauth(scope, token)), 404)(scope, receive, send_logged)
                return
            if path in PUBLIC:
                # public, but a key may unlock more (e.g. the admin's LLM check on /health)
                try:
                    identity = self._identify(scope, token) if token or b"authorization" in dict(scope.get("headers") or []) else None
                except (Unauthenticated, Forbidden, InvalidInput):
                    identity = None
            else:
                try:
                    identity = self._identify(scope, token)
                    problem = mcp_identity_problem(identity) if is_mcp(path) else None
                    if problem is not None:
                        raise problem
                except (Forbidden, InvalidInput) as e:  # Unauthenticated among them: 401 with a challenge
                    headers = {"WWW-Authenticate": 'Bearer realm="amber"'} if isinstance(e, Unauthenticated) else None
                    auth = Headers(scope=scope).get("authorization", "")
                    sent_key = bool(token) or (auth[:7].lower() == "bearer " and bool(auth[7:].strip()))
                    body = mcp_error(e, sent_key) if is_mcp(path) else error_body(e.code, str(e), getattr(e, "field", None))
                    await JSONResponse(body, e.status, headers=headers)(scope, receive, send_logged)
                    return
                refusal = _body_type_refusal(scope, path)
                if refusal:
                    await JSONResponse(error_body("unsupported_media_type", refusal), 415)(scope, receive, send_logged)
                    return
            scope.setdefault("state", {})["amber_identity"] = identity
            reset = current_identity.set(identity)
            try:
                await self.app(scope, receive, send_logged)
            finally:
                current_identity.reset(reset)
        finally:
            who = user_hash(identity.user_id) if identity and identity.user_id else "-"
            key = identity.key_name if identity else "-"
            ms = (time.perf_counter() - started) * 1000
            extra = (scope.get("state") or {}).get("amber_log", "")
            path_shown = _printable(scope.get("path", ""))  # a %0A in the path must not forge a log line
            log.info("%s %s %s user=%s key=%s %.0fms%s", scope.get("method"), path_shown, status[0], who, key, ms, f" {extra}" if extra else "")
