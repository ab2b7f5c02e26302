"""Tombstones on a real store: a forget files all of them in one write, and `buried` (asked on every
capture, import and restore) looks up the ids it is given by key, whatever the person's count."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from core.registry import Registry
from core.store.chroma import ChromaStore
from core.tombstones import KIND, Tombstones

NOW = datetime(2026, 3, 1, tzinfo=timezone.utc)


class Counting(Registry):
    """The registry port, counting what a caller asks of it."""

    def __init__(self, store):
        super().__init__(store)
        self.calls: list[tuple[str, int]] = []

    def reg_find(self, kind, owner=None):
        self.calls.append(("find", 0))
        return super().reg_find(kind, owner)

    def reg_put(self, key, value, *, kind, owner=""):
        self.calls.append(("put", 1))
        super().reg_put(key, value, kind=kind, owner=owner)

    def reg_put_many(self, items, *, kind, owner=""):
        items = list(items)
        self.calls.append(("put_many", len(items)))
        super().reg_put_many(items, kind=kind, owner=owner)

    def reg_get_many(self, keys):
        keys = list(keys)
        self.calls.append(("get_many", len(keys)))
        return super().reg_get_many(keys)


@pytest.fixture
def store(tmp_path):
    s = ChromaStore(data_dir=tmp_path, embedder_id="hash", dim=4)
    yield s
    s.close()


def test_a_forget_files_its_tombstones_in_one_write_and_lookups_are_keyed(store):
    reg = Counting(store)
    stones = Tombstones(reg)
    n = 6000  # more than one Chroma batch
    stones.bury("alice", [{"id": f"m{i}", "kind": "fact", "status": "active", "created_at": "2026-01-01"} for i in range(n)], NOW)
    assert [c for c in reg.calls if c[0] in ("put", "put_many")] == [("put", 1), ("put_many", n)]  # the secret, then every stone
    assert stones.count("alice") == n
    reg.calls.clear()
    assert stones.buried("alice", ["m5", "m5999", "new-1", "m17", "new-2"]) == {"m5", "m5999", "m17"}
    assert reg.calls == [("get_many", 5)]  # no scan of the person's 6000 tombstones
    assert stones.buried("alice", [f"m{i}" for i in range(0, 6000, 2)] + ["x"]) == {f"m{i}" for i in range(0, 6000, 2)}
    assert stones.buried("bob", ["m5"]) == set()  # another person's forget is not theirs
    assert stones.buried("alice", []) == set()


def test_a_tombstone_keeps_no_word_of_the_id_and_goes_with_the_person(store):
    stones = Tombstones(Registry(store))
    stones.bury("alice", [{"id": "m_words-in-an-id", "kind": "precious", "status": "active"}], NOW)
    stones.bury("alice", [{"id": "t9", "kind": "message"}], NOW)
    found = store.reg_find(KIND, "alice")
    assert len(found) == 2 and not any("words-in-an-id" in k or "words-in-an-id" in str(v) for k, v in found.items())
    assert stones.get("alice", "m_words-in-an-id")["kind"] == "precious"
    assert stones.buried("alice", ["m_words-in-an-id", "t9", "t10"]) == {"m_words-in-an-id", "t9"}
    assert stones.remove_user("alice") == 2
    assert stones.buried("alice", ["m_words-in-an-id", "t9"]) == set() and store.reg_find(KIND, "alice") == {}
