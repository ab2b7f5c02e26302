"""The deterministic test embedder (core/testing.py) keeps its vectors: benches and stores made
with `hash:v1` must read the same after it caches its per-word hashing."""

from __future__ import annotations

import hashlib
import math

from hypothesis import given, settings
from hypothesis import strategies as st

from core.recall.lexical import stem, tokenize
from core.testing import HashEmbedder


def _reference(text: str, dim: int = 256) -> list[float]:  # hash:v1 as first written, uncached
    v = [0.0] * dim
    for tok in tokenize(text) or [text.casefold()]:
        h = int.from_bytes(hashlib.blake2b(tok.encode(), digest_size=8).digest(), "big")
        v[h % dim] += 1.0 if (h >> 32) & 1 else -1.0
    norm = math.sqrt(sum(x * x for x in v)) or 1.0
    return [x / norm for x in v] if any(v) else [1.0 / math.sqrt(dim)] * dim


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=300))
def test_vectors_are_those_of_hash_v1(text):
    e = HashEmbedder()
    assert e.embed_documents([text, text]) == [_reference(text)] * 2
    assert e.embed_query(text) == _reference(text)


def test_named_texts_keep_their_vectors():
    e = HashEmbedder()
    for text in ("Lisa moved to Lisbon in 2023", "我们今天讨论了花园番茄", "", "   ", "the", "running runs ran"):
        assert e.embed_query(text) == _reference(text)
    assert stem("marathons") == "marathon" and stem("classes") == "class" and stem("glass") == "glass"
