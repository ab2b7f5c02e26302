"""The README's Python example works exactly as written."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def test_readme_example_runs(tmp_path):
    block = re.search(r"```python\n(.*?)```", README.read_text(), re.S).group(1)
    out = subprocess.run([sys.executable, "-c", block], cwd=tmp_path, capture_output=True, text=True, timeout=300,
                         env={"PATH": "/usr/bin:/bin", "AMBER_CONFIG": str(tmp_path / "none.yaml"), "HOME": str(tmp_path)})
    assert out.returncode == 0, out.stderr
    assert "<memory_context>" in out.stdout and "Shanghai" in out.stdout
    assert "Beijing" not in out.stdout
