"""An import file checked whole before anything of it is written. Pure: no I/O.

An import once wrote 14 memories and then failed on a repeated message id, and accepted what the
REST API refuses (namespace `../../etc`, fact_key `NOT A KEY!!`, three active versions of one key,
content over the limit). Every line is parsed and checked here, with the same rules and limits as
every other way in (core/model.py); the first problem found is an `InvalidInput` whose field is
`line N` and whose message says what is wrong, and the import writes nothing.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from typing import Any, Iterable, Iterator

from pydantic import ValidationError

from .errors import InvalidInput
from .model import (
    DIGEST_MAX_CHARS,
    FACT_KEY_RE,
    MEMORY_MAX_CHARS,
    NAMESPACE_RE,
    Category,
    Event,
    Kind,
    Memory,
    Message,
    Status,
)

EXPORT_VERSION = 1
RECORD_ID_RE = re.compile(r"^[\x21-\x7e]{1,200}\Z")  # printable ASCII, no spaces: ids end up in URLs and logs
_SURROGATE = re.compile("[\ud800-\udfff]")


class JsonLine(dict):
    """One parsed line, remembering its line number in the file (blank lines count)."""

    number: int = 0


# An export nests a few levels; a much deeper value could be stored but never written back (the
# response serializer stops at a few hundred levels, the decoder at about a thousand: both a 500),
# so every way in (an import line here, a request body in mcp_server/body_check.py) refuses it.
JSON_MAX_DEPTH = 64


def json_too_deep(value: Any) -> bool:
    """Whether a parsed JSON value nests arrays or objects deeper than JSON_MAX_DEPTH."""
    stack = [(value, 1)]
    while stack:
        v, depth = stack.pop()
        if isinstance(v, (dict, list)):
            if depth > JSON_MAX_DEPTH:
                return True
            stack.extend((x, depth + 1) for x in (v.values() if isinstance(v, dict) else v))
    return False


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number JSON allows")


def parse_jsonl(lines: Iterable[str | bytes]) -> Iterator[JsonLine]:
    """Objects from JSON lines (an export file or request body, as text or bytes); blank lines
    skipped. A line that is not UTF-8, not JSON, not an object, or holds NaN or a lone surrogate
    is an InvalidInput naming its number."""
    for n, raw in enumerate(lines, start=1):
        if isinstance(raw, bytes):
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as e:
                raise InvalidInput(f"line {n}", f"is not valid UTF-8 (byte {e.start + 1} of the line)") from None
        else:
            text = raw
        if not text.strip():
            continue
        try:
            value = json.loads(text, parse_constant=_no_constant)
        except json.JSONDecodeError as e:
            raise InvalidInput(f"line {n}", f"is not JSON ({e.msg} at column {e.colno})") from None
        except RecursionError:
            raise InvalidInput(f"line {n}", f"nests arrays or objects deeper than {JSON_MAX_DEPTH} levels") from None
        except ValueError as e:
            reason = str(e) if "JSON allows" in str(e) else "is not JSON"
            raise InvalidInput(f"line {n}", reason) from None
        if not isinstance(value, dict):
            raise InvalidInput(f"line {n}", "each line is a JSON object")
        if json_too_deep(value):
            raise InvalidInput(f"line {n}", f"nests arrays or objects deeper than {JSON_MAX_DEPTH} levels")
        where = _surrogate_at(value)
        if where:
            raise InvalidInput(f"line {n}", f"{where} holds a lone surrogate (\\ud800-\\udfff), which is not text")
        line = JsonLine(value)
        line.number = n
        yield line


def _surrogate_at(value: Any, path: str = "") -> str | None:
    if isinstance(value, str):
        return (path or "a value") if _SURROGATE.search(value) else None
    if isinstance(value, dict):
        for k, v in value.items():
            where = _surrogate_at(k, path or "a key") or _surrogate_at(v, f"{path}.{k}" if path else str(k))
            if where:
                return where
    if isinstance(value, list):
        for i, v in enumerate(value):
            where = _surrogate_at(v, f"{path}.{i}" if path else str(i))
            if where:
                return where
    return None


@dataclass
class ImportPlan:
    """What a checked file will write."""

    memories: list[Memory] = field(default_factory=list)
    messages: list[Message] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)


def _short(e: ValidationError) -> str:
    """Pydantic's errors without its links: `field: reason`, the first three."""
    parts = []
    for err in e.errors()[:3]:
        loc = ".".join(str(p) for p in err.get("loc", ())) or "value"
        parts.append(f"{loc}: {err.get('msg', 'invalid')}")
    return "; ".join(parts)


def memory_problem(m: Memory) -> str | None:
    """What makes a stored-form memory one that no face would have written, or None."""
    if not RECORD_ID_RE.match(m.id):
        return f"id {m.id[:60]!r} is not 1-200 printable characters without spaces"
    if not NAMESPACE_RE.match(m.namespace):
        return f"namespace {m.namespace[:80]!r} is not 'default', 'project:<name>' or 'client:<name>'"
    if not m.content.strip():
        return "content is blank"
    limit = DIGEST_MAX_CHARS if m.kind == Kind.digest else MEMORY_MAX_CHARS
    if len(m.content) > limit:
        return f"content has {len(m.content)} characters; a {m.kind.value} holds at most {limit}"
    for name in ("importance", "confidence"):
        v = getattr(m, name)
        if not math.isfinite(v) or not 0 <= v <= 1:
            return f"{name} must be between 0 and 1, got {v}"
    if m.seen_count < 0 or m.hit_count < 0:
        return "seen_count and hit_count cannot be negative"
    if m.kind == Kind.glossary and not m.title:
        return "a glossary entry needs its term as title"
    if m.fact_key:
        if not FACT_KEY_RE.fullmatch(m.fact_key):
            return f"fact_key {m.fact_key[:80]!r} is not '<category>.<topic>' in lowercase, e.g. 'preference.food'"
        prefix = m.fact_key.split(".", 1)[0]
        if prefix not in Category.__members__:
            return f"fact_key {m.fact_key!r} does not start with a category ({', '.join(Category.__members__)})"
        if m.category is not None and m.category.value != prefix:
            return f"fact_key {m.fact_key!r} belongs under category {prefix!r}, not {m.category.value!r}"
    return None


def check_import(user_id: str, lines: Iterable[dict[str, Any]]) -> ImportPlan:
    """Every line checked, then the file as a whole (ids unique, one active version per key)."""
    plan = ImportPlan()
    line_of: dict[tuple[str, str], int] = {}
    active_key: dict[tuple[str, str], int] = {}
    for n, line in enumerate(lines, start=1):
        n = getattr(line, "number", 0) or n
        at = f"line {n}"
        if not isinstance(line, dict):
            raise InvalidInput(at, "each line is a JSON object")
        where = _surrogate_at(line)
        if where:
            raise InvalidInput(at, f"{where} holds a lone surrogate (\\ud800-\\udfff), which is not text")
        kind = line.get("type")
        body = {k: v for k, v in line.items() if k != "type"}
        try:
            if kind == "header":
                if body.get("format") != "amber-export":
                    raise InvalidInput(at, "is not an Amber export header (format must be 'amber-export')")
                version = body.get("version", EXPORT_VERSION)
                if not isinstance(version, int) or version > EXPORT_VERSION:
                    raise InvalidInput(at, f"export version {version!r} is newer than this Amber reads ({EXPORT_VERSION})")
                continue
            if kind == "memory":
                rec: Memory | Message | Event = Memory.model_validate({**body, "user_id": user_id})
                _once(line_of, kind, rec.id, n)
                problem = memory_problem(rec)
                if problem:
                    raise InvalidInput(at, problem)
                plan.memories.append(rec)
                if rec.fact_key and rec.status == Status.active:
                    k = (rec.namespace, rec.fact_key)
                    if k in active_key:
                        raise InvalidInput(at, f"a second active version of {rec.fact_key!r} in {rec.namespace!r} "
                                               f"(line {active_key[k]} is active too); one must be superseded")
                    active_key[k] = n
            elif kind == "message":
                rec = Message.model_validate(body)
                _once(line_of, kind, rec.id, n)
                plan.messages.append(rec)
            elif kind == "event":
                rec = Event.model_validate({**body, "user_id": user_id})
                if not RECORD_ID_RE.match(rec.id) or ":" in rec.id:
                    raise InvalidInput(at, f"event id {rec.id[:60]!r} is not 1-200 printable characters without spaces or ':'")
                _once(line_of, kind, rec.id, n)
                plan.events.append(rec)
            else:
                raise InvalidInput(at, f"unknown line type {str(kind)[:40]!r} (header, memory, message or event)")
        except ValidationError as e:
            raise InvalidInput(at, _short(e)) from None
    return plan


def _once(line_of: dict[tuple[str, str], int], kind: str, rid: str, n: int) -> None:
    if (kind, rid) in line_of:
        raise InvalidInput(f"line {n}", f"{kind} id {rid[:60]!r} repeats line {line_of[(kind, rid)]}")
    line_of[(kind, rid)] = n
