"""Amber's one exception tree.

    AmberError
    ├── PermanentError          the caller must change something; surface it
    │   ├── InvalidInput        bad value; `.field` names what is wrong
    │   ├── NotFound            no such record in the caller's scope
    │   ├── Forbidden           the key or actor may not do this
    │   │   └── Unauthenticated no key, or one Amber does not know (401)
    │   ├── Immutable           precious records are append-only
    │   ├── Conflict            the record's key is held by another active memory (409)
    │   ├── EmbedderMismatch    collection was built by another embedder: run `amber reindex`
    │   ├── StoreLocked         another process owns the embedded store
    │   └── StoreTooNew         the store was written by a newer Amber (core/store/format.py)
    └── TransientError          may succeed later; retry or degrade (chat goes on without memory)
        ├── StoreUnavailable    Chroma, Redis or the disk cannot serve now (503 with Retry-After)
        ├── EmbedderUnavailable
        ├── LLMError            unreachable model or output that does not parse
        ├── Timeout
        └── Busy                another host holds this person's write lock past the wait (several hosts)

Code branches on the class, never on the message. Each class carries the `code` and HTTP
`status` it travels as (`{"error": code, ...}` in a 4xx/5xx answer): the memory server writes them
and `core.RemoteMemory` reads them back into the same class with `error_class(code)`.
"""

from __future__ import annotations

from typing import ClassVar

_BY_CODE: dict[str, type["AmberError"]] = {}  # each error code and the class it names (error_class)


class AmberError(Exception):
    """Root of every error Amber raises on purpose."""

    code: ClassVar[str] = "rejected"
    status: ClassVar[int] = 400

    def __init_subclass__(cls, **kw):
        super().__init_subclass__(**kw)
        # a subclass that does not name its own code travels as its parent's and is read back as the parent
        if "code" in cls.__dict__:
            if cls.code in _BY_CODE:
                raise TypeError(f"error code {cls.code!r} is taken by {_BY_CODE[cls.code].__name__}")
            _BY_CODE[cls.code] = cls


_BY_CODE[AmberError.code] = AmberError


def error_class(code: str) -> type[AmberError] | None:
    """The class an error code names, or None for a code outside the tree."""
    return _BY_CODE.get(code)


class PermanentError(AmberError):
    """Retrying will not help; the caller must change the request."""

    code = "permanent"


class InvalidInput(PermanentError):
    code, status = "invalid_input", 422

    def __init__(self, field: str, message: str):
        self.field = field
        super().__init__(f"{field}: {message}")


class NotFound(PermanentError):
    code, status = "not_found", 404


class Forbidden(PermanentError):
    code, status = "forbidden", 403


class Unauthenticated(Forbidden):
    """No key, or a key nobody configured (a Forbidden that HTTP answers with 401 and a challenge)."""

    code, status = "unauthenticated", 401


class Immutable(PermanentError):
    code, status = "immutable", 409


class Conflict(PermanentError):
    """The request contradicts what is stored now (e.g. restoring a value whose key another memory holds)."""

    code, status = "conflict", 409


class EmbedderMismatch(PermanentError):
    code, status = "embedder_mismatch", 409


class StoreLocked(PermanentError):
    # permanent for this process (another one owns the store), yet "try later" for an HTTP caller
    code, status = "store_locked", 503


class StoreTooNew(PermanentError):
    code, status = "store_too_new", 409


class TransientError(AmberError):
    """May succeed later: retry, or go on without memory."""

    code, status = "unavailable", 503


class StoreUnavailable(TransientError):
    code = "store_unavailable"


class EmbedderUnavailable(TransientError):
    code = "embedder_unavailable"


class LLMError(TransientError):
    code = "llm_error"


class Timeout(TransientError):
    code = "timeout"


class Busy(TransientError):
    """Another host holds this user's write lock past the wait, or this host lost it (several hosts, core/coordination.py)."""

    code = "busy"
