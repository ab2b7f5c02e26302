"""Destination policy: which models may receive memory at all, and which memories never leave the
host. Pure: values in, values out.

    amber:
      memory_models_allow: ["local-*", "ollama/*"]   # only these receive memory ([] : every model)
      memory_models_deny: ["openai/*"]               # never these (deny wins over allow)
      host_models: ["ollama/*"]                      # models running on this host
      host_only_kinds: ["precious"]                  # kinds sent to host models only
      host_only_tags: ["private", "health"]          # tags sent to host models only

A model is known by every name a request may reach it under: the model group the client named and
the model of each deployment behind it (`anthropic/claude-…`, `ollama/qwen…`). A group is denied
when any of its names matches a deny pattern (a request may land on any deployment), allowed when
the allow list is empty or its group name or every deployment matches it, and on the host when every
deployment (or, without deployments, its name) matches `host_models`. Patterns are shell-style
globs, case-insensitive.
"""

from __future__ import annotations

from dataclasses import dataclass
from fnmatch import fnmatchcase
from typing import Sequence, TypeVar

T = TypeVar("T")

# what a host model wrote from host-only items (the digest, a daily log) stays on the host too,
# whatever the operator's host_only_tags say
HOST_ONLY_TAG = "host-only"


def _matches(name: str, patterns: Sequence[str]) -> bool:
    low = name.casefold()
    return any(fnmatchcase(low, p.casefold()) for p in patterns)


@dataclass(frozen=True)
class DestinationPolicy:
    allow: tuple[str, ...] = ()
    deny: tuple[str, ...] = ()
    host_models: tuple[str, ...] = ()
    host_only_kinds: tuple[str, ...] = ("precious",)
    host_only_tags: tuple[str, ...] = ("private", "health")

    @classmethod
    def from_settings(cls, settings: object) -> "DestinationPolicy":
        def get(name: str, default: tuple[str, ...]) -> tuple[str, ...]:
            value = getattr(settings, name, None)
            return default if value is None else tuple(value)

        return cls(allow=get("memory_models_allow", ()), deny=get("memory_models_deny", ()), host_models=get("host_models", ()),
                   host_only_kinds=get("host_only_kinds", cls.host_only_kinds), host_only_tags=get("host_only_tags", cls.host_only_tags))

    def receives_memory(self, group: str, deployments: Sequence[str] = ()) -> bool:
        """Whether a request to this model group may carry any memory."""
        names = [group, *deployments]
        if self.deny and any(_matches(n, self.deny) for n in names):
            return False
        if not self.allow:
            return True
        return _matches(group, self.allow) or (bool(deployments) and all(_matches(d, self.allow) for d in deployments))

    def on_host(self, group: str, deployments: Sequence[str] = ()) -> bool:
        if not self.host_models:
            return False
        return all(_matches(d, self.host_models) for d in deployments) if deployments else _matches(group, self.host_models)

    def host_only(self, kind: str, tags: Sequence[str] = ()) -> bool:
        """Whether an item of this kind and tags stays on the host."""
        low = {t.casefold() for t in tags}
        return kind in self.host_only_kinds or HOST_ONLY_TAG in low or any(t.casefold() in low for t in self.host_only_tags)

    def stays(self, item: object) -> bool:
        """Whether this item (anything with `kind` and `tags`) stays on the host."""
        kind = getattr(item, "kind", "")
        return self.host_only(getattr(kind, "value", kind), getattr(item, "tags", ()) or ())

    def receives_all(self, dests: Sequence[tuple[str, Sequence[str]]]) -> bool:
        """Whether a request that may reach any of `dests` ((group, deployments) each) may carry memory."""
        return bool(dests) and all(self.receives_memory(g, d) for g, d in dests)

    def on_host_all(self, dests: Sequence[tuple[str, Sequence[str]]]) -> bool:
        return bool(dests) and all(self.on_host(g, d) for g, d in dests)

    def admit_all(self, items: Sequence[T], dests: Sequence[tuple[str, Sequence[str]]]) -> list[T]:
        """The items that may go to every one of `dests`, in order."""
        if not self.receives_all(dests):
            return []
        return list(items) if self.on_host_all(dests) else [c for c in items if not self.stays(c)]

    def admit(self, items: Sequence[T], group: str, deployments: Sequence[str] = ()) -> list[T]:
        """The items (anything with `kind` and `tags`) that may go to this model group, in order."""
        return self.admit_all(items, [(group, deployments)])
