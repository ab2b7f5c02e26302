"""HostPool: the order in which a remote client (core/client.py) tries several Amber hosts.

Any host can serve any user (they share one Chroma server), but a user's indexes are warm on the
host that served them last, so each user has a home host: rendezvous hashing ranks the hosts per
user with a stable hash (the same in every process, whatever order the hosts are listed in), which
spreads users over the hosts and moves only a lost host's users when one goes. A host that could
not take a request is marked down for a cool-down that doubles on each failure (2 s up to 30 s) and
goes to the back of every order meanwhile; once it expires, the next request routed to it tries it
again (a passive health check), and a host that answers is marked up.
"""

from __future__ import annotations

import hashlib
import logging
import time
from dataclasses import dataclass
from typing import Any, Callable, Sequence

log = logging.getLogger("amber.client")


@dataclass
class Host:
    url: str
    failures: int = 0  # consecutive; 0 while up
    down_until: float = 0.0  # on the pool's monotonic clock


def _weight(url: str, key: str) -> int:
    return int.from_bytes(hashlib.blake2b(f"{url}\0{key}".encode(), digest_size=8).digest(), "big")


class HostPool:
    """Ranks hosts per routing key, and keeps which are down (shared by every client of one pool)."""

    def __init__(
        self,
        urls: Sequence[str],
        *,
        cooldown_s: float = 2.0,
        max_cooldown_s: float = 30.0,
        clock: Callable[[], float] = time.monotonic,
    ):
        if not urls:
            raise ValueError("no Amber host URL given")
        self.hosts = [Host(u) for u in urls]
        self.cooldown_s, self.max_cooldown_s, self._clock = cooldown_s, max_cooldown_s, clock

    def order(self, key: str) -> list[Host]:
        """Every host, the key's home first: those up (or past their cool-down) in rendezvous order,
        then those still down, in the same order (tried only when every other has failed)."""
        now = self._clock()
        ranked = sorted(self.hosts, key=lambda h: _weight(h.url, key), reverse=True)
        return [h for h in ranked if h.down_until <= now] + [h for h in ranked if h.down_until > now]

    def mark_down(self, host: Host, reason: str) -> None:
        host.failures += 1
        cool = min(self.cooldown_s * 2 ** min(host.failures - 1, 16), self.max_cooldown_s)
        host.down_until = self._clock() + cool
        if host.failures == 1:
            log.warning("amber: memory host %s is down (%s); using the other hosts, retrying it in %.3g s", host.url, reason, cool)
        else:
            log.debug("amber: memory host %s still down (%s); next try in %.3g s", host.url, reason, cool)

    def mark_up(self, host: Host) -> None:
        if host.failures:
            log.info("amber: memory host %s is back after %d failed attempt(s)", host.url, host.failures)
            host.failures, host.down_until = 0, 0.0

    def status(self) -> list[dict[str, Any]]:
        """[{url, up, failures, down_until}], down_until a wall-clock time (epoch seconds) or None."""
        now, wall = self._clock(), time.time()
        return [
            {"url": h.url, "up": h.failures == 0, "failures": h.failures,
             "down_until": wall + (h.down_until - now) if h.down_until > now else None}
            for h in self.hosts
        ]
