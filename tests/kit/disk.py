"""The bytes a store left on disk, read without disturbing the store that has them open."""

from __future__ import annotations

import pickle
import subprocess
import sys
from pathlib import Path

import pytest

_READ = """
import pickle, sys
from pathlib import Path
root = Path(sys.argv[1])
sys.stdout.buffer.write(pickle.dumps({str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()}))
"""


def file_bytes(root: Path) -> dict[str, bytes]:
    """Every file under `root` and its bytes, read in a child process: opening and closing Chroma's
    SQLite file here would drop the locks this process's Chroma holds on it (POSIX locks belong to
    the process, and any close releases them), and a store in write-ahead-log mode must keep them
    (core/store/chroma_file.py)."""
    done = subprocess.run([sys.executable, "-I", "-c", _READ, str(root)], capture_output=True, check=True)
    return pickle.loads(done.stdout)


def files_holding(root: Path, word: str) -> list[str]:
    """The files under `root` whose bytes hold `word`. Only meaningful in a process started with
    glibc's thread caches off (core/store/sealing.py, thread_caches_off; make test sets it): else
    Chroma's new index files can hold stray heap bytes, words of earlier tests among them."""
    from core import TCACHE_OFF, thread_caches_off

    if not thread_caches_off():
        pytest.fail(f"reading a store's bytes for words needs GLIBC_TUNABLES={TCACHE_OFF} in this process's environment "
                    "from its start (`make test` sets it)")
    needle = word.encode("utf-8")
    return sorted(name for name, data in file_bytes(root).items() if needle in data)


def files_holding_vector(root: Path, vector) -> list[str]:
    """The files under `root` holding `vector` as float32s, as given or scaled (a cosine index keeps
    it normalised): any 4-byte alignment, found when the floats there point the same way (cosine >
    0.999), so a vector stored with rounding is found too."""
    return sorted(name for name, data in file_bytes(root).items() if _holds_vector(data, vector))


def _holds_vector(data: bytes, vector) -> bool:
    import numpy as np

    v = np.asarray(vector, dtype=np.float32)
    j = int(np.argmax(np.abs(v)))  # the largest value: where to look for the vector first
    unit = v / np.linalg.norm(v)
    for off in range(4):
        n = (len(data) - off) // 4
        if n < len(v):
            continue
        arr = np.nan_to_num(np.frombuffer(data, dtype=np.float32, count=n, offset=off), nan=0.0, posinf=0.0, neginf=0.0)
        for anchor in (v[j], unit[j]):  # the value itself, raw or normalised
            for p in np.flatnonzero(np.abs(arr - anchor) <= 1e-4 * abs(anchor) + 1e-7):
                s = p - j
                if 0 <= s and s + len(v) <= len(arr):
                    w = arr[s: s + len(v)].astype(np.float64)
                    if (nw := np.linalg.norm(w)) and float(w @ unit) / nw > 0.999:
                        return True
    return False
