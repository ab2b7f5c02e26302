"""A turn is embedded with the turn before it in its session, read from the store when the warm
index cannot say (an import's batches, a session with later turns stored already): only turns of
that session said before it, whatever else the person's log holds."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from core import Message, Settings, build_service
from core.testing import FixedClock, HashEmbedder


class Recording(HashEmbedder):
    def __init__(self):
        self.texts: list[str] = []

    def embed_documents(self, texts):
        self.texts.extend(texts)
        return super().embed_documents(texts)


def test_the_earlier_neighbour_is_the_sessions_turn_before_from_the_store(tmp_path, alice):
    emb = Recording()
    svc = build_service(Settings(data_dir=tmp_path / "data"), embedder=emb, clock=FixedClock(datetime(2026, 1, 1, tzinfo=timezone.utc)))
    t0 = datetime(2023, 3, 1, 9, 0, tzinfo=timezone.utc)

    def turn(i: str, words: str, minutes: int, session: str = "chatgpt:c1") -> Message:
        return Message(id=i, role="user", content=words, session=session, created_at=t0 + timedelta(minutes=minutes))

    try:
        svc.store_turns(alice, [turn("other", "heron sightings by the river", 1, session="chatgpt:c2"),
                                turn("m1", "we planted tomatoes", 0), turn("m2", "the cello lesson moved", 2),
                                turn("m9", "marathon training starts", 90)])
        emb.texts.clear()
        svc.store_turns(alice, [turn("m3", "sourdough needs a day", 3)])  # after m2, before m9 (stored already)
        [text] = emb.texts
        assert "cello lesson" in text and "sourdough" in text
        assert "marathon" not in text and "heron" not in text and "tomatoes" not in text
        emb.texts.clear()
        svc.store_turns(alice, [turn("m0", "a first word", -5)])  # nothing of its session before it
        assert emb.texts == [f"[01 March 2023] user: a first word"]
    finally:
        svc.close()
