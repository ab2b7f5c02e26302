"""Forget through MCP, the way a host's model does it: memories and conversation turns are stored,
the model calls memory_forget (a preview, then for real) over Streamable HTTP against the real
server, and afterwards twenty varied probes through memory_search and memory_recall find nothing
of what was forgotten, while what was not forgotten is still there.

Run alone:  .venv/bin/python -m pytest -q tests/server/test_mcp_forget.py
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

import pytest
from mcp import Client

from server_kit import KEYS, make_settings, serve
from core import build_service
from mcp_server.app import create_app

pytestmark = pytest.mark.e2e

GONE = "Okonkwo"  # the dentist's name: in no answer once "my dentist is Dr. Okonkwo" is forgotten

# Direct questions, the bare name, paraphrases, neighbouring topics, a question about what Amber
# keeps, and Chinese: each goes through both memory_search and memory_recall.
PROBES = [
    "Who is my dentist?", "dentist", "Okonkwo", "Dr. Okonkwo", "Which doctor looks after my teeth?",
    "my dentist is", "When is my next dental check-up?", "teeth", "Where is my dentist's practice?",
    "What did I ask you to remember?", "Tell me everything you know about me.", "doctor", "Leeds practice",
    "Who filled my molar?", "dental appointment on Tuesday", "my doctors and health people",
    "What is the name of the person I see for cleanings?", "我的牙医是谁？", "O-k-o-n-k-w-o", "tooth ache, who do I call?",
]


def turn(n: int, role: str, content: str, session: str = "chat-1") -> dict:
    at = datetime(2026, 11, 2, 9, 0, tzinfo=timezone.utc) + timedelta(minutes=n)
    return {"id": f"t{n}", "role": role, "content": content, "session": session, "created_at": at.isoformat()}


async def call(c, tool: str, **args) -> dict:
    r = await c.call_tool(tool, args)
    assert not r.is_error, (tool, r.content)
    return r.structured_content


async def found(c, probe: str) -> str:
    """Everything memory_search and memory_recall give back for a probe, as one string."""
    hits = await call(c, "memory_search", query=probe, top_k=50)
    recalled = await call(c, "memory_recall", query=probe)
    return json.dumps([hits, recalled], ensure_ascii=False)


@pytest.fixture
def app(tmp_path):
    settings = make_settings(tmp_path / "data")
    service = build_service(settings)
    yield create_app(service, settings)
    service.close()


async def test_memory_forget_over_mcp_leaves_nothing_for_twenty_probes(app):
    with serve(app) as url:
        async with Client(f"{url}/mcp?token={KEYS['alice']}") as c:
            await call(c, "memory_upsert", content="My dentist is Dr. Okonkwo", fact_key="relationship.dentist")
            await call(c, "memory_upsert", content="My sister lives in Lisbon", fact_key="relationship.sister_city")
            turns = [
                turn(0, "user", "Remember that my dentist is Dr. Okonkwo."),
                turn(1, "assistant", "Noted: your dentist is Dr. Okonkwo."),
                turn(2, "user", "My dentist Dr. Okonkwo says I should floss more."),
                turn(3, "assistant", "Dr. Okonkwo, your dentist, is right about flossing."),
                turn(4, "user", "I play the cello in an amateur orchestra on Sundays.", session="chat-2"),
                turn(5, "assistant", "The cello on Sundays sounds lovely.", session="chat-2"),
                turn(6, "user", "My sister in Lisbon is visiting in December.", session="chat-2"),
            ]
            ingested = await call(c, "memory_ingest", messages=turns)
            assert ingested["ingested"] == len(turns)
            assert [d["action"] for d in ingested["commands"]] == ["remember"]

            # Before: the dentist is found, by search and by recall.
            assert GONE in await found(c, "Who is my dentist?")

            # The preview says what will go and removes nothing.
            preview = await call(c, "memory_forget", what="my dentist is Dr. Okonkwo")
            assert preview["done"] is False and preview["memories"] and preview["messages"]
            assert all(GONE in m["content"] for m in preview["memories"])
            assert GONE in await found(c, "dentist")

            done = await call(c, "memory_forget", what="my dentist is Dr. Okonkwo", preview=False)
            assert done["done"] is True
            assert {m["id"] for m in done["memories"]} == {m["id"] for m in preview["memories"]}

            leaks = [p for p in PROBES if GONE in await found(c, p)]
            assert leaks == [], f"{len(leaks)} of {len(PROBES)} probes still find it: {leaks}"

            # What was not forgotten is still there, and no stored turn or memory says the name.
            assert "Lisbon" in await found(c, "Where does my sister live?")
            assert "cello" in await found(c, "What instrument do I play?")
            kept = await call(c, "messages_list", limit=200)
            assert kept["total"] == 3 and all(GONE not in t["content"] for t in kept["turns"])
            listed = await call(c, "memory_list", status="any", limit=200)
            assert all(GONE not in m["content"] for m in listed["items"] if m["status"] == "active")
