"""Forget erases: for every kind of record, in every status, the words are gone from every way of
reading memory and from every byte of the data directory (Chroma's SQLite file with its log and free
pages, its index files, the key table), on a real embedded Chroma; so is the erased record's vector,
which Chroma's index file and its purged log rows kept.

Before sealing, a forgotten memory became `status: deleted` with its words, and every earlier
version of every record stayed readable in chroma.sqlite3's log table and free pages.
"""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import pytest

from core import Actor, Message, MemoryIn, NotFound, Settings, build_service, build_boot, scope_for
from core.testing import FixedClock, HashEmbedder
from core.store.format import FORMAT
from core.scope import memory_collection, message_collection
from core.store.scrub import scrub_erased
from tests.kit.disk import files_holding, files_holding_vector


NOW = datetime(2026, 12, 1, 12, 0, tzinfo=timezone.utc)


@pytest.fixture
def world(tmp_path):
    clock = FixedClock()
    data = tmp_path / "data"
    svc = build_service(Settings(data_dir=data), embedder=HashEmbedder(), clock=clock)
    scope = scope_for(Actor("ines", client="tests"))
    yield svc, scope, data, clock
    svc.close()


def readable_anywhere(svc, scope, word: str) -> list[str]:
    """Every way a person, a model or an admin reads memory, that still shows `word`."""
    where = []
    if any(word in m.content for m in svc.list(scope, status=None, limit=500).items):
        where.append("list")
    if any(word in str(r) for r in svc.export(scope)):
        where.append("export")
    if word in (svc.recall(scope, word).text or ""):
        where.append("recall")
    if any(word in c.memory.content for c in svc.search(scope, word) if getattr(c, "memory", None)):
        where.append("search")
    if any(word in m.content for m in svc.messages(scope)):
        where.append("messages")
    if word in str(build_boot(svc, scope, "UTC")):
        where.append("boot pack")
    return where


def stored_vectors(svc, scope) -> dict:
    """Every vector of the person's memories and turns, by id, as Chroma holds it now."""
    out = {}
    for col in (memory_collection(scope), message_collection(scope)):
        r = svc.store._collection(col, vectors=True, create=False).get(include=["embeddings"])
        out.update(zip(r["ids"], r["embeddings"]))
    return out


def churn(svc, scope, word: str) -> None:
    """What happens to records in daily use and leaves old copies in Chroma's file: recalls (whose
    access counts are written back as patches) and a flush of those writes."""
    for _ in range(3):
        svc.recall(scope, word)
    svc.flush()


def test_a_fact_and_every_version_it_superseded(world):
    svc, scope, data, _ = world
    old = svc.remember(scope, MemoryIn(content="I live in Zanzibarton", fact_key="profile.home")).memory
    svc.remember(scope, MemoryIn(content="I live in Quixotia", fact_key="profile.home"))
    assert svc.get(scope, old.id).status.value == "superseded"
    churn(svc, scope, "Quixotia")
    plan = svc.forget(scope, "I live in Quixotia")
    assert {m.content for m in plan.memories} == {"I live in Quixotia", "I live in Zanzibarton"}
    for word in ("Quixotia", "Zanzibarton"):
        assert readable_anywhere(svc, scope, word) == []
        assert files_holding(data, word) == []
    with pytest.raises(NotFound, match="forgotten"):
        svc.restore(scope, old.id)


def test_forgetting_an_old_value_keeps_the_current_one(world):
    svc, scope, data, _ = world
    svc.remember(scope, MemoryIn(content="My bike is a Gazelletta", fact_key="profile.bike"))
    svc.remember(scope, MemoryIn(content="My bike is a Bromptonia", fact_key="profile.bike"))
    svc.forget(scope, "Gazelletta")
    assert readable_anywhere(svc, scope, "Gazelletta") == [] and files_holding(data, "Gazelletta") == []
    assert "list" in readable_anywhere(svc, scope, "Bromptonia")


@pytest.mark.parametrize("kind", ["precious", "glossary", "candidate", "trash", "archived", "digest", "turn"])
def test_each_kind_of_record_leaves_no_word_behind(world, kind):
    svc, scope, data, _ = world
    word = f"Vexillor{kind.capitalize()}"
    svc.remember(scope, MemoryIn(content="I enjoy long walks by the sea"))  # a neighbour that must survive
    if kind == "precious":
        svc.precious_add(scope, f"You said {word} was the kindest thing anyone ever told me")
    elif kind == "glossary":
        svc.glossary_set(scope, word, "my grandmother's word for a rainy Sunday")
    elif kind == "candidate":
        svc.remember(scope, MemoryIn(content=f"Maybe my cousin is called {word}", status="candidate", confidence=0.5))
    elif kind in ("trash", "archived"):
        m = svc.remember(scope, MemoryIn(content=f"My old landlord was {word}")).memory
        (svc.delete if kind == "trash" else svc.archive)(scope, m.id)
    elif kind == "digest":
        svc.digest_set(scope, f"Ines likes the sea. Her secret nickname is {word}.")
        svc.digest_set(scope, f"Ines likes the sea and walks. Her secret nickname is {word}.")
    elif kind == "turn":
        svc.store_turns(scope, [Message(id="t1", role="user", created_at=NOW, content=f"my secret nickname is {word}")])
    churn(svc, scope, word)
    before = stored_vectors(svc, scope)
    svc.forget(scope, word)
    assert readable_anywhere(svc, scope, word) == [], kind
    assert files_holding(data, word) == [], kind
    gone = {i: v for i, v in before.items() if i not in stored_vectors(svc, scope)}
    if kind not in ("glossary", "digest"):  # a glossary term is a registry row; a digest is rewritten, not erased
        assert gone, kind
    # nor can the erased record's vector be scored against a guess: gone from the index files at once,
    # and from Chroma's SQLite file (purged log rows, free pages, its write-ahead log) once the daily
    # retention job has overwritten what erasures left there
    for i, v in gone.items():
        assert [f for f in files_holding_vector(data, v) if "sqlite3" not in f] == [], (kind, i)
    assert scrub_erased(svc.store) >= 0
    for i, v in gone.items():
        assert files_holding_vector(data, v) == [], (kind, i)
    assert "list" in readable_anywhere(svc, scope, "long walks")  # nothing else went
    if kind == "digest":
        assert "likes the sea and walks" in svc.digest_get(scope).content  # rewritten, not dropped
    events = [e for e in svc.events(scope) if e.action == "forget"]
    assert events and word not in str(events)


def test_a_forgotten_turn_does_not_come_back_when_replayed(world):
    svc, scope, data, _ = world
    turn = Message(id="lt_replayed", role="user", created_at=NOW, content="my locker is number Octavian-88")
    svc.store_turns(scope, [turn])
    svc.forget(scope, "Octavian-88")
    assert svc.store_turns(scope, [turn]) == 0  # the journal or the capture queue replays it
    assert svc.ingest(scope, [turn]).ingested == 0
    assert readable_anywhere(svc, scope, "Octavian") == [] and files_holding(data, "Octavian") == []


def test_a_store_from_before_sealing_is_sealed_and_rebuilt_when_opened(tmp_path):
    """Format 1 stores held words in the clear: opening one seals every record and rebuilds
    Chroma's file, so a forget afterwards erases the old copies too."""
    data = tmp_path / "data"
    svc = build_service(Settings(data_dir=data), embedder=HashEmbedder(), clock=FixedClock())
    svc.store.sealer = None  # what an Amber before sealing wrote
    svc.store.reg_delete(["store:format"])
    scope = scope_for(Actor("olaf", client="tests"))
    svc.remember(scope, MemoryIn(content="My safe word is Pumpernickelo"))
    svc.store_turns(scope, [Message(id="o1", role="user", created_at=NOW, content="Pumpernickelo is what I say")])
    svc.close()
    assert files_holding(data, "Pumpernickelo")
    svc = build_service(Settings(data_dir=data), embedder=HashEmbedder(), clock=FixedClock())
    try:
        assert svc.store.reg_get("store:format")["version"] == FORMAT
        assert "list" in readable_anywhere(svc, scope, "Pumpernickelo")  # still readable by its owner
        svc.forget(scope, "Pumpernickelo")
        assert files_holding(data, "Pumpernickelo") == []
    finally:
        svc.close()


def test_a_store_from_a_newer_amber_is_refused(tmp_path):
    from core import StoreTooNew

    data = tmp_path / "data"
    svc = build_service(Settings(data_dir=data), embedder=HashEmbedder(), clock=FixedClock())
    svc.store.reg_put("store:format", {"version": 99}, kind="store")
    svc.close()
    with pytest.raises(StoreTooNew, match="format 99"):
        build_service(Settings(data_dir=data), embedder=HashEmbedder(), clock=FixedClock())


def test_with_a_master_key_the_key_table_opens_nothing_on_its_own(tmp_path):
    """Encryption at rest: the record keys are wrapped by the operator's master key. A store opened
    without it, or with another, is refused by name; the same store sealed without a master key is
    wrapped when one is first given; with the key everything reads as before; a forgotten record's
    bytes stay unreadable even with the live master key."""
    import secrets
    import sqlite3

    from core import InvalidInput

    data, master = tmp_path / "data", secrets.token_hex(32)
    scope = scope_for(Actor("maud", client="tests"))
    svc = build_service(Settings(data_dir=data), embedder=HashEmbedder(), clock=FixedClock())
    svc.remember(scope, MemoryIn(content="My bank PIN hint is Marzipantoffel"))
    svc.remember(scope, MemoryIn(content="I grow Tomatillos on the balcony"))
    svc.close()
    svc = build_service(Settings(data_dir=data, master_key=master), embedder=HashEmbedder(), clock=FixedClock())
    assert svc.health()["store"]["at_rest"] == "records sealed, keys under the master key"
    svc.forget(scope, "Marzipantoffel")
    assert [m.content for m in svc.list(scope).items] == ["I grow Tomatillos on the balcony"]
    svc.close()
    for wrong in (None, secrets.token_hex(32)):
        with pytest.raises(InvalidInput, match="master key"):
            build_service(Settings(data_dir=data, master_key=wrong), embedder=HashEmbedder(), clock=FixedClock())
    # the key table holds no usable key without the master key: every stored key is a wrapped blob
    keys = sqlite3.connect(data / "record_keys.sqlite3").execute("SELECT key FROM record_keys").fetchall()
    assert keys and all(len(k) == 12 + 32 + 16 for (k,) in keys)
    assert files_holding(data, "Marzipantoffel") == [] and files_holding(data, "Tomatillos") == []
    svc = build_service(Settings(data_dir=data, master_key=master), embedder=HashEmbedder(), clock=FixedClock())
    try:
        assert "Tomatillos" in svc.recall(scope, "what grows on my balcony?").text
    finally:
        svc.close()


def test_the_master_key_file_lives_outside_the_data(tmp_path):
    from pydantic import ValidationError

    with pytest.raises(ValidationError, match="inside data_dir"):
        Settings(data_dir=tmp_path / "data", master_key_file=tmp_path / "data" / "master.key")


def test_the_master_key_rotates(tmp_path, monkeypatch, capsys):
    import secrets

    from core import InvalidInput
    from mcp_server.cli import main

    data, old, new = tmp_path / "data", secrets.token_hex(32), secrets.token_hex(32)
    scope = scope_for(Actor("rhea", client="tests"))
    svc = build_service(Settings(data_dir=data, master_key=old), embedder=HashEmbedder(), clock=FixedClock())
    svc.remember(scope, MemoryIn(content="My allotment is plot 12"))
    svc.close()
    for name in [n for n in __import__("os").environ if n.startswith("AMBER_")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("AMBER_CONFIG", str(tmp_path / "none.yaml"))
    monkeypatch.setenv("AMBER_DATA_DIR", str(data))
    monkeypatch.setenv("AMBER_MASTER_KEY", old)
    monkeypatch.setenv("AMBER_NEW_MASTER_KEY", new)
    assert main(["keys", "rotate-master"]) == 0 and "record keys now stored" in capsys.readouterr().out
    with pytest.raises(InvalidInput, match="does not open"):
        build_service(Settings(data_dir=data, master_key=old), embedder=HashEmbedder(), clock=FixedClock())
    svc = build_service(Settings(data_dir=data, master_key=new), embedder=HashEmbedder(), clock=FixedClock())
    try:
        assert [m.content for m in svc.list(scope).items] == ["My allotment is plot 12"]
    finally:
        svc.close()


def test_a_person_erased_leaves_nothing_readable_and_others_untouched(tmp_path, monkeypatch, capsys):
    """`amber forget-user`: every memory, turn, tombstone and registry record of one person goes,
    their record keys with them; another person's memory is as it was."""
    from mcp_server.cli import main

    data = tmp_path / "data"
    gone, kept = scope_for(Actor("gwen", client="tests")), scope_for(Actor("hal", client="tests"))
    svc = build_service(Settings(data_dir=data), embedder=HashEmbedder(), clock=FixedClock())
    svc.remember(gone, MemoryIn(content="My childhood dog was Biscuitfeather"))
    svc.precious_add(gone, "Gwen said Quillowhisper was her favourite word")
    svc.store_turns(gone, [Message(id="g1", role="user", created_at=NOW, content="Biscuitfeather loved the beach")])
    svc.forget(gone, "Quillowhisper")  # leaves a tombstone
    svc.remember(kept, MemoryIn(content="Hal keeps bees called Honeyrunners"))
    churn(svc, gone, "Biscuitfeather")
    vectors = stored_vectors(svc, gone)
    assert vectors and all(files_holding_vector(data, v) for v in vectors.values())  # the check sees them while stored
    svc.close()
    for name in [n for n in __import__("os").environ if n.startswith("AMBER_")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("AMBER_CONFIG", str(tmp_path / "none.yaml"))
    monkeypatch.setenv("AMBER_DATA_DIR", str(data))
    monkeypatch.setenv("AMBER_EMBEDDING_MODEL", "hash")
    assert main(["forget-user", "gwen"]) == 2  # nothing without --yes
    assert main(["forget-user", "gwen", "--yes"]) == 0 and "erased 'gwen': 1 memories, 1 turns, 1 tombstones" in capsys.readouterr().out
    assert files_holding(data, "Biscuitfeather") == [] and files_holding(data, "Quillowhisper") == []
    svc = build_service(Settings(data_dir=data), embedder=HashEmbedder(), clock=FixedClock())
    try:
        assert scrub_erased(svc.store) > 0  # as the daily retention job does: what the erasure left in Chroma's file
        assert [i for i, v in vectors.items() if files_holding_vector(data, v)] == []
        assert "gwen" not in svc.users() and svc.list(gone, status=None).items == [] and svc.messages(gone) == []
        assert svc.tombstones.count("gwen") == 0
        assert [m.content for m in svc.list(kept).items] == ["Hal keeps bees called Honeyrunners"]
    finally:
        svc.close()


_FRESH_STORE = """
import json
import sys
from pathlib import Path
from core import Actor, MemoryIn, Settings, build_service, scope_for
from core.testing import HashEmbedder
data = Path(sys.argv[1])
svc = build_service(Settings(data_dir=data), embedder=HashEmbedder())
for name in ("ulla", "vera", "wim"):
    scope = scope_for(Actor(name, client="tests"))
    svc.remember(scope, MemoryIn(content=f"{name} keeps bees on the roof"))
    svc.forget(scope, "bees")
svc.close()
print(json.dumps(sorted(p.read_bytes().hex() for p in (data / "chroma").glob("*/length.bin"))))
"""


@pytest.mark.parametrize("caches_off", [True, False])
def test_a_fresh_index_file_holds_only_the_scrub_pattern_when_thread_caches_are_off(tmp_path, caches_off):
    """Chroma writes a new collection's `length.bin` (400 bytes) from a block it fills only with the
    lengths of the vectors it holds (float32; a stored vector is unit length, 1.0). With glibc's
    thread caches off (what make run, make serve, make test and `amber` itself set) the rest of that
    block is scrubbed, so it holds the pattern and no stray heap; with them on the store says so
    when it opens, naming the setting."""
    import json
    import os
    import subprocess
    import sys

    from core.store.sealing import TCACHE_OFF

    env = {k: v for k, v in os.environ.items() if k != "GLIBC_TUNABLES"}
    if caches_off:
        env["GLIBC_TUNABLES"] = TCACHE_OFF
    done = subprocess.run([sys.executable, "-c", _FRESH_STORE, str(tmp_path / "data")], env=env,
                          cwd=Path(__file__).resolve().parents[2], capture_output=True, text=True, timeout=120, check=True)
    files = [bytes.fromhex(h) for h in json.loads(done.stdout.strip().splitlines()[-1])]
    assert len(files) >= 3
    warned = "GLIBC_TUNABLES=glibc.malloc.tcache_count=0" in done.stderr
    assert warned is not caches_off
    if caches_off:
        unit = bytes.fromhex("0000803f")  # 1.0 as float32
        rest = [f[4 * next(i for i in range(len(f) // 4 + 1) if f[4 * i:4 * i + 4] != unit):] for f in files]
        assert all(r and set(r) == {0x5A} for r in rest), [f[:32].hex() for f in files]


def test_the_reply_that_repeats_a_name_or_number_of_the_forgotten_turn_goes_with_it(world):
    """"Inès is a lovely name!" holds too few of "my sister is called Inès"'s words to say it, yet it
    answers the very turn that goes, with its key word: it stayed in the messages, recall and the
    export. Another exchange of the same conversation stays."""
    from datetime import timedelta

    svc, scope, data, clock = world
    NOW = clock.now() - timedelta(minutes=5)  # said before now: the host keeps each turn's own time
    svc.capture(scope, [Message(id="lt_s_u", role="user", session="s", created_at=NOW, content="My sister is called Inès"),
                        Message(id="lt_s_a", role="assistant", session="s", created_at=NOW + timedelta(seconds=2), content="Inès is a lovely name!"),
                        Message(id="lt_t_u", role="user", session="s", created_at=NOW + timedelta(minutes=1), content="What tea goes with cake?"),
                        Message(id="lt_t_a", role="assistant", session="s", created_at=NOW + timedelta(minutes=1, seconds=2),
                                content="Earl Grey goes well with lemon cake.")])
    plan = svc.forget(scope, "forget that my sister is called Inès")
    assert sorted(plan.message_ids) == ["lt_s_a", "lt_s_u"]
    assert readable_anywhere(svc, scope, "Inès") == []
    assert [m.id for m in svc.messages(scope)] == ["lt_t_u", "lt_t_a"]
