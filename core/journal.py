"""The capture journal on disk: exchanges a proxy has answered, kept until memory has stored them.

`<data_dir>/spool/`, shared by every worker process of one proxy deployment:

- `<pid>.jsonl`             what process <pid> appended, one JSON entry a line, fsynced before the
                            chat's success callback returns (so an answered turn survives a crash)
- `<pid>.replay-<drainer>`  a file a drainer took for its round (an atomic rename)
- `quarantine.ndjson`       entries set aside, each with `error` and `quarantined_at`; nothing replays
                            them by itself: `amber spool replay` moves them back, and they are purged
                            after the message retention and by a forget
- `<pid>.state.json`        what a drainer is up against (a backoff, the last error), while it is
- `.full`                   why new entries are refused, while they are (the journal's budget, a full disk)

Each file is in journal order (a drainer puts what it did not store back ahead of what arrived
meanwhile). An append takes a shared `flock` on the directory; anything that moves or rewrites lines takes it
exclusive, so no line is lost between a rename and a late append.

An entry is `{"user", "client", "command", "messages": [Message as JSON], "spooled_at"}`; once it
has failed it also carries `attempts`, `failing_since`, `error` (and `retry_at`, `backoff` while it
waits alone). Only redacted text is written here: the hook redacts a turn before it appends it, and
what is set aside is redacted again on the way into the quarantine, error text included.

With a master key (encryption at rest), every line of these files is sealed (AES-GCM under a key
derived from it, `core.store.sealing.LineSeal`): the words of a waiting or set-aside turn are not
on disk in the clear, and a forget rewrites the files without the entries that say it. Lines
written before the key was set are read as they are and sealed when next rewritten; a journal
sealed under a key this process lacks is refused by name (`SealedJournal`), never dropped.

The journal has its own disk budget (`spool_max_mb`): when it is used up, a new entry is refused
(`append` returns False, the log says so once) and nothing already journaled is dropped.

This module is the journal's files only; the drainer that stores entries (batches, backoff, what
is set aside and when) is the proxy's (`litellm_hooks/spool.py`).
"""

from __future__ import annotations

import contextlib
import fcntl
import heapq
import json
import logging
import os
import time
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

from .store.sealing import PREFIX as SEALED
from .store.sealing import LineSeal, MasterKeyError

log = logging.getLogger("amber.capture")

QUARANTINE = "quarantine.ndjson"
FULL = ".full"  # a process found the journal full (its pid and why); gone once there is room again
# what failing leaves on an entry; a replayed entry starts afresh
FAILURE_FIELDS = ("attempts", "failing_since", "error", "retry_at", "backoff", "quarantined_at")


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def dumps(entry: dict[str, Any]) -> str:
    return json.dumps(entry, ensure_ascii=False, default=str)


def entry_texts(entry: dict[str, Any]) -> list[str]:
    texts = [str(m.get("content") or "") for m in entry.get("messages") or [] if isinstance(m, dict)]
    return [*texts, str(entry.get("command") or "")]


class SealedJournal(RuntimeError):
    """The journal holds lines sealed under a master key this process does not have (none, or
    another one). Nothing is dropped: the operation stops and says so."""


def megabytes(n: int) -> str:
    return f"{n / 1e6:.1f} MB" if n >= 100_000 else f"{n / 1e3:.1f} kB"


def _iso(ts: float) -> str:
    return datetime.fromtimestamp(ts, tz=timezone.utc).isoformat(timespec="seconds")


def _epoch(value: Any) -> float | None:
    if isinstance(value, (int, float)):
        return float(value)
    try:
        return datetime.fromisoformat(str(value)).timestamp()
    except ValueError:
        return None


def _append(path: Path, lines: Sequence[str]) -> None:
    """Append whole lines and fsync; a write cut short (a full disk) is cut back off, so the next
    append never glues onto half a line."""
    data = "".join(line + "\n" for line in lines).encode()
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    try:
        start = os.fstat(fd).st_size
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            os.fsync(fd)
        except OSError:
            with contextlib.suppress(OSError):
                os.ftruncate(fd, start)
            raise
    finally:
        os.close(fd)


def _replace(path: Path, lines: Sequence[str]) -> None:
    """Rewrite a file whole (a temporary file renamed over it): a crash leaves the old or the new one."""
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.unlink(missing_ok=True)
    if lines:
        _append(tmp, lines)
        os.replace(tmp, path)
    else:
        path.unlink(missing_ok=True)


def _stamp(path: Path) -> tuple[int, int, int] | None:
    try:
        st = path.stat()
    except FileNotFoundError:
        return None
    return st.st_ino, st.st_size, st.st_mtime_ns


@dataclass
class Taken:
    """What a drainer took for one round."""

    files: list[Path]  # the claimed files
    stamps: dict[Path, tuple[int, int, int] | None]  # as they were read: a forget that rewrites one changes its stamp
    entries: list[dict[str, Any]]  # the oldest entries, in journal order
    lines: dict[int, str]  # each entry's line as read (by id of the entry)
    rest: list[str]  # the lines not taken this round
    more: bool = False  # some of them are due: another round at once
    next_due: float | None = None  # when the first entry waiting on its own timer is due


class Journal:
    def __init__(self, directory: Path | str, *, max_bytes: int | None = None, now: Callable[[], float] = time.time,
                 master_key: bytes | None = None):
        self.dir = Path(directory)
        self._seal = LineSeal(master_key, "journal") if master_key else None
        self.max_bytes = max_bytes
        self.now = now  # wall-clock seconds: entries keep their times across restarts
        self.full: str | None = None  # why new entries are refused right now (this process)
        self.refused = 0  # entries refused because the journal was full or unwritable (this process)

    def _own(self) -> Path:
        return self.dir / f"{os.getpid()}.jsonl"

    def dumps(self, entry: dict[str, Any]) -> str:
        """One line of the journal's files: the entry as JSON, sealed when there is a master key."""
        line = dumps(entry)
        return self._seal.seal(line) if self._seal is not None else line

    def loads(self, line: str) -> Any:
        """The entry a line holds. ValueError for a line cut short by a crash; SealedJournal for a
        sealed line this process cannot open."""
        if line.startswith(SEALED):
            if self._seal is None:
                raise SealedJournal(f"{self.dir} holds turns sealed under a master key: set AMBER_MASTER_KEY (or master_key_file) to read it")
            try:
                line = self._seal.open(line)
            except MasterKeyError:
                raise SealedJournal(f"{self.dir} holds turns sealed under another master key than the one given") from None
        return json.loads(line)

    @property
    def quarantine_path(self) -> Path:
        return self.dir / QUARANTINE

    @contextlib.contextmanager
    def locked(self, exclusive: bool = True) -> Iterator[None]:
        self.dir.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd = os.open(self.dir, os.O_RDONLY)  # the directory itself: no lock file left behind
        try:
            fcntl.flock(fd, fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH)
            yield
        finally:
            os.close(fd)  # releases the lock

    # ---- writing ---------------------------------------------------------------------------

    def append(self, entry: dict[str, Any]) -> bool:
        """Durably record one exchange (blocking: call it in a thread). False when it was not kept:
        the journal is at its budget, or the disk refused the write."""
        line = self.dumps({**entry, "spooled_at": entry.get("spooled_at") or self.now()})
        try:
            with self.locked(exclusive=False):
                if self.max_bytes is not None:
                    used = self.size()
                    if used + len(line) + 1 > self.max_bytes:
                        self._set_full(f"the journal holds {megabytes(used)} of its {megabytes(self.max_bytes)} budget")
                        return False
                _append(self._own(), [line])
        except OSError as e:
            self._set_full(f"the journal cannot be written: {e.strerror or e}")
            return False
        self._set_full(None)
        return True

    def _set_full(self, why: str | None) -> None:
        if why is not None:
            self.refused += 1
        if (why is None) == (self.full is None):
            return
        marker = self.dir / FULL
        with contextlib.suppress(OSError):  # for `amber spool status` in another process
            _replace(marker, [self.dumps({"pid": os.getpid(), "why": why})] if why else [])
        if why:
            log.error("amber capture journal full at %s: %s; new turns are not kept until memory stores what "
                      "waits (see `amber spool status`; the budget is spool_max_mb)", self.dir, why)
        else:
            log.warning("amber capture journal has room again at %s: new turns are kept (%d were not)", self.dir, self.refused)
            self.refused = 0
        self.full = why

    def size(self) -> int:
        if not self.dir.is_dir():
            return 0
        total = 0
        for item in os.scandir(self.dir):
            with contextlib.suppress(OSError):
                if item.is_file():
                    total += item.stat().st_size
        return total

    # ---- the files -------------------------------------------------------------------------

    def _pending_files(self) -> list[Path]:
        if not self.dir.is_dir():
            return []
        out = []
        for path in sorted(self.dir.iterdir()):
            stem, _, suffix = path.name.partition(".")
            if stem.isdigit() and (suffix == "jsonl" or suffix.startswith("replay-")):
                out.append(path)
        return out

    def pending(self) -> bool:
        return bool(self._pending_files())

    def read(self, paths: Sequence[Path]) -> list[dict[str, Any]]:
        entries: list[dict[str, Any]] = []
        for path in paths:
            try:
                text = path.read_text(encoding="utf-8")
            except FileNotFoundError:
                continue
            for line in text.splitlines():
                try:
                    entry = self.loads(line)
                except ValueError:  # a line cut short by a crash: nothing to recover
                    log.warning("amber spool: unreadable line skipped in %s", path.name)
                    continue
                if isinstance(entry, dict):
                    entries.append(entry)
        return entries

    def _claimable(self, path: Path) -> bool | None:
        """Whose is a pending file? True: this process's to take (its own, or a process's that is
        gone); None: this process took it already (a round that stopped early); False: a live
        process's (it drains its own)."""
        me = os.getpid()
        stem, _, suffix = path.name.partition(".")
        if suffix == "jsonl":
            return int(stem) == me or not alive(int(stem))
        drainer = suffix.removeprefix("replay-").partition("-")[0]
        if not drainer.isdigit():
            return False
        if int(drainer) == me:
            return None
        return not alive(int(drainer))  # a drainer that died mid-round left it

    def claim(self) -> list[Path]:
        """Rename our own pending file and those of processes that are gone to `.replay-<pid>`; return them."""
        if not self.dir.is_dir():
            return []
        me = os.getpid()
        claimed = []
        with self.locked():
            for path in self._pending_files():
                whose = self._claimable(path)
                if whose is None:
                    claimed.append(path)
                    continue
                if not whose:
                    continue
                stem, _, suffix = path.name.partition(".")
                target = path.with_name(f"{stem}.replay-{me}" if suffix == "jsonl" else f"{stem}.replay-{me}-{suffix[7:]}")
                if target.exists():  # ours from a round that stopped early holds the same name: keep both
                    target = target.with_name(f"{target.name}-{time.monotonic_ns()}")
                try:
                    os.rename(path, target)
                except OSError:
                    continue
                claimed.append(target)
            for state in self.dir.glob("*.state.json"):  # drainers that are gone
                pid = state.name.partition(".")[0]
                if pid.isdigit() and int(pid) != me and not alive(int(pid)):
                    state.unlink(missing_ok=True)
        return claimed

    def peek(self) -> dict[str, Any] | None:
        """The oldest entry this process would take, read in place (each file is in journal order):
        a drainer asks memory with it whether an outage is over before it touches the journal."""
        heads = []
        with self.locked(exclusive=False):
            for path in self._pending_files():
                if self._claimable(path) is False:
                    continue
                with contextlib.suppress(OSError), open(path, encoding="utf-8") as f:
                    for line in f:
                        with contextlib.suppress(ValueError):
                            entry = self.loads(line)
                            if isinstance(entry, dict):
                                heads.append(entry)
                                break
        return min(heads, key=lambda e: float(e.get("spooled_at") or 0), default=None)

    def take(self, n: int, held: Callable[[dict[str, Any]], float | None] = lambda e: None) -> Taken | None:
        """Claim what is pending and read the `n` oldest entries that are due (in journal order); the
        rest stay lines as they are, so a long journal costs its size on disk, not in memory. `held`
        tells when an entry waiting on its own timer is due (None: now)."""
        files = self.claim()
        if not files:
            return None
        stamps = {p: _stamp(p) for p in files}
        kept: list[tuple[float, int, str, dict[str, Any]]] = []  # a heap of the n oldest, newest on top
        rest: list[str] = []
        seq, more, next_due = 0, False, None
        for path in files:
            with contextlib.suppress(FileNotFoundError), open(path, encoding="utf-8") as f:
                for line in f:
                    line = line.rstrip("\n")
                    try:
                        entry = self.loads(line)
                        if not isinstance(entry, dict):
                            raise ValueError
                    except ValueError:  # a line cut short by a crash: nothing to recover
                        log.warning("amber spool: unreadable line skipped in %s", path.name)
                        continue
                    due = held(entry)
                    if due is not None:
                        rest.append(line)
                        next_due = due if next_due is None else min(next_due, due)
                        continue
                    seq += 1
                    item = (-float(entry.get("spooled_at") or 0), -seq, line, entry)
                    if len(kept) < n:
                        heapq.heappush(kept, item)
                        continue
                    more = True
                    rest.append(heapq.heapreplace(kept, item)[2] if item > kept[0] else line)
        ordered = sorted(kept, reverse=True)
        return Taken(files, stamps, [e for *_, e in ordered], {id(e): line for _, _, line, e in ordered}, rest, more, next_due)

    def settle(self, taken: Taken, keep: list[dict[str, Any]], aside: list[dict[str, Any]]) -> tuple[list, list]:
        """End a round: `keep` and the lines not taken go back to the journal ahead of what arrived
        meanwhile (so it stays in order), `aside` to the quarantine, the claimed files go. An entry a
        forget removed from the claimed files meanwhile is dropped."""
        rest = taken.rest
        with self.locked():
            if any(_stamp(p) != taken.stamps[p] for p in taken.files):  # a forget rewrote them meanwhile
                present = {hash(line) for p in taken.files if p.exists() for line in p.read_text(encoding="utf-8").splitlines()}
                keep = [e for e in keep if hash(taken.lines[id(e)]) in present]
                aside = [e for e in aside if hash(taken.lines[id(e)]) in present]
                rest = [line for line in rest if hash(line) in present]
            if aside:
                _append(self.quarantine_path, [self.dumps(e) for e in aside])
            if keep or rest:  # outside the budget: it was journaled already
                own = self._own()
                arrived = own.read_text(encoding="utf-8").splitlines() if own.exists() else []
                _replace(own, [*(self.dumps(e) for e in keep), *rest, *arrived])
            for path in taken.files:
                path.unlink(missing_ok=True)
        return keep, aside

    # ---- the quarantine --------------------------------------------------------------------

    def quarantined(self) -> list[dict[str, Any]]:
        return self.read([self.quarantine_path])

    def replay(self, user: str | None = None) -> int:
        """Move set-aside entries (all, or one user's) back to the journal, as new; returns how many.
        They go to this process's file: a running drainer takes it once this process has ended
        (`amber spool replay`), or at once when the drainer's own process calls this."""
        with self.locked():
            entries = self.quarantined()
            back = [e for e in entries if user is None or str(e.get("user")) == user]
            if not back:
                return 0
            fresh = [{k: v for k, v in e.items() if k not in FAILURE_FIELDS} for e in back]
            _append(self._own(), [self.dumps(e) for e in fresh])
            _replace(self.quarantine_path, [self.dumps(e) for e in entries if user is not None and str(e.get("user")) != user])
        return len(back)

    def purge_quarantine(self, older_than: timedelta) -> int:
        """Delete entries set aside longer ago than `older_than` (the message retention); returns how many."""
        if not self.quarantine_path.exists():
            return 0
        now = self.now()
        cutoff = now - older_than.total_seconds()
        with self.locked():
            entries = self.quarantined()
            kept, stamped = [], False
            for e in entries:
                at = _epoch(e.get("quarantined_at"))
                if at is None:  # set aside before times were kept: its retention starts now
                    e["quarantined_at"], stamped = _iso(now), True
                    at = now
                if at >= cutoff:
                    kept.append(e)
            if len(kept) != len(entries) or stamped:
                _replace(self.quarantine_path, [self.dumps(e) for e in kept])
        if len(kept) != len(entries):
            log.info("amber spool: %d exchange(s) set aside more than %s ago purged", len(entries) - len(kept), older_than)
        return len(entries) - len(kept)

    def forget(self, user: str, match: Callable[[str], bool]) -> int:
        """Remove `user`'s waiting and set-aside exchanges that say what `match` finds (core's forget
        matcher, applied to each message and the command); returns how many. A drainer's round in
        progress drops them too (it re-reads its files before it writes anything back)."""
        removed = 0
        with self.locked():
            for path in [*self._pending_files(), self.quarantine_path]:
                lines = path.read_text(encoding="utf-8").splitlines() if path.exists() else []
                kept = []
                for line in lines:
                    try:
                        e = self.loads(line)
                    except ValueError:
                        kept.append(line)
                        continue
                    if isinstance(e, dict) and str(e.get("user")) == user and any(match(t) for t in entry_texts(e) if t):
                        removed += 1
                    else:
                        kept.append(line)
                if len(kept) != len(lines):
                    _replace(path, kept)
        return removed

    # ---- what is going on ------------------------------------------------------------------

    def write_state(self, state: dict[str, Any]) -> None:
        """A drainer's news (a backoff, an error); nothing to say removes the file."""
        with contextlib.suppress(OSError):
            self.dir.mkdir(mode=0o700, parents=True, exist_ok=True)
            news = any(v is not None for k, v in state.items() if k != "updated_at")
            _replace(self.dir / f"{os.getpid()}.state.json", [self.dumps({"pid": os.getpid(), **state})] if news else [])

    def states(self) -> list[dict[str, Any]]:
        """The live drainers' states."""
        out = []
        for path in sorted(self.dir.glob("*.state.json")) if self.dir.is_dir() else []:
            pid = path.name.partition(".")[0]
            if pid.isdigit() and alive(int(pid)):
                out += self.read([path])
        return out

    def _full_elsewhere(self) -> str | None:
        for marker in self.read([self.dir / FULL]):
            pid = marker.get("pid")
            if isinstance(pid, int) and pid > 0 and alive(pid):
                return str(marker.get("why"))
        return None

    def status(self) -> dict[str, Any]:
        """What waits, what was set aside, and why, from the files (any process may ask)."""
        now = self.now()
        pending = self.read(self._pending_files())
        aside = self.quarantined()
        states = self.states()
        spooled = [t for t in (_epoch(e.get("spooled_at")) for e in pending) if t is not None]
        failing = [e for e in pending if e.get("error")]
        last = max(failing, key=lambda e: _epoch(e.get("failing_since")) or 0, default=None)
        until = max((s["backing_off_until"] for s in states if s.get("backing_off_until")), default=None)
        size = self.size()
        return {
            "dir": str(self.dir),
            "pending": len(pending),
            "failing": len(failing),
            "oldest_pending_age_s": round(now - min(spooled), 1) if spooled else None,
            "last_error": next((s["last_error"] for s in states if s.get("last_error")), None) or (last or {}).get("error"),
            "backing_off_until": _iso(until) if until and until > now else None,
            "quarantined": len(aside),
            "last_quarantined": (aside[-1].get("error"), aside[-1].get("quarantined_at")) if aside else None,
            "bytes": size,
            "max_bytes": self.max_bytes,
            "full": self.full or self._full_elsewhere()
            or (f"{megabytes(size)} of {megabytes(self.max_bytes)}" if self.max_bytes is not None and size >= self.max_bytes else None),
        }
