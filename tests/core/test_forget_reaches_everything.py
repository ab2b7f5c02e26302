"""What a forget and an erasure must reach besides the records that say it now: a memory's older
wording, a turn's discarded reply, source turns retention already removed, the client cache and
the jobs' registry records. Each case was found by playing a person who said "forget" and then
looked everywhere Amber keeps anything."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from core import Actor, MemoryIn, MemoryPatch, Message, Settings, build_service, scope_for
from core.jobs import writes as ops
from core.jobs.retention import RetentionPolicy, RetentionStats, apply_retention
from core.registry import PERSON_KINDS
from core.scope import user_key
from core.testing import FixedClock, HashEmbedder
from tests.core.test_forget_live_keys import opened_leftovers
from tests.kit.disk import files_holding

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=timezone.utc)


def test_words_edited_away_or_regenerated_away_open_no_more(tmp_path):
    """An edit and a regenerated reply rewrite a record under its id: the older version Chroma keeps
    in its files was sealed under the record's key, so the key is renewed with the words."""
    data = tmp_path / "data"
    svc = build_service(Settings(data_dir=data), embedder=HashEmbedder(), clock=FixedClock())
    scope = scope_for(Actor("ines", client="tests"))
    try:
        m = svc.remember(scope, MemoryIn(content="My sister is called Zorblatine")).memory
        edited = svc.update(scope, m.id, MemoryPatch(content="I have a sister"))
        svc.ingest(scope, [Message(id="r1", role="assistant", session="s", created_at=NOW, content="Your sister Quenvarra sounds lovely")])
        svc.ingest(scope, [Message(id="r1", role="assistant", session="s", created_at=NOW, content="That sounds lovely")])
        svc.flush()
        left = opened_leftovers(data, dict(svc.store.sealer.keys._keys))
        assert not [t for t in left if "Zorblatine" in t or "Quenvarra" in t]
        assert any("I have a sister" in t for t in left) and any("That sounds lovely" in t for t in left)  # what is current opens
        assert svc.get(scope, m.id).content == edited.content == "I have a sister"
        assert [t.content for t in svc.messages(scope)] == ["That sounds lovely"]
    finally:
        svc.close()


def test_a_source_turn_retention_removed_does_not_come_back_with_an_old_export(tmp_path):
    clock = FixedClock()
    svc = build_service(Settings(data_dir=tmp_path / "data"), embedder=HashEmbedder(), clock=clock)
    scope = scope_for(Actor("ines", client="tests"))
    try:
        svc.store_turns(scope, [Message(id="t1", role="user", created_at=clock.now(), session="s", content="My sister is called Zorblatine")])
        svc.remember(scope, MemoryIn(content="My sister is called Zorblatine", source_ids=["t1"]))
        backup = list(svc.export(scope))  # a backup taken while the turn was stored
        clock.advance(days=20)  # raw turns are kept 14 days
        apply_retention(svc, scope, clock.now(), ops, RetentionPolicy(), RetentionStats())
        assert svc.messages(scope) == []  # retention took the turn
        assert len(svc.forget(scope, "my sister is called Zorblatine").memories) == 1
        svc.import_(scope, backup)
        assert svc.messages(scope) == [] and svc.list(scope, status=None).items == []
        assert "Zorblatine" not in (svc.recall(scope, "what is my sister called?").text or "")
    finally:
        svc.close()


def test_a_forget_drops_cache_entries_that_say_it_and_keeps_the_others(service, alice, bob):
    service.cache_put(alice, "owui", "last-block", {"block": "Your sister is called Zorblatine", "at": 3})
    service.cache_put(alice, "owui", "prefs", {"theme": "dark"})
    service.cache_put(bob, "owui", "last-block", {"block": "Bob's sister is called Zorblatine too"})
    service.remember(alice, MemoryIn(content="My sister is called Zorblatine"))
    service.forget(alice, "that my sister is called Zorblatine")
    for name, gone in [("last-block", True), ("prefs", False)]:
        try:
            service.cache_get(alice, "owui", name)
            assert not gone, name
        except Exception as e:
            assert gone and type(e).__name__ == "NotFound", name
    assert "Zorblatine" in service.cache_get(bob, "owui", "last-block").value["block"]  # someone else's forget reaches only its own


def test_erasing_a_person_removes_their_jobs_records_and_cache(service, alice, bob):
    from core.jobs.registry import put_window, set_cursor

    for scope in (alice, bob):
        service.cache_put(scope, "owui", "last-block", {"block": "hello"})
        put_window(service.registry, {"id": f"w_{scope.user_id}", "user_id": scope.user_id, "message_ids": ["t1"], "status": "done"})
        set_cursor(service.registry, "extract", scope.user_id, {"at": "2026-01-01"})
    gone = service.erase_person(alice)
    assert gone["records"] == 3
    for kind in PERSON_KINDS:
        assert service.registry.reg_find(kind, user_key("alice")) == {}
        assert len(service.registry.reg_find(kind, user_key("bob"))) == 1  # the other person's stay


def test_a_digest_sentence_naming_what_is_forgotten_goes_even_in_other_words(service, alice):
    """"Zorblatine visited her in May" holds too few of "my sister is called Zorblatine"'s words to
    "say" it, yet names it. Sentences that name only what the person keeps (their own name, a city
    another memory holds) stay."""
    service.remember(alice, MemoryIn(content="My sister is called Zorblatine"))
    service.remember(alice, MemoryIn(content="My passport number is QX-774105"))
    service.remember(alice, MemoryIn(content="Ines lives in Porto"))
    service.digest_set(alice, "Ines lives in Porto. Zorblatine visited her in May. Her passport QX-774105 expires in 2027. "
                              "She has 2 cats and moved to Porto in 2019.")
    service.forget(alice, "that my sister is called Zorblatine")
    assert service.digest_get(alice).content == "Ines lives in Porto. Her passport QX-774105 expires in 2027. She has 2 cats and moved to Porto in 2019."
    service.forget(alice, "my passport number")
    assert service.digest_get(alice).content == "Ines lives in Porto. She has 2 cats and moved to Porto in 2019."
    assert [m.content for m in service.list(alice).items if m.kind.value != "digest"] == ["Ines lives in Porto"]


def test_a_client_cache_entry_is_sealed_on_disk_and_its_key_goes_with_it(tmp_path):
    """The client cache lives in the registry, in Chroma's files like the records: its values are
    sealed the same way, and deleting, forgetting or erasing them destroys the key, so the copies
    Chroma keeps open no more."""
    data = tmp_path / "data"
    svc = build_service(Settings(data_dir=data), embedder=HashEmbedder(), clock=FixedClock())
    ines, ana = scope_for(Actor("ines", client="tests")), scope_for(Actor("ana", client="tests"))
    try:
        svc.cache_put(ines, "owui", "Vexillor-key", {"block": "Your sister is called Quenvarra"})
        svc.cache_put(ines, "owui", "prefs", {"theme": "Zanthorpe"})
        svc.cache_put(ana, "owui", "prefs", {"theme": "Mirelda"})
        assert svc.cache_get(ines, "owui", "Vexillor-key").value == {"block": "Your sister is called Quenvarra"}
        svc.flush()
        assert files_holding(data, "Quenvarra") == [] and files_holding(data, "Vexillor") == []  # sealed, key included
        svc.cache_put(ines, "owui", "prefs", {"theme": "Obsidrel"})  # overwritten: the old value's key is renewed
        svc.forget(ines, "that my sister is called Quenvarra")
        svc.erase_person(ana)
        svc.flush()
        left = opened_leftovers(data, dict(svc.store.sealer.keys._keys))
        assert not [t for t in left if "Quenvarra" in t or "Zanthorpe" in t or "Mirelda" in t]
        assert any("Obsidrel" in t for t in left)  # what is kept still opens
        assert svc.cache_get(ines, "owui", "prefs").value == {"theme": "Obsidrel"}
    finally:
        svc.close()


def test_the_reply_to_a_forget_sent_in_the_next_call_is_not_kept(service, alice, clock):
    """A client that sends turns one call at a time: "forget …" first, the model's "Done, I have
    forgotten that your sister is called Zorblatine" in the next call. The reply repeats what goes."""
    service.capture(alice, [Message(id="u0", role="user", session="s", content="My sister is called Zorblatine", created_at=clock.now())])
    clock.advance(minutes=1)
    service.capture(alice, [Message(id="u1", role="user", session="s", content="Forget that my sister is called Zorblatine",
                                    created_at=clock.now())])
    clock.advance(seconds=5)
    service.capture(alice, [Message(id="a1", role="assistant", session="s", created_at=clock.now(),
                                    content="Done, I have forgotten that your sister is called Zorblatine.")])
    service.capture(alice, [Message(id="u2", role="user", session="s", content="Thanks. What should I cook tonight?", created_at=clock.now()),
                            Message(id="a2", role="assistant", session="s", content="How about a risotto?", created_at=clock.now())])
    assert sorted(m.id for m in service.messages(alice)) == ["a2", "u2"]
    # a reply in another conversation, or long after, is kept as ever
    service.capture(alice, [Message(id="u3", role="user", session="t", content="Forget my shoe size", created_at=clock.now())])
    clock.advance(minutes=20)
    service.capture(alice, [Message(id="a3", role="assistant", session="t", content="Sure, noted.", created_at=clock.now())])
    assert "a3" in [m.id for m in service.messages(alice)]


@pytest.mark.parametrize("asked, gone, kept", [
    # a lowercase request still names the name the memory spells
    ("that my sister is called zorblatine", "Zorblatine visited her in May.", "Ines lives in Porto."),
    # the name opening the request
    ("Zorblatine's birthday", "She bakes a cake for Zorblatine every May.", "Ines lives in Porto."),
    # a title is no name: another doctor's sentence stays
    ("my appointment with Dr Rose", "Dr Rose moved the appointment to June.", "Ines sees Dr Almeida every month."),
])
def test_the_digest_loses_the_forgotten_name_and_only_it(service, alice, asked, gone, kept):
    memory = {"that my sister is called zorblatine": "My sister is called Zorblatine",
              "Zorblatine's birthday": "My sister Zorblatine's birthday is on May 3",
              "my appointment with Dr Rose": "I have an appointment with Dr Rose on Friday"}[asked]
    service.remember(alice, MemoryIn(content=memory))
    service.remember(alice, MemoryIn(content="Ines lives in Porto"))
    service.digest_set(alice, f"{kept} {gone}")
    assert service.forget(alice, asked).memories
    assert service.digest_get(alice).content == kept


def test_a_forget_and_an_erasure_drop_what_the_person_asked_lately(tmp_path):
    """The query vectors kept so a repeat is answered faster (e5's and the sentence model's): after
    a forget, none of the person's is left, so nobody acting as them can time whether a forgotten
    sentence was asked (the forget's own reading of its words among them); another person's stay.
    The process's caches of turns' word sets and stems are emptied too."""
    from core.embed import sentence
    from core.embed.fair import asked_by
    from core.recall.lexical import stem
    from core.recall.ranker import turn_words

    svc = build_service(Settings(data_dir=tmp_path / "data", embedding_model="local"))
    ines, omar = scope_for(Actor("ines", client="tests")), scope_for(Actor("omar", client="tests"))
    encoder = sentence.shared()
    assert encoder.wait(120)
    try:
        svc.remember(ines, MemoryIn(content="My therapist is Dr. Ines Varga"))
        svc.remember(omar, MemoryIn(content="My dentist is Dr. Omar Quist"))
        svc.ingest(ines, [Message(id="t1", role="user", session="s", created_at=NOW, content="my therapist Dr. Varga moved her office")])
        for scope, asked in ((ines, "who is my therapist?"), (omar, "who is my dentist?")):
            svc.recall(scope, asked)
            asked_by(scope.user_id, svc.embedder.embed_query, asked)
        assert turn_words.cache_info().currsize and stem.cache_info().currsize
        svc.forget(ines, "my therapist Dr. Ines Varga")
        assert not [m for m in svc.list(ines).items if "Varga" in m.content]
        assert svc.embedder._cache.drop("ines") == 0 and encoder.recent.drop("ines") == 0
        assert turn_words.cache_info().currsize == 0 and stem.cache_info().currsize == 0
        assert svc.embedder._cache.drop("omar") >= 1 and encoder.recent.drop("omar") >= 1
        svc.recall(ines, "who is my therapist?")  # asked again after the forget: kept again, then the erasure drops it
        svc.erase_person(ines)
        assert svc.embedder._cache.drop("ines") == 0 and encoder.recent.drop("ines") == 0
    finally:
        svc.close()
