"""Calls of concurrent threads to one shared collection, made together.

Every write a person makes adds an audit row to one collection shared by everybody (`EVENTS`,
core/store/chroma.py). Embedded Chroma holds the interpreter's lock through each upsert, fsyncs
included, so under a burst of writes each row cost a whole upsert during which nothing else in the
host ran: 16 rows in one upsert took 19-27 ms against 6-8 ms for one (bench/README.md, "what REST
p99 is made of"). On a Chroma server every recall also reads its revisions from the registry, one
call each in Chroma's queue behind everyone else's (bench/README.md, "Reads that share a call").

One call at a time (core/together.py): the first caller to find no call under way makes one call for
everything queued so far, its own included; callers that arrive meanwhile go together in the next.
So each caller's call is sent after the caller asked (a read sees every write that returned before
it), and each returns once its own part is done, or raises the error of the call that held it.
`GroupCommit.put`: rows written, a row written twice in one call keeping its last version, as two
upserts in turn would. `GroupRead.get`: registry rows read by id, each caller given its own.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from ..together import Together

Write = Callable[[list[str], list[dict[str, Any]]], None]
Read = Callable[[list[str]], dict[str, Any]]


class GroupCommit(Together[tuple[Sequence[str], Sequence[dict[str, Any]]]]):
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


class GroupRead(Together[Sequence[str]]):
    def __init__(self, read: Read):
        super().__init__()
        self._read = read

    def get(self, keys: Sequence[str]) -> dict[str, Any]:
        """The rows of `keys` that exist, read in a call sent after this one was made."""
        found = self._join(keys)
        return {k: found[k] for k in keys if k in found}

    def _call(self, parts: list[Sequence[str]]) -> dict[str, Any]:
        return self._read(list(dict.fromkeys(k for keys in parts for k in keys)))
