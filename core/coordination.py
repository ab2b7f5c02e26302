"""What hosts sharing one store agree on: per-user write locks, job leases and scheduled-run claims.

One host (the default) needs nothing outside itself: `LocalCoordination` keeps a reentrant lock
per user in process, and job leases as rows in the store's registry (core/jobs/registry.py).

Several hosts on one Chroma server (`redis_url` set) use `RedisCoordination`:

- **Per-user write lock**: `SET lock NX PX` holding a fencing token (`INCR` of the user's
  counter, then `:` and this process's random id, so tokens stay unique when Redis restarts empty
  and its counters start again). It is reentrant within a thread, taken once per process (threads
  of one host queue on a local lock first), renewed by a watchdog while held, released only by its
  holder (compare and delete). Before every store write the holder checks its token is still the
  lock's value (`check_fence`, one round trip): a host that stalled past the lock's lifetime and
  lost it gets `Busy` instead of writing beside the new holder. Chroma cannot compare tokens
  itself, so a write that left between the check and the store is the remaining window
  (milliseconds against the lifetimes below).
- **Holders that are gone**: each process keeps `amber:alive:<its id>` alive (`alive_ttl_s`, 5 s,
  refreshed every second by the watchdog). A host that finds a user's lock held by a process whose
  key has expired (it died, or was cut off from Redis past that time) takes the lock over at once
  (one script: the holder's key is checked and the lock replaced atomically) instead of waiting
  out its 30 s lifetime; fencing makes that safe: should the old holder still be running, its next
  write is refused. A release Redis did not answer (Redis down or restarting) is retried by the
  watchdog until Redis answers, so a lock does not outlive its holder past Redis's return.
  (Tokens from hosts of an older version carry no id: they are waited out, as before.)
- **Job leases**: `SET NX PX`, renewed and released by compare-and-set scripts.
- **Scheduled runs**: every host's scheduler fires at the same cron time; the first host to claim
  `(job, fire time)` runs it, the others do nothing.

Redis unreachable: writes fail with `StoreUnavailable` (a transient error: chat goes on, captured
turns wait in their queue), recall never touches Redis.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
import uuid
from collections.abc import Sequence
from contextlib import AbstractContextManager
from datetime import datetime, timedelta
from typing import Any, Protocol

from .config import Settings
from .errors import Busy, StoreUnavailable
from .jobs import registry
from .outage import OutageState

log = logging.getLogger("amber.coordination")


class Coordination(Protocol):
    shared: bool  # True when other hosts take part

    def user_lock(self, user_id: str) -> AbstractContextManager[Any]: ...
    def check_fence(self) -> None: ...
    def acquire_lease(self, job: str, owner: str, now: datetime, ttl: timedelta) -> bool: ...
    def renew_lease(self, job: str, owner: str, now: datetime, ttl: timedelta) -> None: ...
    def leases_held(self, jobs: Sequence[str], now: datetime) -> set[str]: ...
    def release_lease(self, job: str, owner: str) -> None: ...
    def claim_slot(self, job: str, slot: str, owner: str, ttl: timedelta) -> bool: ...
    def status(self) -> dict[str, Any]: ...
    def close(self) -> None: ...


class LocalCoordination:
    """One host: locks in process; leases in the store's registry (best effort across hosts that
    share a Chroma server without Redis: write, wait `settle_s`, re-read)."""

    shared = False

    def __init__(self, store: Any, *, settle_s: float = 0.0):
        self.store = store
        self.settle_s = settle_s
        self._locks: dict[str, threading.RLock] = {}
        self._guard = threading.Lock()

    def user_lock(self, user_id: str) -> threading.RLock:
        with self._guard:
            return self._locks.setdefault(user_id, threading.RLock())

    def check_fence(self) -> None:
        pass

    def acquire_lease(self, job: str, owner: str, now: datetime, ttl: timedelta) -> bool:
        return registry.acquire_lease(self.store, job, owner, now, ttl, self.settle_s)

    def renew_lease(self, job: str, owner: str, now: datetime, ttl: timedelta) -> None:
        registry.renew_lease(self.store, job, owner, now, ttl)

    def leases_held(self, jobs: Sequence[str], now: datetime) -> set[str]:
        return registry.leases_held(self.store, jobs, now)

    def release_lease(self, job: str, owner: str) -> None:
        registry.release_lease(self.store, job, owner)

    def claim_slot(self, job: str, slot: str, owner: str, ttl: timedelta) -> bool:
        return True  # one scheduler: each fire time happens once

    def status(self) -> dict[str, Any]:
        return {"shared": False, "ok": True}

    def close(self) -> None:
        pass


# compare-and-set scripts: act on KEYS[1] only while it still holds ARGV[1]
_EXTEND = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) else return 0 end"
_DELETE = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end"
# take KEYS[1] for ARGV[1] (px ARGV[2]) and say this process is alive (KEYS[2], px ARGV[3]); a lock whose
# holder's alive key (ARGV[4] .. its id) has expired is taken over. 1: taken, 2: taken over, 0: held
_TAKE = """
redis.call('set', KEYS[2], '1', 'PX', ARGV[3])
if redis.call('set', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return 1 end
local holder = redis.call('get', KEYS[1])
local id = holder and string.match(holder, '^%d+:(%w+)$')
if id and redis.call('exists', ARGV[4] .. id) == 0 then
  redis.call('set', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 2
end
return 0
"""


class _RedisUserLock:
    """One user's lock in one process: a local reentrant lock, and the Redis lock while held."""

    def __init__(self, coord: "RedisCoordination", user_id: str):
        self.coord = coord
        self.key = coord.key("lock", registry.owner_key(user_id))
        self.fence_key = coord.key("fence", registry.owner_key(user_id))
        self._local = threading.RLock()
        self._depth = 0  # changed only by the thread holding _local
        self.token: str | None = None

    def __enter__(self) -> "_RedisUserLock":
        if not self._local.acquire(timeout=self.coord.lock_wait_s):
            raise Busy("this user's memory is busy with another write on this host; try again")
        if self._depth == 0:
            try:
                self.coord.take(self)
            except BaseException:
                self._local.release()
                raise
        self._depth += 1
        return self

    def __exit__(self, *exc: Any) -> None:
        self._depth -= 1
        try:
            if self._depth == 0:
                self.coord.give_back(self)
        finally:
            self._local.release()


class RedisCoordination:
    """Several hosts: locks, leases and slot claims in Redis (see the module docstring)."""

    shared = True

    def __init__(self, url: str, *, prefix: str = "amber:", lock_ttl_s: float = 30.0, lock_wait_s: float = 20.0,
                 alive_ttl_s: float = 5.0, client: Any = None):
        import redis

        self.prefix = prefix
        self.lock_ttl_ms = int(lock_ttl_s * 1000)
        self.lock_wait_s = lock_wait_s
        self.alive_ttl_ms = int(alive_ttl_s * 1000)
        self.id = uuid.uuid4().hex[:16]  # this process, in its tokens and its alive key
        self.alive_key = self.key("alive", self.id)
        self.r = client or redis.Redis.from_url(url, socket_timeout=5, socket_connect_timeout=3, health_check_interval=30)
        self._redis_error = redis.RedisError
        self.outage = OutageState("Redis")  # one log line when Redis goes away, one when it is back
        self._extend = self.r.register_script(_EXTEND)
        self._delete = self.r.register_script(_DELETE)
        self._take_script = self.r.register_script(_TAKE)
        self._unreleased: dict[str, tuple[str, float]] = {}  # lock key -> (token, when it expires anyway): releases to retry
        self._locks: dict[str, _RedisUserLock] = {}
        self._guard = threading.Lock()
        self._held: set[_RedisUserLock] = set()  # every lock this process holds, renewed by the watchdog
        self._mine = threading.local()  # the locks the current thread holds, for check_fence
        self._stop = threading.Event()
        self._watchdog = threading.Thread(target=self._renew_loop, name="amber-lock-watchdog", daemon=True)
        self._watchdog.start()

    def key(self, *parts: str) -> str:
        return self.prefix + ":".join(parts)

    def _call(self, what: str, fn: Any, *args: Any, **kw: Any) -> Any:
        try:
            out = fn(*args, **kw)
        except self._redis_error as e:
            self.outage.down(f"unreachable while {what}: {type(e).__name__}: {e}")
            raise StoreUnavailable(f"coordination store (Redis) unreachable while {what}: {type(e).__name__}: {e}") from e
        self.outage.up()
        return out

    # ---- per-user write locks --------------------------------------------------------------

    def user_lock(self, user_id: str) -> _RedisUserLock:
        with self._guard:
            lock = self._locks.get(user_id)
            if lock is None:
                lock = self._locks[user_id] = _RedisUserLock(self, user_id)
            return lock

    def take(self, lock: _RedisUserLock) -> None:
        """Take a user's lock in Redis for this process (the calling thread holds the lock's local
        part): its fencing token goes on the lock, and the watchdog renews it until `give_back`."""
        lock.token = self._take(lock.key, lock.fence_key)
        self._held_add(lock)

    def give_back(self, lock: _RedisUserLock) -> None:
        """Release what `take` took; a release Redis does not answer expires by itself."""
        token, lock.token = lock.token, None
        self._held_remove(lock)
        self._give_back(lock.key, token)

    def _take(self, key: str, fence_key: str) -> str:
        token = f"{self._call('taking a write lock', self.r.incr, fence_key)}:{self.id}"
        deadline, pause = time.monotonic() + self.lock_wait_s, 0.002
        args = [token, self.lock_ttl_ms, self.alive_ttl_ms, self.key("alive", "")]
        while not (got := self._call("taking a write lock", self._take_script, keys=[key, self.alive_key], args=args)):
            if time.monotonic() > deadline:
                raise Busy(f"this user's memory is held by another host for more than {self.lock_wait_s:.0f} s; try again")
            time.sleep(pause)
            pause = min(0.1, pause * 2)
        if got == 2:
            log.warning("write lock %s taken over from a holder that is gone (its alive key expired)", key)
        with self._guard:
            self._unreleased.pop(key, None)
        return token

    def _give_back(self, key: str, token: str | None) -> None:
        try:
            self._delete(keys=[key], args=[token])
        except self._redis_error as e:  # the watchdog tries again until Redis answers; at worst it expires
            log.warning("write lock %s not released (%s); released as soon as Redis answers", key, e)
            if token is not None:
                with self._guard:
                    self._unreleased[key] = (token, time.monotonic() + self.lock_ttl_ms / 1000)

    def _holds(self, key: str, token: str) -> bool:
        """Still held with this token: a lock given back since the watchdog listed it was not lost."""
        with self._guard:
            return any(lock.key == key and lock.token == token for lock in self._held)

    def _held_add(self, lock: _RedisUserLock) -> None:
        with self._guard:
            self._held.add(lock)
        self._mine.__dict__.setdefault("locks", []).append(lock)

    def _held_remove(self, lock: _RedisUserLock) -> None:
        with self._guard:
            self._held.discard(lock)
        mine = self._mine.__dict__.get("locks", [])
        if lock in mine:
            mine.remove(lock)

    def check_fence(self) -> None:
        """Before a store write: every lock this thread holds must still carry its token."""
        mine = [lock for lock in self._mine.__dict__.get("locks", []) if lock.token is not None]
        if not mine:
            return
        values = self._call("checking a write lock", self.r.mget, [lock.key for lock in mine])
        for lock, value in zip(mine, values):
            if value is None or value.decode() != lock.token:
                raise Busy("this host lost the user's write lock (it stalled past the lock's lifetime); nothing was written")

    def _renew_loop(self) -> None:
        """Every second: this process is alive (while it holds or took a lock lately), releases Redis
        did not answer are tried again; every third of a lock's lifetime: held locks are renewed."""
        tick = min(1.0, self.alive_ttl_ms / 3000, self.lock_ttl_ms / 3000)
        renew_at, alive_until, down = 0.0, 0.0, False
        while not self._stop.wait(tick):
            now = time.monotonic()
            with self._guard:
                held = [(lock.key, lock.token) for lock in self._held if lock.token]
                unreleased = dict(self._unreleased)
            try:
                if held:
                    alive_until = now + self.lock_ttl_ms / 1000  # and for a lock's lifetime after: a release may be pending
                if now < alive_until or unreleased:
                    self.r.set(self.alive_key, "1", px=self.alive_ttl_ms)
                for key, (token, expires) in unreleased.items():
                    if now < expires:
                        self._delete(keys=[key], args=[token])
                        log.info("write lock %s released now that Redis answers", key)
                    with self._guard:
                        if self._unreleased.get(key, (None,))[0] == token:
                            del self._unreleased[key]
                if now >= renew_at:
                    renew_at = now + self.lock_ttl_ms / 3000
                    for key, token in held:
                        if not self._extend(keys=[key], args=[token, self.lock_ttl_ms]) and self._holds(key, token):
                            log.warning("write lock %s was lost while held; the holder's next write is refused", key)
                if down:
                    log.info("write locks: Redis answers again")
                down = False
            except self._redis_error as e:
                if not down:
                    log.warning("write locks not renewed: Redis unreachable (%s); retried every %.0f s", e, tick)
                down = True

    # ---- job leases and scheduled runs -----------------------------------------------------

    def acquire_lease(self, job: str, owner: str, now: datetime, ttl: timedelta) -> bool:
        ms = int(ttl.total_seconds() * 1000)
        return bool(self._call("taking a job lease", self.r.set, self.key("lease", job), owner, nx=True, px=ms))

    def renew_lease(self, job: str, owner: str, now: datetime, ttl: timedelta) -> None:
        ms = int(ttl.total_seconds() * 1000)
        if not self._call("renewing a job lease", self._extend, keys=[self.key("lease", job)], args=[owner, ms]):
            log.warning("job %s: lease lost by %s while running", job, owner)

    def leases_held(self, jobs: Sequence[str], now: datetime) -> set[str]:
        if not jobs:
            return set()
        held = self._call("reading job leases", self.r.mget, [self.key("lease", j) for j in jobs])
        return {j for j, owner in zip(jobs, held) if owner is not None}

    def release_lease(self, job: str, owner: str) -> None:
        self._call("releasing a job lease", self._delete, keys=[self.key("lease", job)], args=[owner])

    def claim_slot(self, job: str, slot: str, owner: str, ttl: timedelta) -> bool:
        secs = max(1, int(ttl.total_seconds()))
        return bool(self._call("claiming a scheduled run", self.r.set, self.key("slot", job, slot), owner, nx=True, ex=secs))

    def status(self) -> dict[str, Any]:
        """For /health: can this host reach Redis, and how many user locks it holds now."""
        try:
            self.r.ping()
        except self._redis_error as e:
            self.outage.down(f"unreachable: {type(e).__name__}: {e}")
            return {"shared": True, "ok": False, "error": f"Redis unreachable: {type(e).__name__}: {e}"}
        self.outage.up()
        with self._guard:
            return {"shared": True, "ok": True, "locks_held": len(self._held)}

    def close(self) -> None:
        self._stop.set()
        self._watchdog.join(timeout=5)
        with contextlib.suppress(self._redis_error):
            self.r.delete(self.alive_key)  # gone: locks it left are taken over at once
        self.r.close()


def coordination_for(settings: Settings, store: Any) -> LocalCoordination | RedisCoordination:
    """Redis when `redis_url` is set; otherwise in process (registry leases that wait to settle when
    a shared Chroma server may have other hosts)."""
    if settings.redis_url:
        return RedisCoordination(settings.redis_url)
    return LocalCoordination(store, settle_s=0.5 if settings.chroma_url else 0.0)
