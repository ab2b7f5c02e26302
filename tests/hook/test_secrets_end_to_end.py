"""No path through the proxy keeps a secret the redactor catches: every secret sentence of the
redaction corpus is said in a chat (most as a "remember that …", so a memory is made from it too),
then the store's turns and memories, the export, the proxy's journal and set-aside file, and the
proxy's own log are searched for each secret.
"""

from __future__ import annotations

import json
import re
import sys
import uuid
from pathlib import Path

import httpx
import pytest

from core import Redactor
from tests.hook.harness import Proxy, proxy_config, wait_for

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "core"))
from redaction_corpus import SECRETS, leaked  # noqa: E402  (the corpus lives with the redactor's tests)

pytestmark = pytest.mark.e2e

RELAY = "sk-amber-secrets-relay"


@pytest.fixture(scope="module")
def proxy(up, tmp_path_factory):
    amber = {"jobs_enabled": False, "api_keys": [{"name": "relay", "secret": RELAY, "trusted_client": True}]}
    p = Proxy(proxy_config(up, amber=amber), tmp_path_factory.mktemp("secrets"))
    p.start()
    yield p
    p.stop()


def found(secret: str, text: str) -> bool:
    """A secret in a text; short ones only as a whole token (ids and dates hold digit runs by chance)."""
    if len(secret) >= 8:
        return secret in text
    return re.search(rf"(?<![0-9A-Za-z]){re.escape(secret)}(?![0-9A-Za-z])", text) is not None


def test_no_caught_secret_is_kept_anywhere(proxy, up):
    redactor = Redactor()
    caught = [c for c in SECRETS if not leaked(c, redactor.text(c.text))]
    assert len(caught) >= 0.98 * len(SECRETS)  # the corpus figure; bench/redaction.py reports it by split
    user = f"sec-{uuid.uuid4().hex[:6]}"
    h = {"Authorization": f"Bearer {RELAY}", "X-Amber-User": user}
    for n, case in enumerate(caught):
        text = f"Remember that {case.text}" if n % 2 == 0 else case.text
        r = httpx.post(f"{proxy.base}/chat/completions", headers=proxy.headers, timeout=60,
                       json={"model": "gpt-4o-mini", "user": user, "messages": [{"role": "user", "content": text}]})
        assert r.status_code == 200, r.text[:300]

    def turns() -> list[dict]:
        body = httpx.get(f"{proxy.base}/memory/v1/messages?limit=1000", headers=h, timeout=30).json()
        return body["messages"] if isinstance(body, dict) else body

    assert wait_for(lambda: sum(m["role"] == "user" for m in turns()) >= len(caught), timeout=120), len(turns())
    export = httpx.get(f"{proxy.base}/memory/v1/export", headers=h, timeout=60).text
    journal = [p.read_text(errors="replace") for p in (proxy.workdir / "data" / "spool").rglob("*") if p.is_file()]
    # the words of each place (not ids, times or counters, where short digit codes occur by chance)
    places = {
        "turns": [m["content"] for m in turns()],
        "memories": [m["content"] for m in httpx.get(f"{proxy.base}/memory/v1/memories?status=any&limit=500", headers=h, timeout=30).json()["items"]],
        "export": [json.dumps(json.loads(line), ensure_ascii=False) for line in export.splitlines() if line.strip()],
        "journal": [line for text in journal for line in text.splitlines()],
    }
    assert any("[redacted:" in t for t in places["turns"]) and any("[redacted:" in t for t in places["memories"])
    leaks = [(where, case.text) for case in caught for where, texts in places.items()
             for t in texts if any(found(s, t) for s in case.secrets)]
    # the log holds numbers of its own (times, tokens, ms): secrets of five characters or more
    logged = [(case.text, line) for line in proxy.log().splitlines() for case in caught
              for s in case.secrets if len(s) >= 5 and s in line]
    assert leaks == [] and logged == []
