"""The capture journal's drainer: every captured exchange is written to disk first, then stored in the background.

LiteLLM gives a success callback about 20 s before it cancels it, and embedding a long answer can
take longer than that on a busy machine. So capture only appends the exchange to the journal
(`core.Journal`: flushed and fsynced, so once the callback returns the turn survives a crash) and
wakes the drainer. The drainer (`Spool.drain`, one task per proxy process) takes the oldest
entries pending (up to `round_max` a round; the next round follows at once), groups them by user
and hands them to memory in batches, so many turns share one embedding call.

A turn the user was answered for is never given up because memory was away:

- Memory unreachable (connection refused, 5xx, 503, timeouts, Redis down: a round stores nothing
  and something failed): the drainer backs off, 1 s doubling to 30 s. New chats during the backoff
  are journaled and only mark work as pending; the next round waits for the timer. Entries wait
  for as long as the outage lasts, however many rounds that takes. While it lasts, a round asks
  memory with the oldest turn alone and leaves the journal untouched (every 4th tries the journal,
  so one turn that always fails cannot hide memory's return).
- One entry failing while others are stored (the entry, or its user's host, is the problem): it
  waits on its own timer (1 s doubling to 30 s) and the rest go on in batches.
- Set aside in the quarantine (`amber spool status`, `amber spool replay`) only for a reason that
  is about the entry: memory refused it by name (`InvalidInput`, `Immutable`, `Conflict`): at
  once; or an error that is not an outage (a key refused, an unknown failure) for
  `retry_hours` (`capture_retry_hours`) on end.
- Health is the last round's result, never an old success.

Message ids are deterministic, so an entry stored twice (a crash between storing and forgetting
it) is stored once.
"""

from __future__ import annotations

import asyncio
import functools
import importlib
import logging
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Awaitable, Callable, Sequence

from core import Conflict, Immutable, InvalidInput, Journal, TransientError, user_hash

log = logging.getLogger("amber.litellm")

FIRST_BACKOFF_S = 1.0
MAX_BACKOFF_S = 30.0
PURGE_EVERY_S = 3600.0
FULL_ROUND_EVERY = 4  # while memory is away, every 4th round tries the journal, the others one turn
Store = Callable[[str, Sequence[dict[str, Any]]], Awaitable[None]]  # (user, entries) -> None; raises if not stored

REFUSED = (InvalidInput, Immutable, Conflict)  # memory names the entry as the problem: retrying the same bytes cannot help


@functools.cache
def _outage_types() -> tuple[type[BaseException], ...]:
    types: list[type[BaseException]] = [TransientError, OSError, asyncio.TimeoutError]  # OSError: connection errors, a full disk
    for module, name in (("httpx", "HTTPError"), ("redis.exceptions", "RedisError")):
        try:
            types.append(getattr(importlib.import_module(module), name))
        except Exception:  # not installed: nothing of it can be raised
            pass
    return tuple(types)


def kind_of(err: BaseException) -> str:
    """`refused`: set aside now; `outage`: wait however long it lasts; `other` (a key refused, a
    bug, an unnamed 4xx): retried for `retry_hours`, then set aside."""
    if isinstance(err, REFUSED):
        return "refused"
    if isinstance(err, _outage_types()):
        return "outage"
    return "other"


def _key(entry: dict[str, Any]) -> tuple:
    return str(entry.get("user")), tuple(str(m.get("id")) for m in entry.get("messages") or [] if isinstance(m, dict))


def _why(err: BaseException) -> str:
    return f"{type(err).__name__}: {err}"


class Spool(Journal):
    def __init__(
        self,
        directory: Path | str,
        *,
        batch_max: int = 64,
        retry_hours: float = 72.0,
        max_mb: float | None = None,
        retention_days: float | None = None,
        redact: Callable[[str], str] | None = None,
        round_max: int | None = None,
        clock: Callable[[], float] = time.monotonic,
        now: Callable[[], float] = time.time,
        master_key: bytes | None = None,
    ):
        # with a master key every journal line is sealed: the chat text waiting here is not on disk in the clear
        super().__init__(directory, max_bytes=int(max_mb * 1_000_000) if max_mb else None, now=now, master_key=master_key)
        self.batch_max = batch_max
        self.retry_s = retry_hours * 3600
        self.retention_days = retention_days
        self.redact = redact or (lambda text: text)
        self.clock = clock  # monotonic: the backoff timer
        self._wake: asyncio.Event | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self.quarantined_now = 0  # set aside by this process
        self.delay = 0.0  # the current backoff; 0 when the last round was not an outage
        self.until = 0.0  # no round before this (clock time), whatever wakes the drainer
        self.down_since: float | None = None  # wall time the outage was first seen
        self.last_error: str | None = None
        self.next_due: float | None = None  # wall time an entry waiting on its own timer is due
        self._purged_at: float | None = None
        self._written: list[Any] = [None, None]  # the state last written for `amber spool status`
        self.round_max = round_max or batch_max * 64  # entries a round takes; more wait for the next round, at once
        self.more = False  # the last round left due entries behind
        self.failed_rounds = 0  # in a row

    # ---- writing ---------------------------------------------------------------------------

    async def put(self, entry: dict[str, Any]) -> bool:
        """Journal one exchange and wake the drainer; False if the journal could not keep it."""
        kept = await asyncio.to_thread(self.append, entry)
        if kept:
            self.wake()
        return kept

    def wake(self) -> None:
        """New work. During a backoff this only marks it pending: the round waits for the timer."""
        if self._wake is not None and self._loop is not None:
            self._loop.call_soon_threadsafe(self._wake.set)

    def due(self) -> bool:
        """May a round run now? Not while backing off, whatever new traffic arrives."""
        return self.clock() >= self.until

    # ---- draining --------------------------------------------------------------------------

    def _waiting(self, entry: dict[str, Any], wall: float) -> bool:
        at = entry.get("retry_at")
        # a wall clock set back must not hold an entry longer than one backoff
        return isinstance(at, (int, float)) and wall < at <= wall + MAX_BACKOFF_S

    def _hold(self, entry: dict[str, Any], wall: float) -> None:
        entry["backoff"] = min(MAX_BACKOFF_S, max(FIRST_BACKOFF_S, 2 * float(entry.get("backoff") or 0)))
        entry["retry_at"] = wall + entry["backoff"]

    async def _store_user(self, store: Store, user: str, group: list[dict[str, Any]]) -> tuple[int, list, list]:
        """One user's entries in batches; a batch that fails is tried one entry at a time (those
        that failed before go last) to find the entries at fault. Two outage-like failures in a
        row with nothing stored means the user's memory is away: the rest stays untried.
        Returns (stored, [(entry, error)], untried)."""
        landed, failed = 0, []
        for i in range(0, len(group), self.batch_max):
            batch = group[i : i + self.batch_max]
            try:
                await store(user, batch)
                landed += len(batch)
                continue
            except Exception as e:  # sorted out below
                err = e
            singles = sorted(batch, key=lambda e: int(e.get("attempts") or 0)) if len(batch) > 1 else []
            if not singles:
                failed.append((batch[0], err))
                if kind_of(err) != "refused" and not landed:
                    return landed, failed, group[i + 1 :]
            streak = 0
            for n, one in enumerate(singles):
                try:
                    await store(user, [one])
                    landed, streak = landed + 1, 0
                except Exception as e:
                    failed.append((one, e))
                    if kind_of(e) == "refused":
                        continue
                    streak += 1
                    if streak >= 2 and not landed:
                        return landed, failed, singles[n + 1 :] + group[i + len(batch) :]
        return landed, failed, []

    async def drain_once(self, store: Store) -> bool:
        """One round: store what is due. Returns False when memory seems away (back off)."""
        self.more = False
        probed = None
        if self.delay > 0 and self.failed_rounds % FULL_ROUND_EVERY:  # now and then a full round: a poison turn cannot hide memory's return
            ok, probed = await self._probe(store)
            if not ok:
                return False
        wall = self.now()
        taken = await asyncio.to_thread(self.take, self.round_max, lambda e: e["retry_at"] if self._waiting(e, wall) else None)
        if taken is None:
            self.next_due = None
            return True
        landed, failed, untried, away = 0, [], [], []
        by_user: dict[str, list[dict[str, Any]]] = {}
        for e in taken.entries:  # each user's turns (and commands) in journal order
            if probed is not None and _key(e) == probed:
                landed += 1  # the probe stored it
                continue
            by_user.setdefault(str(e.get("user")), []).append(e)
        for user, group in by_user.items():
            if len(away) >= 2 and not landed:  # two users' memory away and nothing stored: an outage
                untried += group
                continue
            n, fails, rest = await self._store_user(store, user, group)
            landed, failed, untried = landed + n, failed + fails, untried + rest
            if not n and any(kind_of(err) != "refused" for _, err in fails):
                away.append(user)
        outage = not landed and any(kind_of(err) != "refused" for _, err in failed)
        keep: list[dict[str, Any]] = []
        aside: list[dict[str, Any]] = []
        for e, err in failed:
            e["attempts"] = int(e.get("attempts") or 0) + 1
            # failing since its first failure, or since it began waiting through this run of failures
            e.setdefault("failing_since", max(float(e.get("spooled_at") or wall), self.down_since or wall))
            e["error"] = self.redact(_why(err))
            kind = kind_of(err)
            if kind == "refused" or (kind == "other" and wall - float(e["failing_since"]) >= self.retry_s):
                aside.append(e)
                continue
            if not outage:  # it, or its user's memory, fails while others are stored: its own timer
                self._hold(e, wall)
            keep.append(e)
        for e in untried:
            if not outage and str(e.get("user")) in away:
                self._hold(e, wall)
            keep.append(e)
        aside = [self._set_aside(e, wall) for e in aside]
        keep, aside = await asyncio.to_thread(self.settle, taken, keep, aside)
        self._report(outage, landed, keep, aside, failed)
        self.more = taken.more and not outage
        self.next_due = min([e["retry_at"] for e in keep if self._waiting(e, wall)] + ([taken.next_due] if taken.next_due else []), default=None)
        return not outage

    async def _probe(self, store: Store) -> tuple[bool, tuple | None]:
        """After a failed round: store the oldest entry alone before touching the journal (a long
        journal is not read and rewritten every 30 s of an outage). (True, its key): memory stored
        it, go on with a round that leaves it out; (True, None): memory answers (a refusal by name,
        or an error that is not an outage and has lasted `retry_hours`, whose entries a round may
        now set aside); (False, None): still away, back off."""
        probe = await asyncio.to_thread(self.peek)
        if probe is None:
            return True, None
        try:
            await store(str(probe.get("user")), [probe])
            return True, _key(probe)  # the round leaves it out
        except Exception as e:
            kind = kind_of(e)
            if kind == "refused" or (kind == "other" and self.down_since is not None and self.now() - self.down_since >= self.retry_s):
                return True, None
            self._backoff(e)
            log.info("amber capture waiting: memory is still away; next try in %.0fs (%s)", self.delay, self.last_error)
            self._save_state()
            return False, None

    def _set_aside(self, entry: dict[str, Any], wall: float) -> dict[str, Any]:
        """What goes into the quarantine: redacted again (a journal line from an older version, an
        error that quotes the turn), with the time it was set aside."""
        out = {**entry, "quarantined_at": datetime.fromtimestamp(wall, tz=timezone.utc).isoformat(timespec="seconds")}
        out["messages"] = [{**m, "content": self.redact(m["content"])} if isinstance(m, dict) and isinstance(m.get("content"), str) else m
                           for m in entry.get("messages") or []]
        if isinstance(out.get("command"), str):
            out["command"] = self.redact(out["command"])
        for k in ("retry_at", "backoff"):
            out.pop(k, None)
        return out

    def _report(self, outage: bool, landed: int, keep: list, aside: list, failed: list) -> None:
        """Log lines on a change of state, not one per round; the state for `amber spool status`."""
        wall = self.now()
        for e in aside:
            self.quarantined_now += 1
            log.error("amber spool: exchange of user=%s set aside after %d attempt(s) over %.0fs: %s (`amber spool replay` "
                      "stores it again)", user_hash(str(e.get("user", ""))), e["attempts"], wall - float(e["failing_since"]), e["error"])
        if outage:
            first = self.down_since is None
            self._backoff(next(err for _, err in failed if kind_of(err) != "refused"))
            if first:
                log.warning("amber capture waiting: memory is unreachable (%s); %d exchange(s) kept in the journal and "
                            "retried with backoff (up to %.0fs) until it is back", self.last_error, len(keep), MAX_BACKOFF_S)
            else:
                log.info("amber capture waiting: %d exchange(s) kept for later; next try in %.0fs (%s)", len(keep), self.delay, self.last_error)
        else:
            if self.down_since is not None:
                log.warning("amber capture resumed after %.0fs: memory is back (%d exchange(s) stored in this round)", wall - self.down_since, landed)
            kept = {id(e) for e in keep}
            waiting = [e for e, err in failed if kind_of(err) != "refused" and id(e) in kept]
            if waiting:
                log.warning("amber capture waiting: %d exchange(s) kept for later while others are stored (%s)", len(waiting), waiting[0]["error"])
            self.delay, self.until, self.down_since, self.failed_rounds = 0.0, 0.0, None, 0
            self.last_error = waiting[0]["error"] if waiting else None
        self._save_state()

    def _backoff(self, err: BaseException) -> None:
        self.failed_rounds += 1
        self.delay = min(MAX_BACKOFF_S, max(FIRST_BACKOFF_S, self.delay * 2))
        self.until = self.clock() + self.delay
        self.last_error = self.redact(_why(err))
        if self.down_since is None:
            self.down_since = self.now()

    def _save_state(self) -> None:
        state = self._state()
        if [state[k] for k in ("backing_off_until", "last_error")] != self._written:  # an fsync only on a change
            self._written = [state[k] for k in ("backing_off_until", "last_error")]
            self.write_state(state)

    def _state(self) -> dict[str, Any]:
        pause = self.until - self.clock()
        return {"backing_off_until": self.now() + pause if pause > 0 else None, "down_since": self.down_since,
                "last_error": self.last_error, "updated_at": self.now()}

    def status(self) -> dict[str, Any]:
        """`Journal.status()` (what waits, what was set aside, why) with this process's own view."""
        s = super().status()
        if self._loop is not None:  # this process drains: its state is the freshest
            s.update({k: v for k, v in self._state().items() if k in ("down_since", "last_error") and v is not None})
            pause = self.until - self.clock()
            if pause > 0:
                s["backing_off_until"] = datetime.fromtimestamp(self.now() + pause, tz=timezone.utc).isoformat(timespec="seconds")
        s.update(quarantined_by_this_process=self.quarantined_now, refused_full=self.refused)
        return s

    async def drain(self, store: Store, *, idle_s: float = 30.0) -> None:
        """Forever: wait for new entries (or a timer), store them, back off while memory is away."""
        self._loop = asyncio.get_running_loop()
        self._wake = asyncio.Event()
        while True:
            pause = self.until - self.clock()
            if pause > 0:
                await asyncio.sleep(pause)  # a wake meanwhile leaves the event set: the work is pending
            elif self.more:
                await asyncio.sleep(0)  # the last round left due entries behind: the next one at once
            else:
                timer = idle_s if self.next_due is None else max(0.05, min(idle_s, self.next_due - self.now()))
                try:
                    await asyncio.wait_for(self._wake.wait(), timeout=timer)
                except asyncio.TimeoutError:
                    pass
            self._wake.clear()
            try:
                await self.drain_once(store)
            except asyncio.CancelledError:
                raise
            except Exception as e:  # the drainer must outlive anything (a full disk while writing back)
                log.warning("amber spool: drain round failed: %s", _why(e))
                self._backoff(e)
            await self._purge()

    async def _purge(self) -> None:
        """Now and then: set-aside entries older than the message retention go."""
        if self.retention_days is None or (self._purged_at is not None and self.clock() - self._purged_at < PURGE_EVERY_S):
            return
        self._purged_at = self.clock()
        try:
            await asyncio.to_thread(self.purge_quarantine, timedelta(days=self.retention_days))
        except Exception as e:
            log.warning("amber spool: quarantine not purged: %s", _why(e))
