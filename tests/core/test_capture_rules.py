"""The rules a captured turn goes through hold on every path into memory, the Redis capture queue's
included (it calls the service directly, with no face in front): an echoed memory block is not
stored as if someone had said it, a turn that was only a block is dropped, a retried turn counts once."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from core import InvalidInput, Message, store_entries
from core.recall.render import render_forget_note

WHEN = "2026-03-04T10:00:00+00:00"


def turn(i: str, role: str, content: str) -> dict:
    return {"id": i, "role": role, "content": content, "session": "s1", "created_at": WHEN}


def stored(service, scope) -> dict[str, str]:
    return {m.id: m.content for m in service.messages(scope)}


def test_the_queue_path_strips_echoed_memory_blocks(service, alice):
    block = render_forget_note("my old address", 1, 0)
    assert block.startswith("<memory_context>")
    entries = [{"messages": [turn("u1", "user", f"{block}\n\nWhat should I cook tonight?"),
                             turn("u2", "user", block),  # nothing but the echoed block
                             turn("a1", "assistant", "How about dumplings?")]}]
    store_entries(service, "alice", entries)
    assert stored(service, alice) == {"u1": "What should I cook tonight?", "a1": "How about dumplings?"}
    assert not any("Background from Amber" in c for c in stored(service, alice).values())


def test_a_retried_entry_counts_once_and_one_request_may_not_repeat_an_id(service, alice):
    first = {"messages": [turn("u1", "user", "Hello there"), turn("a1", "assistant", "Hi!")]}
    store_entries(service, "alice", [first, first])  # a proxy's retry queued the same exchange twice
    assert stored(service, alice) == {"u1": "Hello there", "a1": "Hi!"}
    with pytest.raises(InvalidInput) as e:
        service.capture(alice, [_msg("u2", "Hello again"), _msg("u2", "Hello again")])
    assert e.value.field == "messages"
    assert "u2" not in stored(service, alice)


def _msg(i: str, content: str) -> Message:
    return Message(id=i, role="user" if i.startswith("u") else "assistant", content=content,
                   created_at=datetime(2026, 3, 4, 10, tzinfo=timezone.utc))


def test_a_batch_that_remembers_then_forgets_counts_what_it_keeps(service, alice):
    """"remember X" then "forget X" in one request: the turns saying X stay out, and the count the
    caller gets back is what is stored (the turn said before the forget is not counted twice)."""
    batch = [_msg("u1", "Remember that my bike lock code is tiger-lily"), _msg("a1", "Saved."),
             _msg("u2", "Actually, forget that my bike lock code is tiger-lily"), _msg("a2", "Done, forgotten."),
             _msg("u3", "What should I cook tonight?")]
    n, done = service.capture(alice, batch)
    assert [a for a, _ in done] == ["remember", "forget"]
    assert n == len(stored(service, alice)) and "u3" in stored(service, alice)
    assert not [c for c in stored(service, alice).values() if "tiger" in c]
