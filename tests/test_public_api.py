"""`core.__all__` is sorted, complete for what faces use, and every name in it exists."""

from __future__ import annotations

import core


def test_all_is_sorted_and_importable():
    assert list(core.__all__) == sorted(core.__all__)
    assert len(set(core.__all__)) == len(core.__all__)
    for name in core.__all__:
        assert hasattr(core, name), name


def test_no_public_name_is_left_out():
    public = {n for n in vars(core) if not n.startswith("_")}
    submodules = {n for n in public if type(getattr(core, n)).__name__ == "module"}
    assert public - submodules == set(core.__all__)
