"""Store filters as typed values: what the rest of Amber says about which records it wants.

A `Where` is a conjunction of clauses on metadata fields: `Eq` (equals), `In` (one of), `Range`
(from `gte`, up to but not including `lt`). Only the store turns them into its engine's syntax
(core/store/chroma.py); nothing else writes Chroma's `$and`/`$in` dialect.

    Where.of(Eq("status", "active"), In("namespace", ("default", "work")))
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Union

Scalar = Union[str, int, float, bool]


@dataclass(frozen=True)
class Eq:
    field: str
    value: Scalar


@dataclass(frozen=True)
class In:
    field: str
    values: tuple[Scalar, ...]

    def __post_init__(self) -> None:
        if not self.values:
            raise ValueError(f"In({self.field!r}) needs at least one value")


@dataclass(frozen=True)
class Range:
    field: str
    gte: float | None = None
    lt: float | None = None


Clause = Union[Eq, In, Range]


@dataclass(frozen=True)
class Where:
    clauses: tuple[Clause, ...] = ()

    @classmethod
    def of(cls, *clauses: Clause | None) -> "Where | None":
        """The conjunction of the clauses given (None ones skipped); None when nothing is asked."""
        kept = tuple(c for c in clauses if c is not None)
        return cls(kept) if kept else None

    def matches(self, meta: dict[str, Any]) -> bool:
        """Whether a record's metadata meets every clause (the store's meaning, for checks in memory)."""
        for c in self.clauses:
            v = meta.get(c.field)
            if isinstance(c, Eq) and v != c.value:
                return False
            if isinstance(c, In) and v not in c.values:
                return False
            if isinstance(c, Range) and (c.gte is not None or c.lt is not None):
                if v is None or (c.gte is not None and v < c.gte) or (c.lt is not None and v >= c.lt):
                    return False
        return True


def one_of(field: str, values: Any) -> Clause:
    """`Eq` for one value, `In` for several."""
    vals = tuple(values)
    return Eq(field, vals[0]) if len(vals) == 1 else In(field, vals)
