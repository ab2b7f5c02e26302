"""Recent query vectors, kept per person so a question asked again (a retried turn, the correction
read just before its recall) is not embedded again.

Each is kept under two digests keyed by a secret of this process: of the person, and of the person
and the words. The keys hold no words, and one person's query never answers another's faster (a
timing test of what others ask, and what they ask Amber to forget). A person's forget drops all of
theirs (`drop`), so no one acting as them can time whether a forgotten sentence was asked. A forget
carried out by another host sharing the store cannot reach this process's caches, so nothing is kept
longer than `TTL_S` either: what the cache is for happens within seconds. Least recently used first
out; `size` 0 keeps none (benchmarks that time the embedding set it)."""

from __future__ import annotations

import hashlib
import hmac
import os
import threading
import time
from collections import OrderedDict
from typing import Callable, Generic, Iterator, TypeVar

V = TypeVar("V")

# How long a vector is kept at most. A retried turn comes within seconds and the correction's read
# within milliseconds of its recall; the same sentence asked again minutes later costs one embedding
# (~7 ms). Two minutes is also the longest a forget made on another host leaves this process able to
# answer that person's forgotten sentence faster (the module docstring).
TTL_S = 120.0


class RecentVectors(Generic[V]):
    def __init__(self, size: int, *, ttl_s: float = TTL_S, clock: Callable[[], float] = time.monotonic) -> None:
        self.size = size
        self.ttl_s = ttl_s
        self._clock = clock
        self._items: OrderedDict[tuple[bytes, bytes], tuple[float, V]] = OrderedDict()
        self._salt = os.urandom(32)
        self._lock = threading.Lock()

    def _digest(self, text: str) -> bytes:
        return hmac.new(self._salt, text.encode("utf-8", "surrogatepass"), hashlib.sha256).digest()

    def _key(self, person: str | None, text: str) -> tuple[bytes, bytes]:
        return self._digest(f"\x1e{person or ''}"), self._digest(f"{person or ''}\x1f{text}")

    def drop(self, person: str) -> int:
        """Forget everything `person` asked lately; how many were kept."""
        who = self._digest(f"\x1e{person}")
        with self._lock:
            gone = [k for k in self._items if k[0] == who]
            for k in gone:
                del self._items[k]
        return len(gone)

    def get(self, person: str | None, text: str) -> V | None:
        key = self._key(person, text)
        with self._lock:
            hit = self._items.get(key)
            if hit is None:
                return None
            if self._clock() - hit[0] > self.ttl_s:
                del self._items[key]
                return None
            self._items.move_to_end(key)
            return hit[1]

    def put(self, person: str | None, text: str, value: V) -> None:
        key = self._key(person, text)
        with self._lock:
            self._items[key] = (self._clock(), value)
            self._items.move_to_end(key)
            while len(self._items) > self.size:
                self._items.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()

    def __iter__(self) -> Iterator[tuple[bytes, bytes]]:
        """The keys (digests of the person, and of the person and the words), oldest first."""
        with self._lock:
            return iter(list(self._items))
