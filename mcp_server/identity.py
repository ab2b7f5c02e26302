"""Who is calling: API keys (kept only as sha256 hashes) resolved to an `Identity`.

Rules:
- a key bound to a user acts for that user only; naming another in `X-Amber-User` is refused;
- a trusted-client key (the Open WebUI filter) acts for the user named in `X-Amber-User`;
- an admin key (scope memory:admin, no user) may act for any user named in `X-Amber-User`;
- with no keys configured, the server is a single-user local service: callers on the loopback
  interface act as `settings.default_user` (else "local") with every scope; anyone else is refused.

The identity of the request being served lives in a contextvar, never on a shared object.
"""

from __future__ import annotations

import contextvars
import hashlib
import hmac
import logging
from dataclasses import dataclass
from typing import Callable, Iterable, Mapping

from core import ADMIN, READ, WRITE, ApiKeyConfig, Forbidden, Identity, Settings, Unauthenticated

log = logging.getLogger("amber.server.auth")

USER_HEADER = "x-amber-user"
CLIENT_HEADER = "x-amber-client"
LOCAL_USER = "local"
LOOPBACK = {"127.0.0.1", "::1", "localhost"}


current_identity: contextvars.ContextVar[Identity | None] = contextvars.ContextVar("amber_identity", default=None)


def hash_secret(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


@dataclass(frozen=True)
class _Key:
    name: str
    digest: str
    user: str | None
    scopes: frozenset[str]
    trusted_client: bool


class KeyRing:
    """The configured keys, by hash. An empty ring means local mode (loopback only)."""

    def __init__(self, keys: Iterable[ApiKeyConfig], local_user: str = LOCAL_USER, person: Callable[[str], str] = str):
        keys = list(keys)
        self.person = person  # a client's name for a user -> the person (settings' identity map)
        self._keys: list[_Key] = []
        for k in keys:
            if not k.secret:
                log.warning("API key %r has an empty secret (is its environment variable set?); it is ignored", k.name)
                continue
            # a secret written as "sha256:<hex>" is already the hash: the config then holds no secret at all
            digest = k.secret[7:].lower() if k.secret.startswith("sha256:") else hash_secret(k.secret)
            self._keys.append(_Key(k.name, digest, person(k.user) if k.user else None, frozenset(k.scopes), k.trusted_client))
        # keys configured but none usable must not fall back to the open local mode
        self.configured = bool(keys)
        self.local_user = local_user

    @classmethod
    def from_settings(cls, settings: Settings) -> "KeyRing":
        ring = cls(settings.api_keys, settings.person(settings.default_user or LOCAL_USER), settings.person)
        if ring.usable_keys:
            log.info("memory server: %d API key(s) configured", ring.usable_keys)
        elif ring.configured:
            log.warning("memory server: every configured API key has an empty secret; every request will be refused")
        else:
            log.info(
                "memory server: no API keys configured (AMBER_API_KEYS); local mode: only loopback clients, "
                "acting as user %r", ring.local_user
            )
        return ring

    @property
    def usable_keys(self) -> int:
        """How many configured keys can be used (a key whose secret is empty is ignored)."""
        return len(self._keys)

    @property
    def local_mode(self) -> bool:
        return not self.configured

    def _match(self, secret: str) -> _Key | None:
        digest = hash_secret(secret)
        found = None
        for k in self._keys:  # compare against every key, in constant time each
            if hmac.compare_digest(k.digest, digest):
                found = k
        return found

    def identify(self, secret: str | None, headers: Mapping[str, str], client_host: str | None) -> Identity:
        """Resolve a request's key and headers to the identity it acts as; raises Unauthenticated/Forbidden."""
        named = (headers.get(USER_HEADER) or "").strip() or None
        named = self.person(named) if named else None
        client = (headers.get(CLIENT_HEADER) or "").strip()[:64] or None
        if self.local_mode:
            if client_host not in LOOPBACK:
                raise Forbidden("no API keys are configured, so only clients on this machine may connect")
            if named and named != self.local_user:
                raise Forbidden(f"this local server acts only for user {self.local_user!r}")
            return Identity("local", self.local_user, frozenset({READ, WRITE, ADMIN}), client)
        if not secret:
            raise Unauthenticated("send an API key: 'Authorization: Bearer <key>' or '?token=<key>'")
        key = self._match(secret)
        if key is None:
            raise Unauthenticated("unknown API key")
        if key.user is not None:
            if named and named != key.user:
                raise Forbidden(f"key {key.name!r} acts only for its own user")
            return Identity(key.name, key.user, key.scopes, client)
        if key.trusted_client or ADMIN in key.scopes:
            return Identity(key.name, named, key.scopes, client)
        raise Forbidden(f"key {key.name!r} is bound to no user and is neither admin nor a trusted client")
