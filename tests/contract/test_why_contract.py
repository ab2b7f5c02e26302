"""`why` under the port's contract: every face answers what a named recall injected and why, and
a recall that names no request leaves nothing (the hook names only requests in mode `on`)."""

from __future__ import annotations

from core import MemoryIn, RemoteMemory, WhyRequest
from core.recall.render import handle_of

from tests.contract.conftest import TRUSTED
from tests.contract.mcp_port import McpPort


async def test_why_answers_what_a_named_recall_injected(port, contract_host):
    w = await port.remember(MemoryIn(content="Runs marathons in spring", fact_key="goal.running"))
    await port.recall("marathon training in spring")  # names no request: keeps nothing
    assert await port.why(last=5) == []
    if isinstance(port, McpPort):  # MCP tools recall for a model, never under a request id: a chat face names it
        async with RemoteMemory(contract_host[0], api_key=TRUSTED, user=port.user) as chat:
            r = await chat.recall("marathon training in spring", why="req-1")
    else:
        r = await port.recall("marathon training in spring", why="req-1")
    [rec] = await port.why(last=5)
    assert isinstance(rec, WhyRequest) and rec.request == "req-1" and rec.abstained is False
    first = rec.items[0]
    assert (first.id, first.handle, first.text, first.fact_key) == (w.memory.id, handle_of(w.memory.id), w.memory.content, True)
    assert first.arms and first.score > 0 and handle_of(w.memory.id) in r.text


async def test_nobody_else_reads_my_why(make_port):
    ann, bo = await make_port("ann"), await make_port("bo")
    await ann.remember(MemoryIn(content="Runs marathons in spring"))
    if not isinstance(ann, McpPort):
        await ann.recall("marathon", why="req-2")
        assert len(await ann.why()) == 1
    assert await bo.why(last=20) == []
