"""A bulk ingest succeeds in parts: what was embedded and written before the embedder failed stays
stored, the error says how much, and the same request sent again stores only the rest."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from core import EmbedderUnavailable, Message, Settings, build_service
from core.capture import STORE_PART
from core.testing import HashEmbedder

T0 = datetime(2026, 3, 1, 9, 0, tzinfo=timezone.utc)


class FailingOnce(HashEmbedder):
    """The embedder goes away on its `fail_at`-th bulk call (a worker killed, a lane timed out), then is back."""

    def __init__(self, fail_at: int):
        self.calls, self.fail_at = 0, fail_at

    def embed_documents(self, texts):
        self.calls += 1
        if self.calls == self.fail_at:
            raise EmbedderUnavailable("the background embedding lane timed out")
        return super().embed_documents(texts)


def turns(n: int) -> list[Message]:
    return [Message(id=f"t{i}", role="user" if i % 2 == 0 else "assistant", content=f"turn {i} about the garden and the tomatoes",
                    session=f"s{i // 40}", created_at=T0 + timedelta(minutes=i)) for i in range(n)]


@pytest.fixture
def flaky(tmp_path):
    emb = FailingOnce(fail_at=3)
    svc = build_service(Settings(data_dir=tmp_path / "data"), embedder=emb)
    yield svc
    svc.close()


def test_a_failed_part_keeps_the_parts_before_it_and_a_retry_stores_the_rest(flaky, alice):
    many = turns(3 * STORE_PART + 10)
    with pytest.raises(EmbedderUnavailable) as e:
        flaky.ingest(alice, many, commands=False)
    kept = 2 * STORE_PART
    assert f"{kept} of {len(many)} new turns were stored" in str(e.value)
    assert [m.id for m in flaky.messages(alice)] == [m.id for m in many[:kept]]
    assert flaky.ingest(alice, many, commands=False).ingested == len(many) - kept
    assert [m.id for m in flaky.messages(alice)] == [m.id for m in many]


def test_a_failure_before_anything_was_stored_is_the_embedder_s_own_error(tmp_path, alice):
    svc = build_service(Settings(data_dir=tmp_path / "data"), embedder=FailingOnce(fail_at=1))
    try:
        with pytest.raises(EmbedderUnavailable) as e:
            svc.ingest(alice, turns(10), commands=False)
        assert "stored" not in str(e.value)
        assert svc.messages(alice) == []
    finally:
        svc.close()
