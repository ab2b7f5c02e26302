"""Property: whatever mix of records exists, recall returns only the asking user's live records.

One real store (temp dir, deterministic embedder) serves every example; each example uses fresh
user ids, so examples cannot see each other's records unless isolation is broken.
"""

from __future__ import annotations

import itertools
import tempfile
from datetime import timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core import Actor, MemoryIn, Settings, Status, build_service, scope_for
from core.testing import FixedClock, HashEmbedder

WORDS = ["tea", "lisbon", "sister", "cat", "piano", "茶", "猫咪", "姐姐", "里斯本", "hiking", "red", "blue"]
FATES = ["active", "deleted", "archived", "candidate", "superseded", "expired", "foreign"]
_users = itertools.count()


@pytest.fixture(scope="module")
def world():
    clock = FixedClock()
    with tempfile.TemporaryDirectory(prefix="amber-prop-") as tmp:
        svc = build_service(Settings(data_dir=Path(tmp)), embedder=HashEmbedder(), clock=clock)
        yield svc, clock
        svc.close()


records = st.lists(
    st.tuples(st.lists(st.sampled_from(WORDS), min_size=1, max_size=4), st.sampled_from(FATES)), min_size=1, max_size=8
)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(records=records, query=st.lists(st.sampled_from(WORDS), min_size=1, max_size=3), budget=st.integers(60, 800))
def test_only_the_users_live_records_come_back(world, records, query, budget):
    svc, clock = world
    n = next(_users)
    me, other = scope_for(Actor(f"prop-{n}")), scope_for(Actor(f"prop-{n}-other"))
    live, dead = set(), set()
    for i, (words, fate) in enumerate(records):
        text = " ".join(words) + f" #{i}"
        who = other if fate == "foreign" else me
        if fate == "expired":
            m = svc.remember(who, MemoryIn(content=text, expire_at=clock.now() + timedelta(minutes=1))).memory
        elif fate == "candidate":
            m = svc.remember(who, MemoryIn(content=text, status=Status.candidate)).memory
        elif fate == "superseded":
            key = f"world.topic_{n}_{i}"
            m = svc.remember(who, MemoryIn(content=text, fact_key=key)).memory
            newer = svc.remember(who, MemoryIn(content=text + " (newer)", fact_key=key)).memory
            live.add(newer.id)
        else:
            m = svc.remember(who, MemoryIn(content=text)).memory
            if fate == "deleted":
                svc.delete(who, m.id)
            elif fate == "archived":
                svc.archive(who, m.id)
        (live if fate == "active" else dead).add(m.id)
    clock.advance(minutes=2)  # the "expired" ones are now past their TTL
    got = svc.search(me, " ".join(query), config=svc.recall_config(top_k=20))
    assert {c.id for c in got} <= live
    assert not {c.id for c in got} & dead
    result = svc.recall(me, " ".join(query), config=svc.recall_config(budget_tokens=budget))
    assert {c.id for c in result.items} <= live
    assert result.tokens <= budget
