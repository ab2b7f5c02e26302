"""Concurrent callers' small requests, made as one call.

When a slot is free, the caller whose part is first in the queue makes one call for what is queued,
up to what one call may take; callers that arrive meanwhile wait, then go together in a later call.
So each caller's part is sent after the caller asked, and each caller returns once its own part is
done, or raises the error of the call that held it. A caller that finds its part still queued at its
deadline takes it back and gets `TimeoutError`; a part already sent waits for its call.

Used for the audit and registry rows of a shared store (core/store/group_commit.py) and for the
query vectors of a burst of prompts (core/embed/local.py).
"""

from __future__ import annotations

import threading
import time
from typing import Any, Generic, Sequence, TypeVar

Part = TypeVar("Part")


class _Ticket:
    __slots__ = ("done", "error", "result")

    def __init__(self) -> None:
        self.done = False
        self.error: BaseException | None = None
        self.result: Any = None


class Together(Generic[Part]):
    """Subclasses give `_call(parts) -> result`; every caller in the call gets the same result.
    `slots`: calls under way at once; `_take(parts)`: how many of the queued parts (in order, at
    least one) the next call takes (all of them unless a subclass caps it)."""

    def __init__(self, slots: int = 1) -> None:
        self.slots = max(1, slots)
        self._turn = threading.Condition()
        self._queued: list[tuple[Part, _Ticket]] = []
        self._busy = 0
        self.calls = 0  # calls made (for tests and benchmarks)

    def _join(self, part: Part, timeout_s: float | None = None) -> Any:
        """Queue `part`; return what the call that held it gave back. A caller makes a call only
        for a batch its own part is in (the parts ahead of it are their own callers' to send), so
        no caller waits on a call made for others past its deadline."""
        mine = _Ticket()
        deadline = None if timeout_s is None else time.monotonic() + timeout_s
        with self._turn:
            self._queued.append((part, mine))
            while not mine.done:
                queued_at = next((i for i, (_, t) in enumerate(self._queued) if t is mine), None)
                left = None if deadline is None else deadline - time.monotonic()
                if queued_at is not None and left is not None and left <= 0:  # never sent: take it back
                    del self._queued[queued_at]
                    self._turn.notify_all()  # the part behind it may now lead a call
                    raise TimeoutError("no call was free for this part in time")
                if queued_at is not None and self._busy < self.slots:
                    n = max(1, min(len(self._queued), self._take([p for p, _ in self._queued])))
                    if queued_at < n:  # a free slot and our part in the next call: make it
                        batch, self._queued = self._queued[:n], self._queued[n:]
                        self._busy += 1
                        try:
                            self._turn.release()
                            try:
                                self._run(batch)
                            finally:
                                self._turn.acquire()
                        finally:
                            self._busy -= 1
                            self._turn.notify_all()
                        continue
                # in a call under way (it has its own deadline), or behind parts whose callers send them
                self._turn.wait(left if queued_at is not None and left is not None else None)
        if mine.error is not None:
            raise mine.error
        return mine.result

    def _run(self, batch: list[tuple[Part, _Ticket]]) -> None:
        try:
            result, error = self._call([p for p, _ in batch]), None
            self.calls += 1
        except BaseException as e:  # every caller whose part was in this call gets its error
            result, error = None, e
        with self._turn:
            for _, ticket in batch:
                ticket.done, ticket.error, ticket.result = True, error, result

    def _take(self, parts: Sequence[Part]) -> int:
        return len(parts)

    def _call(self, parts: list[Part]) -> Any:
        raise NotImplementedError
