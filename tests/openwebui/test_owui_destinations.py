"""The Open WebUI filter names the chat's model when it recalls, and the Amber host's destination
policy decides what that model may receive: a host model (an Ollama model Open WebUI runs next to
Amber) gets a health-tagged memory, a hosted model does not, a denied model gets none. The filter's
own inlet, loaded from its file, against a real Amber host."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import httpx
import pytest

from core import ApiKeyConfig, build_service
from core.testing import HashEmbedder
from mcp_server.app import create_app
from tests.kit.config import settings_apart
from tests.kit.servers import serve_app

FILE = Path(__file__).resolve().parents[2] / "openwebui_functions" / "amber_memory_filter.py"
KEY = "k-owui-destinations-7c1d"


def load_filter():
    spec = importlib.util.spec_from_file_location("amber_memory_filter_destinations", FILE)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def amber(tmp_path_factory):
    settings = settings_apart(tmp_path_factory.getbasetemp(), data_dir=tmp_path_factory.mktemp("amber-host"), embedding_model="hash",
                              jobs_enabled=False, api_keys=[ApiKeyConfig(name="owui", secret=KEY, trusted_client=True)],
                              host_models=["llama*"], memory_models_deny=["banned-*"])
    service = build_service(settings, embedder=HashEmbedder())
    with serve_app(create_app(service, settings)) as url:
        headers = {"Authorization": f"Bearer {KEY}", "X-Amber-User": "u-ana"}
        for body in ({"content": "I grow tomatoes on the balcony"},
                     {"content": "My balcony tomatoes help my blood pressure", "tags": ["health"]}):
            httpx.post(f"{url}/v1/memories", json=body, headers=headers).raise_for_status()
        yield url
    service.close()


async def injected(url: str, model: str) -> str:
    f = load_filter()
    flt = f.Filter()
    flt.valves = f.Filter.Valves(amber_url=url, api_key=KEY, show_status=False)
    body = {"model": model, "messages": [{"role": "user", "content": "tell me about my balcony tomatoes"}]}
    out = await flt.inlet(body, __user__={"id": "u-ana"}, __metadata__={})
    content = out["messages"][-1]["content"]
    return content if isinstance(content, str) else " ".join(p.get("text", "") for p in content)


@pytest.mark.parametrize("model, gets, not_gets", [
    ("llama3.1:8b", ["tomatoes on the balcony", "blood pressure"], []),
    ("gpt-4o", ["tomatoes on the balcony"], ["blood pressure"]),
    ("banned-model", [], ["tomatoes on the balcony", "blood pressure"]),
], ids=["host model", "model off the host", "denied model"])
async def test_the_chat_model_receives_what_the_policy_allows(amber, model, gets, not_gets):
    text = await injected(amber, model)
    assert all(w in text for w in gets) and not any(w in text for w in not_gets)
