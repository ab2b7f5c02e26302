"""Calls of concurrent threads to one shared collection, made together.

Every write a person makes adds an audit row to one collection shared by everybody (`EVENTS`,
core/store/chroma.py). Embedded Chroma holds the interpreter's lock through each upsert, fsyncs
included, so under a burst of writes each row cost a whole upsert during which nothing else in the
host ran: 16 rows in one upsert took 19-27 ms against 6-8 ms for one (bench/README.md, "what REST
p99 is made of"). On a Chroma server every recall also reads its revisions from the registry, one
call each in Chroma's queue behind everyone else's (bench/README.md, "Reads that share a call").

The first caller to find no call under way makes one call for everything queued so far, its own
included; callers that arrive meanwhile wait for it to finish and go together in the next. So each
caller's call is sent after the caller asked (a read sees every write that returned before it), and
each returns once its own part is done, or raises the error of the call that held it.
`GroupCommit.put`: rows written, a row written twice in one call keeping its last version, as two
upserts in turn would. `GroupRead.get`: registry rows read by id, each caller given its own.
"""

from __future__ import annotations

import threading
from typing import Any, Callable, Generic, Sequence, TypeVar

Write = Callable[[list[str], list[dict[str, Any]]], None]
Read = Callable[[list[str]], dict[str, Any]]
Part = TypeVar("Part")


class _Ticket:
    __slots__ = ("done", "error", "result")

    def __init__(self) -> None:
        self.done = False
        self.error: BaseException | None = None
        self.result: Any = None


class _Together(Generic[Part]):
    def __init__(self) -> None:
        self._turn = threading.Condition()
        self._queued: list[tuple[Part, _Ticket]] = []
        self._busy = False
        self.calls = 0  # calls made (for tests and benchmarks)

    def _join(self, part: Part) -> Any:
        """Queue `part`; return what the call that held it gave back."""
        mine = _Ticket()
        with self._turn:
            self._queued.append((part, mine))
            while self._busy and not mine.done:
                self._turn.wait()
            if not mine.done:  # nothing under way: one call for everything queued, ours included
                self._busy = True
                batch, self._queued = self._queued, []
        if not mine.done:
            try:
                result, error = self._call([p for p, _ in batch]), None
                self.calls += 1
            except BaseException as e:  # every caller whose part was in this call gets its error
                result, error = None, e
            with self._turn:
                for _, ticket in batch:
                    ticket.done, ticket.error, ticket.result = True, error, result
                self._busy = False
                self._turn.notify_all()
        if mine.error is not None:
            raise mine.error
        return mine.result

    def _call(self, parts: list[Part]) -> Any:
        raise NotImplementedError


class GroupCommit(_Together[tuple[Sequence[str], Sequence[dict[str, Any]]]]):
    def __init__(self, write: Write):
        super().__init__()
        self._write = write

    @property
    def writes(self) -> int:  # upserts made
        return self.calls

    def put(self, ids: Sequence[str], metas: Sequence[dict[str, Any]]) -> None:
        self._join((ids, metas))

    def _call(self, parts: list[tuple[Sequence[str], Sequence[dict[str, Any]]]]) -> None:
        rows: dict[str, dict[str, Any]] = {}
        for ids, metas in parts:
            for i, m in zip(ids, metas):
                rows.pop(i, None)  # a later version goes after the rows written before it
                rows[i] = m
        self._write(list(rows), list(rows.values()))


class GroupRead(_Together[Sequence[str]]):
    def __init__(self, read: Read):
        super().__init__()
        self._read = read

    def get(self, keys: Sequence[str]) -> dict[str, Any]:
        """The rows of `keys` that exist, read in a call sent after this one was made."""
        found = self._join(keys)
        return {k: found[k] for k in keys if k in found}

    def _call(self, parts: list[Sequence[str]]) -> dict[str, Any]:
        return self._read(list(dict.fromkeys(k for keys in parts for k in keys)))
