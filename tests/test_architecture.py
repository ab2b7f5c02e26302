"""Imports point one way (README, Architecture), checked on the source tree's AST."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FACES = ("litellm_hooks", "mcp_server", "openwebui_functions")
PURE = [
    "core/recall/fusion.py",
    "core/recall/render.py",
    "core/recall/lexical.py",
    "core/commands.py",
    "core/cache_plan.py",
    "core/jobs/extraction/windows.py",
    "core/jobs/extraction/parse.py",
    "core/jobs/extraction/decide.py",
    "core/recall/relevance.py",
    "core/redact.py",
    "core/redact_chat.py",
    "litellm_hooks/identity.py",
    "core/filters.py",
]
IO_MODULES = {"chromadb", "httpx", "litellm", "requests", "socket", "sqlite3", "subprocess", "aiohttp", "urllib", "os", "anyio", "asyncio"}


def imports(path: Path) -> list[tuple[str, int]]:
    """Absolute module names imported by a file (relative imports resolved against its package)."""
    tree = ast.parse(path.read_text(), str(path))
    pkg = path.relative_to(ROOT).with_suffix("").parts[:-1]
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(a.name, node.lineno) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = pkg[: len(pkg) - node.level + 1]
                name = ".".join([*base, node.module] if node.module else base)
            else:
                name = node.module or ""
            out.append((name, node.lineno))
    return out


def py_files(top: str) -> list[Path]:
    return sorted((ROOT / top).rglob("*.py"))


def test_core_never_imports_a_face():
    bad = [(str(p), n, line) for p in py_files("core") for n, line in imports(p) if n.split(".")[0] in FACES]
    assert bad == []


def test_only_core_store_imports_chromadb():
    bad = []
    for top in ("core", *FACES):
        for p in py_files(top):
            if "core/store/" in str(p.relative_to(ROOT)):
                continue
            bad += [(str(p), line) for n, line in imports(p) if n.split(".")[0] == "chromadb"]
    assert bad == []


@pytest.mark.parametrize("face", FACES)
def test_faces_use_only_the_public_core_api(face):
    bad = []
    for p in py_files(face):
        for n, line in imports(p):
            parts = n.split(".")
            if parts[0] == "core" and len(parts) > 1:
                bad.append((str(p.relative_to(ROOT)), n, line))
            if parts[0] in FACES and parts[0] != face:
                allowed = face == "litellm_hooks" and n.startswith("mcp_server.app")
                if not allowed:
                    bad.append((str(p.relative_to(ROOT)), n, line))
    assert bad == []


@pytest.mark.parametrize("rel", PURE)
def test_pure_modules_import_no_io(rel):
    path = ROOT / rel
    if not path.exists():
        pytest.fail(f"{rel} is listed as a pure module but does not exist")
    bad = []
    for n, line in imports(path):
        if n.split(".")[0] in IO_MODULES or n.startswith(("core.store", "core.embed", "core.llm", "core.service")):
            bad.append((n, line))
    assert bad == []


def test_modules_stay_small():
    big = [(str(p.relative_to(ROOT)), len(p.read_text().splitlines())) for top in ("core", *FACES) for p in py_files(top)]
    assert [b for b in big if b[1] > 600] == []


def _writes_environ(node: ast.AST) -> bool:
    """`os.environ[...] = ...`, `del os.environ[...]`, or `os.environ.update/setdefault/pop/clear(...)`."""
    def is_environ(n: ast.AST) -> bool:
        return isinstance(n, ast.Attribute) and n.attr == "environ"

    if isinstance(node, (ast.Assign, ast.AugAssign, ast.Delete)):
        targets = node.targets if isinstance(node, (ast.Assign, ast.Delete)) else [node.target]
        return any(isinstance(t, ast.Subscript) and is_environ(t.value) for t in targets)
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and is_environ(node.func.value)
            and node.func.attr in ("update", "setdefault", "pop", "clear", "__setitem__"))


def test_nothing_steers_settings_through_the_environment():
    """Settings come from init arguments, the environment the operator set, and config.yaml (named
    with `core.config_file`); no module writes os.environ to steer them."""
    bad = [(str(p.relative_to(ROOT)), n.lineno) for top in ("core", *FACES) for p in py_files(top)
           for n in ast.walk(ast.parse(p.read_text())) if _writes_environ(n)]
    assert bad == []


def test_only_core_store_speaks_chromas_filter_dialect():
    """Filters are core.filters values everywhere else; `$and`, `$in` and friends live in core/store."""
    ops = ("$and", "$or", "$in", "$nin", "$eq", "$ne", "$gt", "$gte", "$lt", "$lte", "$contains")
    bad = []
    for top in ("core", *FACES):
        for p in py_files(top):
            if p.is_relative_to(ROOT / "core" / "store"):
                continue
            for node in ast.walk(ast.parse(p.read_text())):
                if isinstance(node, ast.Constant) and node.value in ops:
                    bad.append((str(p.relative_to(ROOT)), node.lineno, node.value))
    assert bad == []


# Who may hold Amber's store. Everyone else reads a user's records through `service.reads`
# (core/reads.py), changes them through `service.writes` (core/write_path.py), keeps registry
# records through `service.registry` (core/registry.py), or calls the service's public methods.
STORE_HOLDERS = {
    "core/service.py": "builds the service and hands the store to its collaborators",
    "core/write_path.py": "the write path: lock, write, audit, revisions",
    "core/reads.py": "a user's records, read-only",
    "core/registry.py": "the registry view: registry records and nothing else",
    "core/portability.py": "reindex drops and refills a user's collections whole",
    "core/coordination.py": "one-host leases are registry rows (core/jobs/registry.py)",
    "core/recall/": "the recaller builds its warm indexes from the store",
    "mcp_server/cli_doctor.py": "`args.store` is the doctor's --store option, not a store",
}


def _holds_store(rel: str) -> bool:
    return rel.startswith("core/store/") or any(rel == h or (h.endswith("/") and rel.startswith(h)) for h in STORE_HOLDERS)


def test_only_the_service_and_its_named_collaborators_touch_the_store():
    """`x.store` / `x._store` (the attribute, not a method of that name) appears only in STORE_HOLDERS."""
    bad = []
    for top in ("core", *FACES):
        for p in py_files(top):
            rel = str(p.relative_to(ROOT))
            if _holds_store(rel):
                continue
            tree = ast.parse(p.read_text())
            called = {id(n.func) for n in ast.walk(tree) if isinstance(n, ast.Call)}
            bad += [(rel, n.lineno, ast.unparse(n)) for n in ast.walk(tree)
                    if isinstance(n, ast.Attribute) and n.attr in ("store", "_store") and id(n) not in called]
    assert bad == []


def test_store_holders_exist():
    for h in STORE_HOLDERS:
        assert (ROOT / h).exists(), f"{h} is listed as a store holder but does not exist"


def test_memory_service_is_composed_not_mixed():
    """MemoryService has no base classes: its parts are collaborators it constructs and calls."""
    tree = ast.parse((ROOT / "core" / "service.py").read_text())
    [cls] = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "MemoryService"]
    assert cls.bases == [] and cls.keywords == []


# `other._name` that may stay, each with the reason. Empty: an object whose member another needs
# offers it publicly (a method, a property) or gets it in its constructor.
PRIVATE_REACH_ALLOWED: dict[tuple[str, str], str] = {}


def _own(value: ast.AST) -> bool:
    """`self`, `cls` or `super()`: the object's own members."""
    if isinstance(value, ast.Name):
        return value.id in ("self", "cls")
    return isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "super"


def test_no_module_uses_another_objects_private_members():
    """`x._name` only on `self`/`cls`/`super()`. A module's own `_helpers` (plain names, never
    attributes) and dunders (`obj.__dict__`) are fine; exceptions go in PRIVATE_REACH_ALLOWED."""
    bad = []
    for top in ("core", *FACES):
        for p in py_files(top):
            rel = str(p.relative_to(ROOT))
            for n in ast.walk(ast.parse(p.read_text())):
                if not (isinstance(n, ast.Attribute) and n.attr.startswith("_")) or _own(n.value):
                    continue
                if (n.attr.startswith("__") and n.attr.endswith("__")) or (rel, n.attr) in PRIVATE_REACH_ALLOWED:
                    continue
                bad.append((rel, n.lineno, ast.unparse(n)))
    assert bad == []


def test_every_allowed_private_reach_is_still_there():
    for rel, attr in PRIVATE_REACH_ALLOWED:
        tree = ast.parse((ROOT / rel).read_text())
        assert any(isinstance(n, ast.Attribute) and n.attr == attr and not _own(n.value) for n in ast.walk(tree)), (rel, attr)


def test_references_point_inside_the_repository():
    """A comment or document that sends a reader to the design notes' numbered sections sends them to
    a file the repository does not have: name the README section, the module or the bench instead."""
    stale = re.compile(r"DESIGN\s+(§|section)\s*\d")
    texts = [p for top in ("core", *FACES, "tests", "bench") for p in (ROOT / top).rglob("*") if p.suffix in (".py", ".md")]
    assert [str(p.relative_to(ROOT)) for p in [*texts, ROOT / "README.md"] if stale.search(p.read_text(errors="replace"))] == []
