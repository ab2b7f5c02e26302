"""The jobs' own records in the store's registry: cursors, extraction windows, leases, run records.

These functions keep their own registry access on purpose: the records are the jobs' bookkeeping,
not a user's memories, so they go straight to a registry (`service.registry`, core/registry.py, a
view that reaches nothing else; or the store itself for the one-host leases core/coordination.py
takes) rather than through the service's write path.

Leases here are the one-host kind (core/coordination.py chooses them, or Redis with several hosts).
"""

from __future__ import annotations

import hashlib
import threading
import time
import uuid
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

from ..registry import RegistryStore


_lease_mutex = threading.Lock()  # makes acquire atomic between workers of one process


def owner_key(user_id: str) -> str:
    return hashlib.sha256(user_id.encode()).hexdigest()[:24]


# ---- cursors and windows ---------------------------------------------------------------------


def get_cursor(store: RegistryStore, job: str, user_id: str) -> dict[str, Any] | None:
    return store.reg_get(f"cursor:{job}:{owner_key(user_id)}")


def set_cursor(store: RegistryStore, job: str, user_id: str, mark: dict[str, Any] | None) -> None:
    if mark is not None:
        store.reg_put(f"cursor:{job}:{owner_key(user_id)}", mark, kind="cursor", owner=owner_key(user_id))


def get_windows(store: RegistryStore, user_id: str) -> list[dict[str, Any]]:
    return list(store.reg_find("window", owner_key(user_id)).values())


def put_window(store: RegistryStore, w: dict[str, Any]) -> None:
    store.reg_put(f"win:{w['id']}", w, kind="window", owner=owner_key(w["user_id"]))


def put_windows(store: RegistryStore, ws: Sequence[dict[str, Any]]) -> None:
    """Several windows of one person in one write (an import plans dozens at a time)."""
    for user in {w["user_id"] for w in ws}:
        store.reg_put_many([(f"win:{w['id']}", w) for w in ws if w["user_id"] == user], kind="window", owner=owner_key(user))


def delete_windows(store: RegistryStore, ids: Sequence[str]) -> None:
    store.reg_delete([f"win:{i}" for i in ids])


# ---- leases ----------------------------------------------------------------------------------


def acquire_lease(store: RegistryStore, job: str, owner: str, now: datetime, ttl: timedelta, settle_s: float = 0.0) -> bool:
    """Take the job's lease unless someone else holds an unexpired one.

    Within a process a mutex makes this exact. Chroma has no compare-and-set, so across processes
    (hosts sharing a Chroma server) it is write, wait `settle_s`, re-read: of two workers that both
    saw the lease free, the last writer wins and the other sees it. Best effort: a rival whose read
    and write are further apart than `settle_s` could still slip through. Several hosts that must
    never overlap set `redis_url` (compare-and-set leases, core/coordination.py)."""
    key = f"lease:{job}"
    with _lease_mutex:
        held = store.reg_get(key)
        if held and held.get("owner") != owner and datetime.fromisoformat(held["expires_at"]) > now:
            return False
        store.reg_put(key, {"owner": owner, "expires_at": (now + ttl).isoformat(), "taken_at": now.isoformat()}, kind="lease")
    if settle_s:
        time.sleep(settle_s)
    held = store.reg_get(key)
    return bool(held) and held.get("owner") == owner


def renew_lease(store: RegistryStore, job: str, owner: str, now: datetime, ttl: timedelta) -> None:
    with _lease_mutex:
        held = store.reg_get(f"lease:{job}")
        if held and held.get("owner") == owner:
            store.reg_put(f"lease:{job}", {**held, "expires_at": (now + ttl).isoformat()}, kind="lease")


def leases_held(store: RegistryStore, jobs: Sequence[str], now: datetime) -> set[str]:
    """The jobs among `jobs` whose lease someone holds (unexpired), as far as one read can tell."""
    found = store.reg_get_many([f"lease:{j}" for j in jobs])
    return {j for j in jobs if (h := found.get(f"lease:{j}")) and datetime.fromisoformat(h["expires_at"]) > now}


def release_lease(store: RegistryStore, job: str, owner: str) -> None:
    with _lease_mutex:
        held = store.reg_get(f"lease:{job}")
        if held and held.get("owner") == owner:
            store.reg_delete([f"lease:{job}"])


# ---- run records -----------------------------------------------------------------------------


def new_run_id(job: str, now: datetime) -> str:
    return f"run_{job}_{now:%Y%m%dT%H%M%S}_{uuid.uuid4().hex[:6]}"


def save_run(store: RegistryStore, record: dict[str, Any]) -> None:
    store.reg_put(f"run:{record['id']}", record, kind="run", owner=record["job"])


def list_runs(store: RegistryStore, limit: int = 20, job: str | None = None) -> list[dict[str, Any]]:
    runs = store.reg_find("run", job)
    return sorted(runs.values(), key=lambda r: (r.get("started_at") or "", r["id"]), reverse=True)[:limit]


def delete_runs(store: RegistryStore, ids: Sequence[str]) -> None:
    store.reg_delete([f"run:{i}" for i in ids])
