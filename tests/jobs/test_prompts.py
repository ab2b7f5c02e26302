"""Golden files for what the models read: a prompt change shows up in review.

Regenerate after a deliberate change with `AMBER_UPDATE_GOLDEN=1 pytest tests/jobs/test_prompts.py`.
"""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime
from pathlib import Path

import pytest

from core import Memory, Message, Role
from core.jobs.consolidation import CONSOLIDATION_SCHEMA, parse_plan
from core.jobs.extraction.parse import FACT_SCHEMA, parse_facts
from core.jobs.extraction.prompt import (
    consolidation_messages,
    extraction_messages,
    prompt_file,
)

GOLDEN = Path(__file__).parent / "golden"
T = datetime(2026, 2, 3, 9, 30, tzinfo=UTC)

WINDOW = [
    Message(id="a1", role=Role.user, content="I moved from Beijing to Shanghai last month.", created_at=T),
    Message(id="a2", role=Role.assistant, content="How do you like Shanghai?", created_at=T.replace(minute=31)),
    Message(id="a3", role=Role.user, content="很好！我现在每天坐地铁上班，周末学做饭。", created_at=T.replace(minute=33)),
]


def render(messages: list[dict[str, str]]) -> str:
    return "\n".join(f"=== {m['role']} ===\n{m['content']}" for m in messages) + "\n"


def check(name: str, text: str) -> None:
    path = GOLDEN / name
    if os.environ.get("AMBER_UPDATE_GOLDEN"):
        path.parent.mkdir(exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert path.exists(), f"missing golden file {path}; run with AMBER_UPDATE_GOLDEN=1"
    assert text == path.read_text(encoding="utf-8"), f"{name} changed; review it and regenerate with AMBER_UPDATE_GOLDEN=1"


def test_extraction_prompt_snapshot():
    messages, refs = extraction_messages(WINDOW)
    assert refs == {"m1": "a1", "m2": "a2", "m3": "a3"}
    check("extract_prompt.txt", render(messages) + "\n=== schema ===\n" + json.dumps(FACT_SCHEMA, indent=1) + "\n")


def test_consolidation_prompt_snapshot():
    mem = Memory(id="k1", content="Lives in Shanghai", user_id="u", created_at=T, updated_at=T)
    messages, refs = consolidation_messages([mem], WINDOW, "2026-02-03", "Lives in Shanghai; commutes by metro.")
    assert refs["m3"] == "a3"
    check("consolidate_prompt.txt", render(messages) + "\n=== schema ===\n" + json.dumps(CONSOLIDATION_SCHEMA, indent=1) + "\n")


def test_examples_are_valid_answers_in_both_languages():
    """The few-shot answers must pass our own strict parser, and the Chinese one must stay Chinese."""
    langs = set()
    for ex in json.loads(prompt_file("extract_examples.json")):
        refs = {m["ref"]: m["ref"] for m in ex["messages"]}
        for fact in parse_facts(json.dumps(ex["output"], ensure_ascii=False), refs):
            langs.add(fact.lang)
            if fact.lang == "zh":
                assert any("\u4e00" <= ch <= "\u9fff" for ch in fact.fact)
    assert langs == {"en", "zh"}
    for ex in json.loads(prompt_file("consolidate_examples.json")):
        msgs = {m["ref"]: Message(id=m["ref"], role=Role(m["role"]), content=m["content"], created_at=T) for m in ex["messages"]}
        plan = parse_plan(json.dumps(ex["output"], ensure_ascii=False), {m["id"] for m in ex["memories"]},
                          {r: r for r in msgs}, msgs)
        assert len(plan.precious) == len(ex["output"]["precious"]), "example quotes must be verbatim"


@pytest.mark.parametrize("name", ["extract.md", "consolidate.md"])
def test_prompts_ask_to_keep_the_language(name):
    text = prompt_file(name).lower()
    assert "language" in text
