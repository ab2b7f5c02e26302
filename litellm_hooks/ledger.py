"""What the pre-call hook decided for each request, kept where no client can write it.

LiteLLM copies a request's metadata into the success event, and a client can put anything in that
metadata. So the decision that matters after the call (whose memory the turn goes to, whether it
may be kept at all) never travels in the request: the pre-call hook writes one `Decision` here,
keyed by LiteLLM's call id, and the success callback takes it back. A request with no record
(mode `off` or `read`, no identity, memory not ready, a call Amber never saw) is captured nowhere.

A client may choose its call id (`x-litellm-call-id`). Two requests that arrive under one id while
a record for it is open could otherwise be confused, so such an id is spoiled: neither request is
captured, and the id stays spoiled until it expires. That costs at most the colliding requests'
turns and never writes one person's words into another's memory.

The ledger is bounded in time (`ttl_s`, longer than any streamed answer) and in size (oldest
records go first when it is full, with a warning): a request whose success never comes (an
upstream error, a client that hung up) cannot grow it. This is the one piece of per-request state
on the process-wide callback, kept small and locked.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field, replace
from typing import Callable

from core import Actor

log = logging.getLogger("amber.litellm")


@dataclass(frozen=True)
class Decision:
    """Who a request is for and what Amber may do with it, as the server decided before the call."""

    actor: Actor
    mode: str  # "on" or "write": the only modes that keep anything
    session: str | None = None
    injected: tuple[str, ...] = field(default=())  # ids of the memories injected into this request


_SPOILED = object()  # an id two requests claimed while open


class RequestLedger:
    def __init__(self, *, ttl_s: float = 3600.0, max_records: int = 50_000, clock: Callable[[], float] = time.monotonic):
        self.ttl_s = ttl_s
        self.max_records = max_records
        self.clock = clock
        self._records: OrderedDict[str, tuple[float, object]] = OrderedDict()
        # call id -> (when, whose, handles), for the response header: given only to a request of that person
        self._shown: OrderedDict[str, tuple[float, str, tuple[str, ...]]] = OrderedDict()
        self._lock = threading.Lock()
        self.spoiled = 0  # ids claimed twice
        self.evicted = 0  # records dropped because the ledger was full

    def __len__(self) -> int:
        return len(self._records)

    def open(self, call_id: str | None, decision: Decision) -> bool:
        """Record what the pre-call decided. False (and nothing kept) without a call id, or when
        another open request already holds this id (the id is then spoiled for both)."""
        if not call_id:
            return False
        now = self.clock()
        with self._lock:
            self._expire(now)
            held = self._records.get(call_id)
            if held is not None:
                self._records[call_id] = (now, _SPOILED)
                self._shown.pop(call_id, None)  # what was injected under it is told to neither request
                self._records.move_to_end(call_id)  # kept in time order for _expire
                self.spoiled += 1
                log.warning("amber: call id reused by two open requests; neither will be captured")
                return False
            self._records[call_id] = (now, decision)
            while len(self._records) > self.max_records:
                self._records.popitem(last=False)
                self.evicted += 1
                if self.evicted in (1, 10, 100) or self.evicted % 1000 == 0:
                    log.warning("amber: request ledger full (%d): the oldest open requests will not be captured (%d so far)",
                                self.max_records, self.evicted)
        return True

    def take(self, call_id: str | None) -> Decision | None:
        """The decision for this call, once: the success callback takes it. None when there is no
        usable record (never decided, already taken, expired or spoiled)."""
        if not call_id:
            return None
        now = self.clock()
        with self._lock:
            self._expire(now)
            held = self._records.get(call_id)
            if held is None or held[1] is _SPOILED:
                return None  # a spoiled id stays until it expires: a third request cannot reuse it
            del self._records[call_id]
            return held[1]  # type: ignore[return-value]

    def note_injected(self, call_id: str | None, ids: tuple[str, ...], handles: tuple[str, ...]) -> None:
        """What the pre-call injected into this open request: kept on its record (`Decision.injected`)
        and, for the response header, apart (the success callback may take the record first)."""
        if not call_id:
            return
        now = self.clock()
        with self._lock:
            held = self._records.get(call_id)
            if held is not None and held[1] is not _SPOILED:
                self._records[call_id] = (held[0], replace(held[1], injected=ids))  # type: ignore[arg-type]
                self._shown[call_id] = (now, held[1].actor.user_id, handles)  # type: ignore[union-attr]
                while len(self._shown) > self.max_records:
                    self._shown.popitem(last=False)

    def shown(self, call_id: str | None, user_id: str | None) -> tuple[str, ...]:
        """The handles injected into this request, once, when it is `user_id`'s (the response header
        hook asks): another request under the same call id (a client may choose it) gets none."""
        if not call_id or not user_id:
            return ()
        now = self.clock()
        with self._lock:
            while self._shown:
                _, (at, _, _) = next(iter(self._shown.items()))
                if now - at < self.ttl_s:
                    break
                self._shown.popitem(last=False)
            held = self._shown.get(call_id)
            if held is None or held[1] != user_id:
                return ()
            del self._shown[call_id]
        return held[2]

    def discard(self, call_id: str | None) -> None:
        """A call that failed: nothing will be captured for it, and no header given. A spoiled id stays spoiled."""
        if not call_id:
            return
        with self._lock:
            self._shown.pop(call_id, None)
            held = self._records.get(call_id)
            if held is not None and held[1] is not _SPOILED:
                del self._records[call_id]

    def _expire(self, now: float) -> None:
        while self._records:
            _, (at, _) = next(iter(self._records.items()))
            if now - at < self.ttl_s:
                return
            self._records.popitem(last=False)
