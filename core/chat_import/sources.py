"""Opening an export: a ZIP, a folder or one JSON/JSONL file, or Open WebUI's database; which
source each file holds, told from its structure (`mapping` → ChatGPT, `chat_messages` → Claude.ai,
`chat.history` → Open WebUI, JSONL events with `sessionId` → Claude Code, an SQLite file with Open
WebUI's `chat` and `user` tables → its database), never from its name; the conversations of each,
one at a time.
"""

from __future__ import annotations

import io
import json
import re
import shutil
import tempfile
import zipfile
import zlib
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from ..errors import InvalidInput
from . import chatgpt, claude, claude_code, openwebui, openwebui_db
from .jsonstream import first_element, iter_array
from .record import SOURCES, Conversation

PART_RE = re.compile(r"conversations-\d+\.json$")
DB_SUFFIXES = (".db", ".sqlite", ".sqlite3")
MANIFEST = "export_manifest.json"
LINE_MAX = 64 << 20


@dataclass
class Entry:
    """One file of the export: its name inside the export and how to open it (binary)."""

    name: str
    open: Callable[[], IO[bytes]]
    path: Path | None = None  # the file on disk, where one is (SQLite reads files, not streams)


@dataclass
class Part:
    entry: Entry
    source: str  # chatgpt | claude | claude-projects | openwebui | openwebui-db | claude-code


DAMAGED = "is damaged in the ZIP"  # what a file of the export that cannot be read whole says: never "not an export"


class _Member(io.BufferedIOBase):
    """A file inside a ZIP that says it is damaged in words (InvalidInput naming it) where zipfile
    raises its own errors (a bad CRC, cut-off or corrupt compressed data), at whatever read finds it."""

    ERRORS = (zipfile.BadZipFile, zlib.error, EOFError)

    def __init__(self, raw: IO[bytes], name: str):
        self._raw, self._name = raw, name

    def _reading(self, read: Callable[[Any], bytes], n: int | None) -> bytes:
        try:
            return read(n)
        except self.ERRORS as e:
            raise InvalidInput("path", f"{self._name} {DAMAGED} ({str(e)[:120]}); download the export again") from None

    def readable(self) -> bool:
        return True

    def read(self, n: int | None = -1) -> bytes:
        return self._reading(self._raw.read, n)

    def read1(self, n: int = -1) -> bytes:
        return self._reading(self._raw.read1, n)

    def peek(self, n: int = 1) -> bytes:  # lets line reads go a buffer at a time
        return self._reading(self._raw.peek, n)  # type: ignore[attr-defined]

    def close(self) -> None:
        self._raw.close()
        super().close()


def _text(entry: Entry) -> IO[str]:
    return io.TextIOWrapper(entry.open(), encoding="utf-8-sig", errors="strict")


class Export:
    """An export opened for reading; use as a context manager (a nested ZIP is spooled to a temp file)."""

    def __init__(self, path: str | Path, *, name: str | None = None):
        self.path = Path(path)
        self.name = name or self.path.name
        self._stack = ExitStack()
        self.entries: list[Entry] = []

    def __enter__(self) -> Export:
        try:
            self._collect()
        except BaseException:
            self._stack.close()
            raise
        return self

    def __exit__(self, *exc: Any) -> None:
        self._stack.close()

    def _collect(self) -> None:
        p = self.path
        if not p.exists():
            raise InvalidInput("path", f"{p} does not exist")
        if p.is_dir():
            for f in sorted(p.rglob("*")):
                if f.is_file() and f.suffix.lower() in (".json", ".jsonl", *DB_SUFFIXES):
                    self.entries.append(Entry(str(f.relative_to(p)), lambda f=f: open(f, "rb"), f))
                elif f.is_file() and f.suffix.lower() == ".zip":
                    self._zip(f, str(f.relative_to(p)) + "/")
        elif not p.is_file():  # a device, a pipe, a socket: no end to read to (/dev/zero filled memory, a FIFO hung)
            raise InvalidInput("path", f"{p} is not a regular file or a folder")
        elif zipfile.is_zipfile(p):
            self._zip(p, "")
        else:
            self.entries.append(Entry(self.name, lambda: open(p, "rb"), p))

    def _zip(self, path: Path | IO[bytes], prefix: str) -> None:
        try:
            z = self._stack.enter_context(zipfile.ZipFile(path))
        except zipfile.BadZipFile as e:
            raise InvalidInput("path", f"{prefix or self.name} is not a readable ZIP ({e})") from None
        for info in sorted(z.infolist(), key=lambda i: i.filename):
            if info.is_dir():
                continue
            low = info.filename.lower()
            if low.endswith((".json", ".jsonl")):
                self.entries.append(Entry(prefix + info.filename, lambda z=z, i=info, n=prefix + info.filename: _Member(z.open(i), n)))
            elif low.endswith(DB_SUFFIXES):  # a database in a ZIP: SQLite reads a file of its own
                tmp = self._stack.enter_context(tempfile.NamedTemporaryFile(suffix=".db"))
                with _Member(z.open(info), prefix + info.filename) as src:
                    shutil.copyfileobj(src, tmp, 1 << 20)
                tmp.flush()
                self.entries.append(Entry(prefix + info.filename, lambda t=tmp.name: open(t, "rb"), Path(tmp.name)))
            elif low.endswith(".zip"):  # Claude.ai's 2026 download wraps its export in conversations-000.zip
                tmp = self._stack.enter_context(tempfile.TemporaryFile())
                with _Member(z.open(info), prefix + info.filename) as src:
                    shutil.copyfileobj(src, tmp, 1 << 20)
                tmp.seek(0)
                self._zip(tmp, prefix + info.filename + "/")

    # ---- what each file holds --------------------------------------------------------------------

    def parts(self, source: str = "auto") -> list[Part]:
        """The files that hold conversations, with their source; checks a ChatGPT manifest's parts."""
        if source != "auto" and source not in SOURCES:
            raise InvalidInput("source", f"{source!r} is not one of auto, {', '.join(SOURCES)}")
        names = {e.name for e in self.entries}
        for e in self.entries:
            if e.name.rsplit("/", 1)[-1] == MANIFEST:
                self._check_manifest(e, names)
        found: list[Part] = []
        for e in self.entries:
            kind = detect(e)
            if kind is None:
                continue
            if source != "auto" and base_source(kind) != source:
                raise InvalidInput("source", f"{e.name} holds a {kind} export, not {source}")
            found.append(Part(e, kind))
        if not found:
            raise InvalidInput("path", f"no ChatGPT, Claude.ai, Open WebUI or Claude Code conversations found in {self.name}")
        return found

    def _check_manifest(self, e: Entry, names: set[str]) -> None:
        try:
            with _text(e) as f:
                manifest = json.load(f)
        except (ValueError, UnicodeDecodeError) as err:
            raise InvalidInput(e.name, f"is not JSON ({err})") from None
        listed: list[str] = []
        stack = [manifest]
        while stack:
            v = stack.pop()
            if isinstance(v, dict):
                stack.extend(v.values())
            elif isinstance(v, list):
                stack.extend(v)
            elif isinstance(v, str) and PART_RE.search(v):
                listed.append(v)
        folder = e.name[: -len(MANIFEST)]
        have = {n.rsplit("/", 1)[-1] for n in names if n.startswith(folder)}
        missing = sorted({n for n in listed if n.rsplit("/", 1)[-1] not in have})
        if missing:
            raise InvalidInput("path", f"{self.name}: {MANIFEST} lists {len(set(listed))} conversation parts, and "
                                       f"{', '.join(missing)} {'is' if len(missing) == 1 else 'are'} missing; "
                                       f"download the whole export again or put the missing part beside the others")


def _jsonl_kind(e: Entry) -> str | None:
    with e.open() as f:  # a session may open with a summary line: look at its first few lines
        for n, raw in enumerate(f):
            if n >= 20:
                break
            try:
                if raw.strip() and claude_code.is_event(json.loads(raw)):
                    return "claude-code"
            except (ValueError, RecursionError):
                continue
    return None


def base_source(kind: str) -> str:
    """The source a kind of file belongs to (`claude-projects` → claude, `openwebui-db` → openwebui)."""
    return kind.removesuffix("-projects").removesuffix("-db")


def detect(e: Entry) -> str | None:
    """The source a file holds, from its first record; None for anything else (users.json, ...)."""
    with e.open() as f:
        head = f.read(16)
    if openwebui_db.is_sqlite(head):
        return "openwebui-db" if e.path is not None and openwebui_db.is_openwebui(e.path) else None
    try:
        if e.name.lower().endswith(".jsonl"):
            return _jsonl_kind(e)
        with _text(e) as f:
            head = f.read(1)
            while head and head.isspace():
                head = f.read(1)
        if head == "{":
            try:
                with _text(e) as f:
                    value = json.load(f)  # one conversation in a file of its own: small by nature
            except ValueError:  # not one object: JSON lines (a session file uploaded under another name)?
                return _jsonl_kind(e)
        elif head == "[":
            with _text(e) as f:
                value = first_element(f, name=e.name)
        else:
            return None
    except InvalidInput as x:
        if DAMAGED in str(x):
            raise
        return None
    except (ValueError, UnicodeDecodeError, RecursionError):
        return None
    return kind_of(value)


def kind_of(value: Any) -> str | None:
    if chatgpt.is_conversation(value):
        return "chatgpt"
    if claude.is_conversation(value):
        return "claude"
    if openwebui.is_conversation(value):
        return "openwebui"
    if claude.is_project(value):
        return "claude-projects"
    return None


def records(part: Part) -> Iterator[Any]:
    """A JSON part's records, streamed (a single-object file is one record)."""
    e = part.entry
    with _text(e) as f:
        head = f.read(1)
        while head and head.isspace():
            head = f.read(1)
    with _text(e) as f:
        if head == "{":
            try:
                yield json.load(f)
            except (ValueError, RecursionError) as err:
                raise InvalidInput(e.name, f"is not JSON ({str(err)[:200]})") from None
        else:
            yield from iter_array(f, name=e.name)


def jsonl_events(e: Entry) -> Iterator[dict[str, Any]]:
    """A Claude Code session file's events; a broken line (a session cut off mid-write) is skipped."""
    with e.open() as f:
        for raw in f:
            if len(raw) > LINE_MAX or not raw.strip():
                continue
            try:
                ev = json.loads(raw)
            except (ValueError, RecursionError):
                continue
            if isinstance(ev, dict):
                yield ev


def conversations(part: Part, *, openwebui_users: set[str] | None = None) -> Iterator[Conversation]:
    """`openwebui_users`: Open WebUI's chats of these accounts only (None: all)."""
    if part.source == "claude-code":
        yield claude_code.parse(jsonl_events(part.entry), Path(part.entry.name).stem)
        return
    if part.source == "openwebui-db":
        assert part.entry.path is not None
        for i, rec in enumerate(openwebui_db.chats(part.entry.path, openwebui_users)):
            yield openwebui.parse(rec, i)
        return
    parse = {"chatgpt": chatgpt.parse, "claude": claude.parse, "claude-projects": claude.parse_project,
             "openwebui": openwebui.parse}[part.source]
    for i, rec in enumerate(records(part)):
        if not isinstance(rec, dict) or kind_of(rec) != part.source:
            continue
        if part.source == "openwebui" and openwebui_users is not None and openwebui.owner(rec) not in openwebui_users:
            continue
        yield parse(rec, i)


def openwebui_owners(parts: list[Part]) -> dict[str, str | None]:
    """The Open WebUI accounts that own chats in these parts, id -> email where known (one
    streamed pass over an export; the database's `user` table)."""
    owners: dict[str, str | None] = {}
    for p in parts:
        if p.source == "openwebui":
            for rec in records(p):
                if isinstance(rec, dict) and openwebui.owner(rec):
                    owners.setdefault(openwebui.owner(rec) or "", None)
        elif p.source == "openwebui-db" and p.entry.path is not None:
            for uid, email in openwebui_db.accounts(p.entry.path).items():
                owners[uid] = owners.get(uid) or email
    return owners
