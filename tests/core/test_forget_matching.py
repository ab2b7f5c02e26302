"""A forget acts only on what it is sure of, and the erased set is exactly the intended one: each
case names the memories that must go and checks that they, and nothing else, went. What the
request may mean but Amber is not sure of is kept and reported (the forget note lists it, so the
model asks the person which)."""

from __future__ import annotations

import math

import pytest

from core import Actor, MemoryIn, Settings, build_service, render_forget_note, scope_for
from core.testing import FixedClock, HashEmbedder

HOME = ("address", "live", "home", "street")


class ConceptEmbedder(HashEmbedder):
    """The hash embedder plus one shared direction for anything about where someone lives: texts
    about it are close in meaning (cosine over 0.9) whatever their words."""

    id = "concept:test"

    def _vec(self, text: str) -> list[float]:
        v = [0.25 * x for x in super()._vec(text)]
        if any(w in text.casefold() for w in HOME):
            v[0] += 1.0
        norm = math.sqrt(sum(x * x for x in v))
        return [x / norm for x in v]


CASES = [
    # (memories, what to forget, indexes erased, indexes reported uncertain, embedder)
    (["My passport number is P-1234", "I like green tea", "My passport expires in May"], "my passport number", {0}, set(), HashEmbedder),
    (["My sister lives in Lyon", "I like green tea"], "my sister in Lyon", {0}, set(), HashEmbedder),
    # two memories share as many of its words: which one is meant is the person's to say
    (["My sister lives in Lyon", "My sister works in Lyon", "I like green tea"], "my sister in Lyon", set(), {0, 1}, HashEmbedder),
    # close in meaning only: reported, never erased
    (["I live at 12 Rose Street", "I like green tea"], "my address", set(), {0}, ConceptEmbedder),
    # close in meaning and sharing some words, the only one: sure
    (["My home is at 12 Rose Street", "I like green tea"], "my old home street number", {0}, set(), ConceptEmbedder),
    # the same words without the meaning: not sure
    (["My home is at 12 Rose Street", "I like green tea"], "my old home street number", set(), {0}, HashEmbedder),
    # nothing close: nothing erased, nothing reported
    (["I like green tea", "My cat is called Miso"], "my bank PIN", set(), set(), HashEmbedder),
]


@pytest.mark.parametrize("contents,what,erased,uncertain,embedder", CASES)
def test_the_erased_set_is_the_intended_set(tmp_path, contents, what, erased, uncertain, embedder):
    svc = build_service(Settings(data_dir=tmp_path / "data"), embedder=embedder(), clock=FixedClock())
    scope = scope_for(Actor("ines", client="tests"))
    try:
        ids = [svc.remember(scope, MemoryIn(content=c)).memory.id for c in contents]
        preview = svc.forget(scope, what, preview=True)
        assert {m.id for m in preview.memories} == {ids[i] for i in erased}
        assert {m.id for m in preview.uncertain} == {ids[i] for i in uncertain}
        done = svc.forget(scope, what)
        assert {m.id for m in done.memories} == {ids[i] for i in erased}
        assert {m.id for m in done.uncertain} == {ids[i] for i in uncertain}
        left = {m.id for m in svc.list(scope).items}
        assert left == {ids[i] for i in range(len(contents)) if i not in erased}
    finally:
        svc.close()


def test_the_note_says_what_is_uncertain_so_the_model_can_ask():
    note = render_forget_note("my address", 0, 0, ["I live at 12 Rose Street"])
    assert "found nothing it is sure states this" in note and "nothing was erased" in note and '- "I live at 12 Rose Street"' in note and "ask the user which, if any" in note
    both = render_forget_note("my sister", 1, 0, ["My sister works in Lyon"])
    assert "erasing 1 memory" in both and '- "My sister works in Lyon"' in both and "keeps them" in both
    assert "found nothing" in render_forget_note("my bank PIN", 0, 0, [])
