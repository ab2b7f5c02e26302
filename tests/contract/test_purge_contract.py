"""Purging the trash, held to the same behaviour by every memory port (see conftest.py): what a
person deleted stays restorable until it is purged, and a purge removes it for good, only it, and
only from the caller's own trash."""

from __future__ import annotations

import pytest

from core import MemoryIn, NotFound
from core import PurgeResult

pytestmark = pytest.mark.e2e


async def trashed(port, content: str):
    m = (await port.remember(MemoryIn(content=content))).memory
    await port.delete(m.id)
    return m


async def test_a_purged_memory_is_gone_for_good(port):
    m = await trashed(port, "Keeps a spare key under the blue flowerpot")
    assert (await port.get(m.id)).status.value == "deleted"  # in the trash: still there, restorable
    done = await port.purge_trash()
    assert done == PurgeResult(purged=[m.id], count=1)
    with pytest.raises(NotFound):
        await port.get(m.id)
    with pytest.raises(NotFound):
        await port.restore(m.id)
    assert (await port.list(status="any")).items == []
    assert "flowerpot" not in (await port.recall("where is the spare key flowerpot")).text
    if hasattr(port, "export"):  # MCP has no export tool
        assert "flowerpot" not in str([line async for line in port.export()])
    assert await port.purge_trash() == PurgeResult(purged=[], count=0)  # nothing left to purge


async def test_purging_some_ids_leaves_the_rest_of_the_trash_and_every_live_memory(port):
    gone = await trashed(port, "Once collected enamel pins")
    kept = await trashed(port, "Once collected vinyl records")
    live = (await port.remember(MemoryIn(content="Collects fountain pens"))).memory
    archived = (await port.remember(MemoryIn(content="Collected stamps as a child"))).memory
    await port.archive(archived.id)
    # an id outside the trash is named too: a purge never touches what was not deleted
    done = await port.purge_trash([gone.id, live.id, archived.id, "no-such-id"])
    assert done == PurgeResult(purged=[gone.id], count=1)
    assert (await port.get(live.id)).status.value == "active"
    assert (await port.get(archived.id)).status.value == "archived"
    assert (await port.get(kept.id)).status.value == "deleted"
    assert (await port.restore(kept.id)).status.value == "active"  # what stayed in the trash still comes back
    assert await port.purge_trash([]) == PurgeResult(purged=[], count=0)  # an empty list names nothing


async def test_purging_the_whole_trash_takes_every_deleted_memory_and_nothing_else(port):
    a = await trashed(port, "Thought about learning Portuguese")
    b = await trashed(port, "Thought about moving to Lyon")
    live = (await port.remember(MemoryIn(content="Learns Italian on weekday evenings"))).memory
    done = await port.purge_trash()
    assert sorted(done.purged) == sorted([a.id, b.id]) and done.count == 2
    assert (await port.list(status="deleted")).items == []
    assert [m.id for m in (await port.list(status="any")).items] == [live.id]


async def test_another_user_cannot_purge_my_trash(make_port):
    ann, bob = await make_port("ann"), await make_port("bob")
    mine = await trashed(ann, "Ann's old gym locker code was 2231")
    his = await trashed(bob, "Bob's old bike was a red Peugeot")
    # naming my id from another user purges nothing of mine; emptying his trash leaves mine alone
    assert await bob.purge_trash([mine.id]) == PurgeResult(purged=[], count=0)
    assert await bob.purge_trash() == PurgeResult(purged=[his.id], count=1)
    assert (await ann.get(mine.id)).status.value == "deleted"
    assert (await ann.restore(mine.id)).status.value == "active"
    with pytest.raises(NotFound):
        await bob.get(his.id)


async def test_the_audit_records_the_purge_by_id_without_words(port):
    if not hasattr(port, "events"):  # MCP has no audit tool
        pytest.skip("no events on this port")
    m = await trashed(port, "Secretly dislikes the office espresso machine")
    await port.purge_trash([m.id])
    purges = [e for e in await port.events() if e.action == "purge"]
    assert [e.memory_ids for e in purges] == [[m.id]] and purges[0].detail.get("count") == 1
    assert "espresso" not in str([e.model_dump() for e in await port.events()])
