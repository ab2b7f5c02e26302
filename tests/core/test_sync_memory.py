"""`SyncMemory`, the blocking form of the memory port, against a real host over HTTP.

The contract suite (tests/contract, parameter "sync") runs every behaviour test through it; these
tests cover what only the sync form has: its shape is derived from the declared port, a stalled host
costs the caller `timeout_s` and a `Timeout`, export streams, threads may share one client, and
close is final."""

from __future__ import annotations

import inspect
import socket
import threading
import time

import pytest

from core import ApiKeyConfig, MemoryIn, NotFound, SyncMemory, Timeout, build_service
from core.ports import MemoryPort
from core.sync_memory import operations
from core.testing import HashEmbedder
from mcp_server.app import create_app
from tests.kit.config import settings_apart
from tests.kit.servers import serve_app

KEY = "k-sync-trusted-91ac"


@pytest.fixture(scope="module")
def host(tmp_path_factory):
    settings = settings_apart(tmp_path_factory.getbasetemp(), data_dir=tmp_path_factory.mktemp("sync"), embedding_model="hash",
                              api_keys=[ApiKeyConfig(name="sync", secret=KEY, trusted_client=True)])
    service = build_service(settings, embedder=HashEmbedder())
    with serve_app(create_app(service, settings)) as url:
        yield url
    service.close()


def test_every_declared_operation_is_a_blocking_method_with_the_declared_signature():
    declared = operations(MemoryPort)
    assert len(declared) >= 30
    for name, fn in declared.items():
        mine = getattr(SyncMemory, name)
        assert not inspect.iscoroutinefunction(mine), name
        want = inspect.signature(fn)
        if name == "export":
            assert inspect.isgeneratorfunction(mine)
            want = want.replace(return_annotation="Iterator[dict[str, Any]]")
        assert inspect.signature(mine) == want, name
        assert mine.__doc__ == fn.__doc__


def test_a_script_remembers_recalls_and_gets_the_ports_errors(host):
    with SyncMemory.connect(host, api_key=KEY, user="sync-ann") as memory:
        memory.remember(MemoryIn(content="I live in Beijing", fact_key="profile.city"))
        memory.remember(MemoryIn(content="I live in Shanghai", fact_key="profile.city"))
        text = memory.recall("where do I live?").text
        assert "Shanghai" in text and "Beijing" not in text
        with pytest.raises(NotFound):
            memory.get("no-such-memory")


def test_export_streams_and_can_be_left_half_read(host):
    with SyncMemory.connect(host, api_key=KEY, user="sync-bo") as memory:
        for n in range(5):
            memory.remember(MemoryIn(content=f"sync export fact number {n}"))
        items = memory.export()
        first = next(items)
        assert isinstance(first, dict)
        items.close()  # the stream on the loop is closed with it, and the client goes on
        lines = list(memory.export())
        assert sum(1 for x in lines if "sync export fact" in str(x)) == 5


def test_threads_share_one_client(host):
    with SyncMemory.connect(host, api_key=KEY, user="sync-cy") as memory:
        errors: list[BaseException] = []

        def write(n: int) -> None:
            try:
                memory.remember(MemoryIn(content=f"thread {n} likes the colour number {n}"))
            except BaseException as e:  # noqa: BLE001 - reported below
                errors.append(e)

        threads = [threading.Thread(target=write, args=(n,)) for n in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
        assert errors == []
        assert len(memory.list(limit=50).items) == 8


def test_a_stalled_host_costs_the_caller_its_timeout_and_a_timeout_error():
    with socket.socket() as silent:  # accepts connections and never answers
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        url = f"http://127.0.0.1:{silent.getsockname()[1]}"
        memory = SyncMemory.connect(url, api_key=KEY, timeout_s=0.5)
        t0 = time.monotonic()
        with pytest.raises(Timeout, match="0.5 s"):
            memory.recall("anything")
        assert time.monotonic() - t0 < 5
        memory.close()


def test_close_is_final_and_idempotent(host):
    memory = SyncMemory.connect(host, api_key=KEY, user="sync-di")
    memory.boot()
    memory.close()
    memory.close()
    assert memory.closed  # the port's connections closed and its loop thread stopped
    with pytest.raises(RuntimeError, match="closed"):
        memory.boot()
