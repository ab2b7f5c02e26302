"""The memory port under contract: one set of behaviour tests, run against every implementation.

`port` is parametrized: "local" is `LocalMemory` over the in-process service, "remote" is
`RemoteMemory` over HTTP against the real app under uvicorn, "mcp" is `McpPort` calling the same
app's MCP tools over Streamable HTTP (tests/contract/mcp_port.py), "sync" is `SyncMemory` (the
blocking form for scripts) over HTTP, called from worker threads (tests/contract/sync_port.py), and
"service" is `MemoryService` itself with a scope in front (tests/contract/service_port.py). All share one host (real Chroma on a
temp dir, the hash embedder); each test acts for users of its own, so tests cannot see each other.
The host is configured with the `thorough` preset, the case where the budgets once diverged."""

from __future__ import annotations

import uuid
from typing import Awaitable, Callable

import pytest

from core import READ, WRITE, ApiKeyConfig, AsyncMemory, Identity, LocalMemory, MemoryPort, RemoteMemory, SyncMemory, build_service
from core.testing import HashEmbedder
from mcp_server.app import create_app
from tests.kit.config import settings_apart
from tests.contract.mcp_port import McpPort
from tests.contract.service_port import ServicePort
from tests.contract.sync_port import AwaitingSync
from tests.kit.servers import serve_app

TRUSTED = "k-contract-trusted-5b1e"  # a trusted client may act for any user, as the Open WebUI filter does

MakePort = Callable[[str], Awaitable[MemoryPort]]


@pytest.fixture(scope="module")
def contract_host(tmp_path_factory):
    """(base_url, service, settings) of one running memory host for the module."""
    settings = settings_apart(
        tmp_path_factory.getbasetemp(),
        data_dir=tmp_path_factory.mktemp("contract"), embedding_model="hash", recall_preset="thorough",
        api_keys=[ApiKeyConfig(name="contract", secret=TRUSTED, trusted_client=True)],
    )
    service = build_service(settings, embedder=HashEmbedder())
    with serve_app(create_app(service, settings)) as url:
        yield url, service, settings
    service.close()


@pytest.fixture(params=["local", "remote", "mcp", "sync", "service"])
async def make_port(request, contract_host):
    """A factory: `await make_port("alice")` is that user's memory port on this implementation. The
    names get a per-test suffix, so the user is fresh in every test."""
    url, service, settings = contract_host
    suffix = uuid.uuid4().hex[:6]
    opened: list[RemoteMemory | McpPort | AwaitingSync] = []

    async def make(user: str) -> MemoryPort:
        user = f"{user}-{suffix}"
        if request.param == "local":
            return LocalMemory(AsyncMemory(service), Identity("contract", user, frozenset({READ, WRITE})))
        if request.param == "service":
            return ServicePort(service, user)  # type: ignore[return-value]
        if request.param == "mcp":
            opened.append(await McpPort(url, api_key=TRUSTED, user=user).open())
        elif request.param == "sync":
            opened.append(AwaitingSync(SyncMemory.connect(url, api_key=TRUSTED, user=user)))
        else:
            opened.append(RemoteMemory(url, api_key=TRUSTED, user=user))
        return opened[-1]  # type: ignore[return-value]

    yield make
    for port in opened:
        await port.aclose()


@pytest.fixture
async def port(make_port) -> MemoryPort:
    return await make_port("ann")
