"""The third review's corpus (tests/core/correction_review3.py) through every decider a turn meets,
as Amber decides it without the classifier (the grammar, the update frames, the change words, in
core/correcting.reading's order): what it got right stays right, and what it still gets wrong is
exactly the list kept beside the corpus, so a fix or a regression shows here."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

import corrections as bench  # noqa: E402

import correction_review3 as review3  # noqa: E402

DECIDE = bench.with_changes()


@pytest.mark.parametrize("case", [c for c in review3.LOOK_ALIKES if c.text not in review3.STILL_TAKEN], ids=lambda c: c.text[:40])
def test_a_look_alike_changes_nothing(case):
    ok, why = bench.judge(case, DECIDE)
    assert ok, why


@pytest.mark.parametrize("case", [c for c in review3.CORRECTIONS if c.text not in review3.STILL_MISSED], ids=lambda c: c.text[:40])
def test_a_correction_replaces_the_item_it_names(case):
    ok, why = bench.judge(case, DECIDE)
    assert ok, why


def test_what_is_still_wrong_is_what_the_corpus_lists():
    taken = {c.text for c in review3.LOOK_ALIKES if not bench.judge(c, DECIDE)[0]}
    missed = {c.text for c in review3.CORRECTIONS if not bench.judge(c, DECIDE)[0]}
    assert taken == review3.STILL_TAKEN and missed == review3.STILL_MISSED
