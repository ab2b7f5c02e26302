"""Why records shared by several memory hosts, in Redis (`redis_url`): a person's next request, or
their GET /v1/why, may reach another host than the one that recalled (RemoteMemory spreads requests
over the hosts it knows), and a correction in the conversation reads what was shown last. With one
host, or no Redis, the in-process log (core/why.py) is enough and is what is used.

Per person one Redis list, newest first, key `amber:why:<user hash>` (no name in the key): each entry
a record as JSON (ids, handles, scores: never words, as in core/why.py). Bounded like the in-process
log: `per_user` entries (LTRIM), and the whole list expires `ttl_s` after its last write; entries older
than `ttl_s` are skipped on read. Records are also kept in this host's own log, so when Redis is away
a person still gets what this host recalled, and the host says once in its log that records from the
other hosts cannot be read until Redis is back.
"""

from __future__ import annotations

import json
import logging
from dataclasses import fields
from datetime import datetime, timedelta
from typing import Any, Sequence

from .recall.fusion import Candidate
from .scope import user_key
from .why import WhyItem, WhyLog, WhyRecord

log = logging.getLogger("amber.why")
_FIELDS = {f.name for f in fields(WhyItem)}


def _dump(r: WhyRecord) -> str:
    def items(its: tuple[WhyItem, ...]) -> list[dict]:
        return [{**it.__dict__, "created_at": it.created_at.isoformat(), "arms": list(it.arms)} for it in its]

    return json.dumps({"request": r.request, "at": r.at.isoformat(), "considered": r.considered, "abstained": r.abstained,
                       "tokens": r.tokens, "items": items(r.items), "left_out": items(r.left_out)}, separators=(",", ":"))


def _load(raw: bytes | str) -> WhyRecord:
    d = json.loads(raw)

    def items(its: list[dict]) -> tuple[WhyItem, ...]:  # an older host's records lack newer fields, a newer one's have more
        return tuple(WhyItem(**{**{k: v for k, v in it.items() if k in _FIELDS}, "created_at": datetime.fromisoformat(it["created_at"]),
                                "arms": tuple(it["arms"])}) for it in its)

    return WhyRecord(request=d["request"], at=datetime.fromisoformat(d["at"]), items=items(d["items"]), considered=d["considered"],
                     abstained=d["abstained"], tokens=d["tokens"], left_out=items(d.get("left_out", [])))


class SharedWhyLog:
    """The why log of every host on one Redis, with this host's own log as the fallback. Same
    methods as `WhyLog`."""

    def __init__(self, client: Any, *, prefix: str = "amber:why:", per_user: int = 20, ttl_s: float = 24 * 3600):
        import redis

        self.r = client
        self.prefix = prefix
        self.per_user = per_user
        self.ttl = timedelta(seconds=ttl_s)
        self.local = WhyLog(per_user=per_user, ttl_s=ttl_s)
        self._errors = (redis.RedisError, OSError)
        self._down = False

    @classmethod
    def from_url(cls, url: str, **kw: Any) -> "SharedWhyLog":
        import redis

        return cls(redis.Redis.from_url(url, socket_timeout=2, socket_connect_timeout=2), **kw)

    def __len__(self) -> int:
        return len(self.local)

    def _key(self, user: str) -> str:
        # the person's full collection key: a log's short pseudonym (40 bits) can be made to collide
        # by brute force, and two people sharing a list would read each other's records
        return self.prefix + user_key(user)

    def _failed(self, what: str, e: Exception) -> None:
        if not self._down:  # once per outage, not once per request
            log.warning("why records: Redis %s failed (%s: %s); until it is back, GET /v1/why and corrections see only "
                        "what this host recalled", what, type(e).__name__, e)
        self._down = True

    def keep(self, user: str, request: str, items: Sequence[Candidate], *, at: datetime, considered: int = 0,
             abstained: bool = False, tokens: int = 0, **why: Any) -> WhyRecord:
        """As `WhyLog.keep` (`why`: its left_out, verdicts and backgrounds)."""
        record = self.local.keep(user, request, items, at=at, considered=considered, abstained=abstained, tokens=tokens, **why)
        key = self._key(user)
        try:
            with self.r.pipeline() as p:
                p.lpush(key, _dump(record))
                p.ltrim(key, 0, self.per_user * 2 - 1)  # room for a request kept twice (a retry); read dedups
                p.expire(key, int(self.ttl.total_seconds()))
                p.execute()
            self._down = False
        except self._errors as e:
            self._failed("write", e)
        return record

    def last(self, user: str, n: int = 1, *, now: datetime, request: str | None = None) -> list[WhyRecord]:
        try:
            raw = self.r.lrange(self._key(user), 0, self.per_user * 2 - 1)
            self._down = False
        except self._errors as e:
            self._failed("read", e)
            return self.local.last(user, n, now=now, request=request)
        seen: set[str] = set()
        out: list[WhyRecord] = []
        for entry in raw:  # newest first; a request kept again (a retried call) counts once, newest
            r = _load(entry)
            if r.request in seen or now - r.at >= self.ttl:
                continue
            seen.add(r.request)
            if request is None or r.request == request:
                out.append(r)
        return out[:1] if request is not None else out[: max(0, min(n, self.per_user))]

    def drop_user(self, user: str) -> int:
        dropped = self.local.drop_user(user)
        try:
            self.r.delete(self._key(user))
        except self._errors as e:
            self._failed("delete", e)
        return dropped
