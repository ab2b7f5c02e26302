"""One person, one memory: the identity map joins the names each client knows a person by."""

from __future__ import annotations

import os

import httpx
import pytest
import yaml
from pydantic import ValidationError

from core import Settings, build_service
from core.testing import HashEmbedder
from mcp_server.app import create_app
from server_kit import auth, make_settings, serve

USERS = {"alice": ["alice@example.com", "owui-7c1e"], "bob": ["bob@example.com"]}


@pytest.fixture(scope="module")
def mapped(tmp_path_factory):
    settings = make_settings(tmp_path_factory.mktemp("mapped"), users=USERS)
    service = build_service(settings, embedder=HashEmbedder())
    with serve(create_app(service, settings)) as url:
        yield url
    service.close()


def test_a_person_s_clients_share_one_memory(mapped):
    with httpx.Client(base_url=mapped, timeout=30) as c:
        # the Open WebUI filter (a trusted client) names the user by email
        owui = auth("owui", **{"X-Amber-User": "alice@example.com"})
        c.post("/v1/memories", json={"content": "Alice's allotment is plot 12 by the river"}, headers=owui).raise_for_status()
        # Alice's own key (her proxy and Claude Code key) recalls it, and so does the filter by her id
        assert "plot 12" in c.post("/v1/recall", json={"query": "where is my allotment"}, headers=auth("alice")).json()["text"]
        by_id = auth("owui", **{"X-Amber-User": "owui-7c1e"})
        assert "plot 12" in c.post("/v1/recall", json={"query": "allotment"}, headers=by_id).json()["text"]
        # her key may name her by any of her names
        assert c.get("/v1/memories", headers=auth("alice", **{"X-Amber-User": "alice@example.com"})).status_code == 200


def test_the_map_never_lets_one_person_in_as_another(mapped):
    with httpx.Client(base_url=mapped, timeout=30) as c:
        assert c.get("/v1/memories", headers=auth("bob", **{"X-Amber-User": "alice@example.com"})).status_code == 403
        bob = c.post("/v1/recall", json={"query": "allotment plot"}, headers=auth("owui", **{"X-Amber-User": "bob@example.com"}))
        assert "plot 12" not in bob.json()["text"]


def test_an_alias_may_belong_to_one_person_only():
    with pytest.raises(ValidationError, match="alias of both"):
        Settings(users={"alice": ["a@x.org"], "bob": ["a@x.org"]})
    with pytest.raises(ValidationError, match="person of its own"):
        Settings(users={"alice": ["bob"], "bob": []})
    s = Settings(users=USERS)
    assert (s.person("owui-7c1e"), s.person("bob@example.com"), s.person("carol")) == ("alice", "bob", "carol")


def test_an_alias_cannot_take_over_a_key(tmp_path, capsys, monkeypatch):
    """`users: {alice: [alice@example.com, bob]}` next to a key bound to `bob` would hand Alice's
    memory to Bob's key (and orphan Bob's): refused at load, naming alias, person and key, and
    `amber doctor` says the same."""
    bob_key = {"name": "bobs-laptop", "secret": "sk-amber-bob-takeover", "user": "bob"}
    with pytest.raises(ValidationError, match=r"'bob' is an alias of 'alice' and also the user of API key 'bobs-laptop'"):
        Settings(users={"alice": ["alice@example.com", "bob"]}, api_keys=[bob_key])
    with pytest.raises(ValidationError, match="empty alias"):
        Settings(users={"alice": [" "]})
    # a key bound to the person, or to someone who is nobody's alias, is fine
    Settings(users={"alice": ["alice@example.com"]}, api_keys=[{**bob_key, "user": "alice"}, bob_key])

    from mcp_server.cli import main

    config = tmp_path / "config.yaml"
    config.write_text(yaml.safe_dump({"amber": {"users": {"alice": ["bob"]}, "api_keys": [bob_key]}}))
    for name in [n for n in os.environ if n.startswith("AMBER_")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("AMBER_CONFIG", str(config))
    monkeypatch.chdir(tmp_path)
    capsys.readouterr()
    assert main(["doctor", "--url", "http://127.0.0.1:9"]) != 0
    out = capsys.readouterr().out
    assert "'bob' is an alias of 'alice' and also the user of API key 'bobs-laptop'" in out


def test_the_proxy_maps_end_users_to_people():
    from litellm_hooks.identity import actor_for

    s = Settings(users=USERS)
    actor = actor_for({"user": "alice@example.com"}, None, s.identity_order, None, s.person)
    assert actor is not None and actor.user_id == "alice"
