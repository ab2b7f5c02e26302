"""A key's history stored flat by earlier versions (older imported values side by side, each
superseded by the current one and valid until it began) is put in date order by the nightly
consolidation (core/jobs/extraction/decide.py `ordered_history`, core/jobs/consolidation.py)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from hypothesis import given, settings as hsettings, strategies as st

from core import MemoryIn, Status
from core.jobs.extraction.decide import ordered_history
from core.jobs.runner import arun_job
from core.model import Kind, Memory

NIGHT = datetime(2026, 1, 2, 3, 30, tzinfo=UTC)
T2023, T2024, T2025 = (datetime(y, 3, 1, tzinfo=UTC) for y in (2023, 2024, 2025))
BASE = datetime(2020, 1, 1, tzinfo=UTC)
KEY = "profile.city"


def plan(**over):
    return {"retire": [], "precious": [], "digest": "", "daily_log": "", **over}


def version(mid: str, when: datetime, **kw) -> Memory:
    return Memory(**{"id": mid, "content": f"Lives in {mid}", "user_id": "alice", "fact_key": KEY, "category": "profile",
                     "valid_from": when, "created_at": when, "updated_at": when, **kw})


def chain_back(records: dict[str, Memory], head_id: str) -> list[Memory]:
    """Newest to oldest along `supersedes`, within `records`."""
    out, at, seen = [], records[head_id], set()
    while at is not None and at.id not in seen:
        seen.add(at.id)
        out.append(at)
        at = records.get(at.supersedes) if at.supersedes else None
    return out


def assert_chain(oldest_first: list[Memory]) -> None:
    """One chain both ways, in date order, each version valid until the next began, one active at the end."""
    assert [m.valid_from for m in oldest_first] == sorted(m.valid_from for m in oldest_first)
    for older, newer in zip(oldest_first, oldest_first[1:]):
        assert (older.status, older.superseded_by, older.valid_to) == (Status.superseded, newer.id, newer.valid_from)
        assert newer.supersedes == older.id
    assert [m.status for m in oldest_first].count(Status.active) == 1 and oldest_first[-1].status == Status.active


def apply(records: dict[str, Memory], now: datetime) -> list[Memory]:
    out = ordered_history(list(records.values()), now)
    records.update({m.id: m for m in out})
    return out


# ---- the pure planning -----------------------------------------------------------------------


def test_a_flat_history_becomes_one_chain_and_the_current_version_keeps_its_place():
    head = version("Berlin", T2025)
    records = {m.id: m for m in (head,
                                 version("Lisbon", T2023, status=Status.superseded, superseded_by="Berlin", valid_to=T2025),
                                 version("Porto", T2024, status=Status.superseded, superseded_by="Berlin", valid_to=T2025))}
    out = apply(records, NIGHT)
    assert {m.id for m in out} == {"Lisbon", "Porto", "Berlin"}
    assert_chain([records["Lisbon"], records["Porto"], records["Berlin"]])
    assert records["Lisbon"].updated_at == NIGHT and records["Berlin"].updated_at == head.updated_at
    assert records["Berlin"].model_dump(exclude={"supersedes"}) == head.model_dump(exclude={"supersedes"})
    assert ordered_history(list(records.values()), NIGHT) == []


def test_what_is_not_history_is_left_alone():
    head = version("Berlin", T2025)
    flat = version("Lisbon", T2023, status=Status.superseded, superseded_by="Berlin", valid_to=T2025)
    gone = version("Rome", T2024, status=Status.deleted, superseded_by="Berlin", valid_to=T2025)
    waiting = version("Paris", T2024, status=Status.candidate, superseded_by="Berlin")
    stray = version("Oslo", T2024, status=Status.superseded, superseded_by="Rome", valid_to=T2025)  # links to a deleted one only
    out = ordered_history([head, flat, gone, waiting, stray], NIGHT)
    assert {m.id for m in out} == {"Berlin"} and out[0].supersedes == "Lisbon"
    # no current version, two of them, or an older one dated after the current one: nothing to do
    assert ordered_history([flat], NIGHT) == []
    assert ordered_history([head, version("Lyon", T2024), flat], NIGHT) == []
    later = version("Madrid", NIGHT, status=Status.superseded, superseded_by="Berlin", valid_to=T2025)
    assert ordered_history([head, flat, later], NIGHT) == []


def test_a_chain_already_in_order_is_untouched_whatever_its_end_dates():
    older = version("Lisbon", T2023, status=Status.superseded, superseded_by="Berlin", valid_to=NIGHT)  # a live supersede's own end
    head = version("Berlin", T2025, supersedes="Lisbon")
    assert ordered_history([older, head], NIGHT) == []


def test_the_oldest_keeps_its_link_to_a_forgotten_predecessor():
    head = version("Berlin", T2025, supersedes="Lisbon")
    live = version("Lisbon", T2024, status=Status.superseded, superseded_by="Berlin", valid_to=T2025, supersedes="forgotten")
    flat = version("Porto", T2023, status=Status.superseded, superseded_by="Berlin", valid_to=T2025)
    records = {m.id: m for m in (head, live, flat)}
    apply(records, NIGHT)
    assert_chain([records["Porto"], records["Lisbon"], records["Berlin"]])
    assert records["Porto"].supersedes is None  # it had none; the live one's link now points at Porto
    head2 = version("Berlin", T2025)
    first = version("Lisbon", T2023, status=Status.superseded, superseded_by="Berlin", valid_to=T2025, supersedes="forgotten")
    second = version("Porto", T2024, status=Status.superseded, superseded_by="Berlin", valid_to=T2025)
    records = {m.id: m for m in (head2, first, second)}
    apply(records, NIGHT)
    assert records["Lisbon"].supersedes == "forgotten"


def test_a_precious_version_is_pointed_at_never_rewritten():
    head = version("Berlin", T2025)
    quote = version("Lisbon", T2023, kind=Kind.precious, status=Status.superseded, superseded_by="Berlin", valid_to=T2025)
    flat = version("Porto", T2024, status=Status.superseded, superseded_by="Berlin", valid_to=T2025)
    records = {m.id: m for m in (head, quote, flat)}
    out = apply(records, NIGHT)
    assert "Lisbon" not in {m.id for m in out} and records["Lisbon"] == quote
    assert records["Porto"].supersedes == "Lisbon" and records["Berlin"].supersedes == "Porto"
    assert ordered_history(list(records.values()), NIGHT) == []
    # a precious current version is not rewritten either: the older ones still point at it
    pinned_head = version("Berlin", T2025, kind=Kind.precious)
    out = ordered_history([pinned_head, flat, version("Lisbon", T2023, status=Status.superseded, superseded_by="Berlin", valid_to=T2025)], NIGHT)
    assert "Berlin" not in {m.id for m in out} and {m.superseded_by for m in out} == {"Porto", "Berlin"}


@hsettings(max_examples=200, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=2000), min_size=1, max_size=12), st.randoms(use_true_random=False))
def test_any_linked_history_in_any_date_order_becomes_one_chain_in_date_order(days, rnd):
    """Older versions (dates may tie) each linked to the current one or to an older one placed
    before it, in any order, ends either way, the current one pointing anywhere: one chain."""
    head = version("v0", BASE + timedelta(days=3000), created_at=BASE + timedelta(days=3001))
    records = {head.id: head}
    for i, day in enumerate(days, start=1):
        when = BASE + timedelta(days=day)
        target = rnd.choice(list(records))
        link = {"superseded_by": target} if rnd.random() < 0.7 else {"supersedes": target}
        records[f"v{i}"] = version(f"v{i}", when, status=Status.superseded, valid_to=rnd.choice([None, when, head.valid_from]),
                                   created_at=when + timedelta(seconds=rnd.randrange(3)), **link)
    if rnd.random() < 0.5:
        records[head.id] = head.model_copy(update={"supersedes": rnd.choice(list(records))})
    written = apply(records, NIGHT)
    chain = chain_back(records, head.id)[::-1]
    assert len(chain) == len(records)
    if written:  # nothing written: the links were already one chain in date order, and the end dates stay as stored
        assert_chain(chain)
    for older, newer in zip(chain, chain[1:]):
        assert (older.status, older.superseded_by, newer.supersedes) == (Status.superseded, newer.id, older.id)
    assert [(m.valid_from, m.created_at, m.id) for m in chain[:-1]] == sorted((m.valid_from, m.created_at, m.id) for m in chain[:-1])
    assert records[head.id].model_dump(exclude={"supersedes"}) == head.model_dump(exclude={"supersedes"})
    assert ordered_history(list(records.values()), NIGHT) == []


# ---- in the nightly job, on Chroma -----------------------------------------------------------


def flat_history(service, scope, clock) -> tuple[Memory, Memory, Memory]:
    """What an earlier Amber stored for a 2025 fact, then a 2023 and a 2024 value imported after it:
    both older values superseded by the 2025 one, valid until 2025, the 2025 one pointing at neither."""
    clock.set(NIGHT - timedelta(days=30))
    berlin = service.remember(scope, MemoryIn(content="Lives in Berlin", fact_key=KEY, category="profile", valid_from=T2025)).memory
    older = []
    for text, when in (("Lives in Lisbon", T2023), ("Lives in Porto", T2024)):
        clock.advance(hours=1)
        data = MemoryIn(content=text, fact_key=KEY, category="profile", valid_from=when)
        mem = service.writes.new(scope, data, clock.now()).model_copy(
            update={"status": Status.superseded, "superseded_by": berlin.id, "valid_to": berlin.valid_from})
        with service.writes.lock(scope):
            service.writes.write(scope, [mem], embed=[mem])
            service.writes.audit(scope, "history", [mem.id, berlin.id], fact_key=KEY)
        older.append(mem)
    return older[0], older[1], berlin


def versions(service, scope) -> list[Memory]:
    found = service.list(scope, status=Status.superseded, limit=500).items + service.list(scope, limit=500).items
    return sorted((m for m in found if m.fact_key == KEY), key=lambda m: m.valid_from)


async def consolidate(service, settings, llm, upstream, clock) -> dict:
    clock.set(NIGHT)
    upstream.default = plan()
    return await arun_job("consolidate", service, settings, llm=llm, now=NIGHT)


def ordered_events(service, scope) -> list:
    return [e for e in service.events(scope) if e.action == "history_ordered"]


async def test_consolidation_puts_a_flat_history_in_date_order_once(service, clock, alice, settings, llm, upstream):
    lisbon, porto, berlin = flat_history(service, alice, clock)
    rec = await consolidate(service, settings, llm, upstream, clock)
    assert rec["status"] == "ok" and rec["counts"]["history_ordered"] == 1
    facts = versions(service, alice)
    assert [m.id for m in facts] == [lisbon.id, porto.id, berlin.id]
    assert_chain(facts)
    assert (facts[0].valid_to, facts[1].valid_to, facts[2].valid_to) == (T2024, T2025, None)
    current = facts[-1]
    assert current.status == Status.active and current.updated_at == berlin.updated_at and current.content == "Lives in Berlin"
    [event] = ordered_events(service, alice)
    assert set(event.memory_ids) == {lisbon.id, porto.id, berlin.id} and event.detail["fact_key"] == KEY

    recalled = service.recall(alice, "which city do I live in? Lives in Lisbon, Porto or Berlin")
    assert [c.id for c in recalled.items if c.source == "memory"] == [berlin.id]
    assert "Lives in Berlin" in recalled.text and "Lisbon" not in recalled.text and "Porto" not in recalled.text

    again = await arun_job("consolidate", service, settings, llm=llm, now=NIGHT + timedelta(days=1))
    assert again["counts"]["history_ordered"] == 0 and len(ordered_events(service, alice)) == 1
    assert versions(service, alice) == facts


async def test_consolidation_points_at_a_precious_version_and_leaves_ordered_keys_alone(service, clock, alice, settings, llm, upstream):
    clock.set(NIGHT - timedelta(days=30))
    head = version("Berlin", T2025)
    quote = version("Lisbon", T2023, kind=Kind.precious, status=Status.superseded, superseded_by="Berlin", valid_to=T2025)
    flat = version("Porto", T2024, status=Status.superseded, superseded_by="Berlin", valid_to=T2025)
    service.writes.write(alice, [head, quote, flat], embed=[head, quote, flat])
    # another key, already one chain in date order through a supersede now (its old value ends today, not in 2025)
    tea = service.remember(alice, MemoryIn(content="Drinks green tea", fact_key="preference.drink", category="preference")).memory
    coffee = service.supersede(alice, tea.id, MemoryIn(content="Drinks black coffee", valid_from=T2025)).memory
    before = {m.id: m for m in (service.get(alice, i) for i in (tea.id, coffee.id))}

    rec = await consolidate(service, settings, llm, upstream, clock)
    assert rec["counts"]["history_ordered"] == 1
    assert service.get(alice, "Lisbon") == quote
    assert service.get(alice, "Porto").supersedes == "Lisbon" and service.get(alice, "Berlin").supersedes == "Porto"
    assert (service.get(alice, "Porto").superseded_by, service.get(alice, "Porto").valid_to) == ("Berlin", T2025)
    assert {i: service.get(alice, i) for i in before} == before
    assert all("preference.drink" != e.detail.get("fact_key") for e in ordered_events(service, alice))
    again = await arun_job("consolidate", service, settings, llm=llm, now=NIGHT + timedelta(days=1))
    assert again["counts"]["history_ordered"] == 0 and len(ordered_events(service, alice)) == 1
