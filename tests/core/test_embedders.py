"""Embedders behind one port: the offline local model, and any model LiteLLM reaches."""

from __future__ import annotations

import math

import pytest

from core import EmbedderUnavailable, InvalidInput, MemoryIn, Settings, build_embedder, build_service
from core.testing import FixedClock
from tests.fakes.upstreams import FakeUpstreams


def _unit(v):
    return math.isclose(math.sqrt(sum(x * x for x in v)), 1.0, rel_tol=1e-3)


def test_local_embedder_is_multilingual_and_offline():
    e = build_embedder("local")
    assert e.dim == 384 and e.id.startswith("local:")
    q = e.embed_query("我喜欢吃什么？")
    docs = e.embed_documents(["我最喜欢吃四川火锅", "The meeting moved to Tuesday"])
    assert _unit(q) and all(_unit(d) for d in docs)
    sim = [sum(a * b for a, b in zip(q, d)) for d in docs]
    assert sim[0] > sim[1]


def test_litellm_embedder_through_a_real_http_upstream(tmp_path, alice):
    with FakeUpstreams() as up:
        settings = Settings(data_dir=tmp_path, embedding_model="openai/fake-embed", embedding_api_base=up.openai_base, embedding_api_key="test-key")
        svc = build_service(settings, clock=FixedClock())
        try:
            assert svc.embedder.id == "litellm:openai/fake-embed" and svc.embedder.dim == 64
            svc.remember(alice, MemoryIn(content="my sister lives in Lisbon"))
            assert svc.search(alice, "sister Lisbon")[0].text == "my sister lives in Lisbon"
            calls = up.find("/embeddings")
            assert calls and all(c.headers.get("authorization") == "Bearer test-key" for c in calls)
            assert any("my sister lives in Lisbon" in c.body["input"] for c in calls)
        finally:
            svc.close()


def test_unreachable_embedding_model_is_a_transient_error():
    with pytest.raises(EmbedderUnavailable):
        build_embedder("openai/fake-embed", api_base="http://127.0.0.1:9", api_key="x", num_retries=0, timeout=2)


def test_unknown_embedder_name_is_refused():
    with pytest.raises(InvalidInput) as e:
        build_embedder("word2vec")
    assert e.value.field == "embedding_model"


def test_optional_recall_stages_are_wired_from_settings(tmp_path):
    from core.testing import HashEmbedder

    plain = build_service(Settings(data_dir=tmp_path / "a"), embedder=HashEmbedder())
    staged = build_service(Settings(data_dir=tmp_path / "b", rerank_model="cohere/rerank-v3.5", compress_model="openai/gpt-4o-mini"),
                           embedder=HashEmbedder())
    try:
        assert plain.recaller.reranker is None and plain.recaller.compressor is None
        assert staged.recaller.reranker.model == "cohere/rerank-v3.5"
        assert staged.recaller.compressor.model == "openai/gpt-4o-mini"
    finally:
        plain.close()
        staged.close()
