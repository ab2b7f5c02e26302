"""The extraction model's output: its JSON schema and a strict parser. Pure: no I/O.

Anything that does not match the schema exactly (a missing field, an unknown category, a key
outside its category, evidence pointing at a message the window does not hold) is an `LLMError`:
the window is retried on the next run rather than half-understood.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ...errors import LLMError
from ...model import FACT_KEY_RE, Category

KINDS = ("fact", "event", "instruction")
MAX_FACT_CHARS = 500

FACT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "required": ["facts"],
    "properties": {
        "facts": {
            "type": "array",
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": ["fact", "fact_key", "category", "kind", "importance", "confidence", "lang", "evidence"],
                "properties": {
                    "fact": {"type": "string", "minLength": 1, "maxLength": MAX_FACT_CHARS},
                    "fact_key": {"type": ["string", "null"], "pattern": FACT_KEY_RE.pattern},
                    "category": {"type": "string", "enum": [c.value for c in Category]},
                    "kind": {"type": "string", "enum": list(KINDS)},
                    "importance": {"type": "number", "minimum": 0, "maximum": 1},
                    "confidence": {"type": "number", "minimum": 0, "maximum": 1},
                    "lang": {"type": "string", "minLength": 2, "maxLength": 16},
                    "evidence": {"type": "array", "items": {"type": "string"}, "minItems": 1},
                },
            },
        }
    },
}


@dataclass(frozen=True)
class Fact:
    """One fact as the model stated it; `evidence` holds real message ids."""

    fact: str
    fact_key: str | None
    category: str
    kind: str
    importance: float
    confidence: float
    lang: str
    evidence: tuple[str, ...]


def parse_facts(text: str, refs: Mapping[str, str]) -> list[Fact]:
    """Parse the model's answer. `refs` maps the short message refs shown to the model (m1, m2, ...)
    to message ids. Raises LLMError on anything but a well-formed answer."""
    try:
        data = json.loads(strip_fences(text))
    except ValueError as e:
        raise LLMError(f"extraction output is not JSON: {e}") from None
    if not isinstance(data, dict) or set(data) != {"facts"} or not isinstance(data["facts"], list):
        raise LLMError("extraction output must be an object with exactly one field, 'facts' (a list)")
    return [_fact(i, item, refs) for i, item in enumerate(data["facts"])]


def strip_fences(text: str) -> str:
    """Some models wrap JSON in a ``` fence even when asked not to; the fence is not the content."""
    t = text.strip()
    if t.startswith("```"):
        t = t.split("\n", 1)[1] if "\n" in t else ""
        if t.rstrip().endswith("```"):
            t = t.rstrip()[:-3]
    return t.strip()


def _fact(i: int, item: Any, refs: Mapping[str, str]) -> Fact:
    where = f"facts[{i}]"
    props = FACT_SCHEMA["properties"]["facts"]["items"]
    if not isinstance(item, dict):
        raise LLMError(f"{where} is not an object")
    missing = set(props["required"]) - set(item)
    extra = set(item) - set(props["properties"])
    if missing or extra:
        raise LLMError(f"{where}: missing {sorted(missing)}, unexpected {sorted(extra)}")
    fact = item["fact"]
    if not isinstance(fact, str) or not fact.strip() or len(fact) > MAX_FACT_CHARS:
        raise LLMError(f"{where}.fact must be a non-empty string of at most {MAX_FACT_CHARS} characters")
    category = item["category"]
    if category not in Category.__members__:
        raise LLMError(f"{where}.category {category!r} is not one of {', '.join(Category.__members__)}")
    key = item["fact_key"]
    if key is not None:
        if not isinstance(key, str) or not FACT_KEY_RE.fullmatch(key):
            raise LLMError(f"{where}.fact_key {key!r} is not '<category>.<topic>' in lowercase")
        if key.split(".", 1)[0] != category:
            raise LLMError(f"{where}.fact_key {key!r} does not start with its category {category!r}")
    if item["kind"] not in KINDS:
        raise LLMError(f"{where}.kind {item['kind']!r} is not one of {', '.join(KINDS)}")
    nums = {}
    for name in ("importance", "confidence"):
        v = item[name]
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 <= v <= 1:
            raise LLMError(f"{where}.{name} must be a number between 0 and 1")
        nums[name] = float(v)
    lang = item["lang"]
    if not isinstance(lang, str) or not 2 <= len(lang) <= 16:
        raise LLMError(f"{where}.lang must be a language tag such as 'en' or 'zh'")
    evidence = item["evidence"]
    if not isinstance(evidence, list) or not evidence or not all(isinstance(e, str) for e in evidence):
        raise LLMError(f"{where}.evidence must be a non-empty list of message refs")
    unknown = [e for e in evidence if e not in refs]
    if unknown:
        raise LLMError(f"{where}.evidence names messages not in this window: {unknown}")
    return Fact(
        fact=" ".join(fact.split()),
        fact_key=key,
        category=category,
        kind=item["kind"],
        importance=nums["importance"],
        confidence=nums["confidence"],
        lang=lang,
        evidence=tuple(dict.fromkeys(refs[e] for e in evidence)),
    )
