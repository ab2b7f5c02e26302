"""Older values put into a key's history (core/jobs/extraction/decide.py: chain_neighbours, placed):
whatever dates and whatever order they come in, the chain reads oldest to newest both ways, each
version valid until the next began, one version active, a precious record never rewritten."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from hypothesis import given, settings, strategies as st

from core.jobs.extraction.decide import chain_neighbours, placed
from core.model import Kind, Memory, Status

BASE = datetime(2020, 1, 1, tzinfo=timezone.utc)
NOW = datetime(2026, 1, 1, tzinfo=timezone.utc)


def version(i: int, day: int, **kw) -> Memory:
    when = BASE + timedelta(days=day)
    return Memory(id=f"m{i}", content=f"value {i}", user_id="u", fact_key="profile.city", valid_from=when,
                  created_at=when, updated_at=when, **kw)


def insert(records: dict[str, Memory], head: Memory, new: Memory) -> None:
    before, after = chain_neighbours(list(records.values()), records[head.id], new.valid_from)
    for m in placed(new, before, after, NOW):
        records[m.id] = m


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=2000), unique=True, max_size=12), st.randoms(use_true_random=False))
def test_older_values_land_at_their_dates_in_any_order(days, rnd):
    head = version(0, 3000)
    records = {head.id: head}
    order = list(enumerate(days, start=1))
    rnd.shuffle(order)
    for i, day in order:
        insert(records, head, version(i, day))
    chain, at = [], records[head.id]
    while at is not None:  # newest to oldest along `supersedes`
        chain.append(at)
        at = records.get(at.supersedes) if at.supersedes else None
    assert [m.valid_from for m in chain] == sorted((m.valid_from for m in records.values()), reverse=True)
    assert len(chain) == len(records) == len(days) + 1
    assert [m.id for m in records.values() if m.status == Status.active] == [head.id]
    for newer, older in zip(chain, chain[1:]):
        assert (older.superseded_by, older.valid_to, older.status) == (newer.id, newer.valid_from, Status.superseded)
    assert chain[0].valid_to is None and chain[-1].supersedes is None
    assert records[head.id].updated_at == head.updated_at  # linking history does not move the current value in lists


def test_a_precious_neighbour_is_pointed_at_never_rewritten():
    head = version(0, 300, kind=Kind.precious)
    out = placed(version(1, 100), None, head, NOW)
    assert [m.id for m in out] == ["m1"] and out[0].superseded_by == head.id and out[0].valid_to == head.valid_from
    older = version(2, 10, kind=Kind.precious, status=Status.superseded)
    out = placed(version(3, 50), older, version(4, 200), NOW)
    assert [m.id for m in out] == ["m3", "m4"] and out[0].supersedes == older.id
