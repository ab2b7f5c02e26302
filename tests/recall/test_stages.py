"""Optional recall stages through LiteLLM against fake upstreams on 127.0.0.1 (the network edge only):
rerank via `litellm.arerank`, compression via a chat model; each falls back on error or timeout."""

from __future__ import annotations

import asyncio
import json

import pytest
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from core import MemoryIn
from core.llm import LiteLLMClient
from core.recall.compress import apply_compression
from core.recall.fusion import Candidate
from core.recall.rerank import LiteLLMReranker, reorder
from tests.fakes.upstreams import FakeUpstreams


class RerankUpstream(FakeUpstreams):
    """Adds a Cohere-style `/v1/rerank`: scores by how many of `favour`'s words a document holds."""

    favour = "lisbon"
    delay = 0.0
    fail = False

    async def _rerank(self, request: Request) -> Response:
        body = await request.json()
        self._record(request, body)
        if self.delay:
            await asyncio.sleep(self.delay)
        if self.fail:
            return JSONResponse({"message": "overloaded"}, status_code=500)
        docs = [d if isinstance(d, str) else d.get("text", "") for d in body["documents"]]
        scores = [float(sum(w in d.casefold() for w in self.favour.split())) for d in docs]
        order = sorted(range(len(docs)), key=lambda i: -scores[i])
        return JSONResponse({"id": "rr-1", "results": [{"index": i, "relevance_score": scores[i]} for i in order], "meta": {}})

    def app(self):
        app = super().app()
        for path in ("/v1/rerank", "/v2/rerank"):  # LiteLLM picks the Cohere API version by model
            app.router.routes.append(Route(path, self._rerank, methods=["POST"]))
        return app


@pytest.fixture
def upstream():
    with RerankUpstream() as up:
        yield up


def seed(service, alice):
    a = service.remember(alice, MemoryIn(content="My sister travels a lot for work")).memory
    b = service.remember(alice, MemoryIn(content="My sister's flat is in Lisbon, near the river")).memory
    c = service.remember(alice, MemoryIn(content="My sister likes green tea")).memory
    return a, b, c


def test_rerank_reorders_through_litellm(service, alice, upstream):
    seed(service, alice)
    service.recaller.reranker = LiteLLMReranker("cohere/rerank-test", api_base=f"http://127.0.0.1:{upstream.port}", api_key="sk-fake")
    upstream.favour = "tea"
    cfg = service.recall_config(rerank=True, rerank_timeout_s=10)
    result = service.recall(alice, "tell me about my sister", config=cfg)
    assert "green tea" in result.items[0].text
    sent = upstream.find("/rerank")[-1].body
    assert sent["query"] == "tell me about my sister"
    assert len(sent["documents"]) == len(result.items)
    upstream.favour = "lisbon"
    assert "Lisbon" in service.recall(alice, "tell me about my sister", config=cfg).items[0].text


@pytest.mark.parametrize("trouble", ["slow", "error"])
def test_rerank_trouble_keeps_the_fused_order(service, alice, upstream, trouble):
    seed(service, alice)
    service.recaller.reranker = LiteLLMReranker("cohere/rerank-test", api_base=f"http://127.0.0.1:{upstream.port}", api_key="sk-fake")
    upstream.favour = "tea"
    plain = [c.id for c in service.recall(alice, "where does my sister live").items]
    if trouble == "slow":
        upstream.delay = 2.0
    else:
        upstream.fail = True
    cfg = service.recall_config(rerank=True, rerank_timeout_s=0.3)
    got = service.recall(alice, "where does my sister live", config=cfg)
    assert [c.id for c in got.items] == plain
    assert upstream.find("/rerank")  # it was asked, and its failure did not hurt recall


def test_compression_shortens_items_through_a_cheap_model(service, alice, upstream):
    long = "My sister's flat is in Lisbon, near the river, on the fourth floor of an old building with blue tiles and a tiny balcony"
    mem = service.remember(alice, MemoryIn(content=long)).memory
    service.recaller.compressor = LiteLLMClient("openai/cheap-mini", api_base=upstream.openai_base, api_key="sk-fake")
    upstream.script(json.dumps({"items": [{"i": 0, "text": "Sister lives in Lisbon by the river."}]}))
    cfg = service.recall_config(compress=True, compress_timeout_s=20, compress_max_chars=60)
    result = service.recall(alice, "where does my sister live", config=cfg)
    assert result.items[0].id == mem.id and result.items[0].text == "Sister lives in Lisbon by the river."
    assert '"Sister lives in Lisbon by the river."' in result.text and "balcony" not in result.text
    prompt = upstream.find("/chat/completions")[-1].messages
    assert "where does my sister live" in prompt[-1]["content"] and "balcony" in prompt[-1]["content"]
    assert service.get(alice, mem.id).content == long  # the stored memory is untouched


def test_compression_timeout_keeps_items_as_stored(service, alice, upstream):
    service.remember(alice, MemoryIn(content="My sister's flat is in Lisbon"))
    # nothing listens on this port's /v1 path prefix: the call fails fast, the stage falls back
    service.recaller.compressor = LiteLLMClient("openai/cheap-mini", api_base=f"http://127.0.0.1:{upstream.port}/nowhere", api_key="sk-fake")
    cfg = service.recall_config(compress=True, compress_timeout_s=5)
    result = service.recall(alice, "where does my sister live", config=cfg)
    assert result.items and result.items[0].text == "My sister's flat is in Lisbon"


def test_apply_compression_is_capped_and_never_drops_or_lengthens():
    from datetime import datetime, timezone

    now = datetime(2026, 1, 1, tzinfo=timezone.utc)
    items = [Candidate(id=str(i), text=t, source="memory", created_at=now) for i, t in enumerate(["short", "x" * 300, "keep me"])]
    answer = json.dumps({"items": [{"i": 0, "text": "a much longer rewrite of short"}, {"i": 1, "text": "y" * 250}, {"i": 7, "text": "ghost"}]})
    out = apply_compression(items, answer, 100)
    assert [c.id for c in out] == ["0", "1", "2"]
    assert out[0].text == "short" and out[2].text == "keep me"
    assert len(out[1].text) == 100 and out[1].text.endswith("…")
    assert [c.text for c in apply_compression(items[:1], "not json", 100)] == ["short"]


def test_reorder_keeps_fused_order_on_ties_and_bad_scores():
    assert reorder(["a", "b", "c"], [0.1, 0.9, 0.1]) == ["b", "a", "c"]
    assert reorder(["a", "b"], [1.0]) == ["a", "b"]


def test_rerank_and_compression_models_never_read_what_stays_on_the_host(service, alice, upstream):
    """The destination policy covers recall's own model calls: a private or precious item is neither
    reranked nor compressed by a model off the host; it keeps its fused place and its words."""
    from core import DestinationPolicy

    seed(service, alice)
    secret = service.remember(alice, MemoryIn(content="My sister's Lisbon doctor treats her asthma", tags=["health"])).memory
    quote = service.precious_add(alice, "My sister said: Lisbon is where I breathe").memory
    service.recaller.destinations = DestinationPolicy(host_models=("ollama/*",))
    service.recaller.reranker = LiteLLMReranker("cohere/rerank-test", api_base=f"http://127.0.0.1:{upstream.port}", api_key="sk-fake")
    cfg = service.recall_config(rerank=True, rerank_timeout_s=10, top_k=8)
    result = service.recall(alice, "tell me about my sister in Lisbon", config=cfg)
    sent = " ".join(str(d) for d in upstream.find("/rerank")[-1].body["documents"])
    assert "asthma" not in sent and "breathe" not in sent and "Lisbon" in sent
    assert {secret.id, quote.id} <= {c.id for c in result.items}  # still recalled, just not shown to that model

    service.recaller.reranker = None
    service.recaller.compressor = LiteLLMClient("openai/cheap-mini", api_base=upstream.openai_base, api_key="sk-fake")
    upstream.script(json.dumps({"items": []}))
    cfg = service.recall_config(compress=True, compress_timeout_s=20, compress_max_chars=60, top_k=8)
    result = service.recall(alice, "tell me about my sister in Lisbon", config=cfg)
    prompt = upstream.find("/chat/completions")[-1].messages[-1]["content"]
    assert "asthma" not in prompt and "breathe" not in prompt
    assert any("asthma" in c.text for c in result.items)  # kept as stored

    service.recaller.destinations = DestinationPolicy(deny=("openai/*",))
    before = len(upstream.find("/chat/completions"))
    service.recall(alice, "tell me about my sister in Lisbon", config=cfg)
    assert len(upstream.find("/chat/completions")) == before  # a model that may receive no memory is not asked
