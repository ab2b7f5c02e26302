"""AsyncMemory under a stalled store: callers that time out leave a bounded number of threads behind."""

from __future__ import annotations

import asyncio
import threading

from core import AsyncMemory, MemoryIn


async def test_timed_out_recalls_leave_at_most_the_query_threads_behind(service, alice):
    release, inside = threading.Event(), []
    lock = threading.Lock()
    real_recall = service.recall

    def stalled(*args, **kwargs):
        with lock:
            inside.append(threading.get_ident())
        release.wait(30)
        return real_recall(*args, **kwargs)

    service.recall = stalled
    memory = AsyncMemory(service, query_threads=4)
    timeouts = 0
    for _ in range(40):  # a hook's recall timing out again and again against a stalled store
        try:
            await asyncio.wait_for(memory.recall(alice, "anything"), timeout=0.05)
        except TimeoutError:
            timeouts += 1
    await asyncio.sleep(0.2)
    assert timeouts == 40 and len(inside) == 4  # only the bounded threads entered the store
    # writes are not queued behind the stuck queries
    written = await asyncio.wait_for(memory.remember(alice, MemoryIn(content="written while queries are stuck")), timeout=10)
    assert written.memory.content == "written while queries are stuck"
    release.set()
    await asyncio.sleep(0.2)
    service.recall = real_recall
    result = await asyncio.wait_for(memory.recall(alice, "written while queries are stuck"), timeout=10)
    assert result.items


async def test_a_recall_waiting_on_an_index_build_when_the_host_stops_fails_as_an_error(service, alice):
    """The host stopping shuts the recall's pools and drops what is queued there: a recall waiting for
    its turn index's build saw the build cancelled. That reached the caller as asyncio's
    CancelledError (not an Exception: it passed every face's fail-open `except Exception` with no
    log line); it is StoreUnavailable now."""
    from core import Message, StoreUnavailable
    from datetime import datetime, timezone

    service.store_turns(alice, [Message(id=f"t{i}", role="user", session="s", created_at=datetime.now(timezone.utc),
                                        content=f"turn {i} about the garden") for i in range(20)])
    gate = threading.Event()
    for _ in range(2):  # the index pool's threads busy (another person's long build)
        service.recaller._index_pool.submit(gate.wait, 30)
    memory = AsyncMemory(service)

    async def close_soon() -> None:
        await asyncio.sleep(0.3)
        await asyncio.to_thread(service.recaller.close)

    closing = asyncio.ensure_future(close_soon())
    try:
        try:
            await asyncio.wait_for(memory.recall(alice, "what do I grow in the garden?"), timeout=20)
            raised = None
        except BaseException as e:  # noqa: BLE001  (what escapes is the point)
            raised = e
        assert isinstance(raised, StoreUnavailable), repr(raised)
    finally:
        gate.set()
        await closing
