"""The destination policy on the memory host's REST face, where Open WebUI's filter and the Claude Code
plugin get the memory they put in front of their model: POST /v1/recall and GET /v1/boot with `model`
are answered as the proxy's hook answers that model (nothing for a model that may receive no memory,
no precious, health or private items for a model off the host, everything for a host model); without
`model` (the person's own use) the policy is not asked. One test per rule, on a real server."""

from __future__ import annotations

import httpx
import pytest

from core import build_service, handle_of
from core.testing import HashEmbedder
from mcp_server.app import create_app
from server_kit import auth, key_configs, serve
from tests.kit.config import settings_apart

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def ana(tmp_path_factory):
    settings = settings_apart(tmp_path_factory.getbasetemp(), data_dir=tmp_path_factory.mktemp("amber-host"), embedding_model="hash",
                              api_keys=key_configs(), host_models=["ollama/*"], memory_models_deny=["openai/*"])
    service = build_service(settings, embedder=HashEmbedder())
    with serve(create_app(service, settings)) as url, \
            httpx.Client(base_url=url, timeout=30, headers=auth("admin", **{"X-Amber-User": "ana"})) as c:
        for body in ({"content": "I drink genmaicha tea from the tea garden", "pinned": True},
                     {"content": "Takes insulin with tea in the morning", "tags": ["health"], "pinned": True},
                     {"content": "My tea garden diary is private", "tags": ["private"], "pinned": True}):
            c.post("/v1/memories", json=body).raise_for_status()
        c.post("/v1/precious", json={"quote": "Grandma said: the tea garden is where we begin"}).raise_for_status()
        yield c
    service.close()


def recall(c: httpx.Client, model: str | None) -> str:
    body = {"query": "tea garden insulin diary Grandma"} | ({"model": model} if model else {})
    r = c.post("/v1/recall", json=body)
    r.raise_for_status()
    return r.text  # the block and every item, as JSON


def boot(c: httpx.Client, model: str | None) -> str:
    r = c.get("/v1/boot", params={"model": model} if model else {})
    r.raise_for_status()
    return r.text


@pytest.mark.parametrize("read", [recall, boot], ids=["recall", "boot"])
def test_a_model_off_the_host_gets_no_host_only_item(ana, read):
    away = read(ana, "anthropic/claude-sonnet")
    assert "genmaicha" in away and not any(w in away for w in ("insulin", "diary", "Grandma"))


@pytest.mark.parametrize("read", [recall, boot], ids=["recall", "boot"])
def test_a_host_model_and_the_person_get_everything(ana, read):
    for model in ("ollama/qwen3", None):
        assert all(w in read(ana, model) for w in ("genmaicha", "insulin", "diary", "Grandma"))


@pytest.mark.parametrize("read", [recall, boot], ids=["recall", "boot"])
def test_a_denied_model_gets_no_memory(ana, read):
    assert "genmaicha" not in read(ana, "openai/gpt-4o")


def test_the_why_record_names_only_what_went_to_the_model(ana):
    """The block is packed from what may go to the model, so the record of what was injected, and
    its handles, are of those items and not of the host-only ones recall ranked too."""
    r = ana.post("/v1/recall", json={"query": "tea garden insulin diary Grandma", "model": "anthropic/claude-sonnet",
                                     "why": "dest-why-1"})
    r.raise_for_status()
    sent = {i["id"] for i in r.json()["items"]}
    (record,) = ana.get("/v1/why", params={"request": "dest-why-1"}).json()["requests"]
    assert sent and {i["id"] for i in record["items"]} == sent
    assert not any(w in str(record) for w in ("insulin", "diary", "Grandma"))


def test_a_chat_whose_model_receives_no_memory_corrects_only_by_handle(ana):
    """That chat was shown no block, so its "that's wrong" answers nothing Amber showed; a handle is the
    person's own choice of item, carried out and not told to the model."""
    bo = {"X-Amber-User": "bo"}

    def say(text: str, model: str, name: str) -> str:
        r = ana.post("/v1/recall", headers=bo, json={"query": text, "model": model, "why": name, "correct": True})
        r.raise_for_status()
        return r.json()["text"]

    city = ana.post("/v1/memories", headers=bo, json={"content": "I live in Shanghai", "fact_key": "profile.city"}).json()["memory"]["id"]
    cat = ana.post("/v1/memories", headers=bo, json={"content": "My cat is called Miso"}).json()["memory"]["id"]
    shown = say("Where do I live, and what is my cat called?", "ollama/qwen3", "c1:m1")
    assert handle_of(city) in shown and handle_of(cat) in shown
    assert say("That's wrong, I moved to Hangzhou", "openai/gpt-4o", "c2:m1") == ""
    assert ana.get(f"/v1/memories/{city}", headers=bo).json()["status"] == "active"
    assert say(f"forget {handle_of(cat)}", "openai/gpt-4o", "c2:m2") == ""
    assert ana.get(f"/v1/memories/{cat}", headers=bo).status_code == 404
    assert "corrected" in say("That's wrong, I moved to Hangzhou", "ollama/qwen3", "c1:m2")
    assert ana.get(f"/v1/memories/{city}", headers=bo).json()["status"] == "superseded"


def test_a_correction_told_to_a_model_off_the_host_keeps_a_host_only_items_words_on_the_host(ana):
    """Open WebUI's filter asks for its block and the turn's correction in one call: a health item shown
    to a host model and corrected in a chat with a model off the host is named to that model by its
    handle only, as the proxy's hook does; a forget never sends the words, to any model."""
    cy = {"X-Amber-User": "cy"}

    def say(text: str, model: str, name: str) -> str:
        r = ana.post("/v1/recall", headers=cy, json={"query": text, "model": model, "why": name, "correct": True})
        r.raise_for_status()
        return r.json()["text"]

    dose = ana.post("/v1/memories", headers=cy, json={"content": "I take 40 mg of fluoxetine every morning", "tags": ["health"]}).json()["memory"]["id"]
    shown = say("How much fluoxetine do I take every morning?", "ollama/qwen3", "c1:m1")
    assert handle_of(dose) in shown and "40 mg" in shown
    note = say("That's wrong, I take 20 mg of fluoxetine now", "anthropic/claude-sonnet", "c1:m2")
    assert "corrected" in note and handle_of(dose) in note and "40 mg" not in note and "its words stay on this host" in note
    assert ana.get(f"/v1/memories/{dose}", headers=cy).json()["status"] == "superseded"
    tea = ana.post("/v1/memories", headers=cy, json={"content": "My tea garden diary is kept in a green notebook"}).json()["memory"]["id"]
    shown = say("Where do I keep my tea garden diary?", "ollama/qwen3", "c2:m1")
    assert handle_of(tea) in shown
    note = say(f"forget {handle_of(tea)}", "ollama/qwen3", "c2:m2")  # even on the host: the person asked it gone
    assert "forgotten" in note and handle_of(tea) in note and "green notebook" not in note
