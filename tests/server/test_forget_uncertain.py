"""A forget that is not sure says so on every face: over REST and through the MCP tool the reply lists
what the request may mean (kept, never erased, even when the forget is carried out), so the client
can ask the person which; what Amber is sure of is erased and listed apart.

Run alone:  .venv/bin/python -m pytest -q tests/server/test_forget_uncertain.py
"""

from __future__ import annotations

import httpx
import pytest
from mcp import Client

from server_kit import KEYS, auth, make_settings, serve
from core import build_service
from mcp_server.app import create_app

pytestmark = pytest.mark.e2e

# two memories share as many of the words of "my sister in Lyon": which one is meant is the person's to say
AMBIGUOUS = ["My sister lives in Lyon", "My sister works in Lyon"]


@pytest.fixture
def app(tmp_path):
    settings = make_settings(tmp_path / "data")
    service = build_service(settings)
    yield create_app(service, settings)
    service.close()


def contents(items: list[dict]) -> set[str]:
    return {m["content"] for m in items}


def test_rest_forget_lists_what_it_is_not_sure_of_and_keeps_it(app):
    with serve(app) as url:
        http = httpx.Client(base_url=f"{url}/v1", headers=auth("alice"), timeout=30)
        for c in [*AMBIGUOUS, "I like green tea", "My passport number is P-1234"]:
            assert http.post("/memories", json={"content": c}).status_code == 200
        preview = http.post("/forget/preview", json={"what": "my sister in Lyon"}).json()
        assert preview["done"] is False and preview["memories"] == []
        assert contents(preview["uncertain"]) == set(AMBIGUOUS)
        done = http.post("/forget", json={"what": "my sister in Lyon"}).json()
        assert done["done"] is True and done["memories"] == [] and contents(done["uncertain"]) == set(AMBIGUOUS)
        left = contents(http.get("/memories").json()["items"])
        assert set(AMBIGUOUS) <= left  # nothing uncertain was erased
        sure = http.post("/forget", json={"what": "my passport number"}).json()
        assert contents(sure["memories"]) == {"My passport number is P-1234"} and sure["uncertain"] == []
        assert "My passport number is P-1234" not in contents(http.get("/memories").json()["items"])


async def test_mcp_memory_forget_lists_what_it_is_not_sure_of_and_keeps_it(app):
    with serve(app) as url:
        async with Client(f"{url}/mcp?token={KEYS['alice']}") as c:
            for content in [*AMBIGUOUS, "I like green tea"]:
                r = await c.call_tool("memory_upsert", {"content": content})
                assert not r.is_error, r.content
            for preview in (True, False):
                r = await c.call_tool("memory_forget", {"what": "my sister in Lyon", "preview": preview})
                assert not r.is_error, r.content
                out = r.structured_content
                assert out["done"] is (not preview) and out["memories"] == []
                assert contents(out["uncertain"]) == set(AMBIGUOUS)
                assert all(m["id"] for m in out["uncertain"])  # ids, so the model can name the one meant
            listed = (await c.call_tool("memory_list", {})).structured_content
            assert set(AMBIGUOUS) <= {m["content"] for m in listed["items"]}
