"""The memory server with the real offline embedder (multilingual-e5-small), end to end over HTTP and MCP."""

from __future__ import annotations

import httpx
import pytest
from mcp import Client

from core import Settings, build_service
from mcp_server.app import create_app
from server_kit import KEYS, auth, key_configs, serve

pytestmark = pytest.mark.e2e


async def test_recall_with_the_local_embedder(tmp_path):
    settings = Settings(data_dir=tmp_path / "data", embedding_model="local", api_keys=key_configs())
    service = build_service(settings)
    try:
        assert service.embedder.id.startswith("local:")
        with serve(create_app(service, settings)) as url:
            async with httpx.AsyncClient(base_url=url, timeout=60) as http:
                h = auth("alice")
                for text in ["我女儿叫小雨，今年六岁", "Allergic to shellfish", "Works as a bicycle mechanic in Utrecht"]:
                    (await http.post("/v1/memories", json={"content": text}, headers=h)).raise_for_status()
                health = (await http.get("/health")).json()
                assert health["embedder"]["ok"] and health["embedder"]["id"].startswith("local:")
                # meaning, not shared words: a paraphrase in another language finds the memory
                r = (await http.post("/v1/search", json={"query": "What is my daughter's name?", "top_k": 1}, headers=h)).json()
                assert r["hits"][0]["text"] == "我女儿叫小雨，今年六岁"
                r = (await http.post("/v1/recall", json={"query": "What am I allergic to?"}, headers=h)).json()
                assert "Allergic to shellfish" in r["text"]
                # an association with no shared word ("can I eat shrimp?" -> a shellfish allergy) scores
                # under the injection floor with this small embedder (0.79): search, asked on purpose, finds it
                r = (await http.post("/v1/search", json={"query": "可以吃虾吗？", "top_k": 3}, headers=h)).json()
                assert "Allergic to shellfish" in [x["text"] for x in r["hits"]]
                r = (await http.post("/v1/recall", json={"query": "Explain the difference between TCP and UDP."}, headers=h)).json()
                assert r["text"] == ""  # and a prompt that is about none of it gets no memory at all
            async with Client(f"{url}/mcp?token={KEYS['alice']}") as c:
                r = await c.call_tool("memory_search", {"query": "where does he repair bikes", "top_k": 1})
                assert r.structured_content["hits"][0]["text"] == "Works as a bicycle mechanic in Utrecht"
    finally:
        service.close()
