"""The capture journal: every captured exchange is written here first, then stored in the background.

LiteLLM gives a success callback about 20 s before it cancels it, and embedding a long answer can
take longer than that on a busy machine. So capture only appends the exchange to a local file
(flushed and fsynced: once the callback returns, the turn survives a crash) and wakes the drainer.
The drainer (`Spool.drain`, one task per proxy process) takes everything pending, groups it by
user and hands it to the memory backend in batches, so many turns share one embedding call.

- The memory host down: entries stay, the drainer backs off (1 s doubling to 30 s) and retries.
- One entry failing while the backend stores others (within the last 10 minutes): after
  `max_attempts` rounds it moves to `quarantine.ndjson` with the reason, instead of being
  replayed forever; a refusal (permanent error) goes there at once.

Each worker process appends to its own file (`<pid>.jsonl`); the drainer claims its own file, and
the files of processes that are gone, by an atomic rename. Message ids are deterministic, so an
entry stored twice (a crash between storing and forgetting it) is stored once.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import threading
import time
from pathlib import Path
from typing import Any, Awaitable, Callable, Sequence

from core import PermanentError, user_hash

log = logging.getLogger("amber.litellm")

HEALTHY_FOR_S = 600.0
Store = Callable[[str, Sequence[dict[str, Any]]], Awaitable[None]]  # (user, entries) -> None; raises if not stored


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class Spool:
    def __init__(self, directory: Path, *, max_attempts: int = 5, batch_max: int = 64):
        self.dir = Path(directory)
        self.max_attempts = max_attempts
        self.batch_max = batch_max
        self._lock = threading.Lock()  # appends and the claim of our own file never interleave
        self._wake: asyncio.Event | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self.quarantined = 0
        self.healthy_at: float | None = None  # when the backend last stored something

    def _own(self) -> Path:
        return self.dir / f"{os.getpid()}.jsonl"

    # ---- writing ---------------------------------------------------------------------------

    def append(self, entry: dict[str, Any]) -> None:
        """Durably record one exchange (blocking: call it in a thread)."""
        self._write([json.dumps(entry, ensure_ascii=False, default=str)])

    def _write(self, lines: list[str], path: Path | None = None) -> None:
        with self._lock:
            self.dir.mkdir(parents=True, exist_ok=True)
            with open(path or self._own(), "a", encoding="utf-8") as f:
                f.writelines(line + "\n" for line in lines)
                f.flush()
                os.fsync(f.fileno())

    async def put(self, entry: dict[str, Any]) -> None:
        await asyncio.to_thread(self.append, entry)
        self.wake()

    def wake(self) -> None:
        if self._wake is not None and self._loop is not None:
            self._loop.call_soon_threadsafe(self._wake.set)

    def pending(self) -> bool:
        return self.dir.is_dir() and any(self.dir.glob("*.jsonl"))

    # ---- draining --------------------------------------------------------------------------

    def _claim(self) -> list[Path]:
        """Rename our own pending file and those of dead processes to `.replay-<pid>`; return them."""
        if not self.dir.is_dir():
            return []
        me = os.getpid()
        claimed = []
        for path in sorted(self.dir.iterdir()):
            stem, _, suffix = path.name.partition(".")
            if not stem.isdigit():
                continue
            owner = int(stem)
            if suffix == "jsonl":
                if owner != me and _alive(owner):
                    continue  # a live process's file: it drains it itself
                target = path.with_name(f"{stem}.replay-{me}")
            elif suffix.startswith("replay-") and suffix[7:].isdigit() and int(suffix[7:]) != me and not _alive(int(suffix[7:])):
                target = path.with_name(f"{stem}.replay-{me}-{suffix[7:]}")  # a drainer that died mid-round
            elif suffix.startswith(f"replay-{me}"):
                claimed.append(path)  # ours from a round that stopped early
                continue
            else:
                continue
            with self._lock:
                try:
                    os.rename(path, target)
                except OSError:
                    continue
            claimed.append(target)
        return claimed

    async def drain_once(self, store: Store) -> bool:
        """One round: store what is pending. Returns False when the backend seems down (back off)."""
        files = await asyncio.to_thread(self._claim)
        if not files:
            return True
        entries: list[dict[str, Any]] = []
        for path in files:
            for line in path.read_text(encoding="utf-8").splitlines():
                try:
                    entries.append(json.loads(line))
                except ValueError:  # a line cut short by a crash: nothing to recover
                    log.warning("amber spool: unreadable line skipped in %s", path.name)
        keep: list[dict[str, Any]] = []
        failed: list[tuple[dict[str, Any], Exception]] = []
        landed = 0
        by_user: dict[str, list[dict[str, Any]]] = {}
        for e in entries:
            by_user.setdefault(str(e.get("user")), []).append(e)
        healthy = True
        for user, group in by_user.items():
            for i in range(0, len(group), self.batch_max):
                batch = group[i : i + self.batch_max]
                if not healthy:
                    keep.extend(batch)
                    continue
                try:
                    await store(user, batch)
                    landed += len(batch)
                    continue
                except Exception as e:  # sorted out below: a refusal or a failure
                    err = e
                # find the entry that fails, one at a time; two failures in a row with nothing
                # landed means the backend is down, not the entries: keep the rest untried
                streak = 0
                for n, one in enumerate(batch if len(batch) > 1 else []):
                    try:
                        await store(user, [one])
                        landed += 1
                        streak = 0
                    except Exception as e:
                        failed.append((one, e))
                        streak += 1
                        if streak >= 2 and not landed:
                            keep.extend(batch[n + 1 :])
                            healthy = False
                            break
                if len(batch) == 1:
                    failed.append((batch[0], err))
                    healthy = healthy and landed > 0
        if landed:
            self.healthy_at = time.monotonic()
        # the backend stored something lately, so the entries that keep failing are the problem
        recently_healthy = self.healthy_at is not None and time.monotonic() - self.healthy_at < HEALTHY_FOR_S
        quarantine: list[tuple[dict[str, Any], Exception]] = []
        for e, err in failed:
            e["attempts"] = int(e.get("attempts") or 0) + 1
            if isinstance(err, PermanentError) or (recently_healthy and e["attempts"] >= self.max_attempts):
                quarantine.append((e, err))
            else:
                keep.append(e)
        if quarantine:
            lines = [json.dumps({**e, "error": f"{type(err).__name__}: {err}"}, ensure_ascii=False, default=str) for e, err in quarantine]
            await asyncio.to_thread(self._write, lines, self.dir / "quarantine.ndjson")
            self.quarantined += len(quarantine)
            for e, err in quarantine:
                log.error("amber spool: exchange of user=%s set aside after %d attempts: %s: %s",
                          user_hash(str(e.get("user", ""))), e["attempts"], type(err).__name__, err)
        if keep:
            await asyncio.to_thread(self._write, [json.dumps(e, ensure_ascii=False, default=str) for e in keep])
            if failed:
                err = failed[0][1]
                log.warning("amber capture waiting: %d exchanges kept for later (%s: %s)", len(keep), type(err).__name__, err)
        for path in files:
            path.unlink(missing_ok=True)
        return not failed or bool(landed)

    async def drain(self, store: Store, *, idle_s: float = 30.0) -> None:
        """Forever: wait for new entries (or a timer), store them, back off while the backend is down."""
        self._loop = asyncio.get_running_loop()
        self._wake = asyncio.Event()
        delay = 0.0
        while True:
            try:
                await asyncio.wait_for(self._wake.wait(), timeout=delay or idle_s)
            except asyncio.TimeoutError:
                pass
            self._wake.clear()
            try:
                ok = await self.drain_once(store)
            except asyncio.CancelledError:
                raise
            except Exception as e:  # the drainer must outlive anything
                log.warning("amber spool: drain round failed: %s: %s", type(e).__name__, e)
                ok = False
            delay = 0.0 if ok else min(30.0, max(1.0, delay * 2))
