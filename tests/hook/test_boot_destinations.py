"""The destination policy (core/destinations.py) on the boot pack the hook puts in the system prompt:
a model off the host gets it without the host-only items (precious quotes, anything tagged health
or private, and a digest a host model wrote from them), a host model gets all of it, a model that may receive no memory gets none. Through the
pre-call in process on a real Chroma store; one test per rule."""

from __future__ import annotations

import itertools
from types import SimpleNamespace

import pytest

from core import Actor, Kind, MemoryIn, build_service, scope_for
from core.testing import HashEmbedder
from litellm_hooks.amber import AmberMemory
from litellm_hooks.host import HookMemory, local_ports
from tests.hook.test_corrections_in_turn import Key
from tests.kit.config import settings_apart

_ids = itertools.count()


@pytest.fixture
def hook(tmp_path):
    settings = settings_apart(tmp_path, data_dir=tmp_path / "data", embedding_model="hash", recall_timeout_s=20,
                              boot_pack_in_system=True, host_models=["local-*"], memory_models_deny=["banned-*"])
    service = build_service(settings, embedder=HashEmbedder())
    ana = scope_for(Actor("ana"))
    for content, kind, tags in (("I drink genmaicha tea every morning", Kind.fact, []),
                                ("Takes insulin before dinner", Kind.fact, ["health"]),
                                ("My therapist is Dr Okafor", Kind.fact, ["private"]),
                                ("Grandma said: the tea garden is where we begin", Kind.precious, [])):
        service.remember(ana, MemoryIn(content=content, kind=kind, tags=tags, pinned=True))
    service.digest_set(ana, "Manages type 1 diabetes calmly", tags=["host-only"])  # as consolidation marks it
    yield AmberMemory(SimpleNamespace(memory=HookMemory(local_ports(service, settings)), settings=settings, vision=None))
    service.close()


async def system_prompt(callback: AmberMemory, model: str) -> str:
    data = {"model": model, "user": "ana", "litellm_call_id": f"boot-{next(_ids)}",
            "messages": [{"role": "system", "content": "You are helpful."}, {"role": "user", "content": "Good morning"}]}
    out = await callback.async_pre_call_hook(Key(), None, data, "acompletion")
    content = (out or data)["messages"][0]["content"]
    return "\n".join(b["text"] for b in content if b.get("type") == "text") if isinstance(content, list) else content


@pytest.mark.parametrize("withheld", ["insulin", "Okafor", "Grandma", "diabetes"],
                         ids=["tagged health", "tagged private", "precious", "digest written from host-only items"])
async def test_a_model_off_the_host_gets_the_boot_pack_without_host_only_items(hook, withheld):
    away = await system_prompt(hook, "claude-sonnet")
    assert "genmaicha" in away and withheld not in away


async def test_a_host_model_gets_the_whole_boot_pack(hook):
    home = await system_prompt(hook, "local-qwen")
    assert all(w in home for w in ("genmaicha", "insulin", "Okafor", "Grandma", "diabetes"))
    away = await system_prompt(hook, "claude-sonnet")  # the two texts are kept apart, each way round
    assert "insulin" not in away and "insulin" in await system_prompt(hook, "local-qwen")


async def test_a_model_that_may_receive_no_memory_gets_no_boot_pack(hook):
    assert "genmaicha" not in await system_prompt(hook, "banned-model")


async def test_a_forget_takes_the_forgotten_pin_out_of_the_next_boot_pack_at_once(tmp_path):
    """The boot pack is kept 30 s so the prompt cache stays warm; a "forget …" carried out at
    capture, or a forget through REST or MCP, must not leave the pin in it for those 30 s."""
    settings = settings_apart(tmp_path, data_dir=tmp_path / "data", embedding_model="hash", boot_pack_in_system=True)
    service = build_service(settings, embedder=HashEmbedder())
    ana = scope_for(Actor("ana"))
    try:
        for content in ("My favourite colour is teal", "I drink genmaicha tea every morning"):
            service.remember(ana, MemoryIn(content=content, pinned=True))
        memory = HookMemory(local_ports(service, settings))
        service.forget_elsewhere.append(memory.packs.drop)  # as the host wires it (host.py)
        assert "teal" in await memory.boot_pack(Actor("ana"))
        turn = {"id": "lt_f1_u", "role": "user", "content": "Forget my favourite colour", "created_at": "2026-01-01T00:00:00+00:00"}
        chat = {"id": "lt_c1_u", "role": "user", "content": "Tea or coffee today?", "created_at": "2026-01-01T00:00:00+00:00"}
        builds = []
        memory.packs.get = _counting(memory.packs.get, builds)
        await memory.boot_pack(Actor("ana"))
        await memory.capture(Actor("ana"), [{"user": "ana", "messages": [chat], "command": chat["content"]}])
        await memory.boot_pack(Actor("ana"))
        assert builds == [0, 0]  # kept from the call above, and an ordinary turn keeps it (and the prompt cache) as it was
        await memory.capture(Actor("ana"), [{"user": "ana", "messages": [turn], "command": turn["content"]}])
        pack = await memory.boot_pack(Actor("ana"))
        assert "teal" not in pack and "genmaicha" in pack
        service.remember(ana, MemoryIn(content="My bike is a blue Brompton", pinned=True))
        assert "Brompton" not in await memory.boot_pack(Actor("ana"))  # kept: no forget since
        assert service.forget(ana, "that I drink genmaicha tea every morning").memories  # through REST or MCP: the service's purgers
        assert "genmaicha" not in await memory.boot_pack(Actor("ana"))
    finally:
        service.close()


def _counting(get, builds):
    """BootPacks.get, noting for each call whether it built the pack (1) or had it kept (0)."""
    async def counted(user_id, build):
        built = []

        async def noted():
            built.append(1)
            return await build()

        out = await get(user_id, noted)
        builds.append(len(built))
        return out
    return counted


async def test_a_pack_built_while_a_forget_lands_is_not_kept():
    import asyncio

    from litellm_hooks.bootpack import BootPacks

    packs, started, release = BootPacks(), asyncio.Event(), asyncio.Event()

    async def slow_build() -> str:
        started.set()
        await release.wait()
        return "pinned: my favourite colour is teal"  # read before the forget erased it

    pending = asyncio.create_task(packs.get("ana", slow_build))
    await started.wait()
    packs.drop("ana")  # the forget lands meanwhile
    release.set()
    assert "teal" in await pending  # that request had it already
    assert await packs.get("ana", lambda: asyncio.sleep(0, result="")) == ""  # the next builds again



async def test_a_corrected_pin_leaves_the_boot_pack_in_the_correcting_turn(tmp_path):
    settings = settings_apart(tmp_path, data_dir=tmp_path / "data", embedding_model="hash", recall_timeout_s=20, boot_pack_in_system=True)
    service = build_service(settings, embedder=HashEmbedder())
    try:
        service.remember(scope_for(Actor("ana")), MemoryIn(content="I live in Shanghai", fact_key="profile.city", pinned=True))
        callback = AmberMemory(SimpleNamespace(memory=HookMemory(local_ports(service, settings)), settings=settings, vision=None))

        async def system_for(text: str) -> str:
            data = {"model": "gpt-4o-mini", "user": "ana", "litellm_call_id": f"boot-{next(_ids)}",
                    "messages": [{"role": "system", "content": "You are helpful."}, {"role": "user", "content": text}]}
            out = await callback.async_pre_call_hook(Key(), None, data, "acompletion")
            content = (out or data)["messages"][0]["content"]
            return "\n".join(b["text"] for b in content if b.get("type") == "text") if isinstance(content, list) else content

        assert "Shanghai" in await system_for("Where do I live these days?")
        system = await system_for("That's wrong, I moved to Hangzhou")
        assert "Shanghai" not in system and "Hangzhou" in system
    finally:
        service.close()
