"""After a restart, the people a host served find their recall indexes built (core/recall/warm_start.py).

Real Chroma on a temp dir, the deterministic embedder; a service is closed and opened again on the
same data directory, as a host restarts."""

from __future__ import annotations

import json
import logging
from datetime import datetime, timezone

from core import Actor, MemoryIn, Message, Role, Settings, build_service, scope_for
from core.recall import warm_start
from core.scope import memory_collection, message_collection
from core.testing import FixedClock, HashEmbedder
from tests.hook.harness import wait_for

T0 = datetime(2026, 11, 1, 9, 0, tzinfo=timezone.utc)


def open_service(data, **kw):
    return build_service(Settings(data_dir=data, **kw), embedder=HashEmbedder(), clock=FixedClock(T0))


def store_some(svc, person, word: str) -> None:
    svc.remember(person, MemoryIn(content=f"My {word} is kept in the shed"))
    svc.ingest(person, [Message(id=f"{person.user_id}-{i}", role=Role.user if i % 2 == 0 else Role.assistant,
                                content=f"Turn {i} about the {word} and the garden", session="s", created_at=T0) for i in range(6)])


def held(svc) -> set[str]:
    return {col for _, col in svc.recaller.serving()}


def test_the_people_a_host_served_find_their_indexes_built_after_a_restart(tmp_path):
    ann, bob, cy = (scope_for(Actor(u)) for u in ("ann", "bob", "cy"))
    svc = open_service(tmp_path / "data")
    try:
        for person, word in ((ann, "bicycle"), (bob, "kayak"), (cy, "ladder")):
            store_some(svc, person, word)
        svc.recall(cy, "where is my ladder")
        svc.recall(ann, "where is my bicycle")  # bob stored things but never asked
    finally:
        svc.close()
    saved = json.loads((tmp_path / "data" / warm_start.FILE).read_text())["serving"]
    cols = [c for _, c in saved]
    assert set(cols) == {memory_collection(ann), message_collection(ann), memory_collection(cy), message_collection(cy)}
    assert max(cols.index(memory_collection(ann)), cols.index(message_collection(ann))) < cols.index(message_collection(cy))  # ann asked last
    assert "bicycle" not in json.dumps(saved) and "ann" not in json.dumps(saved)  # hashed ids, no words

    svc = open_service(tmp_path / "data")
    try:
        want = {memory_collection(ann), message_collection(ann), memory_collection(cy), message_collection(cy)}
        assert wait_for(lambda: held(svc) >= want), held(svc)  # built with nobody asking
        assert not held(svc) & {memory_collection(bob), message_collection(bob)}
        built = svc.recaller.rebuilds
        assert "bicycle" in svc.recall(ann, "where is my bicycle").text
        assert "ladder" in svc.recall(cy, "where is my ladder").text
        assert svc.recaller.rebuilds == built  # their first recalls found them built
    finally:
        svc.close()


def test_a_person_written_to_after_the_list_was_saved_is_brought_up_to_date(tmp_path):
    ann = scope_for(Actor("ann"))
    svc = open_service(tmp_path / "data")
    try:
        store_some(svc, ann, "bicycle")
        svc.recall(ann, "bicycle")
    finally:
        svc.close()
    svc = open_service(tmp_path / "data", recall_warm_start=False)  # a start that builds nothing ahead...
    try:
        assert held(svc) == set()
        svc.remember(ann, MemoryIn(content="My kayak is on the roof rack"))  # ...while ann's records change
    finally:
        svc.close()
    assert memory_collection(ann) in (tmp_path / "data" / warm_start.FILE).read_text()  # that start left the list as it was
    svc = open_service(tmp_path / "data")
    try:
        assert wait_for(lambda: memory_collection(ann) in held(svc))
        assert "kayak" in svc.recall(ann, "kayak roof rack").text
    finally:
        svc.close()


def test_an_unreadable_list_means_a_cold_start_and_says_so(tmp_path, caplog):
    (tmp_path / "data").mkdir()
    path = tmp_path / "data" / warm_start.FILE
    ann = scope_for(Actor("ann"))
    for text in ("{not json", json.dumps({"serving": [["turns", "../../etc/passwd"], ["memories", 7]]}), "\x00\xff" * 40):
        path.write_text(text, encoding="latin-1")
        with caplog.at_level(logging.WARNING, logger="amber.recall"):
            svc = open_service(tmp_path / "data")
        try:
            assert svc.recaller.warming is None and held(svc) == set()  # nothing to build ahead
            assert svc.recall(ann, "anything").items == []  # it serves as after a cold start
        finally:
            svc.close()
    assert "unreadable" in caplog.text


def test_with_warm_start_off_no_list_is_kept(tmp_path):
    ann = scope_for(Actor("ann"))
    svc = open_service(tmp_path / "data", recall_warm_start=False)
    try:
        store_some(svc, ann, "bicycle")
        svc.recall(ann, "bicycle")
    finally:
        svc.close()
    assert not (tmp_path / "data" / warm_start.FILE).exists()


def test_a_stop_while_the_start_s_builds_go_on_keeps_the_whole_list(tmp_path):
    """Stopped again before it had built everyone, a host must not write down only those it got to."""
    import threading

    ann, bob = scope_for(Actor("ann")), scope_for(Actor("bob"))
    path = tmp_path / warm_start.FILE
    whole = [["turns", message_collection(ann)], ["turns", message_collection(bob)]]
    path.write_text(json.dumps({"version": 1, "serving": whole}))

    class Starting:  # a recaller whose start-up builds are under way, ann's done
        def __init__(self):
            self.go = threading.Event()
            self.warming = threading.Thread(target=self.go.wait)
            self.warming.start()

        def serving(self):
            return [("turns", message_collection(ann))]

    r = Starting()
    try:
        assert warm_start.save_quietly(r, path) is False
        assert json.loads(path.read_text())["serving"] == whole
    finally:
        r.go.set()
        r.warming.join()
    assert warm_start.save_quietly(r, path) is True  # once they are done, what it holds is the list
    assert json.loads(path.read_text())["serving"] == [["turns", message_collection(ann)]]
