"""Why this memory: per request, what recall injected and why, for a person to ask afterwards.

A why record is kept only when the caller names the request (the hook passes LiteLLM's call id
for a request in mode `on`; REST and MCP callers may pass their own id): `off`, `read` and
temporary requests never name one, so they leave none. It is kept by the service that
recalled, per user, so the in-process hook and a remote host answer it alike.

What a record holds: the request id, when, and per injected item its handle, id, source, kind,
date, client, fused score, dense similarity, lexical coverage, the arms that found it, the
relevance floor's verdict (which evidence let it in: core/recall/relevance.py VERDICTS) and its
background (its similarity to the nearest prompt about nobody); how many candidates were weighed,
whether recall abstained, and the best few weighed items the floor kept out, each with the verdict
that kept it out ("why did it not use what I told it about X?"). It holds no words, not even the query: the
items' words are read from the store when someone asks, so a forget (which erases them there)
covers the why record too, and an erased person's records are dropped with them (`drop_user`).
Nothing of it is written to disk, so encryption has nothing to cover.

Bounded in time (`ttl_s`), per person (`per_user` newest records) and in total (`max_records`,
oldest first): a flood of requests cannot grow it.
"""

from __future__ import annotations

import threading
import weakref
from collections import OrderedDict
from dataclasses import asdict, dataclass
from datetime import datetime, timedelta
from typing import Any, Mapping, Sequence

from .recall.fusion import Candidate
from .recall.render import handle_of
from .results import WhyRequest, WhyShown


@dataclass(frozen=True)
class WhyItem:
    handle: str
    id: str
    source: str  # "memory" | "message"
    kind: str
    created_at: datetime
    client: str | None
    score: float
    dense: float
    lexical: float
    arms: tuple[str, ...]
    fact_key: bool = False  # a keyed fact (a correction supersedes it by its key)
    verdict: str = ""  # the relevance floor's (relevance.VERDICTS); "" in records kept before there was one
    background: float | None = None  # its similarity to the nearest prompt about nobody, where known
    excerpt: bool = False  # the block held only its sentences nearest the prompt (recall/render.py excerpt)


@dataclass(frozen=True)
class WhyRecord:
    request: str
    at: datetime
    items: tuple[WhyItem, ...]
    considered: int
    abstained: bool
    tokens: int
    left_out: tuple[WhyItem, ...] = ()  # weighed, kept out by the floor, best first (at most LEFT_OUT)


LEFT_OUT = 5  # weighed items kept out, per record


def why_items(items: Sequence[Candidate], verdicts: Mapping[str, str] | None = None,
              backgrounds: Mapping[str, float] | None = None) -> tuple[WhyItem, ...]:
    said, bg = verdicts or {}, backgrounds or {}
    return tuple(WhyItem(handle=handle_of(c.id), id=c.id, source=c.source, kind=c.kind, created_at=c.created_at, client=c.client,
                         score=round(c.score, 5), dense=round(c.dense, 4), lexical=round(c.lexical, 4), arms=tuple(c.arms),
                         fact_key=c.keyed, verdict=said.get(c.id, ""),
                         background=round(bg[c.id], 4) if c.id in bg else None, excerpt=c.excerpt) for c in items)


class WhyLog:
    """The recent why records of every person this host recalled for. Thread-safe."""

    def __init__(self, *, per_user: int = 20, max_records: int = 20_000, ttl_s: float = 24 * 3600):
        self.per_user = per_user
        self.max_records = max_records
        self.ttl = timedelta(seconds=ttl_s)
        self._users: dict[str, OrderedDict[str, WhyRecord]] = {}
        self._order: OrderedDict[tuple[str, str], datetime] = OrderedDict()  # (user, request) oldest first
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._order)

    def keep(self, user: str, request: str, items: Sequence[Candidate], *, at: datetime, considered: int = 0,
             abstained: bool = False, tokens: int = 0, left_out: Sequence[Candidate] = (),
             verdicts: Mapping[str, str] | None = None, backgrounds: Mapping[str, float] | None = None) -> WhyRecord:
        record = WhyRecord(request=request, at=at, items=why_items(items, verdicts, backgrounds), considered=considered,
                           abstained=abstained, tokens=tokens, left_out=why_items(left_out[:LEFT_OUT], verdicts, backgrounds))
        with self._lock:
            self._expire(at)
            mine = self._users.setdefault(user, OrderedDict())
            mine.pop(request, None)
            self._order.pop((user, request), None)
            mine[request] = record
            self._order[(user, request)] = at
            while len(mine) > self.per_user:
                old, _ = mine.popitem(last=False)
                self._order.pop((user, old), None)
            while len(self._order) > self.max_records:
                (u, r), _ = self._order.popitem(last=False)
                self._drop(u, r)
        return record

    def last(self, user: str, n: int = 1, *, now: datetime, request: str | None = None) -> list[WhyRecord]:
        """The person's newest records, newest first (or the one for `request`)."""
        with self._lock:
            self._expire(now)
            mine = self._users.get(user) or {}
            if request is not None:
                return [mine[request]] if request in mine else []
            return list(reversed(mine.values()))[: max(0, n)]

    def drop_user(self, user: str) -> int:
        with self._lock:
            mine = self._users.pop(user, None) or {}
            for r in mine:
                self._order.pop((user, r), None)
            return len(mine)

    def _drop(self, user: str, request: str) -> None:
        mine = self._users.get(user)
        if mine is not None:
            mine.pop(request, None)
            if not mine:
                del self._users[user]

    def _expire(self, now: datetime) -> None:
        while self._order:
            (u, r), at = next(iter(self._order.items()))
            if now - at < self.ttl:
                return
            self._order.popitem(last=False)
            self._drop(u, r)


def why_log(service: Any) -> Any:
    """The service's why log, made on first use (one per service, so per memory host)."""
    with _MAKE:
        log = _LOGS.get(service)
        if log is None:
            log = _LOGS[service] = WhyLog()
        return log


def use_why_log(service: Any, log: Any) -> None:
    """Give the service another why log with WhyLog's methods (several hosts: core/why_shared.py)."""
    with _MAKE:
        _LOGS[service] = log


_MAKE = threading.Lock()
_LOGS: "weakref.WeakKeyDictionary[Any, Any]" = weakref.WeakKeyDictionary()


def report(records: Sequence[WhyRecord], memories: dict[str, Any], turns: dict[str, Any]) -> list[WhyRequest]:
    """Records as a person reads them: each item with its words as stored now (`memories` and
    `turns`: id -> record still held), or `"gone": true` when it was forgotten or deleted since,
    and its status when it is no longer current (superseded, deleted)."""
    def shown(it: WhyItem) -> WhyShown:
        d = asdict(it)
        d["arms"] = list(it.arms)
        held = memories.get(it.id) if it.source == "memory" else turns.get(it.id)
        if held is None or not getattr(held, "content", ""):  # forgotten (its words erased) or deleted for good
            d["gone"] = True
        else:
            d["text"] = held.content
            status = getattr(getattr(held, "status", None), "value", None)
            if status and status != "active":
                d["status"] = status
        return WhyShown.model_validate(d)

    return [WhyRequest(request=r.request, at=r.at, considered=r.considered, abstained=r.abstained, tokens=r.tokens,
                       items=[shown(it) for it in r.items], left_out=[shown(it) for it in r.left_out]) for r in records]


def keep_why(service: Any, scope: Any, request: str, result: Any) -> None:
    """Keep a recall's why record for `scope`'s person under `request` (the service calls this)."""
    why_log(service).keep(scope.user_id, str(request)[:200], result.items, at=service.clock.now(),
                          considered=getattr(result, "considered", 0), abstained=getattr(result, "abstained", False),
                          tokens=getattr(result, "tokens", 0), left_out=getattr(result, "left_out", ()),
                          verdicts=getattr(result, "verdicts", None), backgrounds=getattr(result, "backgrounds", None))


def why_report(service: Any, scope: Any, last: int = 1, request: str | None = None) -> list[WhyRequest]:
    """The person's newest why records with each item's words as stored now (see `report`)."""
    records = why_log(service).last(scope.user_id, max(1, min(int(last), 20)), now=service.clock.now(), request=request)
    mem_ids = sorted({i.id for r in records for i in (*r.items, *r.left_out) if i.source == "memory"})
    turn_ids = sorted({i.id for r in records for i in (*r.items, *r.left_out) if i.source != "memory"})
    memories = {m.id: m for m in service.reads.memories_by_id(scope, mem_ids)} if mem_ids else {}
    turns = dict(service.reads.turns_by_id(scope, turn_ids)) if turn_ids else {}
    return report(records, memories, turns)
