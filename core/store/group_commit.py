"""Rows that concurrent writers add to one shared collection, written together.

Every write a person makes adds an audit row to one collection shared by everybody (`EVENTS`,
core/store/chroma.py). Embedded Chroma holds the interpreter's lock through each upsert, fsyncs
included, so under a burst of writes each row cost a whole upsert during which nothing else in the
host ran: 16 rows in one upsert took 19-27 ms against 6-8 ms for one (bench/README.md, "what REST
p99 is made of").

`GroupCommit.put` queues the caller's rows; the first caller to find no write under way writes every
row queued so far in one call, and the others wait for the write that holds theirs. Each caller
returns once its own rows are written, as before, or raises the error of the write that held them.
A row written twice in one batch keeps its last version, as two upserts in turn would.
"""

from __future__ import annotations

import threading
from typing import Any, Callable, Sequence

Write = Callable[[list[str], list[dict[str, Any]]], None]


class _Ticket:
    __slots__ = ("done", "error")

    def __init__(self) -> None:
        self.done = False
        self.error: BaseException | None = None


class GroupCommit:
    def __init__(self, write: Write):
        self._write = write
        self._turn = threading.Condition()
        self._queued: list[tuple[Sequence[str], Sequence[dict[str, Any]], _Ticket]] = []
        self._writing = False
        self.writes = 0  # upserts made (for tests and benchmarks)

    def put(self, ids: Sequence[str], metas: Sequence[dict[str, Any]]) -> None:
        mine = _Ticket()
        with self._turn:
            self._queued.append((ids, metas, mine))
            while self._writing and not mine.done:
                self._turn.wait()
            if not mine.done:  # nobody is writing: write everything queued, ours included
                self._writing = True
                batch, self._queued = self._queued, []
        if not mine.done:
            error = self._flush(batch)
            with self._turn:
                for _, _, ticket in batch:
                    ticket.done, ticket.error = True, error
                self._writing = False
                self._turn.notify_all()
        if mine.error is not None:
            raise mine.error

    def _flush(self, batch: list[tuple[Sequence[str], Sequence[dict[str, Any]], _Ticket]]) -> BaseException | None:
        rows: dict[str, dict[str, Any]] = {}
        for ids, metas, _ in batch:
            for i, m in zip(ids, metas):
                rows.pop(i, None)  # a later version goes after the rows written before it
                rows[i] = m
        try:
            self._write(list(rows), list(rows.values()))
            self.writes += 1
            return None
        except BaseException as e:  # every caller whose rows were in this write gets its error
            return e
