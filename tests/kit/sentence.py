"""The sentence model as tests read it: the process's one encoder, loaded, and unit vectors."""

from __future__ import annotations

import numpy as np
import pytest

from core.embed import sentence
from core.embed.sentence import DIM, SentenceEncoder


@pytest.fixture(scope="module")
def encoder() -> SentenceEncoder:
    enc = sentence.shared()
    assert enc.wait(120), "the sentence model ships with its package and must load offline"
    return enc


def unit(i: int) -> np.ndarray:
    """The `i`th axis of the model's space."""
    v = np.zeros(DIM, dtype=np.float32)
    v[i] = 1.0
    return v
