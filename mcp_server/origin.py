"""What a browser may do here: exact Host and Origin parsing, and the body types a write accepts.

Without keys (local mode) loopback is the only credential, so a page on another site that a
browser sends here must be told apart from the machine's owner. A prefix test on the origin let
`http://localhost.attacker.example` and `http://127.0.0.1.evil.com` through; here every origin and
Host header is split into scheme, host and port and compared whole.

A browser sends a cross-origin POST without asking first (no CORS preflight) only for the
"simple" body types: `text/plain`, forms and multipart. Writes accept JSON only (an import may
also say `application/x-ndjson`, which needs a preflight too), so no foreign page can send one.
"""

from __future__ import annotations

from urllib.parse import urlsplit

LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})
WRITE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
JSON_TYPES = frozenset({"application/json"})
IMPORT_TYPES = frozenset({"application/json", "application/x-ndjson"})
# a chat export upload: a ZIP or a file; neither type can be sent by a cross-site form without a preflight
CHAT_EXPORT_TYPES = frozenset({"application/json", "application/x-ndjson", "application/zip", "application/octet-stream"})


def split_host(value: str) -> tuple[str, int | None] | None:
    """`host[:port]` (an IPv6 host in brackets) as (lowercased host, port or None); None when the
    value is anything more or less than that (a path, user info, a port that is not a number)."""
    value = value.strip()
    if not value or any(c in value for c in "/?#@\\ \t"):
        return None
    try:
        parts = urlsplit("//" + value)
        port = parts.port
    except ValueError:
        return None
    host = parts.hostname
    if not host:
        return None
    return host.lower(), port


def host_allowed(host: str, allowed: list[str]) -> bool:
    """The Host header against `allowed_hosts` patterns (`name`, `name:port`, `name:*`), compared whole."""
    if "*" in allowed:
        return True
    got = split_host(host)
    if got is None:
        return False
    for pattern in allowed:
        any_port = pattern.endswith(":*")
        want = split_host(pattern[:-2] if any_port else pattern)
        if want is None or want[0] != got[0]:
            continue
        if any_port or want[1] == got[1]:
            return True
    return False


def local_origin(origin: str) -> bool:
    """True only for an http(s) origin on this machine's loopback names, with any valid port."""
    try:
        parts = urlsplit(origin.strip())
        port = parts.port
    except ValueError:
        return False
    if parts.scheme not in ("http", "https") or parts.path or parts.query or parts.fragment:
        return False
    if parts.username is not None or parts.password is not None:
        return False
    return (parts.hostname or "").lower() in LOOPBACK_HOSTS and (port is None or 0 < port < 65536)


def body_type_refusal(method: str, path: str, content_type: str | None, has_body: bool) -> str | None:
    """Why a write's body type is refused, or None. A write without a body needs no type; with one
    (or naming any type at all, as every form does) it must be JSON."""
    if method not in WRITE_METHODS:
        return None
    if content_type is None and not has_body:
        return None
    media = (content_type or "").split(";", 1)[0].strip().lower()
    path = path.rstrip("/")
    allowed = IMPORT_TYPES if path.endswith("/v1/import") else CHAT_EXPORT_TYPES if path.endswith("/v1/import/chats") else JSON_TYPES
    if media in allowed:
        return None
    return f"send the body as {' or '.join(sorted(allowed))} (Content-Type was {media or 'missing'!r})"
