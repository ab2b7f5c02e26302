"""A never-seen person and everybody else (issue 27: the hook's p95 was eight new people's first turns).

Their first recall, boot pack and listing read their collections as empty and make none (making one
is a write, and embedded Chroma stops every thread of the process while it writes); their first
capture makes them. A background write (captured turns, access counts) waits for the recalls in
flight before each Chroma call; a write somebody waits for does not. Real Chroma on a temp dir; the
only stand-in is an embedder that holds a query until the test lets it go, so a recall is in flight
for as long as the test needs (orderings are asserted, never times)."""

from __future__ import annotations

import asyncio
from datetime import datetime, timezone

import pytest

from core import READ, WRITE, Actor, AsyncMemory, Identity, LocalMemory, Message, background_writes, build_service
from core.scope import message_collection, scope_for
from core.store.reads_first import READS_FIRST
from tests.fakes.held import HeldQueries
from tests.kit.config import settings_apart


@pytest.fixture
def hosted(tmp_path, monkeypatch):
    monkeypatch.setattr(READS_FIRST, "max_wait_s", 30.0)  # a write waits as long as the recall does, whatever the machine's speed
    embedder = HeldQueries()
    service = build_service(settings_apart(tmp_path, data_dir=tmp_path / "data", embedding_model="hash"), embedder=embedder)
    yield service, embedder
    embedder.release.set()
    service.close()


def port(service, user: str) -> LocalMemory:
    return LocalMemory(AsyncMemory(service), Identity("litellm", user, frozenset({READ, WRITE}), "chatbox", via="litellm"))


def turn(user: str, text: str) -> Message:
    return Message(id=f"{user}-1", role="user", content=text, session="s1", created_at=datetime(2026, 12, 1, 10, tzinfo=timezone.utc))


async def test_a_new_persons_first_recall_makes_no_collection_and_their_first_capture_does(hosted):
    service, _ = hosted
    before = set(service.store.list_collections())
    ann = port(service, "ann")
    assert (await ann.recall("what did I plan for the garden")).items == []
    assert (await ann.boot()).text is not None
    assert (await ann.list()).items == []
    assert set(service.store.list_collections()) == before  # read as empty, nothing made

    await ann.ingest([turn("ann", "I plan to grow tomatoes in the garden this spring")])
    col = message_collection(scope_for(Actor("ann")))
    assert col in set(service.store.list_collections()) - before
    assert "tomatoes" in (await ann.recall("what did I plan for the garden")).text


async def test_a_new_persons_first_capture_waits_for_another_persons_recall_in_flight(hosted):
    service, embedder = hosted
    bob = port(service, "bob")
    await bob.ingest([turn("bob", "my sister's wedding is in June")])
    col = message_collection(scope_for(Actor("ann")))
    order: list[str] = []
    waited = READS_FIRST.waited

    async def recall() -> None:
        await bob.recall("hold: when is my sister's wedding")
        order.append("bob's recall answered")

    async def capture() -> None:
        await embedder.held()  # bob's recall is in flight
        with background_writes():  # as the hook's capture drainer stores turns
            await port(service, "ann").ingest([turn("ann", "I plan to grow tomatoes")])
        order.append("ann's turn stored")

    async def release_later() -> None:
        while READS_FIRST.waited == waited:  # ann's write reached Chroma's door and found a recall in flight
            await asyncio.sleep(0.01)
        assert col not in service.store.list_collections() and order == []  # nothing of ann's written yet
        order.append("recall let go")
        embedder.release.set()

    await asyncio.wait_for(asyncio.gather(recall(), capture(), release_later()), 60)
    assert order == ["recall let go", "bob's recall answered", "ann's turn stored"]
    assert service.has_message(scope_for(Actor("ann")), "ann-1")


async def test_a_write_somebody_waits_for_does_not_wait_for_recalls(hosted):
    service, embedder = hosted
    bob = port(service, "bob")
    await bob.ingest([turn("bob", "the garden needs a new fence")])  # something to compare with: bob's recall embeds
    waited = READS_FIRST.waited
    recall = asyncio.ensure_future(bob.recall("hold: anything about the garden"))
    await embedder.held()
    await port(service, "ann").ingest([turn("ann", "I plan to grow tomatoes")])  # a REST ingest: the client waits
    assert not recall.done() and READS_FIRST.waited == waited
    assert service.has_message(scope_for(Actor("ann")), "ann-1")
    embedder.release.set()
    await asyncio.wait_for(recall, 30)
