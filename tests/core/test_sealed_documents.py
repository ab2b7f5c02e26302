"""In a sealed store the words of a record are sealed once, in its record: Chroma's document column
and its full-text index hold an empty string, neither the words nor a second ciphertext of them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import datetime, timezone

from core import Actor, MemoryIn, Message, Settings, build_service, scope_for
from core.scope import memory_collection, message_collection
from core.store.sealing import PREFIX
from core.testing import FixedClock, HashEmbedder

T0 = datetime(2026, 1, 1, tzinfo=timezone.utc)


def chroma_rows(data, sql: str) -> list:
    """The first column of `sql` on Chroma's file, read in a child process: Chroma still has the file
    open in this one, and a second SQLite library here would reset its write-ahead log (chroma_file.py)."""
    code = ("import json, sqlite3, sys; db = sqlite3.connect(sys.argv[1]);"
            "print(json.dumps([r[0] for r in db.execute(sys.argv[2])])); db.close()")
    done = subprocess.run([sys.executable, "-I", "-c", code, str(data / "chroma" / "chroma.sqlite3"), sql],
                          capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def chroma_documents(data) -> tuple[list[str], list[str]]:
    column = chroma_rows(data, "SELECT string_value FROM embedding_metadata WHERE key = 'chroma:document'")
    fts = chroma_rows(data, "SELECT string_value FROM embedding_fulltext_search")
    return column, fts


def test_documents_and_full_text_index_hold_nothing_when_sealed(tmp_path):
    data = tmp_path / "data"
    svc = build_service(Settings(data_dir=data, master_key=os.urandom(32).hex()), embedder=HashEmbedder(), clock=FixedClock())
    alice = scope_for(Actor("alice"))
    try:
        mem = svc.remember(alice, MemoryIn(content="My zebra is called Quentin"))
        svc.store_turns(alice, [Message(id="t1", role="user", content="my zebra Quentin likes carrots", created_at=T0)])
        # every face reads the words from the sealed record
        assert [m.content for m in svc.store.get_memories(memory_collection(alice), [mem.memory.id])] == ["My zebra is called Quentin"]
        assert [(m.id, text) for m, text in svc.store.find_messages(message_collection(alice), None)] == [
            ("t1", "my zebra Quentin likes carrots")]
        assert "My zebra is called Quentin" in str(svc.search(alice, "zebra Quentin"))
    finally:
        svc.close()
    column, fts = chroma_documents(data)
    assert len(column) == 2 and set(column) == {""}  # one per record, empty
    assert set(fts) <= {""}
    records = chroma_rows(data, "SELECT string_value FROM embedding_metadata WHERE key = 'record'")
    assert len(records) == 2 and all(r.startswith(PREFIX) for r in records)


def test_a_sealed_document_written_before_is_replaced_by_an_empty_one(tmp_path):
    """Stores sealed by an earlier Amber held a sealed copy of the words in the document; an upsert that
    left the document out would keep it, so the next write of the record empties it."""
    data = tmp_path / "data"
    svc = build_service(Settings(data_dir=data), embedder=HashEmbedder(), clock=FixedClock())
    alice = scope_for(Actor("alice"))
    col = message_collection(alice)
    turn = Message(id="t1", role="user", content="my zebra Quentin likes carrots", created_at=T0)
    try:
        svc.store_turns(alice, [turn])
        store = svc.store
        vec = store.memory_embeddings(col, ["t1"])["t1"]
        # as an earlier Amber wrote it: the sealed words in the document too
        store._collection(col, vectors=True).update(ids=["t1"], embeddings=[vec], documents=store._seal_texts(col, ["t1"], [turn.content]))
        assert chroma_documents(data)[0][0].startswith(PREFIX)
        assert [text for _, text in store.find_messages(col, None)] == [turn.content]  # still read
        store.put_messages(col, [turn], [turn.content], [vec])
        assert chroma_documents(data)[0] == [""]
        assert [text for _, text in store.find_messages(col, None)] == [turn.content]
    finally:
        svc.close()


def test_plain_store_keeps_its_documents(tmp_path):
    """A store that does not seal (Chroma as a server writes the same way) keeps the text as the document."""
    from core.store.chroma import ChromaStore

    store = ChromaStore(data_dir=tmp_path, embedder_id="hash", dim=4)
    store.sealer = None  # what a server-mode store is
    try:
        turn = Message(id="t1", role="user", content="plain words here", created_at=T0)
        store.put_messages("amber_msg_x", [turn], [turn.content], [[1.0, 0.0, 0.0, 0.0]])
        assert chroma_documents(tmp_path)[0] == ["plain words here"]
    finally:
        store.close()
