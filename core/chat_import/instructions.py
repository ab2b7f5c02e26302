"""ChatGPT custom instructions into profile facts, labelled as imported custom instructions.

Every conversation of a ChatGPT export carries the custom instructions as they were then (chatgpt.py
hands them over as `Instructions`). The newest snapshot is what the person last told ChatGPT about
themselves: it becomes two keyed facts, "about me" (category profile) and "how to respond"
(conversation style), each saying that it came from imported ChatGPT custom instructions. Older
snapshots are not written: a keyed fact keeps one active value, and an import of an older export
never supersedes a value dated later (`valid_from` decides, as in extraction).

The snapshot is also kept as a turn under its message id (`chatgpt:<id>`), marked imported, and the
facts name it as their source: a forget of either erases both and leaves a tombstone under that id,
so importing the same (cumulative) export again brings nothing back.
"""

from __future__ import annotations

from typing import Any, Callable

from ..model import Category, MemoryIn, Message, Role, Status, clip
from ..scope import Scope, memory_where
from .record import Instructions, clean_text

LABEL = "From ChatGPT custom instructions (imported)"
FACTS = (  # (what the snapshot field holds, its fact key, category, how the fact is worded)
    ("about", "profile.chatgpt_custom_instructions", Category.profile, "about me"),
    ("respond", "conversation_style.chatgpt_custom_instructions", Category.conversation_style, "how I want answers"),
)


def newest(found: Instructions | None, more: list[Instructions]) -> Instructions | None:
    for x in more:
        if found is None or (x.created_at, x.id) > (found.created_at, found.id):
            found = x
    return found


def as_turn(snap: Instructions) -> Message:
    parts = [f"{LABEL}:"]
    if snap.about:
        parts.append(f"About me: {snap.about}")
    if snap.respond:
        parts.append(f"How I want answers: {snap.respond}")
    return Message(id=snap.id, role=Role.user, content=clip(clean_text("\n".join(parts))), client="chatgpt",
                   session="chatgpt:custom-instructions", created_at=snap.created_at, imported=True)


def keep(service: Any, scope: Scope, snap: Instructions, store_turns: Callable[[Scope, list[Message]], int]) -> dict[str, int]:
    """Write the newest snapshot's facts (and its turn); what happened, counted."""
    out = {"facts": 0, "forgotten": 0, "older": 0}
    if service.tombstones.buried(scope.user_id, [snap.id]):
        out["forgotten"] = 1
        return out
    store_turns(scope, [as_turn(snap)])
    for field_name, key, category, wording in FACTS:
        text = getattr(snap, field_name)
        if not text:
            continue
        current = service.reads.memories(scope, memory_where(scope, statuses=[Status.active], fact_key=key))
        if any(m.valid_from is not None and m.valid_from > snap.created_at for m in current):
            out["older"] += 1  # a later snapshot is already kept: an older export does not roll it back
            continue
        service.remember(scope, MemoryIn(
            content=clip(clean_text(f"{LABEL}, {wording}: {text}"), 4000), category=category, fact_key=key,
            tags=["imported", "chatgpt-custom-instructions"], source_ids=[snap.id], valid_from=snap.created_at,
            importance=0.7))
        out["facts"] += 1
    return out
