"""core.RemoteMemory against a running memory server: same types and errors as the local service."""

from __future__ import annotations

import socket
import uuid
from datetime import datetime, timezone

import pytest

from server_kit import KEYS
from core import (
    Candidate,
    Forbidden,
    Immutable,
    InvalidInput,
    Memory,
    MemoryIn,
    MemoryPatch,
    Message,
    NotFound,
    RecallResult,
    RemoteMemory,
    StoreUnavailable,
    TransientError,
    WriteResult,
)
from core import ImportCounts

pytestmark = pytest.mark.e2e


def now() -> datetime:
    return datetime.now(timezone.utc)


async def test_hot_path_methods(host):
    url, _ = host
    user = f"rm-{uuid.uuid4().hex[:6]}"
    async with RemoteMemory(url, api_key=KEYS["owui"], user=user, client_name="tests") as r:
        assert (await r.health())["ok"] is True
        w = await r.remember(MemoryIn(content="Runs marathons in spring", fact_key="goal.running"))
        assert isinstance(w, WriteResult) and w.action == "created" and w.memory.user_id == user
        assert w.memory.source_client == "tests"
        got = await r.ingest([Message(id="c1", role="user", content="remember that I hate cilantro", created_at=now())])
        assert got.ingested == 1 and got.commands[0].action == "remember"
        res = await r.recall("marathon training plans", budget_tokens=300)
        assert isinstance(res, RecallResult) and "marathons" in res.text and 0 < res.tokens <= 300
        assert isinstance(res.items[0], Candidate) and res.items[0].id == w.memory.id
        hits = await r.search("cilantro", top_k=2)
        assert hits and all(isinstance(h, Candidate) for h in hits)
        assert any("cilantro" in h.text for h in hits)
        other = await r.for_user(f"{user}-other").recall("marathon")
        assert other.items == [] and other.text == ""


async def test_full_port(host):
    url, _ = host
    async with RemoteMemory(url, api_key=KEYS["admin"], user=f"rp-{uuid.uuid4().hex[:6]}") as r:
        w = await r.remember(MemoryIn(content="Has a dog named Pixel"))
        assert isinstance(await r.get(w.memory.id), Memory)
        assert (await r.update(w.memory.id, MemoryPatch(importance=0.9))).importance == 0.9
        assert (await r.pin(w.memory.id)).pinned and not (await r.pin(w.memory.id, False)).pinned
        sup = await r.supersede(w.memory.id, MemoryIn(content="Has two dogs, Pixel and Byte"))
        assert sup.previous.id == w.memory.id
        assert (await r.list(status="any")).items
        assert (await r.namespaces()) == {"default": 1}  # active memories only
        assert [e.action for e in await r.events(sup.memory.id)]
        assert (await r.glossary_set("PB", "Pixel and Byte")).memory.title == "PB"
        assert (await r.glossary_get("PB"))[0].title == "PB" and await r.glossary_get("nope") == []
        assert (await r.digest_set("dog person")).content == "dog person"
        assert (await r.digest_get()).content == "dog person"
        q = await r.precious_add("Dogs are family.")
        assert [m.id for m in await r.precious_list()] == [q.memory.id]
        boot = await r.boot()
        assert boot.digest.content == "dog person" and isinstance(boot.precious[0], Memory)
        c = await r.remember(MemoryIn(content="Maybe a cat too", status="candidate"))
        assert [m.id for m in await r.candidates()] == [c.memory.id]
        assert (await r.candidate(c.memory.id, "discard")).memory.status.value == "deleted"
        await r.cache_put("tests", "k", {"a": 1}, ttl_s=60)
        assert (await r.cache_get("tests", "k")).value == {"a": 1}
        await r.cache_delete("tests", "k")
        lines = [line async for line in r.export()]
        assert lines[0]["type"] == "header" and sum(x["type"] == "memory" for x in lines) >= 4
        assert (await r.vectors_health()).ok is True
        await r.archive(sup.memory.id)
        assert (await r.delete(sup.memory.id)).status.value == "deleted"
        assert (await r.glossary_delete("PB"))[0].status.value == "deleted"
        moved = RemoteMemory(url, api_key=KEYS["admin"], user=f"rp2-{uuid.uuid4().hex[:6]}")
        assert (await moved.import_(lines)) == ImportCounts(memories=sum(x["type"] == "memory" for x in lines), messages=0,
                                                            events=sum(x["type"] == "event" for x in lines))
        await moved.aclose()


async def test_errors_map_back_to_core_classes(host):
    url, _ = host
    async with RemoteMemory(url, api_key=KEYS["alice"]) as r:
        with pytest.raises(NotFound):
            await r.get("m_missing")
        with pytest.raises(InvalidInput) as e:
            await r.remember(MemoryIn(content="x", fact_key="nodot"))
        assert e.value.field == "fact_key"
        q = await r.precious_add(f"Keep this {uuid.uuid4().hex}")
        with pytest.raises(Immutable):
            await r.delete(q.memory.id)
    async with RemoteMemory(url, api_key=KEYS["alice_ro"]) as r:
        with pytest.raises(Forbidden):
            await r.remember(MemoryIn(content="no"))
    async with RemoteMemory(url, api_key="k-wrong") as r:
        with pytest.raises(Forbidden):
            await r.recall("x")


async def test_unreachable_host_is_transient():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # bound, not listening: connections are refused
        async with RemoteMemory(f"http://127.0.0.1:{port}", api_key="k", timeout=2) as r:
            with pytest.raises(StoreUnavailable) as e:
                await r.recall("anything")
            assert isinstance(e.value, TransientError)


async def test_export_lines_split_only_at_newlines(host):
    """JSON keeps U+2028, U+0085 and U+001C-style separators raw inside strings; a line is cut at "\\n" only."""
    url, _ = host
    odd = "one\u2028two\u0085three\u2029four\x1cfive"
    async with RemoteMemory(url, api_key=KEYS["admin"], user=f"rx-{uuid.uuid4().hex[:6]}") as r:
        await r.remember(MemoryIn(content=odd))
        lines = [line async for line in r.export()]
    assert [x["content"] for x in lines if x["type"] == "memory"] == [odd]
