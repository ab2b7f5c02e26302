"""The export parsers on mutated exports (odd Unicode and lone surrogates, nesting thousands deep,
huge and empty texts, bad and missing times, wrong types, files cut off mid-write), in a child
process so a crash or a runaway recursion shows as a failure here instead of taking pytest down.
Every case either parses into turns a store can keep or is refused with an InvalidInput."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

CHILD = Path(__file__).with_name("chat_import_child.py")
FIX = Path(__file__).resolve().parents[1] / "fixtures" / "chat_exports"
ENV = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[2]), "OMP_WAIT_POLICY": "PASSIVE"}


@pytest.mark.parametrize("seed", [11, 29])
def test_mutated_exports_parse_or_are_refused(tmp_path, seed):
    r = subprocess.run([sys.executable, str(CHILD), "fuzz", str(FIX), str(seed), "250", str(tmp_path)], env=ENV,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    out = json.loads(r.stdout.strip().splitlines()[-1])
    assert out["cases"] == 250 and out["failures"] == [], out["failures"][:5]


def test_a_cut_off_array_names_the_element(tmp_path):
    import io

    from core import InvalidInput
    from core.chat_import.jsonstream import iter_array

    text = json.dumps([{"a": "年糕" * 1000}, {"b": [1, 2, {"c": "x" * 5000}]}, 3, "s"])
    assert list(iter_array(io.StringIO(text), name="f", chunk=5)) == json.loads(text)
    with pytest.raises(InvalidInput) as e:
        list(iter_array(io.StringIO(text[:-40]), name="conversations.json", chunk=5))
    assert e.value.field == "conversations.json" and "element 1" in str(e.value)
    with pytest.raises(InvalidInput):
        list(iter_array(io.StringIO('{"not": "an array"}'), name="f"))
    with pytest.raises(InvalidInput) as e:
        list(iter_array(io.StringIO("[1, NaN]"), name="f"))
    assert "element 1" in str(e.value)
    with pytest.raises(InvalidInput) as e:
        list(iter_array(io.StringIO("[" + json.dumps({"x": "y" * 3000}) + "]"), name="f", chunk=64, max_element=1024))
    assert "larger than" in str(e.value)


@pytest.mark.parametrize("module", ["record", "chatgpt", "claude", "openwebui", "claude_code"])
def test_the_parsers_are_pure(module):
    """Records in, conversations out: opening files and ZIPs is sources.py's job, storing importer.py's."""
    from tests.test_architecture import IO_MODULES, ROOT, imports

    names = {n.split(".")[0] for n, _ in imports(ROOT / "core" / "chat_import" / f"{module}.py")}
    assert not names & (IO_MODULES | {"zipfile", "pathlib", "io", "tempfile", "shutil"})
    assert not {n for n, _ in imports(ROOT / "core" / "chat_import" / f"{module}.py")} & {"core.service", "core.store"}
