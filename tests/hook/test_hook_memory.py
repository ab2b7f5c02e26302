"""The hook's memory in local mode is the memory port, per user: it recalls with the same budget as
REST and MCP, carries out a captured "remember …" once, and acts only for the user it is built for.
In process, on a real Chroma store (the proxy end to end is in test_proxy_memory)."""

from __future__ import annotations

import asyncio
import threading

import pytest

from core import READ, WRITE, Actor, AsyncMemory, Identity, LocalMemory, MemoryIn, MemoryPort, build_service
from core.store.reads_first import READS_FIRST
from core.testing import HashEmbedder
from litellm_hooks.host import Host, HookMemory, local_ports
from tests.fakes.held import HeldQueries
from tests.kit.config import settings_apart


@pytest.fixture
def hosted(tmp_path):
    settings = settings_apart(tmp_path, data_dir=tmp_path / "data", embedding_model="hash", recall_preset="thorough")
    service = build_service(settings, embedder=HashEmbedder())
    yield service, settings, HookMemory(local_ports(service, settings))
    service.close()


def journal(user: str, mid: str, text: str) -> dict:
    return {"user": user, "client": "chatbox", "command": text,
            "messages": [{"id": mid, "role": "user", "content": text, "session": "s1", "client": "chatbox",
                          "created_at": "2026-12-01T10:00:00+00:00"}]}


async def test_the_hook_recalls_through_the_same_port_as_the_server(hosted):
    service, settings, memory = hosted
    ann = Actor("ann", client="chatbox", via="litellm")
    assert isinstance(memory.port_for(ann), MemoryPort)
    server_side = LocalMemory(AsyncMemory(service), Identity("rest", "ann", frozenset({READ, WRITE})))
    for i in range(30):
        await server_side.remember(MemoryIn(content=f"Ann's garden note {i}: " + " ".join(f"tomato{i}x{j}" for j in range(30))))
    through_hook = await memory.recall(ann, "garden tomato notes")
    through_server = await server_side.recall("garden tomato notes")
    assert through_hook.text == through_server.text and 600 < through_hook.tokens <= 1200  # thorough's budget, every face


async def test_a_captured_remember_is_kept_once_for_that_user_only(hosted):
    service, settings, memory = hosted
    ann, bob = Actor("ann", client="chatbox", via="litellm"), Actor("bob", client="chatbox", via="litellm")
    entries = [journal("ann", "lt_1_u", "remember my favourite tea is genmaicha")]
    await memory.capture(ann, entries)
    await memory.capture(ann, entries)  # the journal hands a batch over again after a crash
    kept = (await memory.port_for(ann).list()).items
    assert [m.content for m in kept] == ["my favourite tea is genmaicha"]
    trail = await memory.port_for(ann).events(kept[0].id)
    assert trail[-1].action == "create" and trail[-1].actor == "litellm" and trail[-1].client == "chatbox"
    assert "genmaicha" in (await memory.recall(ann, "which tea do I like")).text
    assert "genmaicha" not in (await memory.recall(bob, "which tea do I like")).text
    assert (await memory.port_for(bob).list()).items == []


async def test_the_drainer_stores_a_new_persons_turn_after_another_persons_recall_in_flight(tmp_path, monkeypatch):
    """The proxy's capture drainer writes in the background: a never-seen person's first exchange
    waits at Chroma's door while someone else's recall runs (embedded Chroma stops every thread while
    it writes, core/store/reads_first.py), and is stored once that recall has answered."""
    monkeypatch.setattr(READS_FIRST, "max_wait_s", 30.0)
    embedder = HeldQueries()
    settings = settings_apart(tmp_path, data_dir=tmp_path / "data", embedding_model="hash")
    service = build_service(settings, embedder=embedder)
    host = Host()
    host.memory = memory = HookMemory(local_ports(service, settings))
    ann, bob = Actor("ann", client="chatbox", via="litellm"), Actor("bob", client="chatbox", via="litellm")
    order: list[str] = []
    try:
        await memory.port_for(bob).remember(MemoryIn(content="My sister's wedding is in June"))  # so bob's recall embeds
        waited = READS_FIRST.waited

        async def recall() -> None:
            await memory.recall(bob, "hold: when is my sister's wedding")
            order.append("bob's recall answered")

        async def drain() -> None:
            await embedder.held()
            await host._store_entries("ann", [journal("ann", "lt_9_u", "I plan to grow tomatoes")])
            order.append("ann's turn stored")

        async def release() -> None:
            while READS_FIRST.waited == waited:  # ann's write found the recall in flight
                await asyncio.sleep(0.01)
            order.append("recall let go")
            embedder.release.set()

        await asyncio.wait_for(asyncio.gather(recall(), drain(), release()), 60)
        assert order == ["recall let go", "bob's recall answered", "ann's turn stored"]
        assert [m.content for m in await memory.port_for(ann).messages()] == ["I plan to grow tomatoes"]
    finally:
        embedder.release.set()
        service.close()


async def test_a_captured_turns_secrets_are_scanned_off_the_event_loop():
    """A 60 KB paste takes the redactor 0.5-1.3 s; scanned on the event loop, every other request of
    the proxy waited for it. The scan now runs in a thread: the loop serves others meanwhile (here:
    the scan waits until a coroutine on the loop has run, which it could not do on the loop)."""
    from tests.hook.test_request_identity import decision, hook

    h = hook()
    put: list = []
    loop_ran = threading.Event()

    class Spool:
        async def put(self, entry):
            put.append(entry)

    def scan(text: str) -> str:
        assert loop_ran.wait(10), "the scan held the event loop"
        return text.replace("sk-live-1234", "[secret]")

    h.host.spool = Spool()
    h.host.redact = type("R", (), {"text": staticmethod(scan)})()
    h.ledger.open("c1", decision("alice"))
    kwargs = {"litellm_call_id": "c1", "messages": [{"role": "user", "content": "my key is sk-live-1234, check this export"}]}
    response = {"choices": [{"message": {"role": "assistant", "content": "ok"}}]}

    async def meanwhile() -> None:
        await asyncio.sleep(0)
        loop_ran.set()

    await asyncio.wait_for(asyncio.gather(h.async_log_success_event(kwargs, response, None, None), meanwhile()), 30)
    assert [m["content"] for m in put[0]["messages"]] == ["my key is [secret], check this export", "ok"]
