"""Who a proxied request is for: the end user first, else the key's user, team or alias.

LiteLLM puts the end user (body `user`, header `x-litellm-end-user-id`, Anthropic `metadata.user_id`)
in `user_api_key_dict.end_user_id`; the raw fields are read too, in case a route did not. The order
of the sources is `settings.identity_order`; with none of them present the request belongs to
`settings.default_user`, or gets no memory at all when that is unset.
"""

from __future__ import annotations

import re
import unicodedata
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


# What each mode lets Amber do. Several sources (the header, each metadata dict) are combined by
# keeping only what all of them allow, so the more private wish always wins ("read" + "off" is off,
# "read" + "write" is off too: one asked not to keep, the other not to inject).
MODE_RIGHTS = {"on": frozenset({"recall", "capture"}), "read": frozenset({"recall"}), "write": frozenset({"capture"}), "off": frozenset()}
_MODE_OF = {rights: mode for mode, rights in MODE_RIGHTS.items()}
MODE_FIELD = "amber_memory"  # the one Amber metadata name a client may set


def _folded(name: Any) -> str:
    return unicodedata.normalize("NFKC", name).casefold().strip() if isinstance(name, str) else ""


def _mode_of(raw: Any) -> str:
    """A client's value: exactly on|read|write|off (a string, any case, spaces around) or else off.
    Booleans, numbers, null, lists and typos all mean off: asking for privacy never gets less of it."""
    if isinstance(raw, str):
        mode = raw.strip().lower()
        if mode in MODE_RIGHTS:
            return mode
    return "off"


def memory_mode(data: dict[str, Any]) -> str:
    """What this request lets Amber do: "on" (recall and capture, the default), "read" (recall only:
    an incognito turn that is not kept), "write" (capture only), "off". From the `x-amber-memory`
    header and the `amber_memory` field of the request's metadata (any route's metadata dict, any
    spelling that folds to that name); when they disagree the more private one wins."""
    asked: list[str] = []
    headers = headers_of(data)
    if MODE_HEADER in headers:
        asked.append(_mode_of(headers[MODE_HEADER]))
    for key in METADATA_KEYS:
        meta = data.get(key)
        if isinstance(meta, dict):
            asked += [_mode_of(v) for k, v in meta.items() if _folded(k) == MODE_FIELD]
    rights = MODE_RIGHTS["on"]
    for mode in asked:
        rights = rights & MODE_RIGHTS[mode]
    return _MODE_OF[rights]


# Where a client's request carries metadata LiteLLM reads: chat completions use `metadata`, the
# Anthropic and Responses routes `litellm_metadata` (and forward `metadata` to the provider).
METADATA_KEYS = ("metadata", "litellm_metadata")


def scrub(data: dict[str, Any]) -> list[str]:
    """Remove every Amber metadata name a client sent (any case or width: `AMBER_USER`,
    `ａｍｂｅｒ_user`) from the request, except `amber_memory`, which only ever takes rights away.
    Amber's decisions never travel in the request (ledger.py); this keeps a client's forged names
    from reaching the provider, the logs or anything that might read them later. Returns what was
    dropped, for the log."""
    dropped = []
    for key in METADATA_KEYS:
        meta = data.get(key)
        if not isinstance(meta, dict):
            continue
        for name in [k for k in meta if _folded(k).startswith("amber") and _folded(k) != MODE_FIELD]:
            del meta[name]
            dropped.append(str(name)[:40])
    return dropped


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
