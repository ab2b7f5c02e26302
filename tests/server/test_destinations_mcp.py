"""The destination policy on the MCP face. Amber cannot see which model an MCP client runs, so the
policy knows the face by one name, `mcp`: memory_recall and memory_boot give it no precious, health
or private item unless host_models lists `mcp` (a client whose model runs on the host), and nothing
when `mcp` may receive no memory; the digest and boot pack resources and the recall prompt, which
reach the client's model as well, the same. The tools a person uses to find their own memories by name or id
(search, list, get, export) are not filtered. Real MCP client, in memory, on a real store."""

from __future__ import annotations

import contextlib

import pytest
from mcp import Client

from core import READ, WRITE, Actor, Identity, Kind, MemoryIn, build_service, scope_for
from core.testing import HashEmbedder
from mcp_server.app import create_app
from mcp_server.identity import current_identity
from tests.kit.config import settings_apart

HOST_ONLY = ("insulin", "Okafor", "Grandma")


@contextlib.asynccontextmanager
async def mcp_for(tmp_path, digest_tags=None, **policy):
    settings = settings_apart(tmp_path, data_dir=tmp_path / "data", embedding_model="hash", **policy)
    service = build_service(settings, embedder=HashEmbedder())
    ana = scope_for(Actor("ana"))
    for content, kind, tags in (("I water the fern on Sundays", Kind.fact, []),
                                ("The fern reminds me to take insulin", Kind.fact, ["health"]),
                                ("I talk to Dr Okafor about the fern", Kind.fact, ["private"]),
                                ("Grandma said: the fern outlives us all", Kind.precious, [])):
        service.remember(ana, MemoryIn(content=content, kind=kind, tags=tags, pinned=True))
    if digest_tags is not None:
        service.digest_set(ana, "Ana keeps a fern and sees Dr Okafor about her insulin", tags=digest_tags)
    app = create_app(service, settings)
    token = current_identity.set(Identity("test", "ana", frozenset({READ, WRITE})))
    try:
        async with Client(app.state.amber_mcp) as c:
            yield c
    finally:
        current_identity.reset(token)
        service.close()


async def shown(c, tool: str, **args) -> str:
    r = await c.call_tool(tool, args)
    assert not r.is_error, r.content
    return str(r.structured_content)


async def test_recall_and_boot_keep_host_only_items_from_an_mcp_client(tmp_path):
    async with mcp_for(tmp_path) as c:
        for text in (await shown(c, "memory_recall", query="fern insulin Okafor Grandma"), await shown(c, "memory_boot")):
            assert "water the fern" in text and not any(w in text for w in HOST_ONLY)
        found = await shown(c, "memory_search", query="fern insulin Okafor Grandma")  # the person's own look-up
        assert all(w in found for w in HOST_ONLY)


async def test_an_mcp_client_named_a_host_model_gets_everything(tmp_path):
    async with mcp_for(tmp_path, host_models=["mcp"]) as c:
        for text in (await shown(c, "memory_recall", query="fern insulin Okafor Grandma"), await shown(c, "memory_boot")):
            assert all(w in text for w in HOST_ONLY)


async def test_mcp_denied_memory_gets_none_from_recall_or_boot(tmp_path):
    async with mcp_for(tmp_path, memory_models_deny=["mcp"]) as c:
        for text in (await shown(c, "memory_recall", query="fern"), await shown(c, "memory_boot")):
            assert "fern" not in text


def resource_text(result) -> str:
    return "\n".join(c.text for c in result.contents)


async def prompt_text(c, topic: str) -> str:
    """What the recall prompt hands the model besides the person's own question (which names the topic)."""
    return (await c.get_prompt("recall", {"topic": topic})).messages[0].content.text.split("\n\n", 1)[1]


async def test_resources_and_the_recall_prompt_keep_host_only_items_from_an_mcp_client(tmp_path):
    async with mcp_for(tmp_path, digest_tags=["host-only"]) as c:
        boot = resource_text(await c.read_resource("amber://boot"))
        assert "water the fern" in boot and not any(w in boot for w in HOST_ONLY)
        assert "Okafor" not in resource_text(await c.read_resource("amber://digest"))  # written from host-only items
        said = await prompt_text(c, "fern insulin Okafor Grandma")
        assert "water the fern" in said and not any(w in said for w in HOST_ONLY)
    async with mcp_for(tmp_path / "host", digest_tags=["host-only"], host_models=["mcp"]) as c:
        boot, said = resource_text(await c.read_resource("amber://boot")), await prompt_text(c, "fern insulin Okafor Grandma")
        assert all(w in boot for w in HOST_ONLY) and all(w in said for w in HOST_ONLY)
        assert "Okafor" in resource_text(await c.read_resource("amber://digest"))


async def test_mcp_denied_memory_gets_none_from_resources_or_the_recall_prompt(tmp_path):
    async with mcp_for(tmp_path, digest_tags=[], memory_models_deny=["mcp"]) as c:
        for uri in ("amber://boot", "amber://digest"):
            assert "fern" not in resource_text(await c.read_resource(uri))
        assert "water the fern" not in await prompt_text(c, "fern")
