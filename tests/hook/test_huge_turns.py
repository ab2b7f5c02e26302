"""A turn built to be expensive must not hold the proxy's event loop, which serves everyone.

"ﷺ" (U+FDFA) becomes eighteen characters under NFKC, which every reading of words does first. A
3 MB turn of it, read whole by the command parser, the echo fingerprints and recall's floor and
ranker, held the loop for 8 s and one pre-call for 10 s (a review, on the hook in process). Now
each reads a bounded head or tail: the command parser nothing past a memory's length, the
fingerprint the head it digests, recall the tail it searches (the host's own query limit)."""

from __future__ import annotations

import asyncio
import time

import pytest

from core import MEMORY_MAX_CHARS, fingerprint, parse_command
from tests.hook.test_corrections_in_turn import hook, remember, turn  # noqa: F401  (hook: the fixture)

BIG = "\ufdfa" * 1_000_000


async def longest_stall(work) -> tuple[float, float]:
    """(seconds `work` took, the loop's longest gap between 10 ms ticks meanwhile)."""
    gaps, done = [0.0], asyncio.Event()

    async def tick() -> None:
        last = time.perf_counter()
        while not done.is_set():
            await asyncio.sleep(0.01)
            now = time.perf_counter()
            gaps.append(now - last - 0.01)
            last = now

    ticker = asyncio.ensure_future(tick())
    at = time.perf_counter()
    try:
        await work
    finally:
        took = time.perf_counter() - at
        done.set()
        await ticker
    return took, max(gaps)


@pytest.mark.parametrize("text", ["remember that my " + BIG, BIG, "what is my cat called? " + "\ufdfa" * 300_000],
                         ids=["a command", "no command", "a question"])
async def test_a_turn_built_to_be_expensive_holds_nobody_up(hook, text):
    service, cb = hook
    remember(service, "ana", "My cat is called Miso")
    took, stall = await longest_stall(turn(cb, text, user="eve"))
    # before: a pre-call of 10 s and the loop held 8 s (each reading of the whole turn); now ~0.4 s, 35 ms
    assert stall < 1.5 and took < 6, (took, stall)
    patch, _ = await turn(cb, "what is my cat called?", user="ana")  # everyone else goes on as before
    assert "Miso" in patch


def test_each_reading_takes_a_bounded_part_of_the_turn():
    assert parse_command("remember that my " + "x" * (MEMORY_MAX_CHARS + 300)) is None  # a paste, kept as turns
    assert parse_command("remember that my cat is called Miso") is not None
    essay = " and then the committee met again to discuss the budget" * 300  # 16 800 characters
    said = parse_command(f"Forget my home address. Now proofread this essay: {essay}")  # a forget reads one sentence
    assert said is not None and (said.action, said.text) == ("forget", "my home address")
    assert parse_command(f"Remember that my cat is called Miso. Now proofread this essay: {essay}") is None
    assert parse_command(f"Forget {essay}") is None  # no sentence ends in the head: the "subject" is the paste
    head = "i adopted a cat " * 100  # 1 600 characters: the digest's 1 000 are all in it
    assert fingerprint(head + BIG) == fingerprint(head + "anything else at all") == fingerprint(head.upper())
    assert fingerprint("\n" * 5000 + head) == fingerprint(head)  # a head of blank lines still reaches the words


async def test_a_stalled_store_costs_a_chat_at_most_twice_the_recall_timeout(tmp_path):
    """With the store stalled, the correction, the recall and the boot pack each waited out its own
    limit in turn (up to 3 + 1.5 + 1.5 s by default): the pre-call now answers within twice the recall
    timeout in all, each step taking its own limit or what is left, and the chat goes on without
    memory, with a log line saying why."""
    import threading
    from types import SimpleNamespace

    from core import build_service
    from core.testing import HashEmbedder
    from litellm_hooks.amber import AmberMemory
    from litellm_hooks.host import HookMemory, local_ports
    from tests.kit.config import settings_apart

    settings = settings_apart(tmp_path, data_dir=tmp_path / "data", embedding_model="hash", recall_timeout_s=1.0, boot_pack_in_system=True)
    service = build_service(settings, embedder=HashEmbedder())
    cb = AmberMemory(SimpleNamespace(memory=HookMemory(local_ports(service, settings)), settings=settings, vision=None))
    remember(service, "ana", "I live in Shanghai")
    await turn(cb, "Where do I live?")  # a block was shown: the next turn's correction reads it
    release = threading.Event()

    def stalled(*a, **k):
        release.wait(8)
        raise RuntimeError("store stalled")

    for name in ("why", "recall", "boot"):
        setattr(service, name, stalled)
    try:
        took, _ = await longest_stall(turn(cb, "That's wrong, I moved to Hangzhou"))
        assert took < 2.6, took  # before: 3 s (the correction 2, then recall 1; the boot pack was kept from the turn before)
    finally:
        release.set()
        service.close()
