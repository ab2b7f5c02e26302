"""Extraction after an import: the import plans windows for its turns even when the person's
cursor is past their dates; facts are dated from the turns (`valid_from`); an old conversation's
value never supersedes a newer fact but goes into its history at its date, while imported values
supersede each other in date order, whatever order they were imported in."""

from __future__ import annotations

import asyncio
import json
import re
from collections import Counter
from datetime import datetime, timedelta, timezone

import pytest

from core import Message, MemoryIn, Status
from core.chat_import import import_chats
from core.jobs import registry
from core.jobs.extraction.pipeline import ExtractOptions, ExtractStats, extract_user
from core.testing import ScriptedLLM

T2023 = datetime(2023, 3, 1, 9, 0, tzinfo=timezone.utc)
T2024 = datetime(2024, 6, 1, 9, 0, tzinfo=timezone.utc)
T2025 = datetime(2025, 2, 1, 9, 0, tzinfo=timezone.utc)


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
    assert lisbon.valid_to == T2024 and porto.valid_to is None  # Lisbon held until the move, not until the import
    # ended in the supersede itself: one event names both versions, no second write dates it afterwards
    assert [(e.action, e.memory_ids) for e in service.events(alice, memory_id=lisbon.id)] == [
        ("supersede", [lisbon.id, porto.id]), ("create", [lisbon.id])]
    # the cursor stays where live extraction left it
    assert registry.get_cursor(service.registry, "extract", "alice")["id"] == "live-1"


async def test_an_old_conversation_never_supersedes_a_newer_fact(service, alice, tmp_path, clock):
    now = clock.now()
    live = service.remember(alice, MemoryIn(content="Lives in Berlin", fact_key="profile.city")).memory
    assert live.valid_from == now
    import_chats(service, alice, export(tmp_path))
    await run_extraction(service, alice, [city("Lives in Lisbon"), city("Lives in Porto")])
    lisbon, porto, berlin = facts = city_facts(service, alice)
    assert [(m.content, m.status) for m in facts] == [
        ("Lives in Lisbon", Status.superseded), ("Lives in Porto", Status.superseded), ("Lives in Berlin", Status.active)]
    assert berlin.id == live.id and berlin.valid_from == now and berlin.content_hash == live.content_hash
    assert_chain(facts)


def assert_chain(versions):
    """Oldest first: each version is superseded by the next, valid until it began; the last is the one active."""
    for older, newer in zip(versions, versions[1:]):
        assert (older.superseded_by, older.valid_to, older.status) == (newer.id, newer.valid_from, Status.superseded)
        assert newer.supersedes == older.id
    assert versions[0].supersedes is None
    assert (versions[-1].status, versions[-1].superseded_by, versions[-1].valid_to) == (Status.active, None, None)


async def test_older_exports_imported_later_go_into_the_history_in_date_order(service, alice, tmp_path):
    """A 2025 export first, then a 2023 one, then a 2024 one (each imported and extracted on its own):
    the key's history reads 2023 -> 2024 -> 2025 both ways, and only 2025 is recalled."""
    def one(name, *convs):
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(list(convs)))
        assert import_chats(service, alice, path).extraction_windows == len(convs)
        return path

    one("2025", conv("c25", T2025, "I moved to Berlin."))
    await run_extraction(service, alice, [city("Lives in Berlin")])
    one("2023", conv("c23", T2023, "I live in Lisbon."))
    await run_extraction(service, alice, [city("Lives in Lisbon")])
    one("2024", conv("c24", T2024, "I moved to Porto last week."))
    await run_extraction(service, alice, [city("Lives in Porto")])
    lisbon, porto, berlin = facts = city_facts(service, alice)
    assert [(m.content, m.valid_from) for m in facts] == [("Lives in Lisbon", T2023), ("Lives in Porto", T2024), ("Lives in Berlin", T2025)]
    assert_chain(facts)
    # Lisbon said again later in 2023: the version already there, seen; the history is unchanged
    one("2023b", conv("c23b", T2023.replace(month=9), "Still in Lisbon, I love it."))
    _, stats = await run_extraction(service, alice, [city("Lives in Lisbon")])
    assert stats.facts["seen"] == 1 and city_facts(service, alice) == facts
    recalled = service.recall(alice, "which city do I live in? Lives in Lisbon, Porto or Berlin")
    assert [c.id for c in recalled.items if c.source == "memory"] == [berlin.id]  # the raw turns may come too
    assert "Lives in Berlin" in recalled.text and "Lives in Lisbon" not in recalled.text and "Lives in Porto" not in recalled.text


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


def long_conv(cid: str, when: datetime, n: int) -> dict:
    t = when.timestamp()
    mapping = {f"{cid}-{i}": {"id": f"{cid}-{i}", "parent": f"{cid}-{i - 1}" if i > 1 else None,
                              "children": [f"{cid}-{i + 1}"] if i < n else [], "message": {
                                  "id": f"{cid}-{i}", "author": {"role": "user" if i % 2 else "assistant"}, "create_time": t + i,
                                  "content": {"content_type": "text", "parts": [f"long chat turn {i} here"]}}} for i in range(1, n + 1)}
    return {"id": cid, "title": None, "create_time": t, "current_node": f"{cid}-{n}", "mapping": mapping}


@pytest.mark.parametrize("late", [False, True], ids=["between-two-batches", "an-hour-into-a-batch"])
def test_extraction_while_an_import_stores_a_window_reads_each_turn_once(service, alice, tmp_path, clock, late):
    """The host's extraction job runs while an import is between two batches of one window's turns
    (no crash): the window waits for the rest, or, when the import has taken longer than the wait,
    is read as it is and the rest is read on its own afterwards: no turn skipped, none twice."""
    path = tmp_path / "long.json"
    path.write_text(json.dumps([long_conv("cl", T2023, 30)]))
    shown: Counter[str] = Counter()

    def extract():
        llm, stats = asyncio.run(run_extraction(service, alice, [{"facts": []}] * 5))
        shown.update(re.findall(r"long chat turn (\d+) here", " ".join(c[1]["content"] for c in llm.calls)))
        return stats

    store, during = service.store_turns, []

    def store_with_extraction_between(scope, turns):
        if during == [] and service.messages(alice):  # a batch is in, the rest of the window is not
            if late:
                clock.advance(hours=2)
            during.append(extract())
        return store(scope, turns)

    service.store_turns = store_with_extraction_between
    r = import_chats(service, alice, path, batch=16)
    assert r.stored == 30 and r.extraction_windows == 1 and len(during) == 1
    assert (during[0].windows["waiting"], during[0].windows["processed"]) == ((0, 1) if late else (1, 0))
    assert len(shown) == (16 if late else 0)
    after = extract()
    assert after.windows["carried_over"] == (1 if late else 0) and after.windows["processed"] == 1
    assert shown == Counter(str(i) for i in range(1, 31))  # every turn once
    again = extract()
    assert again.windows["processed"] == 0


def test_a_conversation_that_went_on_since_the_last_export_has_its_new_turns_read(service, alice, tmp_path):
    """ChatGPT's exports are cumulative: a chat imported at 4 turns comes back at 10. Its window (same
    first turn, same id) was run without turns 5-10: they get a window of their own."""
    path = tmp_path / "conversations.json"
    seen = []
    for n, answers in ((4, 1), (10, 1), (10, 0)):
        path.write_text(json.dumps([long_conv("cg", T2023, n)]))
        import_chats(service, alice, path)
        llm, _ = asyncio.run(run_extraction(service, alice, [{"facts": []}] * answers))
        seen.append(re.findall(r"long chat turn (\d+) here", " ".join(c[1]["content"] for c in llm.calls)))
    assert seen == [["1", "2", "3", "4"], ["5", "6", "7", "8", "9", "10"], []]
