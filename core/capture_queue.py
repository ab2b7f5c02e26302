"""The shared capture queue: turns captured by any proxy, stored once by whichever host is free.

With `redis_url` set, a proxy in remote mode journals each exchange locally (litellm_hooks/spool.py)
and its drainer moves them into one Redis stream. Every Amber host reads that stream in one
consumer group, so each entry goes to one host, which stores the user's turns
(`MemoryService.capture`, one embedding batch per user) and only then acknowledges and deletes it.

What lives in Redis:

- `amber:capture` (stream, group `amber-hosts`): the entries waiting, and those a host holds.
- `amber:capture:failing` (hash): entry id → `{"since", "error", "attempts"}` for entries failing
  for a reason that is not an outage; shared by the hosts, so the clock survives a restart or a
  takeover. Gone once the entry is stored or set aside.
- `amber:capture:quarantine` (stream): entries set aside, fields `user`, `entries` (JSON, redacted
  again on the way in), `error` (redacted), `entry` (its id in `amber:capture`), `set_aside_at`,
  `host`. Nothing replays them by itself: `set_aside()` lists them (and `/health` counts them),
  `replay()` puts them back on the queue as new; they are trimmed after the message retention, and
  a user's forget removes those that say what was forgotten. `redis-cli XRANGE
  amber:capture:quarantine - +` shows them too.

A turn the user was answered for is never given up because memory was away (the proxy journal's
policy, litellm_hooks/spool.py):

- An outage (`TransientError`: the store, the embedder, Busy, Timeout; Redis unreachable; an HTTP
  transport error; a 5xx) is never counted against an entry. A round that stores nothing and meets
  an outage makes the host back off (1 s doubling to 10 s: a host's retry costs one store call);
  the backoff is a timer that new entries cannot cut short. What failed stays pending with this
  host and is tried first when the timer ends; a host that dies leaves it pending, and any host
  takes it over once idle `claim_idle_s` (XAUTOCLAIM). Deliveries are not counted.
- An entry failing while others are stored (the entry, or its user, is the problem) waits on its
  own timer (1 s doubling to 10 s) while the rest go on.
- Set aside at once only when memory refuses the entry by name (`InvalidInput`, `Immutable`,
  `Conflict`, or an entry that cannot be read); an error that is neither (a bug, a key refused, an
  unnamed 4xx) after it has failed for `retry_hours` (`capture_retry_hours`).

Message ids are deterministic and ingest skips an id already stored, so an entry stored twice (a
host died between storing and acknowledging, or two hosts raced for a taken-over entry) is stored
once. Entries arrive redacted (the proxy redacts a turn before it journals it); what is set aside
is redacted again, error text included.

An entry is `{"user", "client", "command", "messages": [Message as JSON]}`, the journal's shape.
"""

from __future__ import annotations

import contextlib
import functools
import json
import logging
import os
import socket
import threading
import time
from datetime import datetime, timezone
from typing import Any, Callable, Sequence

from pydantic import ValidationError

from .config import Settings
from .errors import Conflict, Immutable, InvalidInput, TransientError
from .forgetting import forget_request
from .journal import entry_texts
from .model import Message
from .scope import Actor, scope_for, user_hash
from .store.reads_first import background_writes

log = logging.getLogger("amber.capture")

STREAM = "amber:capture"
QUARANTINE = "amber:capture:quarantine"
FAILING = "amber:capture:failing"
GROUP = "amber-hosts"

FIRST_BACKOFF_S = 1.0
MAX_BACKOFF_S = 10.0
PURGE_EVERY_S = 3600.0
REFUSED = (InvalidInput, Immutable, Conflict)  # memory names the entry as the problem: the same bytes cannot succeed
RETRY_HOURS = float(Settings.model_fields["capture_retry_hours"].default)
RETENTION_DAYS = float(Settings.model_fields["jobs_messages_days"].default)

Item = tuple[bytes, dict[bytes, bytes]]  # a stream entry: (id, fields)


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


# ---- what a failure means ---------------------------------------------------------------------


@functools.cache
def _outage_types() -> tuple[type[BaseException], ...]:
    types: list[type[BaseException]] = [TransientError, OSError, TimeoutError]  # OSError: connection errors
    try:
        import httpx

        types.append(httpx.TransportError)  # Chroma's client: connection refused, read timeouts
    except ImportError:
        pass
    try:
        import redis

        types.append(redis.RedisError)
    except ImportError:
        pass
    return tuple(types)


def _http_status(err: BaseException) -> int | None:
    for value in (getattr(err, "status_code", None), getattr(getattr(err, "response", None), "status_code", None)):
        if isinstance(value, int):
            return value
    code = getattr(err, "code", None)  # Chroma's errors: code() is the HTTP status they travel as
    if callable(code):
        try:
            value = code()
        except Exception:
            return None
        return value if isinstance(value, int) else None
    return None


def kind_of(err: BaseException) -> str:
    """`refused`: set aside now; `outage`: waited out however long it lasts; `other`: retried for
    `retry_hours`, then set aside."""
    if isinstance(err, REFUSED):
        return "refused"
    if isinstance(err, _outage_types()) or (_http_status(err) or 0) >= 500:
        return "outage"
    return "other"


def _why(err: BaseException) -> str:
    return f"{type(err).__name__}: {err}"


def _id_key(entry_id: bytes | str) -> tuple[int, int]:
    ms, _, seq = (entry_id.decode() if isinstance(entry_id, bytes) else entry_id).partition("-")
    return int(ms), int(seq or 0)


def _before(entry_id: bytes) -> str:
    """The stream id just before `entry_id` (XREADGROUP's history read starts after the id it is given)."""
    ms, seq = _id_key(entry_id)
    if seq:
        return f"{ms}-{seq - 1}"
    return f"{ms - 1}-18446744073709551615" if ms else "0-0"


def _text(value: bytes | None) -> str:
    return value.decode("utf-8", errors="replace") if value else ""


def _iso(ts: float) -> str:
    return datetime.fromtimestamp(ts, tz=timezone.utc).isoformat(timespec="seconds")


# ---- the proxy's side ---------------------------------------------------------------------------


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


# ---- the set-aside entries (any process with a Redis client) ------------------------------------

# move one set-aside entry back onto the queue, as new, if it is still there (two replays at once move it once)
_REPLAY = """
local e = redis.call('XRANGE', KEYS[1], ARGV[1], ARGV[1])
if #e == 0 then return 0 end
local f, user, entries = e[1][2], '', '[]'
for i = 1, #f, 2 do
  if f[i] == 'user' then user = f[i + 1] elseif f[i] == 'entries' then entries = f[i + 1] end
end
redis.call('XADD', KEYS[2], '*', 'user', user, 'entries', entries)
redis.call('XDEL', KEYS[1], ARGV[1])
return 1
"""


def set_aside(r: Any, user: str | None = None, count: int = 10_000) -> list[dict[str, Any]]:
    """The entries set aside (all, or one user's), oldest first: id, user, why, when, and the entries."""
    out = []
    for qid, f in r.xrange(QUARANTINE, count=count):
        who = _text(f.get(b"user"))
        if user is not None and who != user:
            continue
        try:
            entries = json.loads(f.get(b"entries") or b"[]")
        except ValueError:
            entries = _text(f.get(b"entries"))
        out.append({"id": _text(qid), "user": who, "error": _text(f.get(b"error")), "set_aside_at": _text(f.get(b"set_aside_at")),
                    "entry": _text(f.get(b"entry")), "host": _text(f.get(b"host")), "entries": entries})
    return out


def replay(r: Any, user: str | None = None, ids: Sequence[str] | None = None) -> int:
    """Put set-aside entries (all, one user's, or the ones named) back on the queue as new entries;
    returns how many. A host stores them like any other (an entry stored already is stored once)."""
    script = r.register_script(_REPLAY)
    wanted = set(ids) if ids is not None else None
    moved = 0
    for item in set_aside(r, user):
        if wanted is None or item["id"] in wanted:
            moved += int(script(keys=[QUARANTINE, STREAM], args=[item["id"]]))
    if moved:
        log.warning("capture queue: %d set-aside entr%s put back on %s", moved, "y" if moved == 1 else "ies", STREAM)
    return moved


def purge_set_aside(r: Any, older_than_days: float, now: float | None = None) -> int:
    """Delete entries set aside longer ago than `older_than_days` (the message retention); returns how many."""
    cutoff_ms = int(((now if now is not None else time.time()) - older_than_days * 86400) * 1000)
    return int(r.xtrim(QUARANTINE, minid=f"{max(0, cutoff_ms)}-0") or 0)


def forget_set_aside(r: Any, user: str, match: Callable[[str], bool]) -> int:
    """Remove `user`'s set-aside entries that say what `match` finds (a forget's matcher); returns how many."""
    gone = [item["id"] for item in set_aside(r, user) if _says(item["entries"], match)]
    if gone:
        r.xdel(QUARANTINE, *gone)
    return len(gone)


def _says(entries: Any, match: Callable[[str], bool]) -> bool:
    entries = entries if isinstance(entries, list) else [{"command": entries}]
    return any(match(t) for e in entries if isinstance(e, dict) for t in entry_texts(e) if t)


def forget_waiting(r: Any, user: str, match: Callable[[str], bool], count: int = 100_000) -> int:
    """Remove `user`'s entries that say what `match` finds from the queue and from what is set aside
    (a forget asked through REST, MCP or a handle: core/forgetting.py `elsewhere`); returns how many.
    One a host has already taken is stored by it: a forget is of what is held when it is asked."""
    def says(f: dict) -> bool:
        try:
            return _text(f.get(b"user")) == user and _says(json.loads(f.get(b"entries") or b"[]"), match)
        except ValueError:
            return False

    gone = [sid for sid, f in r.xrange(STREAM, count=count) if says(f)]
    if gone:
        r.pipeline(transaction=False).xack(STREAM, GROUP, *gone).xdel(STREAM, *gone).hdel(FAILING, *gone).execute()
    return len(gone) + forget_set_aside(r, user, match)


# ---- a host's side ------------------------------------------------------------------------------


class CaptureConsumer:
    """A host's side: a thread that stores what the stream holds, taking over what dead hosts left.

    `max_attempts` is accepted and unused (deliveries are not counted any more); `retry_hours` and
    `retention_days` default to the Settings defaults (`capture_retry_hours`, `jobs_messages_days`)."""

    def __init__(self, service: Any, url: str, *, claim_idle_s: float = 30.0, batch_max: int = 64, max_attempts: int | None = None,
                 retry_hours: float | None = None, retention_days: float | None = None, max_backoff_s: float = MAX_BACKOFF_S,
                 client: Any = None, clock: Callable[[], float] = time.monotonic, now: Callable[[], float] = time.time):
        import redis

        self.service = service
        self.r = client or redis.Redis.from_url(url, socket_timeout=10, socket_connect_timeout=3)
        self._redis_error = redis.RedisError
        self.name = f"{socket.gethostname()}:{os.getpid()}"
        self.claim_idle_ms = int(claim_idle_s * 1000)
        self.batch_max = batch_max
        self.retry_s = (RETRY_HOURS if retry_hours is None else retry_hours) * 3600
        self.retention_days = RETENTION_DAYS if retention_days is None else retention_days
        self.max_backoff_s = max_backoff_s
        redactor = getattr(service, "redact", None)
        self.redact: Callable[[str], str] = (lambda t: redactor.text(t) or "") if hasattr(redactor, "text") else (lambda t: t)
        self.clock, self.now = clock, now
        self.stored = self.quarantined = 0  # by this host
        self.delay = 0.0  # the current backoff; 0 when the last round was not an outage
        self.until = 0.0  # (clock) no round before this, whatever arrives
        self.down_since: float | None = None  # (wall) when the outage was first seen
        self.last_error: str | None = None
        self._retry: dict[bytes, float] = {}  # entries this host holds: (clock) when each is tried again
        self._hold_s: dict[bytes, float] = {}  # an entry's own backoff while it fails alone
        self._claim_at = 0.0  # (clock) when to look for entries left idle
        self._claim_from = "0-0"  # where the last XAUTOCLAIM pass stopped
        self._purged_at: float | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="amber-capture-queue", daemon=True)

    def start(self) -> "CaptureConsumer":
        # a forget through this host's REST, MCP or a handle also takes what the queue still holds that says it
        getattr(self.service, "forget_elsewhere", []).append(self.forget)
        self._thread.start()
        return self

    def forget(self, user: str, match: Callable[[str], bool]) -> int:
        return forget_waiting(self.r, user, match)

    def stop(self) -> None:
        with contextlib.suppress(ValueError, AttributeError):
            self.service.forget_elsewhere.remove(self.forget)
        self._stop.set()
        self._thread.join(timeout=15)
        self.r.close()

    def status(self) -> dict[str, Any]:
        """For /health: what waits, what fails, what was set aside (by any host), and this host's state."""
        out: dict[str, Any] = {"stored": self.stored, "quarantined_here": self.quarantined}
        try:
            pipe = self.r.pipeline(transaction=False)
            pipe.xlen(STREAM)
            pipe.hlen(FAILING)
            pipe.xlen(QUARANTINE)
            waiting, failing, aside = pipe.execute()
            out.update(waiting=int(waiting), failing=int(failing), quarantined=int(aside))
        except self._redis_error:
            out.update(waiting=None, failing=None, quarantined=None)
        pause = self.until - self.clock()
        out.update(down_since=_iso(self.down_since) if self.down_since else None, last_error=self.last_error,
                   backing_off_s=round(pause, 1) if pause > 0 else 0.0, holding=len(self._retry))
        return out

    def set_aside(self, user: str | None = None) -> list[dict[str, Any]]:
        return set_aside(self.r, user)

    def replay(self, user: str | None = None, ids: Sequence[str] | None = None) -> int:
        return replay(self.r, user, ids)

    # ---- the loop ------------------------------------------------------------------------------

    def _ensure_group(self) -> None:
        try:
            self.r.xgroup_create(STREAM, GROUP, id="0", mkstream=True)
        except self._redis_error as e:
            if "BUSYGROUP" not in str(e):  # the group exists already: every host but the first
                raise

    def _run(self) -> None:
        ready = False
        while not self._stop.is_set():
            pause = self.until - self.clock()
            if pause > 0:  # backing off: new entries wait for the timer
                self._stop.wait(pause)
                continue
            try:
                if not ready:
                    self._ensure_group()
                    ready = True
                    log.info("capture queue: host %s reading %s", self.name, STREAM)
                self._round()
                self._purge()
            except self._redis_error as e:
                ready = False
                self._outage(e)
            except Exception as e:  # the reader must outlive anything one round does
                log.exception("capture queue: a round failed")
                self._outage(e)

    def _round(self) -> None:
        """One round: what this host failed earlier and is due, else entries left idle (a dead
        host's), else new ones."""
        items = self._own_due()
        if not items and self.clock() >= self._claim_at:
            cursor, claimed, *_ = self.r.xautoclaim(STREAM, GROUP, self.name, self.claim_idle_ms, self._claim_from, count=self.batch_max)
            self._claim_from = _text(cursor) or "0-0"
            if self._claim_from == "0-0":  # a whole pass done: the next one in half the idle time
                self._claim_at = self.clock() + self.claim_idle_ms / 2000
            now = self.clock()
            items = [it for it in claimed if self._retry.get(it[0], 0.0) <= now]  # ours, waiting on a timer: left alone
        if not items:
            block = 1000
            if self._retry:
                block = int(max(50, min(1000, (min(self._retry.values()) - self.clock()) * 1000)))
            got = self.r.xreadgroup(GROUP, self.name, {STREAM: ">"}, count=self.batch_max, block=block)
            items = [it for _stream, its in got or [] for it in its]
        if items:
            self._handle(items)

    def _own_due(self) -> list[Item]:
        """Entries this host holds whose timer is up, oldest first, read back from its pending list
        (one another host took over meanwhile is no longer there: it is forgotten here)."""
        now = self.clock()
        due = sorted((i for i, at in self._retry.items() if at <= now), key=_id_key)[: self.batch_max]
        if not due:
            return []
        wanted, last = set(due), _id_key(due[-1])
        out: list[Item] = []
        start: bytes | str = _before(due[0])
        while True:
            got = self.r.xreadgroup(GROUP, self.name, {STREAM: start}, count=self.batch_max)
            page = got[0][1] if got else []
            out += [it for it in page if it[0] in wanted]
            if not page or _id_key(page[-1][0]) >= last:
                break
            start = page[-1][0]
        for i in wanted - {i for i, _ in out}:
            self._let_go(i)
        return out

    # ---- one batch -----------------------------------------------------------------------------

    def _handle(self, items: Sequence[Item]) -> None:
        by_user: dict[str, list[tuple[bytes, list[dict[str, Any]]]]] = {}
        for entry_id, fields in items:
            self._retry.setdefault(entry_id, 0.0)  # in this host's hands until acknowledged
            if not fields:  # deleted while pending: nothing left to store
                self._ack([entry_id])
                continue
            try:
                user, entries = fields[b"user"].decode(), json.loads(fields[b"entries"])
                if not isinstance(entries, list):
                    raise ValueError("not a list of entries")
            except (KeyError, ValueError) as e:
                self._set_aside(entry_id, _text(fields.get(b"user")), _text(fields.get(b"entries")), f"unreadable entry: {e}")
                continue
            by_user.setdefault(user, []).append((entry_id, entries))
        landed, failed, untried, away = 0, [], [], set()
        for user, group in by_user.items():
            if len(away) >= 2 and not landed:  # two users' memory away and nothing stored: an outage
                untried += [(user, one) for one in group]
                continue
            n, fails, rest = self._store_user(user, group)
            landed += n
            failed += [(user, one, err) for one, err in fails]
            untried += [(user, one) for one in rest]
            if not n and any(kind_of(err) == "outage" for _, err in fails):
                away.add(user)
        # an outage: nothing stored and memory unreachable (an entry failing for its own reason holds only itself)
        outage = not landed and any(kind_of(err) == "outage" for *_, err in failed)
        wall = self.now()
        for user, (entry_id, entries), err in failed:
            kind, why = kind_of(err), self.redact(_why(err))
            if kind == "refused":
                self._set_aside(entry_id, user, entries, why)
            elif kind == "other" and wall - self._failing(entry_id, why, wall) >= self.retry_s:
                self._set_aside(entry_id, user, entries, f"{why} (failing for {self.retry_s / 3600:g} h)")
            elif kind == "other" or not outage:  # it, or its user's memory, fails while others are stored: its own timer
                first = entry_id not in self._hold_s
                self._hold(entry_id)
                log.log(logging.WARNING if first else logging.DEBUG, "capture queue: an entry of user=%s not stored (%s); "
                        "tried again in %.0f s", user_hash(user), why, self._hold_s[entry_id])
        for user, (entry_id, _) in untried:
            if not outage and user in away:
                self._hold(entry_id)
        if outage:
            self._outage(next(err for *_, err in failed if kind_of(err) == "outage"))
        elif landed:
            self._recovered(landed)

    def _store_user(self, user: str, group: list[tuple[bytes, list[dict[str, Any]]]]) -> tuple[int, list, list]:
        """One user's entries in one capture; if that fails, one at a time to find those at fault.
        Two failures in a row that are not refusals, with nothing stored, mean the user's memory
        is away: the rest stays untried. Returns (stored, [(entry, error)], untried)."""
        try:
            self._store(user, group)
            return len(group), [], []
        except Exception as e:
            if len(group) == 1:
                return 0, [(group[0], e)], []
        landed, failed, streak = 0, [], 0
        for n, one in enumerate(group):
            try:
                self._store(user, [one])
                landed, streak = landed + 1, 0
            except Exception as e:
                failed.append((one, e))
                if kind_of(e) == "refused":
                    continue
                streak += 1
                if streak >= 2 and not landed:
                    return landed, failed, group[n + 1 :]
        return landed, failed, []

    def _store(self, user: str, group: list[tuple[bytes, list[dict[str, Any]]]]) -> None:
        entries = [e for _, es in group for e in es]
        with background_writes():  # nobody waits for these: they give way to recalls in flight (store/reads_first.py)
            store_entries(self.service, user, entries)
        self._ack([i for i, _ in group])
        self.stored += len(group)
        for e in entries:  # a forget carried out: what was set aside and says it goes too
            says_it = forget_request(str(e.get("command") or "")) if isinstance(e, dict) else None
            if says_it is not None:
                try:
                    if forget_set_aside(self.r, user, says_it):
                        log.info("capture queue: set-aside entries of user=%s removed by a forget", user_hash(user))
                except self._redis_error as err:
                    log.warning("capture queue: set-aside entries not checked for a forget: %s", _why(err))

    # ---- bookkeeping ---------------------------------------------------------------------------

    def _ack(self, ids: Sequence[bytes]) -> None:
        pipe = self.r.pipeline(transaction=False)
        pipe.xack(STREAM, GROUP, *ids)
        pipe.xdel(STREAM, *ids)
        pipe.hdel(FAILING, *ids)
        pipe.execute()
        for i in ids:
            self._let_go(i)

    def _let_go(self, entry_id: bytes) -> None:
        self._retry.pop(entry_id, None)
        self._hold_s.pop(entry_id, None)

    def _hold(self, entry_id: bytes) -> None:
        hold = self._hold_s[entry_id] = min(self.max_backoff_s, max(FIRST_BACKOFF_S, 2 * self._hold_s.get(entry_id, 0.0)))
        self._retry[entry_id] = self.clock() + hold

    def _failing(self, entry_id: bytes, why: str, wall: float) -> float:
        """Record a failure that is not an outage; returns since when the entry has been failing so."""
        try:
            was = json.loads(self.r.hget(FAILING, entry_id) or b"{}")
        except ValueError:
            was = {}
        since = float(was.get("since") or wall)
        self.r.hset(FAILING, entry_id, json.dumps({"since": since, "error": why, "attempts": int(was.get("attempts") or 0) + 1}))
        return since

    def _set_aside(self, entry_id: bytes, user: str, entries: Any, why: str) -> None:
        """Into the quarantine stream, redacted again (an entry from an older proxy, an error that
        quotes the turn), then off the queue."""
        if isinstance(entries, list):
            clean = [self._redacted(e) for e in entries]
            body = json.dumps(clean, ensure_ascii=False, default=str)
        else:
            body = self.redact(str(entries))
        fields = {"user": user, "entries": body, "error": self.redact(why), "entry": entry_id,
                  "set_aside_at": _iso(self.now()), "host": self.name}
        pipe = self.r.pipeline(transaction=True)
        pipe.xadd(QUARANTINE, fields)
        pipe.xack(STREAM, GROUP, entry_id)
        pipe.xdel(STREAM, entry_id)
        pipe.hdel(FAILING, entry_id)
        pipe.execute()
        self._let_go(entry_id)
        self.quarantined += 1
        log.error("capture queue: entry %s of user=%s set aside in %s: %s (replay() puts it back)",
                  _text(entry_id), user_hash(user), QUARANTINE, self.redact(why))

    def _redacted(self, entry: Any) -> Any:
        if not isinstance(entry, dict):
            return self.redact(str(entry))
        out = dict(entry)
        out["messages"] = [{**m, "content": self.redact(m["content"])} if isinstance(m, dict) and isinstance(m.get("content"), str) else m
                           for m in entry.get("messages") or []]
        if isinstance(out.get("command"), str):
            out["command"] = self.redact(out["command"])
        return out

    def _outage(self, err: BaseException) -> None:
        """A round that stored nothing for an outage (or Redis unreachable): back off; log once."""
        self.delay = min(self.max_backoff_s, max(FIRST_BACKOFF_S, self.delay * 2))
        self.until = self.clock() + self.delay
        self.last_error = self.redact(_why(err))
        if self.down_since is None:
            self.down_since = self.now()
            log.warning("capture queue: memory unreachable (%s); entries wait in %s (%d held by this host) and are retried "
                        "with backoff (up to %.0f s) until it is back", self.last_error, STREAM, len(self._retry), self.max_backoff_s)
        else:
            log.info("capture queue: still unreachable; next try in %.0f s (%s)", self.delay, self.last_error)

    def _recovered(self, landed: int) -> None:
        if self.down_since is not None:
            log.warning("capture queue: memory is back after %.0f s (%d entries stored in this round)", self.now() - self.down_since, landed)
        self.delay, self.until, self.down_since, self.last_error = 0.0, 0.0, None, None

    def _purge(self) -> None:
        if self._purged_at is not None and self.clock() - self._purged_at < PURGE_EVERY_S:
            return
        self._purged_at = self.clock()
        gone = purge_set_aside(self.r, self.retention_days, self.now())
        if gone:
            log.info("capture queue: %d set-aside entries older than %g days purged", gone, self.retention_days)

