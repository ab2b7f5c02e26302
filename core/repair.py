"""Repair of keyed facts left with more than one active version.

Since a supersede writes the new version and retires the old one in one store call, a crash can no
longer leave two active versions; stores written before that (or two hosts racing on one Chroma
server) still may hold them. `repair_keys` retires every version but the newest
(core/supersede.py decides), as the interrupted write would have; `build_service` runs it for
every user when it opens the store.
"""

from __future__ import annotations

import logging
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


def repair_all(service: Any) -> int:
    """`repair_keys` for every user of the store; a failure is logged and leaves the store as it was."""
    total = 0
    for user in service.users():
        try:
            n = repair_keys(service, scope_for(Actor(user, via="repair")))
        except Exception as e:  # a repair must never keep the store from opening
            log.warning("could not check user %s for duplicate active versions: %s", user, e)
            continue
        if n:
            log.warning("user %s: retired %d older active version(s) of keyed facts (an interrupted write)", user, n)
        total += n
    return total
