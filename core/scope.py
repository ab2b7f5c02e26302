"""The authority on who may see what.

Every face turns its host's notion of identity into an `Actor`, and only this module turns an
Actor into a `Scope`. A Scope names one user; the store opens that user's collections only, so
a query cannot reach another user's records. The `where` filters used inside a user's
collections are built here too and nowhere else.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from typing import Iterable

from .errors import InvalidInput
from .filters import Eq, Range, Where, one_of
from .model import NAMESPACE_RE, Status

USER_ID_MAX = 256
_USER_ID_RE = re.compile(r"^[^\x00-\x1f]{1,256}\Z")


@dataclass(frozen=True)
class Actor:
    """Who is acting: the user whose memory is touched, through which client, on whose authority."""

    user_id: str
    client: str | None = None
    via: str = "service"  # key name, "litellm", "openwebui", "cli", ...


@dataclass(frozen=True)
class Scope:
    user_id: str
    client: str | None
    actor: str
    read_namespaces: tuple[str, ...] = ("default",)
    write_namespace: str = "default"
    _token: object = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self._token is not _SCOPE_TOKEN:  # every scope passed the checks in scope_for
            raise TypeError("a Scope is made by core.scope.scope_for, which checks the user id and namespaces")


_SCOPE_TOKEN = object()


def validate_user_id(user_id: str) -> str:
    if not isinstance(user_id, str) or not _USER_ID_RE.match(user_id) or not user_id.strip():
        raise InvalidInput("user_id", "must be 1-256 printable characters")
    return user_id


def validate_namespace(namespace: str) -> str:
    if not NAMESPACE_RE.match(namespace):
        raise InvalidInput("namespace", f"{namespace!r} is not 'default', 'project:<name>' or 'client:<name>'")
    return namespace


def scope_for(
    actor: Actor, *, project: str | None = None, write_namespace: str | None = None, extra: Iterable[str] = ()
) -> Scope:
    """Recall reads `default` plus the active project and client namespaces; writes go to one namespace."""
    validate_user_id(actor.user_id)
    reads = ["default"]
    if project:
        if not NAMESPACE_RE.match(f"project:{project}"):
            raise InvalidInput("project", "a project name is letters, digits, '.', '_' or '-' (at most 64)")
        reads.append(f"project:{project}")
    if actor.client:
        reads.append(validate_namespace(f"client:{_slug(actor.client)}"))
    for ns in extra:
        if validate_namespace(ns) not in reads:
            reads.append(ns)
    write = validate_namespace(write_namespace) if write_namespace else "default"
    return Scope(
        user_id=actor.user_id,
        client=actor.client,
        actor=actor.via,
        read_namespaces=tuple(reads),
        write_namespace=write,
        _token=_SCOPE_TOKEN,
    )


def widened(scope: Scope, *, project: str | None = None, namespace: str | None = None) -> Scope:
    """The scope that also reads an active project's namespace and one more named namespace (a
    recall or search asked for them); writes still go where they went. Unchanged without either."""
    if not project and not namespace:
        return scope
    extra = [ns for ns in scope.read_namespaces if ns != "default"] + ([namespace] if namespace else [])
    actor = Actor(scope.user_id, client=None, via=scope.actor)  # the client's namespace is among `extra` already
    wider = scope_for(actor, project=project, write_namespace=scope.write_namespace, extra=extra)
    return Scope(user_id=scope.user_id, client=scope.client, actor=scope.actor, read_namespaces=wider.read_namespaces,
                 write_namespace=scope.write_namespace, _token=_SCOPE_TOKEN)


def _slug(name: str) -> str:
    slug = re.sub(r"[^A-Za-z0-9._\-]+", "-", name).strip("-._")[:64]
    return slug or "unknown"


def _user_hash(user_id: str) -> str:
    return hashlib.sha256(user_id.encode()).hexdigest()[:24]


def memory_collection(scope: Scope) -> str:
    return f"amber_mem_{_user_hash(scope.user_id)}"


def message_collection(scope: Scope) -> str:
    return f"amber_msg_{_user_hash(scope.user_id)}"


def event_collection(scope: Scope) -> str:
    return f"amber_evt_{_user_hash(scope.user_id)}"


def user_key(user_id: str) -> str:
    """What names the user in their collections' names; their shard is kept by it (core/store/shards.py)."""
    return _user_hash(user_id)


def user_hash(user_id: str) -> str:
    """Short stable pseudonym for logs."""
    return _user_hash(user_id)[:10]


def memory_where(
    scope: Scope,
    *,
    statuses: Iterable[Status] | None = (Status.active,),
    namespaces: Iterable[str] | None = None,
    kinds: Iterable[str] | None = None,
    category: str | None = None,
    fact_key: str | None = None,
    content_hash: str | None = None,
    all_namespaces: bool = False,
) -> Where | None:
    """A filter over one user's memory collection.

    By default: active records in the namespaces this scope reads. `statuses=None` means any status.
    """
    ns = list(namespaces) if namespaces is not None else list(scope.read_namespaces)
    return Where.of(
        one_of("status", [s.value if isinstance(s, Status) else str(s) for s in statuses]) if statuses is not None else None,
        one_of("namespace", ns) if not all_namespaces else None,
        one_of("kind", [getattr(k, "value", k) for k in kinds]) if kinds else None,
        Eq("category", category) if category else None,
        Eq("fact_key", fact_key) if fact_key else None,
        Eq("content_hash", content_hash) if content_hash else None,
    )


def message_where(*, since: float | None = None, until: float | None = None, session: str | None = None) -> Where | None:
    return Where.of(
        Range("ts", gte=since, lt=until) if since is not None or until is not None else None,
        Eq("session", session) if session is not None else None,
    )
