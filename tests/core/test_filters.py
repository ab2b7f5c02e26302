"""Typed store filters: what `Where` means in memory (`matches`) is what the real store returns."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.filters import Eq, In, Range, Where, one_of
from core.store import ChromaStore
from core.store.chroma import chroma_where

STATUSES = ("active", "archived", "superseded")
NAMESPACES = ("default", "work", "家")


def test_chromas_dialect_is_spoken_only_by_the_store():
    assert chroma_where(None) is None
    assert chroma_where(Where.of(Eq("status", "active"))) == {"status": "active"}
    assert chroma_where(Where.of(one_of("namespace", ["a"]), one_of("kind", ["fact", "quote"]), Range("ts", gte=1.0, lt=2.0))) == {
        "$and": [{"namespace": "a"}, {"kind": {"$in": ["fact", "quote"]}}, {"ts": {"$gte": 1.0}}, {"ts": {"$lt": 2.0}}]}
    assert Where.of(None, None) is None
    with pytest.raises(ValueError, match="at least one value"):
        In("kind", ())


@pytest.fixture(scope="module")
def rows(tmp_path_factory):
    store = ChromaStore(data_dir=tmp_path_factory.mktemp("filters"), embedder_id="hash:v1", dim=8)
    t0 = datetime(2026, 1, 1, tzinfo=UTC).timestamp()
    metas = [{"status": STATUSES[i % 3], "namespace": NAMESPACES[i % 4 % 3], "at": t0 + i * 3600.0, "n": i} for i in range(24)]
    store.put_rows("amber_evt_filters", [(f"r{i}", m) for i, m in enumerate(metas)])
    yield store, metas, t0
    store.close()


clauses = st.one_of(
    st.builds(Eq, st.just("status"), st.sampled_from(STATUSES)),
    st.builds(In, st.just("namespace"), st.lists(st.sampled_from(NAMESPACES), min_size=1, max_size=3, unique=True).map(tuple)),
    st.builds(lambda a, b: Range("at", gte=a, lt=b),
              st.one_of(st.none(), st.integers(0, 30).map(float)), st.one_of(st.none(), st.integers(0, 30).map(float))),
)


@settings(max_examples=60, deadline=None)
@given(st.lists(clauses, min_size=1, max_size=3))
def test_matches_agrees_with_the_store(rows, picked):
    store, metas, t0 = rows
    # ranges are drawn in hours from t0
    picked = [Range(c.field, None if c.gte is None else t0 + c.gte * 3600, None if c.lt is None else t0 + c.lt * 3600)
              if isinstance(c, Range) else c for c in picked]
    where = Where.of(*picked)
    got = {r["n"] for r in store.find_rows("amber_evt_filters", where)}
    assert got == {m["n"] for m in metas if where is None or where.matches(m)}


def test_a_registry_lookup_by_kind_and_owner(tmp_path):
    store = ChromaStore(data_dir=tmp_path, embedder_id="hash:v1", dim=8)
    try:
        store.reg_put("a", 1, kind="cursor", owner="u1")
        store.reg_put("b", 2, kind="cursor", owner="u2")
        store.reg_put("c", 3, kind="lease")
        assert store.reg_find("cursor") == {"a": 1, "b": 2}
        assert store.reg_find("cursor", "u2") == {"b": 2}
        assert store.reg_get("c") == 3
    finally:
        store.close()
