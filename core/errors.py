"""Amber's one exception tree.

    AmberError
    ├── PermanentError          the caller must change something; surface it
    │   ├── InvalidInput        bad value; `.field` names what is wrong
    │   ├── NotFound            no such record in the caller's scope
    │   ├── Forbidden           the key or actor may not do this
    │   ├── Immutable           precious records are append-only
    │   ├── EmbedderMismatch    collection was built by another embedder: run `amber reindex`
    │   └── StoreLocked         another process owns the embedded store
    └── TransientError          may succeed later; retry or degrade (chat goes on without memory)
        ├── StoreUnavailable
        ├── EmbedderUnavailable
        ├── LLMError            unreachable model or output that does not parse
        └── Timeout

Code branches on the class, never on the message.
"""

from __future__ import annotations


class AmberError(Exception):
    """Root of every error Amber raises on purpose."""


class PermanentError(AmberError):
    """Retrying will not help; the caller must change the request."""


class InvalidInput(PermanentError):
    def __init__(self, field: str, message: str):
        self.field = field
        super().__init__(f"{field}: {message}")


class NotFound(PermanentError):
    pass


class Forbidden(PermanentError):
    pass


class Immutable(PermanentError):
    pass


class EmbedderMismatch(PermanentError):
    pass


class StoreLocked(PermanentError):
    pass


class TransientError(AmberError):
    """May succeed later: retry, or go on without memory."""


class StoreUnavailable(TransientError):
    pass


class EmbedderUnavailable(TransientError):
    pass


class LLMError(TransientError):
    pass


class Timeout(TransientError):
    pass
