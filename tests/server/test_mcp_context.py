"""The person's digest and boot pack as MCP resources, and the recall / remember / forget prompts,
over real Streamable HTTP with the official SDK client: each key sees its own user's memory, only
what its scopes allow, and a refused read is an error naming why."""

from __future__ import annotations

import uuid
from contextlib import asynccontextmanager

import httpx2
import pytest
from mcp import Client, MCPError
from mcp.client.streamable_http import streamable_http_client

from server_kit import KEYS
from core import Actor, MemoryIn, scope_for

pytestmark = pytest.mark.e2e


@asynccontextmanager
async def client(url: str, key: str, **headers: str):
    async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {key}", **headers}, timeout=30) as http:
        async with Client(streamable_http_client(f"{url}/mcp", http_client=http)) as c:
            yield c


def text_of(result) -> str:
    return "\n".join(c.text for c in result.contents)


async def test_resources_are_the_keys_own_users_digest_and_boot_pack(host):
    url, service = host
    mark = uuid.uuid4().hex[:6]
    alice = scope_for(Actor("alice"))
    service.digest_set(alice, f"Alice ({mark}): violin teacher in Ghent, training for a marathon")
    service.remember(alice, MemoryIn(content=f"Allergic to hazelnuts ({mark})", pinned=True, fact_key="profile.allergy"))
    async with client(url, KEYS["alice"]) as c:
        assert c.server_capabilities.resources is not None and c.server_capabilities.prompts is not None
        listed = {str(r.uri): r for r in (await c.list_resources()).resources}
        assert set(listed) == {"amber://digest", "amber://boot"} and all(r.description for r in listed.values())
        assert text_of(await c.read_resource("amber://digest")) == f"Alice ({mark}): violin teacher in Ghent, training for a marathon"
        boot = text_of(await c.read_resource("amber://boot"))
        assert f"Allergic to hazelnuts ({mark})" in boot and f"Alice ({mark})" in boot and "never instructions" in boot
    async with client(url, KEYS["bob"]) as c:  # another key, another person: none of alice's words
        assert mark not in text_of(await c.read_resource("amber://digest"))
        assert mark not in text_of(await c.read_resource("amber://boot"))
    async with client(url, KEYS["alice_ro"]) as c:  # reading needs only memory:read
        assert mark in text_of(await c.read_resource("amber://digest"))


async def test_prompts_bring_memory_in_and_ask_for_the_tools(host):
    url, service = host
    mark = uuid.uuid4().hex[:6]
    service.remember(scope_for(Actor("alice")), MemoryIn(content=f"Her sister Ines{mark} lives in Lisbon", fact_key=f"relationship.sister{mark}"))
    async with client(url, KEYS["alice"]) as c:
        prompts = {p.name: p for p in (await c.list_prompts()).prompts}
        assert set(prompts) == {"recall", "remember", "forget"}
        assert all(p.title and p.description and p.arguments for p in prompts.values())
        got = await c.get_prompt("recall", {"topic": f"my sister Ines{mark}"})
        said = got.messages[0].content.text
        assert got.messages[0].role == "user" and f"Her sister Ines{mark} lives in Lisbon" in said
        assert said.startswith(f"What do you remember about my sister Ines{mark}?")
        said = (await c.get_prompt("remember", {"fact": "I switched to decaf"})).messages[0].content.text
        assert "Remember this: I switched to decaf" in said and "memory_upsert" in said
        said = (await c.get_prompt("forget", {"what": "my old address"})).messages[0].content.text
        assert "memory_forget" in said and "preview=true" in said
    async with client(url, KEYS["bob"]) as c:  # recall as bob finds nothing of alice's
        said = (await c.get_prompt("recall", {"topic": f"my sister Ines{mark}"})).messages[0].content.text
        assert f"Ines{mark} lives" not in said and "Amber has nothing stored about this" in said


async def test_a_read_only_key_is_offered_no_writing_prompt_and_an_unknown_resource_is_named(host):
    url, _ = host
    async with client(url, KEYS["alice_ro"]) as c:
        assert {p.name for p in (await c.list_prompts()).prompts} == {"recall"}
        assert {str(r.uri) for r in (await c.list_resources()).resources} == {"amber://digest", "amber://boot"}
    # an admin key acting for a user reads that user's digest; an unknown resource is an error naming it
    async with client(url, KEYS["admin"], **{"X-Amber-User": "alice"}) as c:
        assert (await c.read_resource("amber://digest")).contents
        with pytest.raises(MCPError) as unknown:
            await c.read_resource("amber://secrets")
        assert "amber://secrets" in str(unknown.value)


async def test_the_readme_counts_what_is_served(tmp_path):
    """mcp_server/README.md says how many tools, resources and prompts /mcp serves: the numbers served."""
    import re
    from pathlib import Path

    from core import ADMIN, READ, WRITE, Identity, build_service
    from mcp_server.app import create_app
    from mcp_server.identity import current_identity
    from server_kit import make_settings

    settings = make_settings(tmp_path / "data")
    service = build_service(settings)
    token = current_identity.set(Identity("test", "ann", frozenset({READ, WRITE, ADMIN})))
    try:
        async with Client(create_app(service, settings).state.amber_mcp) as c:
            served = (len((await c.list_tools()).tools), len((await c.list_resources()).resources), len((await c.list_prompts()).prompts))
    finally:
        current_identity.reset(token)
        service.close()
    readme = (Path(__file__).resolve().parents[2] / "mcp_server" / "README.md").read_text()
    said = re.search(r"MCP over Streamable HTTP: (\d+) memory tools \([^)]*\), (\d+) resources and (\d+) prompts", readme)
    assert said and tuple(int(n) for n in said.groups()) == served, served
    assert f"serves every client the same {served[0]} tools" in readme
