"""The record key table: a key is on disk once `ensure` returns (a process that dies right after
loses none), and a destroyed key, or a key as it was stored before a master key wrapped it, is in
no file of the table (its file, its write-ahead log, its index) once `destroy` or `rotate` returns."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

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
