"""What an installed Amber reads beside its modules ships with it: every data file in the product's
packages (fitted weights, prompts, the admin page) is named by `[tool.setuptools.package-data]`, so a
wheel install is not left without, say, the correction models' weights (it would then decide by the
rules alone, silently)."""

from __future__ import annotations

import fnmatch
import subprocess
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_every_data_file_in_a_package_is_shipped():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    shipped = config["tool"]["setuptools"]["package-data"]
    packages = [p.rstrip("*") for p in config["tool"]["setuptools"]["packages"]["find"]["include"]]
    listed = subprocess.run(["git", "ls-files", *packages], cwd=ROOT, capture_output=True, text=True)
    tracked = listed.stdout.split() if listed.returncode == 0 else [str(p.relative_to(ROOT)) for pkg in packages
                                                                    for p in (ROOT / pkg).rglob("*") if p.is_file()]
    data = [Path(p) for p in tracked if not p.endswith((".py", ".pyi", ".pyc", "README.md"))]  # a README is read by people, not by Amber
    assert data, "no data files found: the check reads nothing"
    missing = [str(p) for p in data
               if not any(fnmatch.fnmatch(str(p.relative_to(p.parts[0])), pattern) for pattern in shipped.get(p.parts[0], []))]
    assert not missing, f"data files a wheel would leave out: {missing}"
