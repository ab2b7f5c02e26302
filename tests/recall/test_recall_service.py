"""Recall through the service on a real Chroma store (temp dir) with the deterministic embedder."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from core import Actor, MemoryIn, Message, Role, Settings, Status, build_service, scope_for
from core.testing import FixedClock, HashEmbedder

T0 = datetime(2026, 1, 1, 12, 0, tzinfo=timezone.utc)


def ids(items):
    return [c.id for c in items]


def test_a_write_is_seen_by_the_next_recall(service, alice):
    assert service.search(alice, "what tea do I drink?") == []
    mem = service.remember(alice, MemoryIn(content="I drink genmaicha tea every morning")).memory
    assert ids(service.search(alice, "what tea do I drink?"))[:1] == [mem.id]
    newer = service.remember(alice, MemoryIn(content="My tea supplier is in Uji")).memory
    assert newer.id in ids(service.search(alice, "tea supplier"))


def test_chinese_query_finds_chinese_memory(service, alice):
    tea = service.remember(alice, MemoryIn(content="我每天早上喝玄米茶")).memory
    service.remember(alice, MemoryIn(content="我的猫叫小米"))
    service.remember(alice, MemoryIn(content="I work as a nurse in Lisbon"))
    assert ids(service.search(alice, "我喝什么茶？"))[0] == tea.id
    assert ids(service.search(alice, "猫的名字"))[0] != tea.id


def test_mixed_language_query_finds_both_languages(service, alice):
    cat = service.remember(alice, MemoryIn(content="我的猫叫小米 (my cat is called Xiaomi)")).memory
    job = service.remember(alice, MemoryIn(content="I work as a nurse in Lisbon")).memory
    service.remember(alice, MemoryIn(content="Favourite colour: teal"))
    got = ids(service.search(alice, "我的猫 and my job as a nurse"))
    assert {cat.id, job.id} <= set(got[:2])


def test_raw_turns_are_recalled_before_extraction(service, alice):
    msgs = [
        Message(id="t1", role=Role.user, content="We adopted a puppy named Biscuit!", session="s", author="Ana", created_at=T0),
        Message(id="t2", role=Role.assistant, content="Congratulations, what breed?", session="s", created_at=T0 + timedelta(seconds=5)),
        Message(id="t3", role=Role.user, content="A beagle, three months old", session="s", author="Ana", created_at=T0 + timedelta(seconds=9)),
    ]
    service.store_turns(alice, msgs)
    got = service.search(alice, "puppy Biscuit")
    assert got[0].id == "t1" and got[0].source == "message" and got[0].author == "Ana"
    # neighbour credit brings the reply that answers "what breed" along with the hit
    cfg = service.recall_config(neighbours=0.3)
    assert "t3" in ids(service.search(alice, "what breed is Biscuit the puppy", config=cfg))


def test_messages_written_in_two_batches_are_indexed_as_one_conversation(service, alice):
    first = [Message(id="a1", role=Role.user, content="Where should we go hiking?", session="s", created_at=T0)]
    service.store_turns(alice, first)
    service.search(alice, "warm the index")
    service.store_turns(alice, [Message(id="a2", role=Role.assistant, content="The Sintra hills trail", session="s", created_at=T0 + timedelta(minutes=1))])
    assert "a2" in ids(service.search(alice, "Sintra"))


def test_hit_count_and_last_access_are_updated_after_recall(service, alice, clock):
    mem = service.remember(alice, MemoryIn(content="My sister lives in Lisbon")).memory
    assert mem.hit_count == 0 and mem.last_access_at is None
    clock.advance(hours=1)
    result = service.recall(alice, "where does my sister live")
    assert mem.id in ids(result.items) and "Lisbon" in result.text
    service.flush()
    after = service.get(alice, mem.id)
    assert after.hit_count == 1 and after.last_access_at == clock.now()
    service.recall(alice, "sister Lisbon")
    service.flush()
    assert service.get(alice, mem.id).hit_count == 2


def test_counting_access_leaves_the_recall_indexes_current(service, alice):
    """Recall causes the access write, so it must not make the next recall (here, or on another
    host sharing the store) rebuild: the revision stays, and no audit event is added per recall."""
    from core.scope import memory_collection

    mem = service.remember(alice, MemoryIn(content="My sister lives in Lisbon")).memory
    service.recall(alice, "where does my sister live")
    service.flush()
    rev, events, built = service.revision(memory_collection(alice)), len(service.events(alice)), service.recaller.rebuilds
    for _ in range(3):
        assert mem.id in ids(service.recall(alice, "sister Lisbon").items)
        service.flush()
    assert service.get(alice, mem.id).hit_count == 4
    assert (service.revision(memory_collection(alice)), len(service.events(alice)), service.recaller.rebuilds) == (rev, events, built)


def test_retired_and_unapproved_records_never_come_back(service, alice, clock):
    text = "the wifi network is called hunter2"
    deleted = service.remember(alice, MemoryIn(content=text + " (deleted)")).memory
    service.delete(alice, deleted.id)
    archived = service.remember(alice, MemoryIn(content=text + " (archived)")).memory
    service.archive(alice, archived.id)
    cand = service.remember(alice, MemoryIn(content=text + " (candidate)", status=Status.candidate)).memory
    old = service.remember(alice, MemoryIn(content=text + " (old)", fact_key="world.wifi_network")).memory
    new = service.remember(alice, MemoryIn(content="the wifi network is called correcthorse", fact_key="world.wifi_network")).memory
    expiring = service.remember(alice, MemoryIn(content=text + " (expiring)", expire_at=clock.now() + timedelta(hours=1))).memory
    assert expiring.id in ids(service.search(alice, "wifi network"))
    clock.advance(hours=2)
    got = ids(service.search(alice, "wifi network hunter2"))
    assert new.id in got
    assert not {deleted.id, archived.id, cand.id, old.id, expiring.id} & set(got)


def test_other_users_records_are_never_recalled(service, alice, bob):
    service.remember(alice, MemoryIn(content="Alice's bank PIN is 4321"))
    service.store_turns(alice, [Message(id="x1", role=Role.user, content="my bank PIN is 4321", created_at=T0)])
    assert service.search(bob, "bank PIN 4321") == []
    assert service.recall(bob, "bank PIN 4321").text == ""


def test_lexical_index_is_updated_in_place_not_rebuilt(tmp_path):
    """10k memories: after the first build, writes and recalls alternate without any rebuild."""
    svc = build_service(Settings(data_dir=tmp_path / "d"), embedder=HashEmbedder(), clock=FixedClock())
    try:
        user = scope_for(Actor("carol"))
        lines = [
            {"type": "memory", "id": f"m{i}", "content": f"note {i}: topic {i % 97} detail {i % 1013}", "user_id": "carol",
             "created_at": T0.isoformat(), "updated_at": T0.isoformat()}
            for i in range(10_000)
        ]
        svc.import_(user, lines)
        svc.search(user, "topic 5")
        svc.store_turns(user, [Message(id="g0", role=Role.user, content="hello", created_at=T0)])
        svc.search(user, "hello")
        built = svc.recaller.rebuilds
        # the lexical arms alone: this test is about the in-process index (the dense arm is Chroma's,
        # whose approximate HNSW search can miss a fresh vector among 10k near-duplicate hash vectors)
        lexical = svc.recall_config(weights={"mem_lexical": 1.0, "msg_lexical": 1.0, "mem_dense": 0.0, "msg_dense": 0.0})
        for n in range(5):
            m = svc.remember(user, MemoryIn(content=f"fresh zebra fact number {n}")).memory
            svc.store_turns(user, [Message(id=f"g{n + 1}", role=Role.user, content=f"okapi sighting {n}", created_at=T0 + timedelta(minutes=n + 1))])
            assert m.id in ids(svc.search(user, f"zebra fact number {n}", config=lexical))
            assert f"g{n + 1}" in ids(svc.search(user, f"okapi sighting {n}", config=lexical))
            svc.delete(user, m.id)
            assert m.id not in ids(svc.search(user, f"zebra fact number {n}"))
            assert m.id not in ids(svc.search(user, f"zebra fact number {n}", config=lexical))
        assert svc.recaller.rebuilds == built
    finally:
        svc.close()


def test_turns_captured_one_exchange_at_a_time_are_embedded_with_their_neighbours(service, alice):
    """The dense text of a turn holds the turn before it (warm or cold index) and the turns after it
    that arrive in the same batch; a turn already stored is never re-embedded; neighbours are cut."""
    from core.scope import message_collection

    def turn(i, text):
        return Message(id=f"c{i}", role=Role.user if i % 2 == 0 else Role.assistant, content=text, session="s",
                       created_at=T0 + timedelta(minutes=i))

    long_answer = "Tell me! " + "Puppies are wonderful. " * 40
    service.store_turns(alice, [turn(0, "Guess what I adopted"), turn(1, long_answer)])
    before = service.store.memory_embeddings(message_collection(alice), ["c1"])["c1"]
    service.search(alice, "warm")  # recall index now warm: the next ingest reads the tail from it
    service.store_turns(alice, [turn(2, "A beagle puppy named Biscuit")])
    service.recaller.drop_indexes(message_collection(alice))  # cold: read from the store
    service.store_turns(alice, [turn(3, "What a lovely name")])
    docs = {m.id: d for m, d in service.store.find_messages(message_collection(alice), None)}
    assert set(docs) == {"c0", "c1", "c2", "c3"}  # documents hold the raw words
    vec = service.store.memory_embeddings(message_collection(alice), ["c0", "c1", "c2", "c3"])
    emb = service.embedder
    cut = long_answer[:300] + " …"
    want0 = emb.embed_documents([f"[01 January 2026] user: Guess what I adopted {cut}"])[0]
    want2 = emb.embed_documents([f"[01 January 2026] {cut} user: A beagle puppy named Biscuit"])[0]
    want3 = emb.embed_documents(["[01 January 2026] A beagle puppy named Biscuit assistant: What a lovely name"])[0]
    assert vec["c0"] == pytest.approx(want0, abs=1e-6)  # Chroma keeps float32
    assert vec["c1"] == pytest.approx(before, abs=1e-6)  # not re-embedded when c2 arrived
    assert vec["c2"] == pytest.approx(want2, abs=1e-6)
    assert vec["c3"] == pytest.approx(want3, abs=1e-6)


def test_recall_goes_on_lexically_while_the_query_embedder_is_down(tmp_path, alice):
    """A query worker restarting costs the dense arms of that recall, not the recall."""
    from core import EmbedderUnavailable

    class QueryDown(HashEmbedder):
        down = False

        def embed_query(self, text):
            if self.down:
                raise EmbedderUnavailable("embedding worker (query-1) died (exit -6)")
            return super().embed_query(text)

    emb = QueryDown()
    svc = build_service(Settings(data_dir=tmp_path / "data"), embedder=emb, clock=FixedClock(T0))
    try:
        svc.remember(alice, MemoryIn(content="My bicycle is a green Gazelle"))
        emb.down = True
        hits = svc.search(alice, "which bicycle do I ride")
        assert [h.text for h in hits] == ["My bicycle is a green Gazelle"]
        assert "Gazelle" in svc.recall(alice, "bicycle").text
    finally:
        svc.close()


def test_a_new_person_s_first_recall_embeds_nothing_and_their_next_one_does(tmp_path, alice, bob):
    """Nothing stored, nothing to compare a query vector with: a new person's first turn queues no
    query for the embedder (a burst of new people's first turns was the proxy's slowest tail). Once
    they hold something, recall embeds the query again and finds it by meaning alone."""

    class Counting(HashEmbedder):
        queries: list[str] = []

        def embed_query(self, text):
            self.queries.append(text)
            return super().embed_query(text)

    emb = Counting()
    svc = build_service(Settings(data_dir=tmp_path / "data"), embedder=emb, clock=FixedClock(T0))
    try:
        r = svc.recall(alice, "which bicycle do I ride")
        assert (r.items, r.text, emb.queries) == ([], "", [])
        svc.remember(bob, MemoryIn(content="My bicycle is a green Gazelle"))  # someone else's: still nothing of alice's
        assert svc.recall(alice, "which bicycle do I ride").items == [] and emb.queries == []
        svc.remember(alice, MemoryIn(content="I ride a green Gazelle to work"))
        hits = svc.search(alice, "bike commute")  # no shared word: only the dense arm can find it
        assert [(h.text, h.arms) for h in hits] == [("I ride a green Gazelle to work", ("mem_dense",))]
        assert emb.queries == ["bike commute"]
    finally:
        svc.close()


def test_the_operator_s_budget_applies_to_the_configured_preset_on_every_path(tmp_path, monkeypatch):
    """The hook in local mode recalls through `service.recall` without a config; REST and MCP through
    `recall_config`: both get the configured preset with the operator's budget, if one was set."""
    from core import Settings, build_service
    from core.testing import HashEmbedder

    monkeypatch.setenv("AMBER_CONFIG", str(tmp_path / "no-config.yaml"))  # not the repository's config.yaml
    for kw, budget in (({}, 1200), ({"recall_budget_tokens": 300}, 300)):
        svc = build_service(Settings(data_dir=tmp_path / str(budget), recall_preset="thorough", **kw), embedder=HashEmbedder())
        try:
            assert svc.recall_config().budget_tokens == budget
            assert svc.recall_config("fast").budget_tokens == 400  # a preset asked for by name keeps its own
        finally:
            svc.close()


def test_a_turn_outranks_the_neighbours_that_hold_its_words_only_as_context(service, alice):
    """Each turn is indexed with two turns on each side; its own words weigh double, so the turn
    that said "kayak" comes first, not a shorter window at the session's edge that merely holds it."""
    words = ["Morning!", "Hi there, how was the weekend?", "We paddled a kayak across the bay", "Sounds lovely", "It was"]
    service.store_turns(alice, [Message(id=f"k{i}", role=Role.user if i % 2 == 0 else Role.assistant, content=w, session="s",
                                   created_at=T0 + timedelta(minutes=i)) for i, w in enumerate(words)])
    lexical = service.recall_config(weights={"mem_lexical": 1.0, "msg_lexical": 1.0, "mem_dense": 0.0, "msg_dense": 0.0})
    got = ids(service.search(alice, "kayak", config=lexical))
    assert got[0] == "k2"
    assert set(got) == {"k0", "k1", "k2", "k3", "k4"}  # the neighbours still find it through their context


def test_a_time_bounded_recall_beside_a_capture_never_fails(tmp_path):
    """With `message_window_days`, recall picks the turns inside the window from the person's turn
    index while captures add to that index on other threads. It iterated the live dict of turns, and
    failed "dictionary changed size during iteration" when a capture landed mid-loop; a copy of the
    dict was not enough (building it can run other threads' code when the collector runs), so the
    index keeps ids and times in lists that only grow (TurnIndex.since)."""
    import sys
    import threading
    import traceback

    svc = build_service(Settings(data_dir=tmp_path / "d"), embedder=HashEmbedder(), clock=FixedClock(T0 + timedelta(days=1)))
    user = scope_for(Actor("dora"))
    svc.store_turns(user, [Message(id=f"old{i}", role=Role.user, content=f"kayak trip {i} on the fjord", created_at=T0 - timedelta(minutes=i))
                           for i in range(4000)])
    svc.recaller.warm(user, wait=True)  # the turn index is built, so every search below reads it
    cfg = svc.recall_config(message_window_days=30.0)
    failures: list[BaseException] = []
    answered = 0  # searches that read the turn index (a loaded host may answer one without it while it catches up)
    stop = threading.Event()

    def capture() -> None:
        n = 0
        while not stop.is_set():
            svc.store_turns(user, [Message(id=f"new{n}", role=Role.user, content=f"kayak paddle {n}", created_at=T0 + timedelta(seconds=n))])
            n += 1

    switch = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)  # hand the interpreter over often, as a loaded host does
    writer = threading.Thread(target=capture)
    writer.start()
    try:
        for _ in range(100):
            try:
                answered += bool(svc.search(user, "kayak fjord", config=cfg))
            except RuntimeError:
                failures.append(traceback.format_exc())
    finally:
        stop.set()
        writer.join()
        sys.setswitchinterval(switch)
        svc.close()
    assert failures == [], failures[0]
    assert answered >= 30


def test_the_turns_in_a_window_are_read_from_lists_that_only_grow():
    from core.recall.turns import TurnIndex, add_turns

    idx = TurnIndex(rev=0)
    add_turns(idx, [Message(id=f"t{i}", role=Role.user, content=f"turn {i}", created_at=T0 + timedelta(days=i)) for i in range(5)])
    assert idx.since((T0 + timedelta(days=3)).timestamp()) == {"t3", "t4"}
    assert idx.since((T0 + timedelta(days=9)).timestamp()) == set()
    idx.order.append("t5")  # an id whose time is not appended yet: not in any window until it is
    assert idx.since(T0.timestamp()) == {f"t{i}" for i in range(5)}
