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
