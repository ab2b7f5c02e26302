"""An export's conversations into a person's message log: redacted, with their real times and
clients, marked as imported (message retention keeps them, DESIGN §8), idempotent by id.

Every turn's id is `<source>:<message id>` (core/chat_import/record.py), so running the same
import again, or again after a crash, stores only what is not there yet: there is no separate
resume state to keep or to forget. A turn the person made Amber forget has a tombstone under its
id and is skipped, so a cumulative export (ChatGPT's always is) never brings it back.
Turns go in through `MemoryService.ingest` in small batches: each takes the person's write lock
only for its own write, and embeds on the background lane, so live recall and capture go on.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..model import Message, Role, clip
from ..recall.render import estimate_tokens
from ..scope import Scope
from .record import CLIENTS, Conversation, Turn, clean_text
from .sources import Export, conversations, openwebui_owners
from ..errors import InvalidInput

BATCH = 64
WINDOW_SIZE, WINDOW_CHARS, LINE_CHARS = 40, 24_000, 4000  # as extraction cuts the log (core/jobs/extraction)
WINDOW_OVERHEAD_TOKENS = 1800  # the extraction prompt's instructions and examples, and its answer, per window

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

    def as_dict(self) -> dict[str, Any]:
        return {
            "dry_run": self.dry_run, "sources": self.sources, "conversations": self.conversations,
            "conversations_skipped": dict(sorted(self.conversations_skipped.items())), "messages": self.messages,
            "skipped": dict(sorted((k, v) for k, v in self.skipped.items() if v)), "duplicates": self.duplicates,
            "forgotten": self.forgotten, "new": self.would_store, "stored": self.stored,
            "extraction": {"windows": self.extraction_windows, "tokens_estimate": self.extraction_tokens_estimate},
        }


class _Windows:
    """Counts extraction windows and tokens as the log would be cut (an estimate: the real cut runs
    over the whole log in time order)."""

    def __init__(self, report: ImportReport):
        self.r = report
        self.n = self.chars = 0

    def add(self, text: str) -> None:
        line = text[:LINE_CHARS]
        if self.n == 0 or self.n >= WINDOW_SIZE or self.chars + len(text) > WINDOW_CHARS:
            self.r.extraction_windows += 1
            self.r.extraction_tokens_estimate += WINDOW_OVERHEAD_TOKENS
            self.n = self.chars = 0
        self.n += 1
        self.chars += len(text)
        self.r.extraction_tokens_estimate += estimate_tokens(line) + 8  # ref, time and role


def to_message(conv: Conversation, t: Turn) -> Message:
    return Message(id=t.id, role=Role(t.role), content=clip(clean_text(t.text)), client=CLIENTS[conv.source],
                   session=conv.session, created_at=t.created_at, imported=True)


def import_chats(service: Any, scope: Scope, path: str | Path, *, source: str = "auto", dry_run: bool = False,
                 openwebui_user: str | None = None, progress: Progress = lambda e: None, batch: int = BATCH,
                 display_name: str | None = None) -> ImportReport:
    """Import the export at `path` (a ZIP, a folder or a JSON/JSONL file) into `scope`'s message log."""
    report = ImportReport(dry_run=dry_run)
    windows = _Windows(report)
    with Export(path, name=display_name) as export:
        parts = export.parts(source)
        report.sources = sorted({p.source for p in parts})
        if "openwebui" in report.sources and openwebui_user is None:
            owners = openwebui_owners(parts)
            if len(owners) > 1:
                raise InvalidInput("openwebui_user", f"this Open WebUI export holds the chats of {len(owners)} people; "
                                   "import one person's at a time, naming their Open WebUI user id")
        pending: list[Message] = []
        for conv in _all(parts, openwebui_user):
            report.conversations += 1
            report.skipped.update(conv.skipped)
            if conv.skip_all:
                report.conversations_skipped[conv.skip_all] += 1
            else:
                report.messages += len(conv.turns)
                pending.extend(to_message(conv, t) for t in conv.turns)
            if len(pending) >= batch:
                _flush(service, scope, pending, report, windows, dry_run)
                pending = []
                progress({"stage": "batch", **_counts(report)})
        _flush(service, scope, pending, report, windows, dry_run)
    report.skipped["duplicate"] = report.duplicates
    report.skipped["forgotten"] = report.forgotten
    progress({"stage": "done", **_counts(report)})
    return report


def _counts(r: ImportReport) -> dict[str, int]:
    return {"conversations": r.conversations, "messages": r.messages, "stored": r.stored, "duplicates": r.duplicates}


def _all(parts: list[Any], openwebui_user: str | None) -> Iterator[Conversation]:
    for p in parts:
        try:
            yield from conversations(p, openwebui_user=openwebui_user)
        except UnicodeDecodeError as e:
            raise InvalidInput(p.entry.name, f"is not UTF-8 text (byte {e.start + 1} of a read)") from None


def _flush(service: Any, scope: Scope, batch: list[Message], report: ImportReport, windows: _Windows, dry_run: bool) -> None:
    if not batch:
        return
    by_id: dict[str, Message] = {}
    for m in batch:  # the same message in two parts of one export: once
        if m.id in by_id:
            report.duplicates += 1
        by_id[m.id] = m
    ids = list(by_id)
    stored = set(service.reads.turns_by_id(scope, ids))
    buried = service.tombstones.buried(scope.user_id, [i for i in ids if i not in stored])
    report.duplicates += len(stored)
    report.forgotten += len(buried)
    new = [m for i, m in by_id.items() if i not in stored and i not in buried]
    report.would_store += len(new)
    for m in new:
        windows.add(m.content)
    if new and not dry_run:
        report.stored += service.ingest(scope, new)
