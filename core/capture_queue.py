"""The shared capture queue: turns captured by any proxy, stored once by whichever host is free.

With `redis_url` set, a proxy in remote mode journals each exchange locally (litellm_hooks/spool.py)
and its drainer moves them into one Redis stream (`amber:capture`). Every Amber host reads that
stream in one consumer group, so each entry goes to one host, which stores the user's turns
(`MemoryService.capture`, one embedding batch per user) and only then acknowledges and deletes it.

- A host that dies holding entries leaves them pending in the group; any host takes them over once
  they have been idle `claim_idle_s` (XAUTOCLAIM), so an acknowledged turn is never lost.
- An entry that fails is left pending and retried the same way; after `max_attempts` deliveries,
  or at once for a refusal (a permanent error), it moves to `amber:capture:quarantine` with the
  reason, instead of being replayed forever.
- Message ids are deterministic, so an entry stored twice (a host died between storing and
  acknowledging) is stored once.

An entry is `{"user", "client", "command", "messages": [Message as JSON]}`, the journal's shape.
"""

from __future__ import annotations

import json
import logging
import os
import socket
import threading
import time
from typing import Any, Sequence

from pydantic import ValidationError

from .errors import InvalidInput, PermanentError
from .model import Message
from .scope import Actor, scope_for, user_hash

log = logging.getLogger("amber.capture")

STREAM = "amber:capture"
QUARANTINE = "amber:capture:quarantine"
GROUP = "amber-hosts"
HEALTHY_FOR_S = 600.0


def entry_messages(entries: Sequence[dict[str, Any]]) -> list[Message]:
    """The turns of journal entries, each id once (a client's retry journals the same turn twice)."""
    seen: dict[str, Message] = {}
    for e in entries:
        for m in e.get("messages") or []:
            try:
                msg = Message.model_validate(m)
            except ValidationError as err:  # a refusal, not a failure: retrying cannot help
                raise InvalidInput("messages", f"a captured turn is malformed: {err.errors()[0].get('msg', err)}") from None
            seen.setdefault(msg.id, msg)
    return list(seen.values())


def store_entries(service: Any, user: str, entries: Sequence[dict[str, Any]], via: str = "litellm") -> None:
    """Store one user's journal entries: all their turns in one capture, their commands in order."""
    client = next((e.get("client") for e in entries if e.get("client")), None)
    scope = scope_for(Actor(user, client=client, via=via))
    service.capture(scope, entry_messages(entries), commands=any(e.get("command") for e in entries))


class CaptureQueue:
    """The proxy's side: put a user's entries on the stream (async)."""

    def __init__(self, url: str):
        import redis.asyncio as aredis

        self.r = aredis.Redis.from_url(url, socket_timeout=5, socket_connect_timeout=3)

    async def put(self, user: str, entries: Sequence[dict[str, Any]]) -> None:
        """Raises redis errors when Redis is unreachable: the journal keeps the entries for later."""
        await self.r.xadd(STREAM, {"user": user, "entries": json.dumps(list(entries), ensure_ascii=False, default=str)})

    async def aclose(self) -> None:
        await self.r.aclose()


class CaptureConsumer:
    """A host's side: a thread that stores what the stream holds, taking over what dead hosts left."""

    def __init__(self, service: Any, url: str, *, claim_idle_s: float = 30.0, batch_max: int = 64, max_attempts: int = 5, client: Any = None):
        import redis

        self.service = service
        self.r = client or redis.Redis.from_url(url, socket_timeout=10, socket_connect_timeout=3)
        self._redis_error = redis.RedisError
        self.name = f"{socket.gethostname()}:{os.getpid()}"
        self.claim_idle_ms = int(claim_idle_s * 1000)
        self.batch_max = batch_max
        self.max_attempts = max_attempts
        self.stored = self.quarantined = 0
        self.healthy_at: float | None = None  # when an entry last landed
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="amber-capture-queue", daemon=True)

    def start(self) -> "CaptureConsumer":
        self._thread.start()
        return self

    def status(self) -> dict[str, Any]:
        """For /health: what this host stored and set aside, and what waits in the stream."""
        try:
            waiting = int(self.r.xlen(STREAM))
        except self._redis_error:
            waiting = None
        return {"stored": self.stored, "quarantined": self.quarantined, "waiting": waiting}

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=15)
        self.r.close()

    def _ensure_group(self) -> None:
        try:
            self.r.xgroup_create(STREAM, GROUP, id="0", mkstream=True)
        except self._redis_error as e:
            if "BUSYGROUP" not in str(e):  # the group exists already: every host but the first
                raise

    def _run(self) -> None:
        pause, next_claim, ready = 1.0, 0.0, False
        while not self._stop.is_set():
            try:
                if not ready:
                    self._ensure_group()
                    ready = True
                    log.info("capture queue: host %s reading %s", self.name, STREAM)
                if time.monotonic() >= next_claim:  # entries a dead (or failing) host left idle
                    _, claimed, *_ = self.r.xautoclaim(STREAM, GROUP, self.name, self.claim_idle_ms, "0-0", count=self.batch_max)
                    full = len(claimed) >= self.batch_max  # more may wait: claim again next round
                    next_claim = 0.0 if full else time.monotonic() + self.claim_idle_ms / 2000
                    if claimed:
                        self._handle(claimed)
                        continue
                got = self.r.xreadgroup(GROUP, self.name, {STREAM: ">"}, count=self.batch_max, block=1000)
                for _stream, items in got or []:
                    self._handle(items)
                pause = 1.0
            except self._redis_error as e:
                ready = False
                log.warning("capture queue: Redis unreachable (%s: %s); retrying in %.0f s", type(e).__name__, e, pause)
                self._stop.wait(pause)
                pause = min(30.0, pause * 2)
            except Exception:  # the reader must outlive anything one batch does
                log.exception("capture queue: a round failed")
                self._stop.wait(1.0)

    def _handle(self, items: Sequence[tuple[bytes, dict[bytes, bytes]]]) -> None:
        by_user: dict[str, list[tuple[bytes, list[dict[str, Any]]]]] = {}
        for entry_id, fields in items:
            if not fields:  # deleted while pending: nothing left to store
                self.r.xack(STREAM, GROUP, entry_id)
                continue
            try:
                user, entries = fields[b"user"].decode(), json.loads(fields[b"entries"])
            except (KeyError, ValueError) as e:
                self._quarantine(entry_id, fields, f"unreadable entry: {e}")
                continue
            by_user.setdefault(user, []).append((entry_id, entries))
        for user, group in by_user.items():
            try:
                self._store(user, group)
            except Exception as err:
                if len(group) == 1:
                    self._failed(user, group, err)
                    continue
                for one in group:  # find the entry that fails; the others land
                    try:
                        self._store(user, [one])
                    except Exception as e:
                        self._failed(user, [one], e)

    def _store(self, user: str, group: list[tuple[bytes, list[dict[str, Any]]]]) -> None:
        ids = [i for i, _ in group]
        store_entries(self.service, user, [e for _, entries in group for e in entries])
        self.r.xack(STREAM, GROUP, *ids)
        self.r.xdel(STREAM, *ids)
        self.stored += len(ids)
        self.healthy_at = time.monotonic()

    def _failed(self, user: str, group: list[tuple[bytes, list[dict[str, Any]]]], err: Exception) -> None:
        """Leave them pending (taken over again after the idle time) unless refused, or tried too
        often while other entries land (then the entry is the problem, not the store)."""
        ids = [i for i, _ in group]
        pending = self.r.xpending_range(STREAM, GROUP, min=min(ids), max=max(ids), count=len(ids) * 2)
        delivered = {p["message_id"]: p["times_delivered"] for p in pending}
        healthy = self.healthy_at is not None and time.monotonic() - self.healthy_at < HEALTHY_FOR_S
        for entry_id, entries in group:
            if isinstance(err, PermanentError) or (healthy and delivered.get(entry_id, 1) >= self.max_attempts):
                fields = {b"user": user.encode(), b"entries": json.dumps(entries, ensure_ascii=False, default=str).encode()}
                self._quarantine(entry_id, fields, f"{type(err).__name__}: {err}")
        log.warning("capture queue: %d entries of user=%s not stored (%s: %s); retried after %.0f s",
                    len(ids), user_hash(user), type(err).__name__, err, self.claim_idle_ms / 1000)

    def _quarantine(self, entry_id: bytes, fields: dict[bytes, bytes], why: str) -> None:
        self.r.xadd(QUARANTINE, {**fields, b"error": why.encode(), b"entry": entry_id})
        self.r.xack(STREAM, GROUP, entry_id)
        self.r.xdel(STREAM, entry_id)
        self.quarantined += 1
        log.error("capture queue: entry %s set aside in %s: %s", entry_id.decode(), QUARANTINE, why)
