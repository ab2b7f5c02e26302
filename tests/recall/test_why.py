"""The why record (core/why.py): kept by the service that recalled, only for a request that names
itself, bounded, with no words of its own (a forget covers it), dropped when a person is erased."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from core import MemoryIn
from core.recall.fusion import Candidate
from core.recall.render import handle_of
from core.why import WhyLog

T0 = datetime(2026, 1, 1, 12, 0, tzinfo=timezone.utc)


def test_a_named_recall_keeps_what_it_injected_and_why(service, alice):
    tea = service.remember(alice, MemoryIn(content="I drink genmaicha tea every morning")).memory
    service.remember(alice, MemoryIn(content="My cat is called Miso"))
    service.recall(alice, "what tea do I drink?")  # no request id: nothing kept
    assert service.why(alice) == []
    r = service.recall(alice, "what tea do I drink?", why="call-1")
    [rec] = service.why(alice)
    assert rec.request == "call-1" and rec.abstained is False and rec.considered >= len(r.items) >= 1
    first = rec.items[0]
    assert (first.id, first.handle, first.text) == (tea.id, handle_of(tea.id), tea.content)
    assert first.arms and first.score > 0 and first.kind == "fact"
    assert f"- {handle_of(tea.id)} [" in r.text  # the block shows the same handle


def test_an_unrelated_query_is_recorded_as_an_abstention(service, alice):
    service.remember(alice, MemoryIn(content="I drink genmaicha tea every morning"))
    # the test embedder declared calibrated with its similarity floors out of reach (as tests/recall/test_abstention.py)
    cfg = service.recall_config(floor_embedder="hash:v1", floor_memory=2.0, floor_message=2.0, floor_lexical=0.3)
    service.recall(alice, "Explain the difference between TCP and UDP.", config=cfg, why="call-2")
    service.recall(alice, "What tea do I drink every morning?", config=cfg, why="call-2b")
    assert [(r.request, r.abstained, len(r.items) > 0) for r in service.why(alice, last=2)] == [
        ("call-2b", False, True), ("call-2", True, False)]


def test_another_person_never_sees_my_why(service, alice, bob):
    service.remember(alice, MemoryIn(content="I drink genmaicha tea every morning"))
    service.recall(alice, "what tea do I drink?", why="call-3")
    assert service.why(bob, last=20) == [] and service.why(bob, request="call-3") == []


def test_a_forget_leaves_no_words_in_the_why_record_and_erasure_drops_it(service, alice):
    tea = service.remember(alice, MemoryIn(content="I drink genmaicha tea every morning")).memory
    service.recall(alice, "what tea do I drink?", why="call-4")
    service.forget(alice, "genmaicha tea")
    item = next(i for i in service.why(alice)[0].items if i.id == tea.id)
    assert item.gone is True and item.text is None and "genmaicha" not in str(service.why(alice))
    service.recall(alice, "tea", why="call-5")
    service.erase_person(alice)
    assert service.why(alice, last=20) == []


def _cand(i: int) -> Candidate:
    return Candidate(id=f"m{i}", text="words never kept", source="memory", created_at=T0, score=0.1)


def test_the_log_is_bounded_per_person_in_total_and_in_time():
    log = WhyLog(per_user=3, max_records=5, ttl_s=3600)
    for i in range(10):
        log.keep("ana", f"r{i}", [_cand(i)], at=T0 + timedelta(seconds=i))
    assert [r.request for r in log.last("ana", 10, now=T0)] == ["r9", "r8", "r7"]
    for i in range(4):
        log.keep(f"u{i}", "r", [_cand(i)], at=T0 + timedelta(seconds=20 + i))
    assert len(log) == 5 and [r.request for r in log.last("ana", 10, now=T0)] == ["r9"]
    assert log.last("u3", 1, now=T0 + timedelta(hours=2)) == [] and len(log) == 0  # expired
    assert "words never kept" not in repr(log._users)


def test_a_shared_why_record_keeps_its_verdicts_and_left_out_items_and_older_entries_still_load():
    """Records travel between hosts as JSON in Redis (core/why_shared.py): the floor's verdicts,
    backgrounds and left-out items survive the trip, and an entry kept by a host from before they
    existed still reads."""
    import json

    from core.why_shared import _dump, _load

    used = Candidate(id="m1", text="tea", source="memory", created_at=T0, kind="fact", score=0.5, dense=0.86, arms=["mem_dense"])
    out = Candidate(id="m2", text="sunny days", source="memory", created_at=T0, kind="fact", score=0.2, dense=0.8)
    record = WhyLog().keep("ann", "r1", [used], at=T0, considered=2, left_out=[out],
                           verdicts={"m1": "close", "m2": "near_everything"}, backgrounds={"m1": 0.71234567, "m2": 0.86})
    assert record.items[0].verdict == "close" and record.items[0].background == 0.7123
    assert [(i.id, i.verdict, i.background) for i in record.left_out] == [("m2", "near_everything", 0.86)]
    assert _load(_dump(record)) == record
    old = json.loads(_dump(record))
    del old["left_out"]
    for it in old["items"]:
        del it["verdict"], it["background"]
    again = _load(json.dumps(old))
    assert again.left_out == () and again.items[0].verdict == "" and again.items[0].background is None
    many = [Candidate(id=f"x{i}", text="-", source="message", created_at=T0, kind="user") for i in range(9)]
    from core.why import LEFT_OUT
    assert [i.id for i in WhyLog().keep("ann", "r2", [], at=T0, left_out=many).left_out] == [f"x{i}" for i in range(LEFT_OUT)]


def test_shared_why_records_and_job_leases_are_keyed_by_the_whole_person_key():
    """Two people whose logs' short pseudonyms (10 hex digits, 40 bits) collide shared one Redis list
    of why records: one read the other's handles and scores, and the other's corrections stopped
    working. Job leases were keyed the same. The pair below was found by brute force in ~1.1 million
    tries (a few seconds)."""
    from core.jobs.runner import person_lease
    from core.scope import user_hash
    from core.why_shared import SharedWhyLog

    a, b = "person-760309", "person-1087286"
    assert user_hash(a) == user_hash(b)
    log = SharedWhyLog(client=None)
    assert log._key(a) != log._key(b) and person_lease("extract", a) != person_lease("extract", b)
