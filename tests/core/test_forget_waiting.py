"""A forget asked through REST, MCP, the admin page or a handle (`MemoryService.forget`) also takes
what still waits to be stored and says it: turns in the proxy's capture journal (waiting or set
aside) and in the shared capture queue on Redis (queued or set aside). Those turns were never
stored, so no tombstone would have stopped them: the next drain or `amber spool replay` stored the
forgotten words again. Erasing a person takes every turn of theirs still waiting."""

from __future__ import annotations

import asyncio
import json

from core import Actor, InvalidInput, MemoryIn, Message, Settings, StoreUnavailable, build_service, erase_person, scope_for
from core.capture_queue import GROUP, QUARANTINE, STREAM, forget_waiting, store_entries
from core.testing import FixedClock, HashEmbedder
from litellm_hooks.spool import Spool
from tests.kit.topology import redis_server


def _entry(user: str, n: str, text: str, clock: FixedClock) -> dict:
    return {"user": user, "client": "chatbox", "command": text,
            "messages": [Message(id=f"w_{user}_{n}", role="user", content=text, created_at=clock.now()).model_dump(mode="json")]}


async def _drain(spool: Spool, up) -> None:
    """Memory is back: the journal drains at once, whatever it waited for."""
    spool.until = spool.delay = 0
    for _ in range(3):
        await spool.drain_once(up)


def _words_in(folder, word: str) -> list[str]:
    return sorted(p.name for p in folder.rglob("*") if p.is_file() and word.encode() in p.read_bytes())


def test_a_forget_takes_what_the_journal_still_holds(tmp_path):
    clock = FixedClock()
    service = build_service(Settings(data_dir=tmp_path / "data"), embedder=HashEmbedder(), clock=clock)
    spool = Spool(tmp_path / "data" / "spool")
    service.forget_elsewhere.append(spool.forget)  # as the proxy does in local mode (litellm_hooks/host.py)
    alice = scope_for(Actor("alice", client="chatbox"))

    async def run() -> None:
        async def down(user, entries):
            raise StoreUnavailable("memory host unreachable")

        async def refuse(user, entries):
            raise InvalidInput("messages", "refused")

        async def up(user, entries):
            store_entries(service, user, entries)

        await spool.put(_entry("alice", "1", "my passport number is Zorblax-4417", clock))
        await spool.drain_once(down)  # waiting: memory was away
        await spool.put(_entry("alice", "2", "my passport number is Zorblax-4417, did I say?", clock))
        await spool.drain_once(refuse)  # set aside
        await spool.put(_entry("bob", "3", "my passport number is Zorblax-4417", clock))  # someone else's words stay
        await spool.drain_once(down)
        assert _words_in(spool.dir, "Zorblax")
        service.forget(alice, "my passport number is Zorblax-4417")
        assert all(json.loads(line)["user"] == "bob" for f in spool.dir.glob("*.jsonl") for line in f.read_text().splitlines())
        assert not _words_in(spool.dir, "Zorblax") or _words_in(spool.dir, "bob") == _words_in(spool.dir, "Zorblax")
        assert spool.replay("alice") == 0
        await _drain(spool, up)

    try:
        service.remember(alice, MemoryIn(content="I enjoy long walks by the sea"))
        asyncio.run(run())
        assert not [t for t in service.messages(alice) if "Zorblax" in t.content]
        assert [t.content for t in service.messages(scope_for(Actor("bob")))] == ["my passport number is Zorblax-4417"]
    finally:
        service.close()


def test_a_forget_takes_what_the_shared_queue_still_holds(tmp_path):
    import redis

    clock = FixedClock()
    with redis_server(tmp_path / "redis") as url:
        r = redis.Redis.from_url(url)
        r.xgroup_create(STREAM, GROUP, id="0", mkstream=True)
        for user, n, text in (("alice", "1", "my passport number is Zorblax-4417"), ("alice", "2", "I like tea"),
                              ("bob", "3", "my passport number is Zorblax-4417")):
            r.xadd(STREAM, {"user": user, "entries": json.dumps([_entry(user, n, text, clock)])})
        r.xadd(QUARANTINE, {"user": "alice", "entries": json.dumps([_entry("alice", "4", "Zorblax-4417 is my passport number", clock)]),
                            "error": "refused"})
        from core.forgetting import subject_matcher

        assert forget_waiting(r, "alice", subject_matcher("my passport number is Zorblax-4417")) == 2
        left = [(f[b"user"].decode(), f[b"entries"].decode()) for _, f in r.xrange(STREAM)]
        assert [u for u, _ in left] == ["alice", "bob"] and "tea" in left[0][1]
        assert r.xlen(QUARANTINE) == 0
        r.close()


def test_a_host_on_the_queue_hands_its_forget_to_the_service(tmp_path):
    from core.capture_queue import CaptureConsumer

    service = build_service(Settings(data_dir=tmp_path / "data"), embedder=HashEmbedder())
    try:
        with redis_server(tmp_path / "redis") as url:
            queue = CaptureConsumer(service, url).start()
            assert queue.forget in service.forget_elsewhere
            queue.stop()
            assert queue.forget not in service.forget_elsewhere
    finally:
        service.close()


def test_erasing_a_person_takes_their_waiting_turns(tmp_path):
    clock = FixedClock()
    data = tmp_path / "data"
    spool = Spool(data / "spool")

    async def fill() -> None:
        async def down(user, entries):
            raise StoreUnavailable("memory host unreachable")

        await spool.put(_entry("alice", "1", "my therapist is Dr Okafor", clock))
        await spool.put(_entry("bob", "2", "I play the cello", clock))
        await spool.drain_once(down)

    build_service(Settings(data_dir=data), embedder=HashEmbedder()).close()
    asyncio.run(fill())
    gone = erase_person(Settings(data_dir=data, embedding_model="hash"), "alice")
    assert gone["waiting"] == 1
    assert not _words_in(data / "spool", "Okafor") and _words_in(data / "spool", "cello")


def test_a_turn_said_before_a_forget_that_arrives_after_it_stays_out(tmp_path):
    """A proxy in remote mode keeps its journal on its own machine: a forget asked at the host cannot
    reach it. What it still holds, said before the forget, must not be stored when it finally drains
    (nor when set aside and replayed); the same words said after the forget are said again, and kept."""
    clock = FixedClock()
    service = build_service(Settings(data_dir=tmp_path / "data"), embedder=HashEmbedder(), clock=clock)
    spool = Spool(tmp_path / "proxy" / "spool")  # not in forget_elsewhere: another machine's journal
    alice = scope_for(Actor("alice", client="chatbox"))

    async def run() -> None:
        async def down(user, entries):
            raise StoreUnavailable("memory host unreachable")

        async def up(user, entries):
            store_entries(service, user, entries)

        await spool.put(_entry("alice", "1", "my passport number is Zorblax-4417", clock))
        await spool.put(_entry("alice", "2", "Zorblax-4417, that passport number again", clock))
        await spool.put(_entry("alice", "3", "I like tea with lemon", clock))
        await spool.put(_entry("bob", "4", "my passport number is Zorblax-4417", clock))
        await spool.drain_once(down)
        clock.advance(seconds=60)
        assert service.forget(alice, "my passport number is Zorblax-4417").memories == []  # nothing stored yet
        clock.advance(seconds=60)
        await spool.put(_entry("alice", "5", "my new passport number is Zorblax-4417", clock))  # said again
        await _drain(spool, up)

    try:
        service.remember(alice, MemoryIn(content="I enjoy long walks by the sea"))
        asyncio.run(run())
        assert sorted(t.id for t in service.messages(alice)) == ["w_alice_3", "w_alice_5"]
        assert [t.content for t in service.messages(scope_for(Actor("bob")))] == ["my passport number is Zorblax-4417"]
        # what the forget keeps is keyed words, never the words (the registry's files hold no "zorblax")
        stones = service.tombstones._registry.reg_find("tombstone", "alice")
        assert stones and "zorblax" not in json.dumps(stones).lower() and "passport" not in json.dumps(stones).lower()
        # the held-out turns' tombstones are dated by the service's clock, as every other (2026, not today)
        for held in ("w_alice_1", "w_alice_2"):
            assert service.tombstones.get("alice", held)["forgotten_at"] == clock.now().isoformat()
    finally:
        service.close()


def test_words_a_forget_named_die_with_the_person(tmp_path):
    clock = FixedClock()
    data = tmp_path / "data"
    service = build_service(Settings(data_dir=data), embedder=HashEmbedder(), clock=clock)
    alice = scope_for(Actor("alice"))
    try:
        service.remember(alice, MemoryIn(content="my sister is called Zorblatine"))
        service.forget(alice, "my sister is called Zorblatine")
        assert service.tombstones._registry.reg_find("tombstone", "alice")
        service.erase_person(alice)
        assert service.tombstones._registry.reg_find("tombstone", "alice") == {}
        # back after the erasure: nothing of theirs is held against what they say now
        earlier = Message(id="old", role="user", content="my sister is called Zorblatine", created_at=clock.now())
        clock.advance(seconds=60)
        assert service.store_turns(alice, [earlier]) == 1
    finally:
        service.close()


def test_the_reply_to_a_forget_stays_out_whichever_host_stores_it(tmp_path):
    """A client that sends the forget alone gets its reply stored with its next call, which another
    host may take: the reply repeats what was forgotten. Two hosts on one Chroma server: the forget
    on one, the next call's turns on the other."""
    from datetime import timedelta

    from tests.kit.servers import chroma_server

    with chroma_server(tmp_path / "chroma") as url:
        one, two = (build_service(Settings(data_dir=tmp_path / f"host{i}", chroma_url=url), embedder=HashEmbedder()) for i in (1, 2))
        alice = scope_for(Actor("alice", client="chatbox"))
        try:
            n, done = one.capture(alice, [Message(id="f1", role="user", content="forget that my sister is called Zorblatine",
                                                  session="s", created_at=_now())])
            assert n == 0 and done == []
            soon = _now() + timedelta(seconds=20)
            reply = [Message(id="r1", role="assistant", content="Done: I have forgotten that your sister is called Zorblatine.",
                             session="s", created_at=soon),
                     Message(id="u2", role="user", content="Thanks! Now, what's a good soup for a cold day?", session="s",
                             created_at=soon + timedelta(seconds=1))]
            assert two.capture(alice, reply)[0] == 1
            assert [t.id for t in two.messages(alice)] == ["u2"]
            # the person saying it again is kept, and so is an assistant repeating it long after
            again = [Message(id="u3", role="user", content="my sister is called Zorblatine, by the way", session="s",
                             created_at=soon + timedelta(seconds=30)),
                     Message(id="r3", role="assistant", content="Noted: your sister is called Zorblatine.", session="s",
                             created_at=soon + timedelta(minutes=20))]
            assert two.capture(alice, again)[0] == 2
        finally:
            one.close()
            two.close()


def _now():
    from datetime import datetime, timezone

    return datetime.now(timezone.utc)


def test_a_remember_said_before_a_forget_is_not_done_when_it_arrives_after(tmp_path):
    clock = FixedClock()
    service = build_service(Settings(data_dir=tmp_path / "data"), embedder=HashEmbedder(), clock=clock)
    alice = scope_for(Actor("alice", client="chatbox"))
    try:
        late = _entry("alice", "1", "Remember that my passport number is Zorblax-4417", clock)
        clock.advance(seconds=60)
        service.forget(alice, "my passport number is Zorblax-4417")
        store_entries(service, "alice", [late])  # the journal drains after the forget
        assert not [m for m in service.list(alice, status=None).items if "Zorblax" in m.content]
        assert not service.messages(alice)
        assert service.tombstones.buried(alice.user_id, ["w_alice_1"]) == {"w_alice_1"}  # reports and windows see it forgotten
    finally:
        service.close()


def test_a_forget_while_a_turn_is_embedded_still_holds_it(tmp_path):
    """The person had no secret when the capture looked; a forget made one while the turn was being
    embedded (outside the lock). The look under the lock reads the secret and the words row too."""
    clock = FixedClock()
    box: dict = {}

    class ForgetsMidway(HashEmbedder):
        def embed_documents(self, texts):
            if box.pop("forget", False):
                box["service"].forget(box["scope"], "my passport number is Zorblax-4417")
            return super().embed_documents(texts)

    service = build_service(Settings(data_dir=tmp_path / "data"), embedder=ForgetsMidway(), clock=clock)
    alice = scope_for(Actor("alice"))
    box.update(service=service, scope=alice, forget=True)
    try:
        assert service.tombstones.secret_of("alice") is None
        said = Message(id="m1", role="user", content="my passport number is Zorblax-4417", created_at=clock.now())
        clock.advance(seconds=1)
        assert service.store_turns(alice, [said]) == 0
        assert not service.messages(alice)
    finally:
        service.close()


def test_a_words_row_nobody_can_read_holds_nothing_back(tmp_path, caplog):
    service = build_service(Settings(data_dir=tmp_path / "data"), embedder=HashEmbedder())
    alice = scope_for(Actor("alice"))
    try:
        service.forget(alice, "my sister is called Zorblatine")
        key = service.tombstones._key("alice", "words")
        endless = {"forgets": [{"at": "2030-01-01T00:00:00", "salt": "s", "phrases": [{"words": ["a"], "need": float("inf")}]}]}
        for bad in ({"forgets": [{"at": "not a time", "phrases": []}]}, {"forgets": "x"}, {"forgets": [{"at": "2020-01-01T00:00:00"}]}, endless):
            service.tombstones._registry.reg_put(key, bad, kind="tombstone", owner="alice")
            turn = Message(id=f"t{len(caplog.records)}", role="user", content="hello there, how are you", created_at="2019-01-01T00:00:00Z")
            assert service.store_turns(alice, [turn]) == 1
        assert "could not be read" in caplog.text
    finally:
        service.close()


def test_two_forgets_do_not_show_which_words_they_share(tmp_path):
    service = build_service(Settings(data_dir=tmp_path / "data"), embedder=HashEmbedder())
    alice = scope_for(Actor("alice"))
    try:
        service.forget(alice, "my sister is called Zorblatine")
        service.forget(alice, "my sister lives in Quimper")
        row = service.tombstones._registry.reg_get(service.tombstones._key("alice", "words"))
        first, second = ({w for p in f["phrases"] for w in p["words"]} for f in row["forgets"])
        assert first and second and not first & second  # "sister" is in both, under two salts
    finally:
        service.close()
