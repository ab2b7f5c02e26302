"""One set of behaviours every memory port keeps, run unchanged against each implementation
(see conftest.py): what a face can rely on whichever way it reaches Amber."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from core import TurnsDeleted
from core import (
    Candidate,
    Conflict,
    InvalidInput,
    Memory,
    MemoryIn,
    MemoryPatch,
    Message,
    NotFound,
    Page,
    RecallResult,
    WriteResult,
)

pytestmark = pytest.mark.e2e

TOPICS = ["sailing", "pottery", "chess", "baking", "cycling", "gardening", "violin", "hiking", "origami", "climbing",
          "kayaking", "painting", "fencing", "archery", "knitting", "rowing", "skating", "surfing", "tennis", "judo",
          "poetry", "juggling", "birding", "camping"]


def turn(mid: str, content: str, role: str = "user") -> Message:
    return Message(id=mid, role=role, content=content, created_at=datetime.now(timezone.utc), session="s1")


async def fill(port, n: int = 24) -> None:
    # long items that all answer one query, each in words of its own (near-duplicates are merged
    # in recall), so a 1 200-token budget holds more of them than 600 does
    for i, topic in enumerate(TOPICS[:n]):
        own = " ".join(f"{topic}{chr(97 + j)}{i}" for j in range(26))
        await port.remember(MemoryIn(content=f"Weekend hobby notes about {topic}: {own}."))


# ---- recall: budget and presets ----------------------------------------------------------------


async def test_recall_returns_typed_result_with_the_memory(port):
    w = await port.remember(MemoryIn(content="Runs marathons in spring", fact_key="goal.running"))
    r = await port.recall("marathon training in spring")
    assert isinstance(r, RecallResult) and isinstance(r.items[0], Candidate)
    assert r.items[0].id == w.memory.id and "marathons" in r.text


async def test_recall_budget_follows_the_preset_unless_budget_tokens_is_given(port):
    await fill(port)
    query = "weekend hobby notes logbooks"
    configured = await port.recall(query)  # the host is configured with `thorough` (1 200 tokens)
    thorough = await port.recall(query, preset="thorough")
    fast = await port.recall(query, preset="fast")
    capped = await port.recall(query, preset="thorough", budget_tokens=300)
    assert 600 < thorough.tokens <= 1200, thorough.tokens
    assert configured.tokens == thorough.tokens  # the configured preset's budget, as the hook in local mode uses
    assert 0 < fast.tokens <= 400
    assert 0 < capped.tokens <= 300


async def test_unknown_preset_is_invalid_input_naming_preset(port):
    with pytest.raises(InvalidInput) as e:
        await port.recall("anything", preset="exhaustive")
    assert e.value.field == "preset"


async def test_search_returns_candidates(port):
    await port.remember(MemoryIn(content="Allergic to peanuts"))
    hits = await port.search("peanuts allergy", top_k=3)
    assert hits and all(isinstance(h, Candidate) for h in hits) and "peanuts" in hits[0].text


# ---- remember, supersede, pin and archive -------------------------------------------------------


async def test_remember_then_same_value_is_seen_new_value_supersedes(port):
    first = await port.remember(MemoryIn(content="Lives in Beijing", fact_key="profile.city"))
    assert isinstance(first, WriteResult) and first.action == "created"
    again = await port.remember(MemoryIn(content="Lives in Beijing", fact_key="profile.city"))
    assert again.action == "seen" and again.memory.id == first.memory.id
    moved = await port.remember(MemoryIn(content="Lives in Shanghai", fact_key="profile.city"))
    assert moved.action == "superseded" and moved.previous.id == first.memory.id
    old = await port.get(first.memory.id)
    assert old.status.value == "superseded" and old.superseded_by == moved.memory.id
    r = await port.recall("which city do I live in")
    assert "Shanghai" in r.text and "Beijing" not in r.text


async def test_superseded_records_cannot_be_pinned_or_archived(port):
    old = (await port.remember(MemoryIn(content="Drives a Golf", fact_key="profile.car"))).memory
    new = (await port.remember(MemoryIn(content="Drives a Polo", fact_key="profile.car"))).memory
    with pytest.raises(InvalidInput):
        await port.pin(old.id)
    with pytest.raises(InvalidInput):
        await port.archive(old.id)
    assert (await port.pin(new.id)).pinned is True
    assert (await port.pin(new.id, False)).pinned is False
    assert (await port.archive(new.id)).status.value == "archived"


async def test_restore_brings_back_a_deleted_or_archived_memory_to_recall(port):
    m = (await port.remember(MemoryIn(content="Allergic to walnuts and pecans"))).memory
    await port.delete(m.id)
    assert "walnuts" not in (await port.recall("what am I allergic to")).text
    back = await port.restore(m.id)
    assert isinstance(back, Memory) and back.id == m.id and back.status.value == "active"
    assert "walnuts" in (await port.recall("what am I allergic to")).text
    assert (await port.restore(m.id)).status.value == "active"  # restoring an active memory changes nothing
    await port.archive(m.id)
    assert (await port.restore(m.id)).status.value == "active"
    assert m.id in [x.id for x in (await port.list()).items]


async def test_restore_refuses_a_taken_key_and_a_superseded_version(port):
    old = (await port.remember(MemoryIn(content="Favourite colour is blue", fact_key="preference.colour"))).memory
    await port.delete(old.id)
    new = (await port.remember(MemoryIn(content="Favourite colour is green", fact_key="preference.colour"))).memory
    with pytest.raises(Conflict) as taken:
        await port.restore(old.id)
    assert new.id in str(taken.value)  # names the memory that holds the key now
    assert (await port.get(old.id)).status.value == "deleted"  # nothing half-done
    newer = (await port.supersede(new.id, MemoryIn(content="Favourite colour is teal"))).memory
    with pytest.raises(InvalidInput) as retired:
        await port.restore(new.id)
    assert newer.id in str(retired.value)
    await port.delete(newer.id)
    assert (await port.restore(old.id)).content == "Favourite colour is blue"  # the key is free again


async def test_supersede_keeps_the_key_and_refuses_a_retired_version(port):
    old = (await port.remember(MemoryIn(content="Works at Acme", fact_key="profile.employer"))).memory
    moved = await port.supersede(old.id, MemoryIn(content="Works at Globex"))
    assert isinstance(moved, WriteResult) and moved.action == "superseded" and moved.previous.id == old.id
    assert moved.memory.fact_key == "profile.employer" and moved.memory.supersedes == old.id
    assert (await port.get(old.id)).superseded_by == moved.memory.id
    with pytest.raises(InvalidInput):
        await port.supersede(old.id, MemoryIn(content="Works at Initech"))
    with pytest.raises(NotFound):
        await port.supersede("m_" + "0" * 24, MemoryIn(content="Works at Initech"))


async def test_update_and_delete(port):
    m = (await port.remember(MemoryIn(content="Has a dog named Pixel"))).memory
    assert (await port.update(m.id, MemoryPatch(importance=0.9))).importance == 0.9
    gone = await port.delete(m.id)
    assert isinstance(gone, Memory) and gone.status.value == "deleted"
    assert m.id not in [x.id for x in (await port.list()).items]


# ---- forget ------------------------------------------------------------------------------------


async def test_forget_preview_removes_nothing_then_forget_removes(port):
    m = (await port.remember(MemoryIn(content="My dentist is Dr. Okonkwo"))).memory
    await port.ingest([turn("f1", "my dentist is Dr. Okonkwo, appointment on Friday")])
    preview = await port.forget("my dentist", preview=True)
    assert preview.done is False and [x.id for x in preview.memories] == [m.id]
    assert preview.message_ids == ["f1"] and preview.messages == 1
    assert (await port.get(m.id)).status.value == "active"
    done = await port.forget("my dentist")
    assert done.done is True and [x.id for x in done.memories] == [m.id] and done.message_ids == ["f1"]
    assert isinstance(done.memories[0], Memory) and done.what and done.rewritten == []
    # erased, not trashed: no status shows it, nobody can restore it, the export does not hold it
    with pytest.raises(NotFound, match="forgotten"):
        await port.get(m.id)
    with pytest.raises(NotFound, match="forgotten"):
        await port.restore(m.id)
    assert (await port.list(status="any")).items == []
    if hasattr(port, "export"):  # MCP has no export tool
        assert "Okonkwo" not in str([r async for r in port.export()])
    assert await port.messages() == []
    # a replayed turn that was forgotten stays forgotten
    assert (await port.ingest([turn("f1", "my dentist is Dr. Okonkwo, appointment on Friday")])).ingested == 0


# ---- capture -----------------------------------------------------------------------------------


async def test_capture_is_idempotent_by_message_id(port):
    msgs = [turn("c1", "I started learning Portuguese"), turn("c2", "Boa sorte!", role="assistant")]
    first = await port.ingest(msgs)
    again = await port.ingest(msgs)
    assert first.ingested == 2 and again.ingested == 0
    listed = await port.messages()
    assert [m.id for m in listed] == ["c1", "c2"] and all(isinstance(m, Message) for m in listed)
    assert [m.id for m in await port.messages(text="portuguese")] == ["c1"]


async def test_remember_command_in_a_turn_is_kept_once(port):
    msgs = [turn("r1", "remember that I hate cilantro")]
    first = await port.ingest(msgs)
    again = await port.ingest(msgs)
    assert [c.action for c in first.commands] == ["remember"] and again.commands == []
    assert [m.content for m in (await port.list()).items if "cilantro" in m.content.lower()]


async def test_delete_messages(port):
    await port.ingest([turn("d1", "first thing"), turn("d2", "second thing")])
    assert await port.delete_message("d1") == TurnsDeleted(deleted=1, ids=["d1"])
    with pytest.raises(NotFound):
        await port.delete_message("d1")
    out = await port.delete_messages(everything=True)
    assert out.deleted == 1 and out.ids == ["d2"]


# ---- errors ------------------------------------------------------------------------------------


@pytest.mark.parametrize("op", ["get", "delete", "archive", "pin", "restore"])
async def test_unknown_id_is_not_found_everywhere(port, op):
    with pytest.raises(NotFound):
        await getattr(port, op)("m_" + "0" * 24)


async def test_update_unknown_id_is_not_found(port):
    with pytest.raises(NotFound):
        await port.update("m_" + "0" * 24, MemoryPatch(importance=0.5))


async def test_invalid_input_names_the_field(port):
    with pytest.raises(InvalidInput) as e:
        await port.recall("anything", project="not a project!")
    assert e.value.field == "project"
    with pytest.raises(InvalidInput) as e:
        await port.list(limit=0)
    assert e.value.field == "limit"
    with pytest.raises(InvalidInput) as e:
        await port.list(cursor="not-a-cursor")
    assert e.value.field == "cursor"
    with pytest.raises(InvalidInput) as e:
        await port.remember(MemoryIn(content="x y z", fact_key="nocategory.thing"))
    assert e.value.field == "fact_key"


# ---- list pagination and isolation ---------------------------------------------------------------


async def test_list_pages_through_everything_once(port):
    for i in range(7):
        await port.remember(MemoryIn(content=f"Fact number {i} about the garden"))
    seen, cursor, pages = [], None, 0
    while True:
        page = await port.list(limit=3, cursor=cursor)
        assert isinstance(page, Page) and len(page.items) <= 3
        seen += [m.id for m in page.items]
        pages += 1
        cursor = page.next_cursor
        if not cursor:
            break
    assert len(seen) == 7 == len(set(seen)) and pages == 3


async def test_two_users_do_not_see_each_other(make_port):
    ann, bob = await make_port("ann"), await make_port("bob")
    m = (await ann.remember(MemoryIn(content="Ann's locker code is 4711"))).memory
    await ann.ingest([turn("i1", "my locker code is 4711")])
    assert (await bob.recall("locker code")).items == []
    assert await bob.search("locker code") == []
    assert (await bob.list()).items == [] and await bob.messages() == []
    with pytest.raises(NotFound):
        await bob.get(m.id)
    with pytest.raises(NotFound):
        await bob.delete(m.id)
    assert (await bob.forget("locker code", preview=True)).memories == []
    assert (await ann.get(m.id)).status.value == "active"
    gone = (await ann.remember(MemoryIn(content="Ann's old PIN is 1234"))).memory
    await ann.delete(gone.id)
    with pytest.raises(NotFound):  # what Ann deleted cannot be brought back by anyone else
        await bob.restore(gone.id)
    assert (await ann.get(gone.id)).status.value == "deleted"


async def test_list_status_none_or_any_lists_every_status(port):
    old = (await port.remember(MemoryIn(content="Plays the oboe", fact_key="skill.instrument"))).memory
    new = (await port.remember(MemoryIn(content="Plays the cello", fact_key="skill.instrument"))).memory
    assert [m.id for m in (await port.list()).items] == [new.id]
    for status in (None, "any"):
        assert {m.id for m in (await port.list(status=status)).items} == {old.id, new.id}, status
    assert [m.id for m in (await port.list(status="superseded")).items] == [old.id]
