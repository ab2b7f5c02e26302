"""Every implementation of the memory port offers each of its operations with a compatible
signature: the same parameters, kinds and defaults (an implementation may add keyword-only
parameters with defaults)."""

from __future__ import annotations

import dataclasses
import inspect
import uuid
from datetime import datetime, timezone

import pytest

from core import ADMIN, READ, WRITE, AsyncMemory, Forbidden, Identity, LocalMemory, MemoryIn, MemoryPort, MemoryService, RemoteMemory
from core.ports import MemoryPort as DeclaredPort
from core.ports import operations
from core import Message
from tests.contract.conftest import TRUSTED
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
    local = LocalMemory(AsyncMemory(service), Identity("contract", "ann", frozenset({READ})))
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


def test_the_service_is_the_port_with_a_scope_in_front():
    """MemoryService has every operation under the port's name, with the port's parameters after a
    `scope` (it may add keyword-only ones with defaults, e.g. a whole recall configuration)."""
    for name in OPERATIONS:
        declared, actual = getattr(DeclaredPort, name), getattr(MemoryService, name, None)
        assert actual is not None, f"MemoryService lacks {name}"
        params = list(inspect.signature(actual).parameters.values())
        assert [p.name for p in params[:2]] == ["self", "scope"], f"{name}: the scope comes first"
        unscoped = inspect.Signature([params[0], *params[2:]])
        wrong = [w for w in incompatibilities(declared, _with_signature(unscoped)) if "coroutine" not in w]
        assert wrong == [], (name, wrong)


def _with_signature(sig: inspect.Signature):
    def f(*args, **kwargs): ...

    f.__signature__ = sig
    return f


def test_every_operation_declares_its_permission():
    assert set(operations()) == set(OPERATIONS)
    assert {need for need, _ in operations().values()} == {READ, WRITE, ADMIN}
    assert operations()["forget"] == (WRITE, "preview")  # a preview only reads


async def test_local_memory_enforces_the_declared_permission(contract_host):
    """One place enforces each operation's declared permission: a read-only caller is refused every
    write, with the scope it lacks named, before the service is reached."""
    url, service, settings = contract_host
    reader = LocalMemory(AsyncMemory(service), Identity("reader", "ann-ro", frozenset({READ})))
    with pytest.raises(Forbidden, match="memory:write"):
        await reader.remember(MemoryIn(content="I may not write this"))
    with pytest.raises(Forbidden, match="memory:write"):
        await reader.forget("anything")
    assert (await reader.forget("anything", preview=True)).done is False
    with pytest.raises(Forbidden, match="memory:admin"):
        await reader.vectors_health()
    assert (await reader.list()).items == []


def test_the_port_names_what_each_operation_takes_and_returns():
    """Domain values cross the port as typed models (core/model.py, core/results.py, declared once),
    never as a bare Any or an untyped dict; only export lines are JSON objects (a file format)."""
    vague = []
    for name in OPERATIONS:
        sig = inspect.signature(getattr(DeclaredPort, name))
        if sig.return_annotation in (inspect.Signature.empty, "Any"):
            vague.append(f"{name} returns {sig.return_annotation}")
        if "dict[str, Any]" in str(sig.return_annotation) and name != "export":
            vague.append(f"{name} returns {sig.return_annotation}")
        vague += [f"{name}({p.name}) is {p.annotation}" for p in list(sig.parameters.values())[1:]
                  if p.annotation in (inspect.Parameter.empty, "Any") and p.name != "value"]
    assert vague == []


async def test_search_results_survive_the_trip_over_http_and_mcp_field_for_field(contract_host):
    """A search hit is `core.Candidate` on every face: REST and MCP carry every field, so what a remote
    caller reads (pinned, importance, keyed, sources, arms, the evidence scores) is what the service found."""
    url, service, settings = contract_host
    user = f"trip-{uuid.uuid4().hex[:6]}"
    local = LocalMemory(AsyncMemory(service), Identity("contract", user, frozenset({READ, WRITE})))
    said = Message(id="trip-1", role="user", content="My allotment plot is number 14 by the river", created_at=datetime.now(timezone.utc))
    await local.ingest([said], commands=False)
    kept = (await local.remember(MemoryIn(content="Allotment plot 14 grows leeks", fact_key="project.allotment",
                                          importance=0.9, source_ids=["trip-1"]))).memory
    await local.pin(kept.id)
    here = await local.search("allotment plot leeks")
    assert {c.id for c in here} >= {kept.id, "trip-1"}
    hit = next(c for c in here if c.id == kept.id)
    assert hit.pinned and hit.keyed and hit.importance == 0.9 and hit.sources == ("trip-1",) and hit.arms
    want = [_fields(c) for c in here]
    async with RemoteMemory(url, api_key=TRUSTED, user=user) as remote:
        assert [_fields(c) for c in await remote.search("allotment plot leeks")] == want
    mcp = await McpPort(url, api_key=TRUSTED, user=user).open()
    try:
        assert [_fields(c) for c in await mcp.search("allotment plot leeks")] == want
    finally:
        await mcp.aclose()


def _fields(c) -> dict:
    """Every field; the score to 6 digits (its recency part moves with the clock between two searches)."""
    return {**dataclasses.asdict(c), "score": round(c.score, 6)}
