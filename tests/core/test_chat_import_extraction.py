"""Extraction after an import: the import plans windows for its turns even when the person's
cursor is past their dates; facts are dated from the turns (`valid_from`); an old conversation's
value never supersedes a newer fact, while imported values supersede each other in date order."""

from __future__ import annotations

import json
from datetime import datetime, timezone

from core import Message, MemoryIn, Status
from core.chat_import import import_chats
from core.jobs import registry
from core.jobs.extraction.pipeline import ExtractOptions, ExtractStats, extract_user
from core.testing import ScriptedLLM

T2023 = datetime(2023, 3, 1, 9, 0, tzinfo=timezone.utc)
T2024 = datetime(2024, 6, 1, 9, 0, tzinfo=timezone.utc)


def conv(cid: str, when: datetime, text: str) -> dict:
    t = when.timestamp()
    return {"id": cid, "title": None, "create_time": t, "current_node": f"{cid}-2", "mapping": {
        f"{cid}-1": {"id": f"{cid}-1", "parent": None, "children": [f"{cid}-2"], "message": {
            "id": f"{cid}-1", "author": {"role": "user"}, "create_time": t, "content": {"content_type": "text", "parts": [text]}}},
        f"{cid}-2": {"id": f"{cid}-2", "parent": f"{cid}-1", "children": [], "message": {
            "id": f"{cid}-2", "author": {"role": "assistant"}, "create_time": t + 5, "content": {"content_type": "text", "parts": ["Noted."]}}},
    }}


def city(text: str) -> dict:
    return {"facts": [{"fact": text, "fact_key": "profile.city", "category": "profile", "kind": "fact",
                       "importance": 0.9, "confidence": 0.95, "lang": "en", "evidence": ["m1"]}]}


def export(tmp_path):
    path = tmp_path / "conversations.json"
    path.write_text(json.dumps([conv("c24", T2024, "I moved to Porto last week."), conv("c23", T2023, "I live in Lisbon.")]))
    return path


async def run_extraction(service, scope, answers):
    llm = ScriptedLLM(answers)
    stats = ExtractStats()
    await extract_user(service, scope, llm, now=service.clock.now, opts=ExtractOptions(), stats=stats)
    return llm, stats


def city_facts(service, scope):
    return sorted((m for m in service.list(scope, status=None, limit=500).items if m.fact_key == "profile.city"),
                  key=lambda m: m.valid_from)


async def test_imported_values_form_a_chain_in_date_order(service, alice, tmp_path, clock):
    # the person's cursor is already past 2023 and 2024: Amber has been running for a while
    service.store_turns(alice, [Message(id="live-1", role="user", content="hello", created_at=clock.now())])
    registry.set_cursor(service.registry, "extract", "alice", {"ts": clock.now().timestamp(), "id": "live-1"})
    r = import_chats(service, alice, export(tmp_path))
    assert r.extraction_windows == 2
    # the 2023 window runs first, whatever order the export listed them in
    llm, stats = await run_extraction(service, alice, [city("Lives in Lisbon"), city("Lives in Porto")])
    assert stats.windows["processed"] == 2 and "Lisbon" in llm.calls[0][1]["content"] and "2023-03-01" in llm.calls[0][1]["content"]
    lisbon, porto = city_facts(service, alice)
    assert (lisbon.content, lisbon.status, lisbon.valid_from) == ("Lives in Lisbon", Status.superseded, T2023)
    assert (porto.content, porto.status, porto.valid_from) == ("Lives in Porto", Status.active, T2024)
    assert lisbon.superseded_by == porto.id and porto.supersedes == lisbon.id
    # the cursor stays where live extraction left it
    assert registry.get_cursor(service.registry, "extract", "alice")["id"] == "live-1"


async def test_an_old_conversation_never_supersedes_a_newer_fact(service, alice, tmp_path, clock):
    now = clock.now()
    live = service.remember(alice, MemoryIn(content="Lives in Berlin", fact_key="profile.city")).memory
    assert live.valid_from == now
    import_chats(service, alice, export(tmp_path))
    await run_extraction(service, alice, [city("Lives in Lisbon"), city("Lives in Porto")])
    facts = city_facts(service, alice)
    assert [(m.content, m.status) for m in facts] == [
        ("Lives in Lisbon", Status.superseded), ("Lives in Porto", Status.superseded), ("Lives in Berlin", Status.active)]
    assert all(m.superseded_by == live.id and m.valid_to == now for m in facts[:2])
    assert service.get(alice, live.id).status == Status.active


async def test_reimport_plans_nothing_new(service, alice, tmp_path):
    import_chats(service, alice, export(tmp_path))
    await run_extraction(service, alice, [city("Lives in Lisbon"), city("Lives in Porto")])
    again = import_chats(service, alice, export(tmp_path))
    assert again.extraction_windows == 0
    llm, stats = await run_extraction(service, alice, [])
    assert llm.calls == [] and stats.windows["processed"] == 0


async def test_live_turns_older_than_an_imported_chat_are_still_planned(service, alice, tmp_path, clock):
    """An imported window's date must not move where live planning starts from."""
    service.store_turns(alice, [Message(id="live-a", role="user", content="I adopted a dog named Rex.", created_at=clock.now())])
    await run_extraction(service, alice, [{"facts": []}])  # first run: the live window, cursor set
    clock.advance(hours=1)
    service.store_turns(alice, [Message(id="live-b", role="user", content="Rex likes the beach.", created_at=clock.now())])
    recent = tmp_path / "recent.json"
    recent.write_text(json.dumps([conv("c-now", clock.now(), "I live in Lisbon.")]))
    clock.advance(minutes=30)
    import_chats(service, alice, recent)
    llm, stats = await run_extraction(service, alice, [{"facts": []}, {"facts": []}])
    shown = " ".join(c[1]["content"] for c in llm.calls)
    assert stats.windows["processed"] == 2 and "Rex likes the beach" in shown and "Lisbon" in shown
