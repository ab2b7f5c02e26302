"""After a forget, no byte left in the data directory yields the words, not even opened with every
key still alive (the disk test runs with encryption off and on, and decrypts every
leftover with the live keys). Chroma keeps old versions of a record in its log and free pages; a
record rewritten without a sentence (a daily log) must not leave its old version readable under a
key that lives on."""

from __future__ import annotations

import base64
import re
import secrets
from datetime import datetime, timezone
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from core import Actor, Kind, MemoryIn, Message, Settings, build_service, scope_for
from core.store.sealing import PREFIX
from core.testing import FixedClock, HashEmbedder
from tests.kit.disk import file_bytes, files_holding

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=timezone.utc)
SEALED = re.compile(re.escape(PREFIX.encode()) + rb"([A-Za-z0-9+/]{24,}={0,2})")


def opened_leftovers(data: Path, keys: dict[str, bytes]) -> list[str]:
    """Every sealed blob in every file under `data`, opened with every live record key."""
    texts = []
    blobs = {m.group(1) for raw in file_bytes(data).values() for m in SEALED.finditer(raw)}
    for blob in blobs:
        try:
            raw = base64.b64decode(blob)
        except ValueError:
            continue
        for ref, key in keys.items():
            try:
                texts.append(AESGCM(key).decrypt(raw[:12], raw[12:], ref.encode()).decode("utf-8"))
                break
            except Exception:
                continue
    return texts


KINDS = ["fact", "superseded", "precious", "glossary", "candidate", "trash", "archived", "digest", "daily_log", "turn"]


@pytest.mark.parametrize("master", [False, True], ids=["plain-keys", "master-key"])
@pytest.mark.parametrize("kind", KINDS)
def test_no_leftover_opens_to_the_words_with_the_live_keys(tmp_path, kind, master):
    data = tmp_path / "data"
    extra = {"master_key": secrets.token_hex(32)} if master else {}
    svc = build_service(Settings(data_dir=data, **extra), embedder=HashEmbedder(), clock=FixedClock())
    scope = scope_for(Actor("ines", client="tests"))
    word = f"Vexillor{kind.replace('_', '').capitalize()}"
    try:
        svc.remember(scope, MemoryIn(content="I enjoy long walks by the sea"))  # a neighbour that must survive
        if kind == "fact":
            svc.remember(scope, MemoryIn(content=f"My locker code word is {word}"))
        elif kind == "superseded":
            svc.remember(scope, MemoryIn(content=f"I live in {word}", fact_key="profile.home"))
            svc.remember(scope, MemoryIn(content="I live in Porto", fact_key="profile.home"))
        elif kind == "precious":
            svc.precious_add(scope, f"You said {word} was the kindest thing anyone ever told me")
        elif kind == "glossary":
            svc.glossary_set(scope, word, "my grandmother's word for a rainy Sunday")
        elif kind == "candidate":
            svc.remember(scope, MemoryIn(content=f"Maybe my cousin is called {word}", status="candidate", confidence=0.5))
        elif kind in ("trash", "archived"):
            m = svc.remember(scope, MemoryIn(content=f"My old landlord was {word}")).memory
            (svc.delete if kind == "trash" else svc.archive)(scope, m.id)
        elif kind == "digest":
            svc.digest_set(scope, f"Ines likes the sea. Her secret nickname is {word}.")
        elif kind == "daily_log":
            svc.remember(scope, MemoryIn(content=f"Ines walked by the sea. She said her nickname is {word}.",
                                         kind=Kind.daily_log, tags=["day:2026-11-30"]))
        elif kind == "turn":
            svc.ingest(scope, [Message(id="t1", role="user", created_at=NOW, content=f"my secret nickname is {word}")])
        for _ in range(3):  # access counts are written back as patches: more old copies in Chroma's file
            svc.recall(scope, word)
        svc.flush()
        assert any(word in t for t in opened_leftovers(data, dict(svc.store.sealer.keys._keys)))  # the check sees words
        svc.forget(scope, word)
        svc.flush()
        assert files_holding(data, word) == [], kind
        left = opened_leftovers(data, dict(svc.store.sealer.keys._keys))
        assert not [t for t in left if word in t], kind
        assert any("long walks" in t for t in left)  # what was not forgotten still opens
        if kind == "daily_log":
            logs = [m for m in svc.list(scope, status=None, limit=50).items if m.kind == Kind.daily_log]
            assert [m.content for m in logs] == ["Ines walked by the sea."]  # rewritten, not dropped
    finally:
        svc.close()
