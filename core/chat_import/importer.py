"""An export's conversations into a person's message log: redacted, with their real times and
clients, marked as imported (message retention keeps them, README, Jobs), idempotent by id.

Every turn's id is `<source>:<message id>` (core/chat_import/record.py), so running the same
import again, or again after a crash, stores only what is not there yet: there is no separate
resume state to keep or to forget. A turn the person made Amber forget has a tombstone under its
id and is skipped, so a cumulative export (ChatGPT's always is) never brings it back.
Turns go in through `MemoryService.ingest` in small batches: each takes the person's write lock
only for its own write, and embeds on the background lane, so live recall and capture go on.

Extraction windows for the new turns are planned here, per conversation, marked `imported`: the
extraction job runs them even though the person's cursor is past their dates, dates the facts
from the turns (`valid_from`), and puts an older value into the key's history at its date, never
in front of a newer one (core/jobs/extraction/pipeline.py). A window is planned before its turns are
stored; extraction waits for them, and reads on their own any it had to go without
(core/jobs/extraction/windows.py), so extraction running during an import, or between a crash and
the run that resumes it, reads every turn once.
"""

from __future__ import annotations

import functools
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from ..model import Message, Role, clip
from ..recall.render import estimate_tokens
from ..scope import Scope
from . import instructions as custom
from .record import CLIENTS, Conversation, Instructions, Turn, clean_text
from . import openwebui_db
from .sources import Export, base_source, conversations, openwebui_owners
from ..errors import InvalidInput
from ..jobs import registry as jobs_registry
from ..jobs.extraction import windows as W
from ..jobs.extraction.prompt import extraction_messages

BATCH = 64
YIELD_SHARE = 0.25
LINE_CHARS = 4000  # what extraction shows of one turn (core/jobs/extraction/prompt.py)
ANSWER_TOKENS = 400  # what the model answers for one window, about


@functools.cache
def window_overhead_tokens() -> int:
    """Per window: the extraction prompt's instructions and examples (as sent) and an answer."""
    prompt, _ = extraction_messages([])
    return sum(estimate_tokens(m["content"]) for m in prompt) + ANSWER_TOKENS

Progress = Callable[[dict[str, Any]], None]


@dataclass
class ImportReport:
    dry_run: bool
    sources: list[str] = field(default_factory=list)
    conversations: int = 0  # conversations read
    conversations_skipped: Counter[str] = field(default_factory=Counter)  # reason -> whole conversations left out
    messages: int = 0  # turns on the active threads, eligible to come in
    skipped: Counter[str] = field(default_factory=Counter)  # reason -> messages left out
    duplicates: int = 0  # already in this person's memory
    forgotten: int = 0  # forgotten earlier: never brought back
    stored: int = 0  # turns written by this run (0 in a dry run)
    would_store: int = 0  # turns that are new (what a real run stores)
    extraction_windows: int = 0
    extraction_tokens_estimate: int = 0
    instructions: dict[str, int] = field(default_factory=dict)  # ChatGPT custom instructions: found, facts kept, ...

    def as_dict(self) -> dict[str, Any]:
        return {
            "dry_run": self.dry_run, "sources": self.sources, "conversations": self.conversations,
            "conversations_skipped": dict(sorted(self.conversations_skipped.items())), "messages": self.messages,
            "skipped": dict(sorted((k, v) for k, v in self.skipped.items() if v)), "duplicates": self.duplicates,
            "forgotten": self.forgotten, "new": self.would_store, "stored": self.stored,
            "extraction": {"windows": self.extraction_windows, "tokens_estimate": self.extraction_tokens_estimate},
            "custom_instructions": self.instructions,
        }


def to_message(conv: Conversation, t: Turn, now: datetime | None = None) -> Message:
    """The turn as Amber stores it. A time in the future (a broken export) is taken as `now`: the
    turn's extraction window is planned from the time it is stored with."""
    when = t.created_at if now is None or t.created_at <= now else now
    return Message(id=t.id, role=Role(t.role), content=clip(clean_text(t.text)), client=CLIENTS[conv.source],
                   session=conv.session, created_at=when, imported=True)


def import_chats(service: Any, scope: Scope, path: str | Path, *, source: str = "auto", dry_run: bool = False,
                 openwebui_user: str | None = None, progress: Progress = lambda e: None, batch: int = BATCH,
                 display_name: str | None = None, max_turns: int | None = None,
                 person: Callable[[str], str] | None = None) -> ImportReport:
    """Import the export at `path` (a ZIP, a folder or a JSON/JSONL file, or Open WebUI's database)
    into `scope`'s message log, and plan the extraction windows for what came in. `max_turns`: the
    person's log may not grow past it (Settings.import_max_turns); an import that would is stopped
    with an InvalidInput saying so. `person`: the identity map (Settings.person), which says which
    Open WebUI accounts of a database or export of several people are this person's."""
    report = ImportReport(dry_run=dry_run)
    cap = None if max_turns is None else _Cap(max_turns, service.reads.count(scope, "messages"))
    with Export(path, name=display_name) as export:
        parts = export.parts(source)
        report.sources = sorted({base_source(p.source) for p in parts})
        owui: set[str] | None = None  # the Open WebUI accounts whose chats are this person's (None: every chat)
        if "openwebui" in report.sources:
            found = openwebui_owners(parts)
            if openwebui_user is not None or len(found) > 1:
                owui = openwebui_db.owners_for(found, scope.user_id, person or str, openwebui_user, "this Open WebUI export")
        known = _Planned.of(jobs_registry.get_windows(service.registry, scope.user_id))
        if dry_run:
            known.would_store = set()  # a dry run stores nothing: what it would have stored, for the batches after
        pending: list[list[Message]] = []  # whole conversations: a conversation's windows are cut in one piece
        size = 0
        snap: Instructions | None = None  # the newest custom instructions seen
        for conv in _all(parts, owui):
            report.conversations += 1
            snap = custom.newest(snap, conv.instructions)
            report.skipped.update(conv.skipped)
            if conv.skip_all:
                report.conversations_skipped[conv.skip_all] += 1
            elif conv.turns:
                report.messages += len(conv.turns)
                now = service.clock.now()
                pending.append([to_message(conv, t, now) for t in conv.turns])
                size += len(conv.turns)
            if size >= batch:
                _flush(service, scope, pending, report, known, dry_run, batch, cap)
                pending, size = [], 0
                progress({"stage": "batch", **_counts(report)})
        _flush(service, scope, pending, report, known, dry_run, batch, cap)
    if snap is not None:
        report.instructions = {"snapshots": report.skipped["custom_instructions"], "facts": sum(1 for t in (snap.about, snap.respond) if t)}
        if not dry_run:  # profile facts, labelled as imported custom instructions (instructions.py)
            report.instructions.update(custom.keep(service, scope, snap, service.store_turns))
    report.skipped["duplicate"] = report.duplicates
    report.skipped["forgotten"] = report.forgotten
    progress({"stage": "done", **_counts(report)})
    return report


def _counts(r: ImportReport) -> dict[str, int]:
    return {"conversations": r.conversations, "messages": r.messages, "stored": r.stored, "duplicates": r.duplicates}


def _all(parts: list[Any], openwebui_users: set[str] | None) -> Iterator[Conversation]:
    for p in parts:
        try:
            yield from conversations(p, openwebui_users=openwebui_users)
        except UnicodeDecodeError as e:
            raise InvalidInput(p.entry.name, f"is not UTF-8 text (byte {e.start + 1} of a read)") from None


@dataclass
class _Cap:
    limit: int
    had: int  # turns the person had before this import

    def check(self, report: ImportReport, adding: int) -> None:
        after = self.had + report.would_store + adding
        if after > self.limit:
            done = f"{report.stored} turns were stored before it; " if report.stored else ""
            raise InvalidInput("path", f"this import would bring the person's message log to {after:,} turns or more, past the "
                                       f"limit of {self.limit:,} (setting import_max_turns); {done}raise the limit and run "
                                       "the same import again to go on")


@dataclass
class _Planned:
    """The person's extraction windows, as far as planning needs them: their ids and the turns they hold."""

    ids: set[str]
    turns: set[str]
    would_store: set[str] | None = None  # a dry run's new turns so far (the real run finds them in the store)

    @classmethod
    def of(cls, windows: list[dict[str, Any]]) -> _Planned:
        return cls({w["id"] for w in windows}, {i for w in windows for i in w["message_ids"]})

    def add(self, w: dict[str, Any]) -> None:
        self.ids.add(w["id"])
        self.turns.update(w["message_ids"])


def _flush(service: Any, scope: Scope, convs: list[list[Message]], report: ImportReport, known: _Planned,
           dry_run: bool, batch: int, cap: _Cap | None = None) -> None:
    """Classify a few conversations' turns (already stored, forgotten, new), plan the extraction
    windows that hold new turns, then store the new turns."""
    seen: set[str] = set()
    threads: list[list[Message]] = []
    for turns in convs:
        mine = []
        for m in turns:
            if m.id in seen:  # the same message twice in one export (a conversation in two parts): once
                report.duplicates += 1
                continue
            seen.add(m.id)
            mine.append(m)
        threads.append(mine)
    ids = list(seen)
    if not ids:
        return
    stored = set(service.reads.turns_by_id(scope, ids)) | (known.would_store or set()).intersection(ids)
    # forgotten by id, or said before a forget that named what they say (core/tombstones.py)
    buried = service.tombstones.buried_turns(scope.user_id, [m for thread in threads for m in thread if m.id not in stored])
    report.duplicates += len(stored)
    report.forgotten += len(buried)
    if cap is not None:
        cap.check(report, sum(1 for i in ids if i not in stored and i not in buried))
    new: list[Message] = []
    planned: list[dict[str, Any]] = []
    now = service.clock.now()
    for thread in threads:
        kept = [m for m in thread if m.id not in buried]
        fresh = [m for m in kept if m.id not in stored]
        new.extend(fresh)
        fresh_ids = {m.id for m in fresh}
        # a conversation is cut the same way on every run, so a window planned before a crash is found
        # again by its id (extraction waits for its turns, core/jobs/extraction/windows.py); a window
        # holding no new turn was planned (and run) by an earlier import
        for chunk in W.plan_windows(kept, after=None, backfill=True):
            if not fresh_ids.intersection(m.id for m in chunk):
                continue
            report.extraction_windows += 1
            report.extraction_tokens_estimate += window_overhead_tokens() + sum(
                estimate_tokens(m.content[:LINE_CHARS]) + 8 for m in chunk)  # ref, time and role per line
            w = {**W.new_window(scope.user_id, chunk, now), "imported": True}
            if w["id"] in known.ids:
                # the conversation went on since an earlier export: the new turns at the end of its
                # last window get a window of their own (the earlier one was run without them)
                more = [m for m in chunk if m.id in fresh_ids and m.id not in known.turns]
                if not more:
                    continue
                w = W.following(scope.user_id, w["id"], more, now)
            if not dry_run:
                planned.append(w)
                known.add(w)
    report.would_store += len(new)
    if dry_run:
        if known.would_store is not None:
            known.would_store.update(m.id for m in new)
        return
    if planned:  # before their turns, in one write: a crash between leaves no turn unplanned
        jobs_registry.put_windows(service.registry, planned)
    for i in range(0, len(new), batch):
        started = time.thread_time()
        report.stored += service.store_turns(scope, new[i : i + batch])
        # a background lane: after each batch the import steps aside for a share of the CPU time it
        # took in this process (redaction, the store's writes, which hold the interpreter), so other
        # people's recall and capture get it in between; time spent waiting for the embedding
        # worker, another process, took nothing from them and is not paid back
        time.sleep(min(YIELD_SHARE * (time.thread_time() - started), 1.0))
