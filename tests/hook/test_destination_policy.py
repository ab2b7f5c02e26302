"""Destination policy (core/destinations.py), enforced by the hook before it injects: one test per
rule, through the pre-call in process on a real Chroma store, and the rules on deployments."""

from __future__ import annotations

import json

import pytest

from core import Actor, DestinationPolicy, MemoryIn, build_service, scope_for
from core.testing import HashEmbedder
from litellm_hooks.amber import AmberMemory
from litellm_hooks.host import HookMemory, local_ports
from tests.hook.test_corrections_in_turn import Key, turn  # noqa: F401  (Key: the fixture's key shape)
from tests.kit.config import settings_apart


def make(tmp_path, **policy):
    from types import SimpleNamespace

    settings = settings_apart(tmp_path, data_dir=tmp_path / "data", embedding_model="hash", recall_timeout_s=20, **policy)
    service = build_service(settings, embedder=HashEmbedder())
    return service, AmberMemory(SimpleNamespace(memory=HookMemory(local_ports(service, settings)), settings=settings, vision=None))


@pytest.fixture
def ana_tea():
    return lambda service: service.remember(scope_for(Actor("ana")), MemoryIn(content="I drink genmaicha tea every morning")).memory


async def test_a_denied_model_receives_no_memory_and_leaves_no_why(tmp_path, ana_tea):
    service, cb = make(tmp_path, memory_models_deny=["gpt-*"])
    try:
        ana_tea(service)
        patch, _ = await turn(cb, "Which tea do I drink?", model="gpt-4o-mini")
        assert patch == "" and service.why(scope_for(Actor("ana")), last=20) == []
        patch, _ = await turn(cb, "Which tea do I drink?", model="claude-sonnet")
        assert "genmaicha" in patch
    finally:
        service.close()


async def test_only_allowed_models_receive_memory(tmp_path, ana_tea):
    service, cb = make(tmp_path, memory_models_allow=["local-*"])
    try:
        ana_tea(service)
        assert (await turn(cb, "Which tea do I drink?", model="claude-sonnet"))[0] == ""
        assert "genmaicha" in (await turn(cb, "Which tea do I drink?", model="local-qwen"))[0]
    finally:
        service.close()


async def test_precious_quotes_stay_on_the_host(tmp_path):
    service, cb = make(tmp_path, host_models=["local-*"])
    try:
        ana = scope_for(Actor("ana"))
        service.precious_add(ana, "Grandma said: the tea garden is where we begin")
        service.remember(ana, MemoryIn(content="I drink genmaicha tea from the tea garden"))
        away, _ = await turn(cb, "Tell me about the tea garden", model="claude-sonnet")
        assert "genmaicha" in away and "Grandma" not in away
        home, _ = await turn(cb, "Tell me about the tea garden", model="local-qwen")
        assert "Grandma" in home
    finally:
        service.close()


@pytest.mark.parametrize("tag", ["health", "private"])
async def test_tagged_memories_stay_on_the_host(tmp_path, tag):
    service, cb = make(tmp_path, host_models=["local-*"])
    try:
        ana = scope_for(Actor("ana"))
        service.remember(ana, MemoryIn(content="My blood pressure medicine is taken with morning tea", tags=[tag]))
        service.remember(ana, MemoryIn(content="I drink genmaicha tea every morning"))
        away, call_id = await turn(cb, "What do I do with my morning tea?", model="claude-sonnet")
        assert "genmaicha" in away and "blood pressure" not in away
        shown = (await cb.async_post_call_response_headers_hook({"litellm_call_id": call_id, "user": "ana"}, Key(), object()))["x-amber-memories"]
        assert len(shown.split()) == away.count("\n- #")  # the header names only what was sent
        home, _ = await turn(cb, "What do I do with my morning tea?", model="local-qwen")
        assert "blood pressure" in home
    finally:
        service.close()


def test_the_rules_read_every_deployment_behind_a_group():
    p = DestinationPolicy(allow=("local-*", "ollama/*"), deny=("openai/*",), host_models=("ollama/*",))
    assert not p.receives_memory("smart", ["ollama/qwen", "openai/gpt-4o"])  # may land on a denied deployment
    assert p.receives_memory("smart", ["ollama/qwen", "ollama/llama"])  # every deployment allowed
    assert not p.receives_memory("smart", ["ollama/qwen", "anthropic/claude"])  # one is not allowed
    assert p.receives_memory("LOCAL-small")  # case-insensitive
    assert p.on_host("smart", ["ollama/qwen"]) and not p.on_host("smart", ["ollama/qwen", "anthropic/claude"])
    assert DestinationPolicy().receives_memory("anything") and not DestinationPolicy().on_host("anything")
    items = [type("I", (), {"kind": k, "tags": t})() for k, t in (("fact", []), ("precious", []), ("fact", ["Private"]))]
    assert [i.kind for i in p.admit(items, "local-x")] == ["fact"]  # allowed, not on the host
    assert len(p.admit(items, "x", ["ollama/qwen"])) == 3  # on the host: everything


async def test_a_group_on_the_host_by_its_deployments_gets_host_only_items_and_a_true_why(tmp_path, monkeypatch):
    """A group whose name says nothing ("home") but whose every deployment runs on the host
    (ollama/*) gets the precious quote; a group over a provider's model does not, and the host's
    why record of that request names only what the model got. A real LiteLLM Router holds the groups."""
    from litellm import Router

    import litellm_hooks.amber as hook_module

    groups = Router(model_list=[{"model_name": "home", "litellm_params": {"model": "ollama/qwen3"}},
                                {"model_name": "away", "litellm_params": {"model": "anthropic/claude-sonnet-4"}}])
    monkeypatch.setattr(hook_module, "router", lambda: groups)
    service, cb = make(tmp_path, host_models=["ollama/*"])
    try:
        ana = scope_for(Actor("ana"))
        service.precious_add(ana, "Grandma said: the tea garden is where we begin")
        service.remember(ana, MemoryIn(content="I drink genmaicha tea from the tea garden"))
        home, _ = await turn(cb, "Tell me about the tea garden", model="home")
        assert "Grandma" in home and "genmaicha" in home
        away, call = await turn(cb, "Tell me about the tea garden", model="away")
        assert "genmaicha" in away and "Grandma" not in away
        (record,) = service.why(ana, request=call)
        assert record.items and not any("Grandma" in str(i) for i in record.items)
    finally:
        service.close()


def test_every_group_a_request_may_reach_is_a_destination():
    """A request names groups ("a,b" goes to both) and may fall back to others, by its own
    `fallbacks` or the router's (followed to the end): memory injected before the call goes
    wherever LiteLLM routes it. A real LiteLLM Router holds the groups and the operator's fallbacks."""
    from litellm import Router

    from litellm_hooks.targets import destinations

    groups = Router(model_list=[{"model_name": n, "litellm_params": {"model": m}} for n, m in
                                (("home", "ollama/qwen3"), ("spare", "ollama/llama3"), ("away", "openai/gpt-4o-mini"),
                                 ("wide", "anthropic/claude-sonnet-4"))],
                    fallbacks=[{"home": ["spare"]}, {"spare": ["away"]}], context_window_fallbacks=[{"away": ["wide"]}])
    assert destinations(groups, {"model": "away"}) == [("away", ["openai/gpt-4o-mini"]), ("wide", ["anthropic/claude-sonnet-4"])]
    assert [g for g, _ in destinations(groups, {"model": "home"})] == ["home", "spare", "away", "wide"]
    assert [g for g, _ in destinations(None, {"model": "wide, home"})] == ["wide", "home"]
    assert [g for g, _ in destinations(None, {"model": "wide", "fallbacks": ["home", {"model": "spare"}]})] == ["wide", "home", "spare"]
    looped = Router(model_list=[{"model_name": "a", "litellm_params": {"model": "ollama/a"}}], fallbacks=[{"a": ["a"]}, {"*": ["b"]}])
    assert [g for g, _ in destinations(looped, {"model": "a"})] == ["a", "b"]


async def test_memory_goes_only_where_every_route_of_the_request_may_take_it(tmp_path, monkeypatch):
    """Before, only the group the client named was read: "home,away" (sent to both), a request's
    own fallbacks and the operator's router fallbacks all carried memory to a denied model, and the
    host-only quote to a model off the host."""
    from litellm import Router

    import litellm_hooks.amber as hook_module

    groups = Router(model_list=[{"model_name": n, "litellm_params": {"model": m}} for n, m in
                                (("home", "ollama/qwen3"), ("home-b", "ollama/qwen3"), ("away", "anthropic/claude-sonnet-4"),
                                 ("denied", "openai/gpt-4o-mini"))],
                    fallbacks=[{"home-b": ["away"]}])
    monkeypatch.setattr(hook_module, "router", lambda: groups)
    service, cb = make(tmp_path, host_models=["ollama/*"], memory_models_deny=["openai/*"])
    ana = scope_for(Actor("ana"))

    async def ask(model: str, **extra) -> str:
        data = {"model": model, "user": "ana", "litellm_call_id": f"route-{model}-{len(extra)}",
                "messages": [{"role": "user", "content": "Tell me about the tea garden"}], "metadata": {}, **extra}
        out = await cb.async_pre_call_hook(Key(), None, data, "acompletion")
        return str((out or data)["messages"])

    try:
        service.precious_add(ana, "Grandma said: the tea garden is where we begin")
        service.remember(ana, MemoryIn(content="I drink genmaicha tea from the tea garden"))
        alone = await ask("home")
        assert "Grandma" in alone and "genmaicha" in alone  # on the host: everything
        assert "genmaicha" not in await ask("home,denied")  # one of the two is denied: no memory at all
        assert "genmaicha" not in await ask("home", fallbacks=["denied"])
        both = await ask("home,away")
        assert "genmaicha" in both and "Grandma" not in both  # one is off the host: nothing host-only
        routed = await ask("home-b")  # the operator's fallback from it is off the host
        assert "genmaicha" in routed and "Grandma" not in routed
    finally:
        service.close()


def test_an_embedder_off_the_host_is_named_at_start_with_what_it_does_not_receive(caplog):
    """The operator is told at start that host-only memories are embedded without their words."""
    import logging

    from core import Settings
    from core.compose import _keep_host_only_words_home

    with caplog.at_level(logging.WARNING, logger="amber"):
        _keep_host_only_words_home(Settings(embedding_model="openai/text-embedding-3-small"))
        _keep_host_only_words_home(Settings(embedding_model="ollama/nomic-embed-text", host_models=["ollama/*"]))
        _keep_host_only_words_home(Settings(embedding_model="local"))  # and the words go to a local one again
    said = [r.getMessage() for r in caplog.records if "embedder" in r.getMessage()]
    assert len(said) == 1 and "openai/text-embedding-3-small" in said[0] and "precious" in said[0] and "health" in said[0]


def test_an_embedder_off_the_host_never_receives_host_only_words(tmp_path):
    """Every memory is embedded: with a provider's embedder, a precious quote and memories tagged
    health or private went to it word for word. Now they are embedded as what they are; the
    others as before. The embedder is LiteLLM's, against a recording OpenAI-compatible upstream."""
    from core import Settings, build_service
    from core.model import keep_words_home
    from tests.fakes.upstreams import FakeUpstreams

    with FakeUpstreams() as up:
        settings = Settings(data_dir=tmp_path / "data", embedding_model="openai/text-embedding-3-small",
                            embedding_api_base=up.openai_base, embedding_api_key="sk-test")
        service = build_service(settings)
        try:
            ana = scope_for(Actor("ana"))
            service.remember(ana, MemoryIn(content="Takes metformin twice a day", tags=["health"]))
            service.remember(ana, MemoryIn(content="Still dreams about Zanzibar", tags=["private"]))
            service.precious_add(ana, "Grandma said: the tidepool keeps what the tide forgets")
            service.remember(ana, MemoryIn(content="Drinks genmaicha every morning"))
            sent = " ".join(json.dumps(r.body) for r in up.find("/embeddings"))
            assert "genmaicha" in sent
            assert not [w for w in ("metformin", "Zanzibar", "tidepool") if w in sent]
            assert any("metformin" in c.text for c in service.search(ana, "metformin"))  # found by its words
        finally:
            service.close()
            keep_words_home(None)


async def test_the_forget_note_keeps_host_only_words_from_a_model_off_the_host(tmp_path):
    """A forget it is not sure of lists the memories the person may mean, for the model to ask
    which: those words went to any model. A model off the host now gets the note without the
    host-only ones; a model on the host still reads them."""
    service, cb = make(tmp_path, host_models=["local-*"])
    try:
        ana = scope_for(Actor("ana"))
        service.remember(ana, MemoryIn(content="My HIV medication is Biktarvy, one tablet daily", tags=["health"]))
        service.remember(ana, MemoryIn(content="My HIV clinic is St Thomas, every three months", tags=["health"]))
        away, _ = await turn(cb, "forget my HIV medication clinic", model="claude-sonnet")
        assert "forget" in away and "Biktarvy" not in away and "St Thomas" not in away
        home, _ = await turn(cb, "forget my HIV medication clinic", model="local-qwen")
        assert "Biktarvy" in home or "St Thomas" in home
    finally:
        service.close()
