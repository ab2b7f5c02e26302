"""Which lane a captured exchange is embedded on (issue 27, REST mixed load): an exchange a client waits
for (a REST ingest) is embedded now on the interactive lane, like a memory saved now; what nobody waits
for (the hook's capture drainer, the capture queue: inside `background_writes`) and bulk requests go
to the background lane, shared out per person. Real Chroma on a temp dir; the embedder records
which of its lanes each text went to."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from core import Actor, Message, background_writes, build_service
from core.capture import WAITED_TEXTS
from core.scope import scope_for
from core.testing import HashEmbedder
from tests.kit.config import settings_apart


class Lanes(HashEmbedder):
    def __init__(self) -> None:
        self.sent: list[tuple[str, int]] = []

    def embed_documents(self, texts):
        self.sent.append(("interactive", len(texts)))
        return super().embed_documents(texts)

    def embed_background(self, texts):
        self.sent.append(("background", len(texts)))
        return super().embed_documents(texts)


@pytest.fixture
def service(tmp_path):
    s = build_service(settings_apart(tmp_path, data_dir=tmp_path / "data", embedding_model="hash"), embedder=Lanes())
    yield s
    s.close()


def exchange(tag: str, n: int = 2, words: str = "I spent the evening on chess again") -> list[Message]:
    at = datetime(2026, 12, 1, 10, tzinfo=timezone.utc)
    return [Message(id=f"{tag}-{i}", role="user" if i % 2 == 0 else "assistant", content=f"{words} ({i})", session=tag,
                    created_at=at + timedelta(seconds=i)) for i in range(n)]


def test_an_exchange_a_client_waits_for_is_embedded_on_the_interactive_lane(service):
    scope = scope_for(Actor("ann"))
    assert service.ingest(scope, exchange("rest")).ingested == 2
    assert service.embedder.sent == [("interactive", 2)]
    assert [m.id for m in service.messages(scope)] == ["rest-0", "rest-1"]


def test_what_nobody_waits_for_and_bulk_requests_stay_on_the_background_lane(service):
    scope = scope_for(Actor("ann"))
    with background_writes():  # the hook's drainer, the capture queue
        service.ingest(scope, exchange("drained"))
    service.ingest(scope, exchange("bulk", WAITED_TEXTS + 1))
    service.ingest(scope, exchange("long", 2, "a pasted export " * 400))
    assert service.embedder.sent == [("background", 2), ("background", WAITED_TEXTS + 1), ("background", 2)]
