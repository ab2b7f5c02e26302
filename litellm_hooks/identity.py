"""Who a proxied request is for: the end user first, else the key's user, team or alias.

LiteLLM puts the end user (body `user`, header `x-litellm-end-user-id`, Anthropic `metadata.user_id`)
in `user_api_key_dict.end_user_id`; the raw fields are read too, in case a route did not. The order
of the sources is `settings.identity_order`; with none of them present the request belongs to
`settings.default_user`, or gets no memory at all when that is unset.
"""

from __future__ import annotations

import re
from typing import Any, Callable

from core import Actor

END_USER_HEADER = "x-litellm-end-user-id"
CLIENT_HEADER = "x-amber-client"
SESSION_HEADER = "x-amber-session"
MODE_HEADER = "x-amber-memory"
MODES = ("on", "off", "read", "write")


def headers_of(data: dict[str, Any]) -> dict[str, str]:
    req = data.get("proxy_server_request") or {}
    headers = req.get("headers") if isinstance(req, dict) else None
    return {str(k).lower(): str(v) for k, v in (headers or {}).items()}


def _str(value: Any) -> str | None:
    return value.strip() if isinstance(value, str) and value.strip() else None


# Claude Code sends metadata.user_id = "user_<hash>_account_<uuid>_session_<uuid>": the person is the
# part before "_session_", or each session would get a memory of its own.
_SESSION_SUFFIX = re.compile(r"^(?P<user>user_[0-9a-f]+_account_[0-9a-f-]*)_session_(?P<session>[0-9a-f-]+)$")


def split_session(user_id: str) -> tuple[str, str | None]:
    m = _SESSION_SUFFIX.match(user_id)
    return (m.group("user"), m.group("session")) if m else (user_id, None)


def end_user(data: dict[str, Any], key: Any) -> str | None:
    meta = data.get("metadata")
    found = (
        _str(getattr(key, "end_user_id", None))
        or _str(data.get("user"))
        or _str(headers_of(data).get(END_USER_HEADER))
        or (_str(meta.get("user_id")) if isinstance(meta, dict) else None)
    )
    return split_session(found)[0] if found else None


def client_name(data: dict[str, Any]) -> str | None:
    """The client app, for the `client:<name>` namespace and the log: an explicit header, else the
    product token of the User-Agent ("OpenAI/Python 1.2" -> "OpenAI")."""
    headers = headers_of(data)
    explicit = _str(headers.get(CLIENT_HEADER))
    if explicit:
        return explicit[:64]
    agent = _str(headers.get("user-agent"))
    return agent.split("/", 1)[0].split(" ", 1)[0][:64] if agent else None


def session_of(data: dict[str, Any], metadata: dict[str, Any]) -> str | None:
    meta = data.get("metadata")
    raw_user = _str(meta.get("user_id")) if isinstance(meta, dict) else None
    return (
        _str(headers_of(data).get(SESSION_HEADER))
        or (split_session(raw_user)[1] if raw_user else None)
        or _str(metadata.get("session_id"))
        or _str(data.get("litellm_session_id"))
        or _str(metadata.get("litellm_session_id"))
    )


def memory_mode(data: dict[str, Any]) -> str:
    """What this request lets Amber do: "on" (recall and capture, the default), "read" (recall only:
    an incognito turn that is not kept), "write" (capture only), "off". From the `x-amber-memory`
    header or the `amber_memory` field of the request's metadata; an unknown value means "off", so
    a client that asked for privacy never gets less of it by a typo."""
    meta = data.get("metadata")
    raw = _str(headers_of(data).get(MODE_HEADER)) or (_str(meta.get("amber_memory")) if isinstance(meta, dict) else None)
    if raw is None:
        return "on"
    mode = raw.lower()
    return mode if mode in MODES else "off"


# LiteLLM gives master-key requests a placeholder user; it names nobody.
PLACEHOLDER_USERS = frozenset({"default_user_id"})


def _key_user(key: Any) -> str | None:
    user = _str(getattr(key, "user_id", None))
    return None if user in PLACEHOLDER_USERS else user


def resolve_user(data: dict[str, Any], key: Any, order: list[str], default_user: str | None) -> str | None:
    sources = {
        "end_user": lambda: end_user(data, key),
        "user": lambda: _key_user(key),
        "team": lambda: _str(getattr(key, "team_id", None)),
        "key_alias": lambda: _str(getattr(key, "key_alias", None)),
    }
    for name in order:
        found = sources.get(name, lambda: None)()
        if found:
            return found[:256]
    return default_user


def actor_for(
    data: dict[str, Any], key: Any, order: list[str], default_user: str | None, person: Callable[[str], str] = str
) -> Actor | None:
    """`person` maps a client's name for a user to the person (settings' identity map)."""
    user = resolve_user(data, key, order, default_user)
    return Actor(person(user), client=client_name(data), via="litellm") if user else None
