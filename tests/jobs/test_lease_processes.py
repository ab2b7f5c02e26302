"""Two worker processes sharing one `chroma run` start extraction at the same moment: one runs, one is skipped."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from core import Actor, Message, Role, Settings, build_service, scope_for
from core.testing import HashEmbedder
from tests.jobs.jobs_fake_llm import FakeUpstream
from tests.kit.servers import chroma_server
from tests.jobs.jobs_helpers import fact, facts

pytestmark = pytest.mark.e2e
ROOT = Path(__file__).resolve().parents[2]

WORKER = """
import json, sys, time
from core import Settings, build_service
from core.jobs.runner import run_job
from core.llm import LiteLLMClient
from core.testing import HashEmbedder
url, api_base, start = sys.argv[1], sys.argv[2], float(sys.argv[3])
settings = Settings(chroma_url=url)
service = build_service(settings, embedder=HashEmbedder())
llm = LiteLLMClient("openai/fake-model", api_base=api_base, api_key="sk-test", timeout=30)
time.sleep(max(0.0, start - time.time()))
try:
    rec = run_job("extract", service, settings, llm=llm)
finally:
    service.close()
print("RESULT " + json.dumps(rec))
"""


@pytest.fixture
def chroma_url(tmp_path):
    with chroma_server(tmp_path / "chroma") as url:
        yield url


def test_two_worker_processes_one_run(chroma_url):
    up = FakeUpstream(delay_s=3.0).start()  # a slow model keeps the first run inside its lease
    try:
        svc = build_service(Settings(chroma_url=chroma_url), embedder=HashEmbedder())
        scope = scope_for(Actor("alice"))
        now = datetime.now(UTC)
        svc.store_turns(scope, [Message(id="m1", role=Role.user, content="I keep bees.", created_at=now - timedelta(minutes=1))])
        svc.close()
        up.default = facts(fact("Keeps bees", "project.bees", category="project"))
        env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True", "OMP_WAIT_POLICY": "PASSIVE", "PYTHONPATH": str(ROOT)}
        start = time.time() + 20  # both processes are imported and connected well before this
        procs = [subprocess.Popen([sys.executable, "-c", WORKER, chroma_url, up.base_url, str(start)], cwd=ROOT, env=env,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(2)]
        results = []
        for p in procs:
            out, err = p.communicate(timeout=120)
            line = next((ln for ln in out.splitlines() if ln.startswith("RESULT ")), None)
            assert line, f"worker failed: {err[-2000:]}"
            results.append(json.loads(line[7:]))
        assert sorted(r["status"] for r in results) == ["ok", "skipped"]
        assert len(up.requests) == 1
        svc = build_service(Settings(chroma_url=chroma_url), embedder=HashEmbedder())
        try:
            assert [m.content for m in svc.list(scope).items] == ["Keeps bees"]
        finally:
            svc.close()
    finally:
        up.stop()
