"""The prompts the jobs send, built from the files in `prompts/` (snapshot-tested: a change shows in review).

Messages are shown to the model under short refs (m1, m2, ...) rather than their ids: fewer
tokens, and a ref the model invents is caught by the parser instead of pointing somewhere real.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from functools import cache
from importlib import resources
from typing import Any

from ...model import Memory, Message

MAX_MESSAGE_CHARS = 4000


@cache
def prompt_file(name: str) -> str:
    return resources.files(__package__).joinpath("prompts", name).read_text(encoding="utf-8")


def _line(ref: str, role: str, content: str, when: str = "") -> str:
    text = " ".join(content.split())
    if len(text) > MAX_MESSAGE_CHARS:
        text = text[:MAX_MESSAGE_CHARS] + " …"
    return f"{ref}{f' [{when}]' if when else ''} {role}: {text}"


def _dump(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False)


def refs_for(msgs: Sequence[Message]) -> dict[str, str]:
    return {f"m{i}": m.id for i, m in enumerate(msgs, start=1)}


def extraction_messages(msgs: Sequence[Message]) -> tuple[list[dict[str, str]], dict[str, str]]:
    """The chat messages for one window, and the ref -> message id map to parse the answer with."""
    examples = []
    for ex in json.loads(prompt_file("extract_examples.json")):
        convo = "\n".join(_line(m["ref"], m["role"], m["content"]) for m in ex["messages"])
        examples.append(f"Conversation:\n{convo}\nAnswer:\n{_dump(ex['output'])}")
    system = prompt_file("extract.md").rstrip() + "\n\nExamples:\n\n" + "\n\n".join(examples)
    refs = refs_for(msgs)
    convo = "\n".join(
        _line(ref, m.role.value, m.content, f"{m.created_at:%Y-%m-%d %H:%M}") for ref, m in zip(refs, msgs)
    )
    return [{"role": "system", "content": system}, {"role": "user", "content": f"Conversation:\n{convo}\nAnswer:"}], refs


def consolidation_messages(
    memories: Sequence[Memory], msgs: Sequence[Message], day: str, digest: str | None
) -> tuple[list[dict[str, str]], dict[str, str]]:
    examples = []
    for ex in json.loads(prompt_file("consolidate_examples.json")):
        mems = "\n".join(f"{m['id']} ({m['updated']}): {m['content']}" for m in ex["memories"])
        convo = "\n".join(_line(m["ref"], m["role"], m["content"]) for m in ex["messages"])
        examples.append(f"Memories:\n{mems}\nYesterday:\n{convo}\nAnswer:\n{_dump(ex['output'])}")
    system = prompt_file("consolidate.md").rstrip() + "\n\nExamples:\n\n" + "\n\n".join(examples)
    refs = refs_for(msgs)
    mems = "\n".join(f"{m.id} ({m.updated_at:%Y-%m-%d}): {' '.join(m.content.split())}" for m in memories)
    convo = "\n".join(
        _line(ref, m.role.value, m.content, f"{m.created_at:%H:%M}") for ref, m in zip(refs, msgs)
    )
    user = (
        f"Current digest: {digest or '(none)'}\nMemories:\n{mems or '(none)'}\n"
        f"Yesterday ({day}):\n{convo or '(no messages)'}\nAnswer:"
    )
    return [{"role": "system", "content": system}, {"role": "user", "content": user}], refs
