"""Chroma's calls in Amber's error tree: `_Guarded` wraps a collection so that an outage (Chroma away,
its disk full) is StoreUnavailable whatever the call, a vector index Chroma evicted from its pool
is read back instead of failing (see _EVICTED), and where Amber reaches Chroma's files one a crash
cut short is set aside, or its collection made again from its records, so the call succeeds
(index_repair.py)."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any, Callable

import httpx

from ..errors import AmberError, StoreUnavailable
from ..outage import OutageState
from .disk import DiskGuard
from .index_pool import NOOP_ID
from .gate import StoreGate, level
from .reads_first import ReadsFirst

if TYPE_CHECKING:
    from .index_repair import IndexMender

log = logging.getLogger("amber.store")
_told: set[str] = set()  # collections whose unreadable index was logged (once each, where nothing can mend it)

_OUTAGE_WORDS = ("disk is full", "no space left", "database is locked", "could not connect", "connection", "timed out", "unavailable")
_FULL_WORDS = ("disk is full", "no space left", "disk full")
_WRITES = frozenset({"add", "upsert", "update", "delete", "modify"})
_READS_INDEX = frozenset({"query", "get"})  # the calls that may open a collection's vector index

# A vector index Chroma evicted from its pool before it ever wrote it to disk fails "Nothing found
# on disk" (chroma-core/chroma#4212; index_pool.py says when). Any write to the collection makes
# Chroma rebuild the index from its log, so the store then deletes an id no record has (a log entry
# that changes nothing) and asks once more. What this leaves, on a Chroma server (an embedded store
# keeps each person's index on disk after every write): an index Chroma did write (1 000 changes or
# more) is read back as last written, and until the collection's next write its answers miss what
# changed since (recall's lexical arm still finds it).
_EVICTED = "nothing found on disk"
_GONE = "does not exist"  # a call on a collection dropped since this handle was taken
# Chroma failing because a collection's index on disk cannot be read (index_repair.py): its id map
# cut short, or one write behind the hnsw files ("failed to apply logs": a Chroma server killed
# between the two, bench/README.md "A Chroma server killed while it writes"). The index is set aside
# only if its files show it (index_repair.whole); otherwise the call is asked once more and fails.
_TORN_WORDS = ("error constructing hnsw segment", "error deserializing pickle", "hnswindexloaderror", "error loading hnsw",
               "failed to apply logs to the hnsw segment")


def _chain(e: BaseException) -> list[BaseException]:
    """The exception and those it was raised from or during (a failed rollback hides the disk-full
    error that caused it in its context)."""
    out: list[BaseException] = []
    while e is not None and e not in out and len(out) < 8:
        out.append(e)
        e = e.__cause__ or e.__context__  # type: ignore[assignment]
    return out


def _is_outage(e: Exception) -> bool:
    """Chroma or its transport unable to serve now (unreachable, timing out, its disk full), as
    opposed to refusing what it was asked (a bad argument, a missing record)."""
    for x in _chain(e):
        if isinstance(x, (OSError, TimeoutError, ConnectionError, httpx.TransportError)):
            return True
        text = f"{type(x).__name__}: {x}".casefold()
        if any(w in text for w in _OUTAGE_WORDS):
            return True
    return False


def _dropped(e: BaseException) -> bool:
    """The server went away in the middle of the call (not one refused before it began)."""
    return any(isinstance(x, httpx.RemoteProtocolError) or "server disconnected" in f"{x}".casefold()
               or "connection reset" in f"{x}".casefold() for x in _chain(e))


def is_torn(e: BaseException) -> bool:
    return any(w in f"{type(x).__name__}: {x}".casefold() for x in _chain(e) for w in _TORN_WORDS)


def _is_disk_full(e: BaseException) -> bool:
    return any(any(w in f"{x}".casefold() for w in _FULL_WORDS) for x in _chain(e))


def _says_full(e: BaseException) -> bool:
    """Chroma's own error on a full disk: SQLite's, or its compaction failing to write."""
    return _is_disk_full(e) or any("compaction" in f"{x}".casefold() for x in _chain(e))


def _raise_if_outage(e: Exception, what: str, state: OutageState | None = None) -> None:
    if isinstance(e, AmberError):
        raise e
    if _is_outage(e):
        if _is_disk_full(e):
            what = f"{what}: the disk holding the store is full"
        if state is not None:
            state.down(f"{what}: {type(e).__name__}: {e}")
        raise StoreUnavailable(f"{what}: {type(e).__name__}: {e}") from e


class _Guarded:
    """A Chroma collection whose every call fails in Amber's error tree: an outage is
    StoreUnavailable (503 with Retry-After over REST, a clean tool error over MCP, "no memory this
    turn" in a chat), whatever the operation; anything else is raised as Chroma raised it. The
    store's outage state logs once when Chroma goes away and once when it answers again."""

    __slots__ = ("_col", "_name", "_state", "_disk", "_gate", "_mend", "_turns", "_fetch")

    def __init__(self, col: Any, name: str, state: OutageState | None = None, disk: "DiskGuard | None" = None,
                 gate: ReadsFirst | None = None, mend: "IndexMender | None" = None, turns: StoreGate | None = None,
                 fetch: Callable[[str], Any] | None = None):
        self._col, self._name, self._state, self._disk = col, name, state, disk
        self._gate = gate  # embedded Chroma: a background write gives way to recalls in flight (reads_first.py)
        self._mend = mend  # Chroma's files within reach: sets an index cut short aside, or makes the collection again (index_repair.py)
        self._turns = turns  # the host's calls take turns, a person's write first (gate.py)
        self._fetch = fetch  # the collection by name again, once another host has made it again

    def __getattr__(self, attr: str) -> Any:
        value = getattr(self._col, attr)
        if not callable(value):
            return value

        def call(*args: Any, **kwargs: Any) -> Any:
            if self._disk is not None:
                self._disk.usable()
            if self._gate is not None and attr in _WRITES:
                self._gate.before_write()
            if self._turns is None:
                return self._call(attr, value, args, kwargs)
            with self._turns.turn(level(attr in _WRITES)):
                return self._call(attr, value, args, kwargs)

        return call

    def _call(self, attr: str, value: Callable[..., Any], args: tuple, kwargs: dict) -> Any:
        try:
            try:
                out = value(*args, **kwargs)
            except Exception as e:
                if self._mend is not None and is_torn(e) and self._mend.mend(self._name):
                    out = self._again(attr, args, kwargs)
                elif self._fetch is not None and _GONE in f"{e}".casefold():  # made again by another host (index_repair.rebuild)
                    self._col = self._fetch(self._name)
                    out = getattr(self._col, attr)(*args, **kwargs)
                elif attr in _READS_INDEX and any(_EVICTED in f"{x}".casefold() for x in _chain(e)):
                    self._col.delete(ids=[NOOP_ID])  # see _EVICTED: Chroma rebuilds the index from its log
                    out = value(*args, **kwargs)
                else:
                    if self._mend is None and is_torn(e) and self._name not in _told:
                        _told.add(self._name)
                        log.error("amber: Chroma cannot read the vector index of %s (a server killed while it wrote the "
                                  "index leaves it so) and fails every call on it until it is set aside: give a host "
                                  "the server's persist directory (chroma_data_path) and it does that and rebuilds the "
                                  "vectors (README, `chroma_data_path`); %s", self._name, e)
                    raise
        except Exception as e:
            if self._disk is not None and attr in _WRITES:
                self._disk.failed(e, f"Chroma {attr} on {self._name}", says_full=_says_full(e))
                self._disk.usable()
            if self._mend is not None and _dropped(e):
                # the server may have died of this very call: Chroma's server crashes on some indexes a
                # kill left half-written (bench/README.md, "A Chroma server killed while it writes"), so
                # one is set aside now, before the server is back and crashes on it again
                self._mend.mend(self._name)
            _raise_if_outage(e, f"Chroma {attr} on {self._name}", self._state)
            raise
        if self._state is not None:
            self._state.up()
        return out

    def _again(self, attr: str, args: tuple, kwargs: dict) -> Any:
        """Asked again once the index is set aside; if the call still fails so (a running server
        keeps the index it could not read in memory), asked once more on the collection made again."""
        try:
            if attr in _READS_INDEX:  # the index set aside: a write makes Chroma start it afresh
                self._col.delete(ids=[NOOP_ID])
            return getattr(self._col, attr)(*args, **kwargs)
        except Exception as e:
            if not is_torn(e) or (col := self._mend.rebuild(self._name, self._col)) is None:
                raise
        self._col = col
        return getattr(col, attr)(*args, **kwargs)
