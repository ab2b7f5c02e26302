"""Repairs after an interrupted write: keyed facts left with more than one active version, and
vector indexes a crash cut short.

Since a supersede writes the new version and retires the old one in one store call, a crash can no
longer leave two active versions; stores written before that (or two hosts racing on one Chroma
server) still may hold them. `repair_keys` retires every version but the newest
(core/supersede.py decides), as the interrupted write would have.

`Repairs` checks every user of the store in a background thread after the host starts. It ran
before the host answered, taking every user's write lock in turn: with 3 000 people on a Chroma
server a second host had not answered its health check after 3 minutes (bench/README.md, "Many
users"). Readers already see one version of each key (`one_active_per_key`), so nothing waits for
the check; a user's lock is taken only when their records show a duplicate, and read again under it.

A store whose Chroma files Amber can reach sets aside a vector index a crash left cut short
(core/store/index_repair.py) and lists its collection; `revector_all` embeds that person's records
again and gives them their vectors back, first thing in the repair thread and again whenever the
store sets one aside while the host runs.
"""

from __future__ import annotations

import logging
import threading
from typing import Any

from .model import Memory, Status
from .scope import Actor, Scope, memory_where, scope_for, user_key
from .supersede import retire_duplicates

log = logging.getLogger("amber.repair")
RETRY_S = 30.0  # a collection whose vectors could not all be given back is tried again this much later


def keyed_actives(service: Any, scope: Scope, fact_key: str | None = None, namespace: str | None = None) -> list[Memory]:
    """Active keyed memories of a user (of one key in one namespace when given), every namespace."""
    where = memory_where(scope, statuses=[Status.active], namespaces=[namespace] if namespace else None,
                         all_namespaces=namespace is None, fact_key=fact_key)
    found = service.reads.memories(scope, where)
    return [m for m in found if m.fact_key]


def repair_keys(service: Any, scope: Scope) -> int:
    """Retire the older active versions of each key of this user; returns how many were retired."""
    with service.writes.lock(scope):
        retired = retire_duplicates(keyed_actives(service, scope), service.clock.now())
        if retired:
            service.writes.write(scope, retired)
            service.writes.audit(scope, "repair", [m.id for m in retired], reason="more than one active version of a key")
    return len(retired)


def repair_all(service: Any, stop: threading.Event | None = None) -> int:
    """`repair_keys` for every user of the store whose records show a duplicate; a failure is logged
    and leaves the store as it was."""
    total = 0
    for user in service.users():
        if stop is not None and stop.is_set():
            break
        scope = scope_for(Actor(user, via="repair"))
        try:
            if not retire_duplicates(keyed_actives(service, scope), service.clock.now()):
                continue  # read without the lock: nearly everybody
            n = repair_keys(service, scope)
        except Exception as e:  # a repair must never keep the store from opening
            log.warning("could not check user %s for duplicate active versions: %s", user, e)
            continue
        if n:
            log.warning("user %s: retired %d older active version(s) of keyed facts (an interrupted write)", user, n)
        total += n
    return total


def revector_all(service: Any, portability: Any, stop: threading.Event | None = None) -> int:
    """Give back the vectors of every collection the store lists as set aside (core/portability.py);
    returns the records restored. A collection that fails stays listed for the next pass."""
    pending = portability.vectors_pending()
    if not pending:
        return 0
    users = {user_key(u): u for u in service.users()}
    total = 0
    for name in pending:
        if stop is not None and stop.is_set():
            break
        user = users.get(name.rsplit("_", 1)[-1])
        if user is None:
            log.warning("vectors of %s are to be rebuilt, but no user of the store owns it; `amber reindex` rebuilds every user's", name)
            continue
        try:
            n = portability.revector(scope_for(Actor(user, via="repair")), name)
        except Exception as e:  # listed still: the next pass (or the next start) tries again
            log.warning("could not rebuild the vectors of %s (user %s): %s", name, user, e)
            continue
        portability.vectors_rebuilt(name)
        log.warning("user %s: rebuilt the vectors of %d record(s) in %s, whose index a crash had left torn", user, n, name)
        total += n
    return total


class Repairs:
    """`revector_all` then `repair_all` in a thread of its own, started once the host is built; the
    thread then waits for the store to set another index aside. `close` stops it at the next user."""

    def __init__(self, service: Any, portability: Any):
        self.service = service
        self._portability = portability
        self.done = threading.Event()  # the first pass is over
        self.repaired = 0
        self.revectored = 0
        self._stop = threading.Event()
        self._wake = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        self._portability.wake_on_set_aside(self._wake.set)
        self._thread = threading.Thread(target=self._run, name="amber-repair", daemon=True)
        self._thread.start()

    def _revector(self) -> None:
        try:
            self.revectored += revector_all(self.service, self._portability, self._stop)
        except Exception as e:  # the users list itself could not be read (the store away)
            log.warning("could not rebuild the vectors of indexes set aside: %s", e)

    def _run(self) -> None:
        try:
            self._revector()
            self.repaired = repair_all(self.service, self._stop)
        except Exception as e:  # the users list itself could not be read (the store away)
            log.warning("could not check the store for duplicate active versions: %s", e)
        finally:
            self.done.set()
        while not self._stop.is_set():
            self._wake.wait(RETRY_S if self._left() else None)  # a pass cut short (the store away) is tried again
            self._wake.clear()
            if not self._stop.is_set():
                self._revector()

    def _left(self) -> bool:
        try:
            return bool(self._portability.vectors_pending())
        except Exception:  # the store away: try again later
            return True

    def close(self) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=10)
