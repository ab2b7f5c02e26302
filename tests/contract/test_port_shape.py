"""Every implementation of the memory port offers each of its operations with a compatible
signature: the same parameters, kinds and defaults (an implementation may add keyword-only
parameters with defaults)."""

from __future__ import annotations

import inspect

import pytest

from core import READ, AsyncMemory, Identity, LocalMemory, MemoryPort, RemoteMemory
from core.ports import MemoryPort as DeclaredPort
from tests.contract.mcp_port import McpPort

IMPLEMENTATIONS = [LocalMemory, RemoteMemory]
OPERATIONS = sorted(n for n, v in vars(DeclaredPort).items() if inspect.isfunction(v) and not n.startswith("_"))


def incompatibilities(declared, actual) -> list[str]:
    want, have = inspect.signature(declared), inspect.signature(actual)
    wanted = list(want.parameters.values())[1:]  # without self
    got = list(have.parameters.values())[1:]
    named = {p.name: p for p in got}
    wrong = []
    for i, p in enumerate(wanted):
        q = named.get(p.name)
        if q is None:
            wrong.append(f"no parameter {p.name!r}")
            continue
        if q.kind != p.kind:
            wrong.append(f"{p.name!r} is {q.kind.description}, the port says {p.kind.description}")
        if p.kind is p.POSITIONAL_OR_KEYWORD and (i >= len(got) or got[i].name != p.name):
            wrong.append(f"{p.name!r} is not at position {i}")
        if q.default != p.default and not (isinstance(p.default, tuple) and isinstance(q.default, tuple)):
            wrong.append(f"{p.name!r} defaults to {q.default!r}, the port says {p.default!r}")
    for q in got:
        if q.name not in want.parameters and q.kind not in (q.VAR_KEYWORD, q.VAR_POSITIONAL) and q.default is q.empty:
            wrong.append(f"extra required parameter {q.name!r}")
    if inspect.iscoroutinefunction(declared) != inspect.iscoroutinefunction(actual):
        # export is declared as a plain method returning an async iterator; an async generator function is the same to callers
        if not (inspect.isasyncgenfunction(actual) and not inspect.iscoroutinefunction(declared)):
            wrong.append("coroutine or not differs from the port")
    return wrong


def test_the_port_declares_the_operations_faces_use():
    assert {"recall", "search", "remember", "get", "update", "delete", "archive", "pin", "list", "ingest", "messages",
            "delete_message", "delete_messages", "forget", "boot", "export", "import_"} <= set(OPERATIONS)
    assert MemoryPort is DeclaredPort
    for name in OPERATIONS:
        assert (getattr(DeclaredPort, name).__doc__ or "").strip(), f"{name} has no one-line docstring"


@pytest.mark.parametrize("impl", IMPLEMENTATIONS, ids=lambda c: c.__name__)
@pytest.mark.parametrize("name", OPERATIONS)
def test_signature_is_compatible(impl, name):
    assert hasattr(impl, name), f"{impl.__name__} lacks {name}"
    assert incompatibilities(getattr(DeclaredPort, name), getattr(impl, name)) == []


async def test_instances_are_memory_ports(contract_host):
    url, service, settings = contract_host
    local = LocalMemory(AsyncMemory(service), Identity("contract", "ann", frozenset({READ})), settings)
    assert isinstance(local, MemoryPort)
    async with RemoteMemory(url) as remote:
        assert isinstance(remote, MemoryPort)


@pytest.mark.parametrize("name", [n for n in OPERATIONS if hasattr(McpPort, n)])
def test_the_mcp_adapter_keeps_the_signatures_it_offers(name):
    """McpPort (tests/contract) offers the operations the MCP tools carry, each as the port declares it."""
    assert incompatibilities(getattr(DeclaredPort, name), getattr(McpPort, name)) == []


def test_the_checker_catches_a_drift():
    class Drifted:
        async def recall(self, query: str, *, budget: int | None = None): ...

        async def pin(self, memory_id: str, pinned: bool = False): ...

    assert incompatibilities(DeclaredPort.recall, Drifted.recall)
    assert any("defaults" in w for w in incompatibilities(DeclaredPort.pin, Drifted.pin))


def test_the_port_names_what_each_operation_takes_and_returns():
    """Domain values cross the port as core/model.py's models (declared once), never as a bare Any."""
    vague = []
    for name in OPERATIONS:
        sig = inspect.signature(getattr(DeclaredPort, name))
        if sig.return_annotation in (inspect.Signature.empty, "Any"):
            vague.append(f"{name} returns {sig.return_annotation}")
        vague += [f"{name}({p.name}) is {p.annotation}" for p in list(sig.parameters.values())[1:]
                  if p.annotation in (inspect.Parameter.empty, "Any") and p.name != "value"]
    assert vague == []
