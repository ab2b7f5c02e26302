"""Repair of keyed facts left with more than one active version.

Since a supersede writes the new version and retires the old one in one store call, a crash can no
longer leave two active versions; stores written before that (or two hosts racing on one Chroma
server) still may hold them. `repair_keys` retires every version but the newest
(core/supersede.py decides), as the interrupted write would have.

`Repairs` checks every user of the store in a background thread after the host starts. It ran
before the host answered, taking every user's write lock in turn: with 3 000 people on a Chroma
server a second host had not answered its health check after 3 minutes (bench/README.md, "Many
users"). Readers already see one version of each key (`one_active_per_key`), so nothing waits for
the check; a user's lock is taken only when their records show a duplicate, and read again under it.
"""

from __future__ import annotations

import logging
import threading
from typing import Any

from .model import Memory, Status
from .scope import Actor, Scope, memory_where, scope_for
from .supersede import retire_duplicates

log = logging.getLogger("amber.repair")


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


class Repairs:
    """`repair_all` in a thread of its own, started once the host is built; `close` stops it at the
    next user."""

    def __init__(self, service: Any):
        self.service = service
        self.done = threading.Event()
        self.repaired = 0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="amber-repair", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            self.repaired = repair_all(self.service, self._stop)
        except Exception as e:  # the users list itself could not be read (the store away)
            log.warning("could not check the store for duplicate active versions: %s", e)
        finally:
            self.done.set()

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=10)
