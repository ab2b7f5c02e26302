"""Who a memory port acts for and what it may do: an `Identity`, fixed when the port is built.

The memory server resolves API keys to one (mcp_server/identity.py); the proxy hook builds one per
user it serves; a stdio server builds one for its local user. `LocalMemory` checks every call
against it and takes the user from it, never from a request body.
"""

from __future__ import annotations

from dataclasses import dataclass

from .errors import Forbidden, InvalidInput

READ, WRITE, ADMIN = "memory:read", "memory:write", "memory:admin"


@dataclass(frozen=True)
class Identity:
    key_name: str
    user_id: str | None  # the user this caller acts for; None only for an admin key naming nobody
    scopes: frozenset[str]
    client: str | None = None
    via: str | None = None  # what the audit trail names as the actor; default "key:<key_name>"

    @property
    def is_admin(self) -> bool:
        return ADMIN in self.scopes

    @property
    def actor_via(self) -> str:
        return self.via or f"key:{self.key_name}"

    def allows(self, scope: str) -> bool:
        # admin implies read and write
        return scope in self.scopes or self.is_admin

    def require(self, scope: str) -> None:
        if not self.allows(scope):
            raise Forbidden(f"key {self.key_name!r} lacks scope {scope}")

    def user(self) -> str:
        if self.user_id is None:
            raise InvalidInput("X-Amber-User", f"key {self.key_name!r} acts for the user named in the X-Amber-User header; send that header")
        return self.user_id
