"""Ids derived from a person's words are keyed by a secret of theirs, never a plain hash of the words.

A memory's id derives from what it says (a retried write lands on the same record). The audit trail
keeps the ids a forget erased, and a sealed store's files keep ids beside words nobody can read: an
id that was a plain hash would let anyone holding it test a guess ("is it Lyon? Nice?") against
what the person made Amber forget. These tests play that guesser."""

from __future__ import annotations

import hashlib
import secrets
from datetime import datetime, timezone

from core import Actor, Kind, MemoryIn, Settings, build_service, scope_for
from core.model import Memory, content_hash
from core.person_secret import KEPT_S, PersonSecrets, keyed_digest, secret_key
from core.recall.render import handle_of
from core.testing import FixedClock, HashEmbedder
from tests.kit.disk import file_bytes


def plain_id(*parts: str) -> str:
    """How an id was derived before it was keyed: the guesser's formula."""
    return "m_" + hashlib.sha256("\x1f".join(parts).encode()).hexdigest()[:24]


def guesses(user: str, key: str, cities: list[str]) -> set[str]:
    return {plain_id(user, "default", key, content_hash(f"I live in {c}")) for c in cities}


CITIES = ["Lyon", "Nice", "Paris", "Lille", "Nantes"]


def test_a_forgotten_fact_cannot_be_guessed_from_the_ids_the_audit_keeps(service, alice):
    made = service.remember(alice, MemoryIn(content="I live in Lyon", fact_key="profile.city")).memory
    service.forget(alice, "that I live in Lyon")
    assert service.list(alice).items == []
    audit_ids = {i for e in service.events(alice) for i in e.memory_ids}
    assert made.id in audit_ids  # the audit names what went, by id
    assert not audit_ids & guesses("alice", "profile.city", CITIES)  # but no guess of the words matches it
    # the id is the person's keyed digest: it matches only with their secret, which the erasure deletes
    secret = bytes.fromhex(service.registry.reg_get(secret_key("alice")))
    assert made.id == "m_" + keyed_digest(secret, "default", "profile.city", content_hash("I live in Lyon"))
    service.erase_person(alice)
    assert service.registry.reg_get(secret_key("alice")) is None


def test_the_same_words_give_the_same_id_to_one_person_and_another_to_anyone_else(tmp_path, service, alice, bob):
    first = service.remember(alice, MemoryIn(content="I live in Lyon", fact_key="profile.city"))
    again = service.remember(alice, MemoryIn(content="i live in  LYON", fact_key="profile.city"))
    assert again.action == "seen" and again.memory.id == first.memory.id  # a retried write converges
    bobs = service.remember(bob, MemoryIn(content="I live in Lyon", fact_key="profile.city")).memory
    assert bobs.id != first.memory.id
    # the same person on another deployment has another secret: ids say nothing across stores
    other = build_service(Settings(data_dir=tmp_path / "other"), embedder=HashEmbedder(), clock=FixedClock())
    try:
        elsewhere = other.remember(alice, MemoryIn(content="I live in Lyon", fact_key="profile.city")).memory
    finally:
        other.close()
    assert elsewhere.id != first.memory.id


def test_the_secret_outlives_the_process_so_ids_converge_after_a_restart(tmp_path):
    data, clock = tmp_path / "data", FixedClock()
    scope = scope_for(Actor("ines", client="tests"))
    svc = build_service(Settings(data_dir=data), embedder=HashEmbedder(), clock=clock)
    try:
        first = svc.remember(scope, MemoryIn(content="My sister is called Inès")).memory
    finally:
        svc.close()
    svc = build_service(Settings(data_dir=data), embedder=HashEmbedder(), clock=clock)
    try:
        assert svc.writes.id_for(scope, MemoryIn(content="my sister is called  Inès")) == first.id
        assert svc.remember(scope, MemoryIn(content="My sister is called Inès")).action == "seen"
    finally:
        svc.close()


def test_a_person_erased_and_back_gets_a_new_secret(service, alice):
    before = service.remember(alice, MemoryIn(content="I live in Lyon", fact_key="profile.city")).memory
    service.erase_person(alice)
    after = service.remember(alice, MemoryIn(content="I live in Lyon", fact_key="profile.city")).memory
    assert after.id != before.id


def test_a_memory_stored_under_a_plain_id_is_still_found_by_its_words(service, alice, clock):
    """Stores written before ids were keyed: a write of the same words is 'seen' on the old record,
    a new value supersedes it; nothing is duplicated."""
    scope = alice
    service.remember(scope, MemoryIn(content="warm-up"))  # registers the person
    now = clock.now()
    for content, key in [("I live in Lyon", "profile.city"), ("I like green tea", None)]:
        h = content_hash(content)
        old = Memory(id=plain_id("alice", "default", key or "", h), user_id="alice", content=content, fact_key=key, content_hash=h,
                     created_at=now, updated_at=now, last_seen_at=now, valid_from=now)
        service.writes.write(scope, [old], embed=[old])
    assert service.remember(scope, MemoryIn(content="I like green tea")).action == "seen"
    seen = service.remember(scope, MemoryIn(content="I live in Lyon", fact_key="profile.city"))
    assert seen.action == "seen" and seen.memory.id == plain_id("alice", "default", "profile.city", content_hash("I live in Lyon"))
    moved = service.remember(scope, MemoryIn(content="I live in Nice", fact_key="profile.city"))
    assert moved.action == "superseded" and moved.previous.id == seen.memory.id
    assert sorted(m.content for m in service.list(scope).items) == ["I like green tea", "I live in Nice", "warm-up"]


def test_a_glossary_key_and_a_digest_id_are_keyed_and_an_old_term_keeps_its_key(service, alice, clock):
    term = service.glossary_set(alice, "Zephyr", "our team's deploy tool").memory
    assert term.fact_key != "world.term_" + hashlib.sha256(b"zephyr").hexdigest()[:12]
    again = service.glossary_set(alice, "zephyr", "our team's deploy tool, in Go")
    assert again.action == "superseded" and again.memory.fact_key == term.fact_key
    digest = service.digest_set(alice, "Ines works on the Zephyr tool")
    assert digest.id != plain_id("alice", "digest", clock.now().isoformat(), "Ines works on the Zephyr tool")
    # a term set before keys were keyed
    now, old_key = clock.now(), "world.term_" + hashlib.sha256(b"kestrel").hexdigest()[:12]
    old = Memory(id=plain_id("alice", "default", old_key, content_hash("Kestrel: the build farm")), user_id="alice", content="Kestrel: the build farm",
                 kind=Kind.glossary, title="Kestrel", fact_key=old_key, content_hash=content_hash("Kestrel: the build farm"),
                 created_at=now, updated_at=now, last_seen_at=now, valid_from=now)
    service.writes.write(alice, [old], embed=[old])
    reset = service.glossary_set(alice, "Kestrel", "the build farm, now on arm64")
    assert reset.action == "superseded" and reset.memory.fact_key == old_key
    assert [m.title for m in service.glossary_get(alice, "kestrel")] == ["Kestrel"]


def test_a_handle_cannot_be_computed_from_a_guessed_fact(service, alice):
    """The block's handles derive from ids: with keyed ids, knowing the words does not give the
    handle (a handle pasted into a chat by someone else acts only if it was shown to the person)."""
    mems = [service.remember(alice, MemoryIn(content=f"I live in {c}", fact_key=f"profile.home_{i}")).memory for i, c in enumerate(CITIES)]
    for i, (c, m) in enumerate(zip(CITIES, mems)):
        guessed = plain_id("alice", "default", f"profile.home_{i}", content_hash(f"I live in {c}"))
        assert m.id != guessed and handle_of(m.id) != handle_of(guessed)


def test_no_file_of_a_sealed_store_holds_a_plain_digest_of_the_words(tmp_path):
    data = tmp_path / "data"
    svc = build_service(Settings(data_dir=data, master_key=secrets.token_hex(32)), embedder=HashEmbedder(), clock=FixedClock())
    scope = scope_for(Actor("ines", client="tests"))
    said = ["My locker code is 4471", "I live in Lyon"]
    try:
        svc.remember(scope, MemoryIn(content=said[0]))
        svc.remember(scope, MemoryIn(content=said[1], fact_key="profile.city"))
        svc.remember(scope, MemoryIn(content="I keep bees", kind=Kind.precious))
        svc.forget(scope, "my locker code")
    finally:
        svc.close()
    blobs = file_bytes(data)
    plain = {plain_id("ines", "default", "", content_hash(said[0])), plain_id("ines", "default", "profile.city", content_hash(said[1])),
             plain_id("ines", "precious", content_hash("I keep bees"))}
    plain |= {content_hash(t) for t in [*said, "I keep bees"]}
    found = {p: name for p in plain for name, raw in blobs.items() if p.encode() in raw}
    assert found == {}


def test_a_process_rereads_the_secret_after_a_while(tmp_path):
    from core.store.chroma import ChromaStore

    store = ChromaStore(data_dir=tmp_path, embedder_id="hash", dim=4)
    t = [0.0]
    try:
        a, b = PersonSecrets(store, clock=lambda: t[0]), PersonSecrets(store, clock=lambda: t[0])
        lock = __import__("contextlib").nullcontext
        first = a.get("ines", lock)
        assert b.get("ines", lock) == first  # one secret, whichever process made it
        b.drop("ines")  # another host erases the person
        assert a.get("ines", lock) == first  # this process still holds what it read...
        t[0] += KEPT_S + 1
        assert a.get("ines", lock) != first  # ...for a while only: then it reads the registry again
    finally:
        store.close()


def test_a_turn_named_by_its_words_is_stored_under_a_keyed_id(service, alice, clock):
    """The proxy and MCP name a turn with no id of its own by its words (`words_turn_id`), so a retry
    keeps one copy; the store keys that name, so the audit of a forget does not carry a hash of them."""
    from core import Message, words_turn_id

    said = "I am pregnant with twins"
    key = f"alice\x1fs1\x1f{clock.now().date()}\x1f0\x1f{said}"
    sent = Message(id=words_turn_id("lt", key, suffix="_u"), role="user", content=said, session="s1", created_at=clock.now())
    plain = "lt_" + hashlib.sha256(key.encode()).hexdigest()[:24] + "_u"
    assert sent.id == plain.replace("lt_", "lt~", 1)
    assert service.capture(alice, [sent])[0] == 1
    assert service.capture(alice, [sent])[0] == 0  # a retry: one copy
    [stored] = service.messages(alice)
    assert stored.id.startswith("lt_") and stored.id.endswith("_u") and stored.id != plain and "~" not in stored.id
    service.forget(alice, "that I am pregnant")
    assert service.messages(alice) == []
    kept = " ".join(str(e.model_dump()) for e in service.events(alice))
    assert stored.id in kept and plain[3:27] not in kept  # the audit names the turn by its keyed id only
    assert service.capture(alice, [sent])[0] == 0  # and the journal's copy, replayed, stays forgotten


def test_ids_a_client_chose_are_kept_as_they_are(service, alice, clock):
    from core import Message

    for mid in ["owui-7f3a", "lt_s_u", "chatgpt:abc", "lt~nothex_u"]:
        service.capture(alice, [Message(id=mid, role="user", content=f"turn {mid}", created_at=clock.now())])
    assert sorted(m.id for m in service.messages(alice)) == sorted(["owui-7f3a", "lt_s_u", "chatgpt:abc", "lt~nothex_u"])


def test_open_webuis_turns_named_by_their_words_are_keyed_with_their_replies(service, alice, clock):
    """The Open WebUI filter names an API chat's turns `owui~<24 hex>` and the replies after them
    (`-reply`, `-reply-2`): keyed on arrival, a question and its replies keep one keyed name."""
    from core import Message

    q = "owui~" + "ab" * 12
    service.capture(alice, [Message(id=q, role="user", content="My sister is called Inès", created_at=clock.now()),
                            Message(id=f"{q}-reply", role="assistant", content="A lovely name", created_at=clock.now())])
    ids = sorted(m.id for m in service.messages(alice))
    assert len(ids) == 2 and all(i.startswith("owui_") and "ab" * 12 not in i for i in ids)
    assert ids[1] == ids[0] + "-reply"
