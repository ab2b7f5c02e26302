"""core/together.py: concurrent callers' parts made as one call (slots, a cap per call, deadlines).

One slot and no cap is what the store's group commit and grouped reads use
(tests/core/test_group_commit.py); the query bursts of the local embedder take a cap and one slot
per interactive lane (tests/core/test_embed_lanes.py)."""

from __future__ import annotations

import threading
import time

import pytest

from core.together import Together
from tests.core.test_group_commit import _at_once


class Recorder(Together[int]):
    """Each call records its parts and returns them doubled; calls wait on `gate` while it is set."""

    def __init__(self, slots: int = 1, most: int = 0):
        super().__init__(slots)
        self.most = most
        self.sent: list[list[int]] = []
        self.running = 0
        self.most_running = 0
        self.gate = threading.Event()
        self.gate.set()
        self.fail_on: int | None = None
        self.takes = 0.01  # seconds a call takes
        self.slow: set[int] = set()  # a call with any of these parts takes 0.6 s
        self._count = threading.Lock()

    def _take(self, parts):
        return self.most or len(parts)

    def _call(self, parts):
        with self._count:
            self.running += 1
            self.most_running = max(self.most_running, self.running)
        try:
            self.gate.wait()
            time.sleep(0.6 if self.slow & set(parts) else self.takes)
            self.sent.append(list(parts))
            if self.fail_on in parts:
                raise ValueError(f"part {self.fail_on} is refused")
            return {p: 2 * p for p in parts}
        finally:
            with self._count:
                self.running -= 1


def _answers(r: Recorder, n: int) -> tuple[dict[int, object], list[BaseException]]:
    """n callers asking r for parts 0..n-1 at once: each one's answer, and the errors raised."""
    out: dict[int, object] = {}
    errors = _at_once(range(n), lambda i: out.__setitem__(i, r._join(i)[i]))
    return out, errors


def _in_flight(r: Recorder, part: int) -> threading.Thread:
    """A caller of `part` whose call has started (and waits on the gate while it is cleared)."""
    t = threading.Thread(target=lambda: r._join(part), daemon=True)
    t.start()
    while r.running == 0:
        time.sleep(0.005)
    return t


def _queued(r: Recorder, n: int) -> None:
    while len(r._queued) < n:
        time.sleep(0.005)


def test_parts_of_callers_at_once_share_calls_and_each_gets_its_own_answer():
    r = Recorder()
    out, errors = _answers(r, 24)
    assert not errors and out == {i: 2 * i for i in range(24)}
    assert len(r.sent) < 24 and sorted(p for call in r.sent for p in call) == list(range(24))
    assert r.most_running == 1


def test_a_cap_splits_the_queue_and_every_part_is_still_sent_once():
    r = Recorder(most=5)
    out, errors = _answers(r, 23)
    assert not errors and out == {i: 2 * i for i in range(23)}
    assert all(len(call) <= 5 for call in r.sent)
    assert sorted(p for call in r.sent for p in call) == list(range(23))


def test_slots_bound_the_calls_under_way():
    r = Recorder(slots=3, most=1)
    r.takes = 0.05
    out, errors = _answers(r, 12)
    assert not errors and out == {i: 2 * i for i in range(12)}
    assert 2 <= r.most_running <= 3  # twelve callers, at most three calls at once


def test_a_failed_call_fails_its_own_callers_only():
    r = Recorder(most=1)
    r.fail_on = 7
    out, errors = _answers(r, 10)
    [error] = errors
    assert isinstance(error, ValueError) and "part 7" in str(error)
    assert out == {i: 2 * i for i in range(10) if i != 7}


def test_a_part_still_queued_at_its_deadline_is_taken_back():
    r = Recorder(most=1)
    r.gate.clear()  # the first call hangs until we let it go
    first = _in_flight(r, 0)
    started = time.monotonic()
    with pytest.raises(TimeoutError):
        r._join(1, timeout_s=0.2)
    assert 0.15 < time.monotonic() - started < 5
    r.gate.set()
    first.join(10)
    assert r.sent == [[0]]  # the part that gave up was never sent
    assert r._join(2, timeout_s=5) == {2: 4}  # and the next caller is served


def test_a_part_already_sent_waits_for_its_call_past_the_deadline():
    """Another caller's call took our part: that call has its own deadline, so we wait for it."""
    r = Recorder()
    r.gate.clear()
    blocker = _in_flight(r, 0)  # its call hangs on the gate
    ahead = threading.Thread(target=lambda: r._join(2), daemon=True)
    ahead.start()
    _queued(r, 1)
    got: dict[str, object] = {}

    def ours() -> None:
        started = time.monotonic()
        got["result"] = r._join(1, timeout_s=0.3)
        got["seconds"] = time.monotonic() - started

    mine = threading.Thread(target=ours, daemon=True)
    mine.start()
    _queued(r, 2)
    r.slow = {2}  # the next call, made by the caller of part 2 for 2 and 1, outlasts our deadline
    r.gate.set()
    for t in (blocker, ahead, mine):
        t.join(10)
    assert r.sent == [[0], [2, 1]]
    assert got["result"] == {2: 4, 1: 2} and got["seconds"] > 0.5


def test_a_caller_never_makes_a_call_for_others_past_its_own_deadline():
    """With a cap, the parts ahead of ours go first, in their own callers' calls: a caller whose
    deadline passes while they are sent gets its TimeoutError then, not after sending them."""
    r = Recorder(most=1)
    r.takes = 0.4
    r.gate.clear()
    first = _in_flight(r, 0)
    second = threading.Thread(target=lambda: r._join(1), daemon=True)
    second.start()
    _queued(r, 1)
    r.gate.set()  # 0's call ends after 0.4 s; then 1's call (0.4 s) goes first
    started = time.monotonic()
    with pytest.raises(TimeoutError):
        r._join(2, timeout_s=0.6)
    assert time.monotonic() - started < 0.75  # not held for 1's call, and 2 was never sent
    for t in (first, second):
        t.join(10)
    assert [p for call in r.sent for p in call] == [0, 1]
