"""The record key table: a key is on disk once `ensure` returns (a process that dies right after
loses none), and a destroyed key, or a key as it was stored before a master key wrapped it, is in
no file of the table (its file, its write-ahead log, its index) once `destroy` or `rotate` returns."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from cryptography.exceptions import InvalidTag

from core.store.sealing import RecordKeys, Sealer

ROOT = Path(__file__).resolve().parents[2]


def holding(directory: Path, needle: bytes) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if p.is_file() and needle in p.read_bytes())


def test_a_destroyed_key_is_in_no_file_of_the_table(tmp_path):
    keys = RecordKeys(tmp_path / "record_keys.sqlite3")
    sealer = Sealer(keys)
    sealer.seal("c", [f"r{i}" for i in range(50)], [f"text {i}" for i in range(50)])
    gone, kept = keys.get("c\x1fr7"), keys.get("c\x1fr8")
    assert holding(tmp_path, gone) and holding(tmp_path, kept)
    assert sealer.destroy("c", ["r7"]) == 1
    assert holding(tmp_path, gone) == []
    assert holding(tmp_path, kept)  # the others are still there, in the file or its log
    keys.close()
    reopened = RecordKeys(tmp_path / "record_keys.sqlite3")
    assert reopened.get("c\x1fr7") is None and reopened.get("c\x1fr8") == kept
    reopened.close()


def test_keys_wrapped_by_a_new_master_key_leave_no_copy_as_they_were(tmp_path):
    keys = RecordKeys(tmp_path / "record_keys.sqlite3")
    Sealer(keys).seal("c", ["a", "b"], ["one", "two"])
    plain = [keys.get("c\x1fa"), keys.get("c\x1fb")]
    keys.close()
    wrapped = RecordKeys(tmp_path / "record_keys.sqlite3", os.urandom(32))  # encryption switched on
    assert [wrapped.get("c\x1fa"), wrapped.get("c\x1fb")] == plain
    assert all(holding(tmp_path, k) == [] for k in plain)
    wrapped.close()


def test_a_key_is_on_disk_when_ensure_returns(tmp_path):
    """A process that dies right after sealing (no close, no checkpoint) loses no key: Chroma may
    hold the record already, and a record without its key is lost."""
    child = (
        "import os, sys\n"
        "from pathlib import Path\n"
        "from core.store.sealing import RecordKeys\n"
        "keys = RecordKeys(Path(sys.argv[1]), bytes(32))\n"
        "made = keys.ensure(['c\\x1fx', 'c\\x1fy'])\n"
        "print(made[0].hex(), made[1].hex(), flush=True)\n"
        "os._exit(0)\n"
    )
    out = subprocess.run([sys.executable, "-c", child, str(tmp_path / "record_keys.sqlite3")], capture_output=True, text=True,
                         cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=60)
    assert out.returncode == 0, out.stderr
    x, y = (bytes.fromhex(h) for h in out.stdout.split())
    keys = RecordKeys(tmp_path / "record_keys.sqlite3", bytes(32))
    assert keys.get("c\x1fx") == x and keys.get("c\x1fy") == y
    keys.close()


def test_a_renewed_key_keeps_the_old_one_until_retired_then_the_old_seal_opens_no_more(tmp_path):
    """A record rewritten without some words gets a fresh key: until the store holds the new seal
    (and across a restart in between) both versions open; once the old key is retired the old seal
    does not open and the old key is in no file of the table, with or without a master key."""
    for master in (None, os.urandom(32)):
        path = tmp_path / f"keys-{bool(master)}.sqlite3"
        keys = RecordKeys(path, master)
        sealer = Sealer(keys)
        [old_seal] = sealer.seal("c", ["log"], ["Ines said her nickname is Vexillor."])
        old_key = keys.get("c\x1flog")
        sealer.renew("c", ["log"])
        [new_seal] = sealer.seal("c", ["log"], ["Ines walked by the sea."])
        assert keys.get("c\x1flog") != old_key and keys.previous("c\x1flog") == [old_key]
        keys.close()
        keys = RecordKeys(path, master)  # a restart between the renew and the store's write
        sealer = Sealer(keys)
        assert sealer.open("c", "log", old_seal) == "Ines said her nickname is Vexillor."
        assert sealer.open("c", "log", new_seal) == "Ines walked by the sea."
        assert sealer.retire("c", ["log"]) == 1
        assert keys.previous("c\x1flog") == [] and sealer.open("c", "log", new_seal) == "Ines walked by the sea."
        with pytest.raises(InvalidTag):
            sealer.open("c", "log", old_seal)
        if master is None:  # stored in the clear: the old key's bytes must be gone from every file
            assert holding(tmp_path, old_key) == []
        keys.close()
        assert RecordKeys(path, master).previous("c\x1flog") == []


def test_writers_at_once_share_commits_and_every_key_is_stored(tmp_path):
    """Many people's writes asking for keys at the same moment: each gets its own keys, all are in
    the table after a reopen, and they took fewer commits than calls (the commit is shared)."""
    import threading

    keys = RecordKeys(tmp_path / "record_keys.sqlite3", bytes(32))
    commits = []
    real = keys._commit
    def counted(batch):
        commits.append(len(batch))
        real(batch)
    keys._commit = counted
    got: dict[str, bytes] = {}
    go = threading.Barrier(16)

    def writer(w: int) -> None:
        go.wait()
        for n in range(10):
            refs = [f"col{w}\x1fr{n}-{i}" for i in range(3)]
            got.update(zip(refs, keys.ensure(refs)))

    threads = [threading.Thread(target=writer, args=(w,)) for w in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert len(got) == 16 * 10 * 3 and len(set(got.values())) == len(got)
    assert sum(commits) == len(got) and len(commits) < 160, commits
    keys.close()
    reopened = RecordKeys(tmp_path / "record_keys.sqlite3", bytes(32))
    assert {r: reopened.get(r) for r in got} == got
    reopened.close()


def test_a_failed_shared_commit_fails_its_callers_and_the_next_call_stores_the_key(tmp_path):
    keys = RecordKeys(tmp_path / "record_keys.sqlite3")
    real = keys._commit
    fail = [True]
    def flaky(batch):
        if fail[0]:
            fail[0] = False
            raise OSError("disk I/O error")
        real(batch)
    keys._commit = flaky
    with pytest.raises(OSError):
        keys.ensure(["c\x1fa"])
    assert keys.get("c\x1fa") is None  # nothing half-made: no key in memory that is not on disk
    made = keys.ensure(["c\x1fa"])[0]
    keys.close()
    reopened = RecordKeys(tmp_path / "record_keys.sqlite3")
    assert reopened.get("c\x1fa") == made
    reopened.close()


@pytest.mark.parametrize("harm", ["deleted", "emptied", "another store's"])
def test_a_store_refuses_a_key_file_that_is_not_its_own(tmp_path, harm):
    """Deleted or emptied, `record_keys.sqlite3` opened as a new table: every record then read as
    erased, the person's whole memory was gone with no error (health ok, remember worked), and new
    records were sealed under keys the store's own file lacks. The store now refuses to open,
    naming the file; with its own file back it opens with everything."""
    from core import Actor, InvalidInput, MemoryIn, Settings, build_service, scope_for
    from core.testing import HashEmbedder

    alice = scope_for(Actor("alice", client="tests"))
    data = tmp_path / "data"
    svc = build_service(Settings(data_dir=data), embedder=HashEmbedder())
    for fact in ("I live in Lisbon", "my sister is called Inès"):
        svc.remember(alice, MemoryIn(content=fact))
    svc.close()
    keys = data / "record_keys.sqlite3"
    saved = keys.read_bytes()
    assert not (data / "record_keys.sqlite3-wal").exists() or (data / "record_keys.sqlite3-wal").stat().st_size == 0
    if harm == "deleted":
        keys.unlink()
    elif harm == "emptied":
        keys.write_bytes(b"")
    else:
        other = tmp_path / "other"
        build_service(Settings(data_dir=other), embedder=HashEmbedder()).close()
        keys.write_bytes((other / "record_keys.sqlite3").read_bytes())
    with pytest.raises(InvalidInput) as refused:
        build_service(Settings(data_dir=data), embedder=HashEmbedder())
    assert str(keys) in str(refused.value) and "not the key file this store's records were sealed with" in str(refused.value)
    with pytest.raises(InvalidInput):  # refused again at the next start: nothing was written meanwhile
        build_service(Settings(data_dir=data), embedder=HashEmbedder())
    # the refusal closed the table it opened: no log of it is left to be replayed into the file put back
    assert not (data / "record_keys.sqlite3-wal").exists()
    keys.write_bytes(saved)
    svc = build_service(Settings(data_dir=data), embedder=HashEmbedder())
    try:
        assert sorted(m.content for m in svc.list(alice).items) == ["I live in Lisbon", "my sister is called Inès"]
    finally:
        svc.close()


def test_a_damaged_key_file_is_named_at_opening_and_at_writing(tmp_path):
    """Cut short, `record_keys.sqlite3` was reported as a broken Chroma store (Chroma's file was
    fine); with a garbled index page it opened and read, and every write then failed as an internal
    error naming nothing while health said ok. Each now names the key file: refused at opening, and
    writes refused as the store's outage (StoreUnavailable: 503, memory off for that call)."""
    from core import Actor, InvalidInput, MemoryIn, Settings, StoreUnavailable, build_service, scope_for
    from core.testing import HashEmbedder

    keys = RecordKeys(tmp_path / "k.sqlite3")
    keys.ensure([f"col/r{i}" for i in range(3000)])
    keys.close()
    page = bytearray((tmp_path / "k.sqlite3").read_bytes())
    page[2 * 4096 : 3 * 4096] = b"\x5a" * 4096  # the key index's page: the table still reads
    (tmp_path / "k.sqlite3").write_bytes(bytes(page))
    keys = RecordKeys(tmp_path / "k.sqlite3")
    try:
        assert keys.get("col/r7") is not None
        with pytest.raises(StoreUnavailable) as refused:
            keys.ensure(["col/new"])
        assert str(tmp_path / "k.sqlite3") in str(refused.value) and "cannot be written" in str(refused.value)
    finally:
        keys.close()

    data = tmp_path / "data"
    svc = build_service(Settings(data_dir=data), embedder=HashEmbedder())
    svc.remember(scope_for(Actor("alice", client="tests")), MemoryIn(content="I live in Lisbon"))
    svc.close()
    at = data / "record_keys.sqlite3"
    at.write_bytes(at.read_bytes()[: at.stat().st_size // 2])
    with pytest.raises(InvalidInput) as refused:
        build_service(Settings(data_dir=data), embedder=HashEmbedder())
    assert str(at) in str(refused.value) and "cannot be read" in str(refused.value) and "Chroma" not in str(refused.value)
