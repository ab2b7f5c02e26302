"""What a write asks of a Chroma server, and in how many waits. Under load each call waits its turn
in Chroma's queue, so a write's time there is one wait per round of calls it makes in turn
(bench/README.md, "Writes that do not queue behind reads"). The calls that need nothing from each
other go out together (core/store/at_once.py): the person's registry row with the reads a write is
checked against, the revision with the audit row. Counted at Chroma's HTTP client, each call held
long enough that calls sent together overlap and calls in turn cannot.

What the reads are allowed to skip is pinned too: an id whose record had its words edited is still
found taken (the read by words cannot see it), and nothing about a write is recorded before its
records are written."""

from __future__ import annotations

import threading
import time
from datetime import datetime, timedelta, timezone

import pytest

from core import Actor, MemoryIn, MemoryPatch, Message, Role, Settings, Status, StoreUnavailable, build_service, scope_for
from core.scope import memory_collection
from core.testing import HashEmbedder
from tests.kit.servers import chroma_server

pytestmark = pytest.mark.e2e
HOLD_S = 0.12  # every call lasts at least this: calls sent together overlap, calls in turn do not


@pytest.fixture(scope="module")
def chroma_url(tmp_path_factory):
    with chroma_server(tmp_path_factory.mktemp("chroma")) as url:
        yield url


class Calls:
    """Chroma HTTP calls made from now on: (what, started, ended)."""

    def __init__(self, service):
        self.service = service
        self.seen: list[tuple[str, float, float]] = []
        self._guard = threading.Lock()

    def wrap(self, real):
        def counted(client, method, path, **kw):
            started = time.monotonic()
            try:
                out = real(client, method, path, **kw)
                time.sleep(HOLD_S)
                return out
            finally:
                with self._guard:
                    self.seen.append((path, started, time.monotonic()))
        return counted

    def of(self, fn) -> tuple[list[list[str]], object]:
        """fn's calls, grouped into the rounds it waited for in turn (calls that overlap are one round)."""
        self.seen.clear()
        out = fn()
        seen = list(self.seen)
        names = {str(c.id): c.name for c in self.service.store.client.list_collections()}
        rounds: list[list[str]] = []
        end = -1.0
        for path, a, b in sorted(seen, key=lambda c: c[1]):
            col, _, op = path.split("/collections/")[-1].partition("/")
            what = f"{_short(names.get(col, col))} {op}"
            if a >= end:
                rounds.append([])
            rounds[-1].append(what)
            end = max(end, b)
        return [sorted(r) for r in rounds], out


def _short(name: str) -> str:
    return {"amber_registry": "registry", "amber_events": "events"}.get(name, name.split("_")[1] if name.startswith("amber_") else name)


@pytest.fixture
def counted(chroma_url, tmp_path, monkeypatch):
    from chromadb.api import fastapi

    service = build_service(Settings(data_dir=tmp_path / "host", chroma_url=chroma_url, embedding_model="hash"), embedder=HashEmbedder())
    calls = Calls(service)
    monkeypatch.setattr(fastapi.FastAPI, "_make_request", calls.wrap(fastapi.FastAPI._make_request))
    try:
        yield service, calls
    finally:
        service.close()


def test_a_remember_waits_three_times_on_a_chroma_server(counted):
    service, calls = counted
    ana = scope_for(Actor("trips-ana"))
    service.remember(ana, MemoryIn(content="ana keeps bees"))  # her collections and registry row exist from here on
    rounds, w = calls.of(lambda: service.remember(ana, MemoryIn(content="ana likes green tea")))
    assert w.action == "created"
    # before: six calls in turn (registry row, a read by words, a read of the id, memory, revision, audit row);
    # the id's tombstone (a memory said again after a forget takes a new id) is read with the registry row
    assert rounds == [["mem get", "mem get", "registry get"], ["mem upsert"], ["events upsert", "registry upsert"]]
    # a keyed fact: one read of the key in every status says whether the new version's id is taken
    rounds, w = calls.of(lambda: service.remember(ana, MemoryIn(content="ana lives in Lyon", fact_key="profile.city")))
    assert w.action == "created"
    assert rounds == [["mem get", "registry get"], ["mem upsert"], ["events upsert", "registry upsert"]]
    # a new value: the same read gives the versions it retires (eight calls in turn before)
    rounds, w = calls.of(lambda: service.remember(ana, MemoryIn(content="ana lives in Oslo", fact_key="profile.city")))
    assert w.action == "superseded"
    assert rounds == [["mem get", "registry get"], ["mem get"], ["mem upsert"], ["events upsert", "registry upsert"]]
    # the revision each write stamped is the one it published, one after the other
    assert service.revision(memory_collection(ana)) == 4


def test_a_captured_exchange_reads_together_on_a_chroma_server(counted):
    service, calls = counted
    bo = scope_for(Actor("trips-bo"))
    at = datetime.now(timezone.utc) - timedelta(minutes=5)
    service.ingest(bo, [Message(id="t0", role=Role.user, content="hello there", session="s", created_at=at)], commands=False)
    exchange = [Message(id="t1", role=Role.user, content="what a day at work", session="s", created_at=at + timedelta(seconds=1)),
                Message(id="t2", role=Role.assistant, content="Noted, thanks.", session="s", created_at=at + timedelta(seconds=2))]
    rounds, out = calls.of(lambda: service.ingest(bo, exchange, commands=False))
    assert out.ingested == 2
    # the turns already stored with the tombstones' secret; under the lock, the same with the registry row
    # (the session's earlier turns are read too where no warm index has them); before: one call a round
    assert rounds[0] == ["msg get", "registry get"] and rounds[-3:] == [["msg get", "registry get"], ["msg upsert"], ["registry upsert"]]
    assert len(rounds) in (4, 5)


@pytest.mark.parametrize("server", [False, True], ids=["embedded", "server"])
def test_an_id_held_by_a_record_whose_words_were_edited_is_still_taken(server, chroma_url, tmp_path):
    """The read by words cannot see a record whose words were edited since its id was made from
    them: the id is read as well, and the new memory takes another one."""
    settings = Settings(data_dir=tmp_path / "data", chroma_url=chroma_url if server else None, embedding_model="hash")
    service = build_service(settings, embedder=HashEmbedder())
    try:
        cy = scope_for(Actor(f"trips-cy-{server}"))
        first = service.remember(cy, MemoryIn(content="cy walks to work")).memory
        service.update(cy, first.id, MemoryPatch(content="cy cycles to work"))
        again = service.remember(cy, MemoryIn(content="cy walks to work"))
        assert again.action == "created" and again.memory.id != first.id
        assert service.get(cy, first.id).content == "cy cycles to work"
        # a keyed value that comes back after a detour takes a new id too, the first version kept as it was
        lisbon = service.remember(cy, MemoryIn(content="cy lives in Lisbon", fact_key="profile.city")).memory
        service.remember(cy, MemoryIn(content="cy lives in Porto", fact_key="profile.city"))
        back = service.remember(cy, MemoryIn(content="cy lives in Lisbon", fact_key="profile.city"))
        assert back.action == "superseded" and back.memory.id != lisbon.id
        assert service.get(cy, lisbon.id).status == Status.superseded
        assert [m.content for m in service.list(cy, limit=50).items if m.fact_key] == ["cy lives in Lisbon"]
    finally:
        service.close()


@pytest.mark.parametrize("server", [False, True], ids=["embedded", "server"])
def test_what_is_said_again_after_a_forget_takes_a_new_id(server, chroma_url, tmp_path):
    """Said again after a forget, a memory derives the forgotten record's id: it takes another, so the
    forget's tombstone hides nothing the person said since (an import, a restore)."""
    settings = Settings(data_dir=tmp_path / "data", chroma_url=chroma_url if server else None, embedding_model="hash")
    service = build_service(settings, embedder=HashEmbedder())
    try:
        dee = scope_for(Actor(f"trips-dee-{server}"))
        for data in (MemoryIn(content="dee keeps bees"), MemoryIn(content="dee lives in Lyon", fact_key="profile.city")):
            first = service.remember(dee, data).memory
            service.forget(dee, data.content)
            again = service.remember(dee, data)
            assert again.action == "created" and again.memory.id != first.id, data
            assert service.tombstones.get(dee.user_id, again.memory.id) is None
        assert sorted(m.content for m in service.list(dee).items) == ["dee keeps bees", "dee lives in Lyon"]
    finally:
        service.close()


def test_nothing_is_recorded_of_a_write_whose_records_were_not_written(counted, monkeypatch):
    """The revision and the audit row go out together, after the records: a write that fails (or a
    process that dies) before the records are stored leaves neither."""
    service, calls = counted
    dee = scope_for(Actor("trips-dee"))
    service.remember(dee, MemoryIn(content="dee sings in a choir"))
    col = memory_collection(dee)
    rev, events = service.revision(col), len(service.events(dee))

    def down(*a, **kw):
        raise StoreUnavailable("Chroma went away")

    monkeypatch.setattr(service.store, "put_memories", down)
    with pytest.raises(StoreUnavailable):
        service.remember(dee, MemoryIn(content="dee plays the oboe"))
    monkeypatch.undo()
    assert service.revision(col) == rev and len(service.events(dee)) == events
    assert [m.content for m in service.list(dee).items] == ["dee sings in a choir"]
