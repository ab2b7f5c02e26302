"""Which upstream a model group goes to, and so whether it honours Claude's cache marks and sees images.

The client names a model group ("claude-sonnet"); the router's deployments for it say what is
behind (`anthropic/claude-...`, `bedrock/...anthropic.claude...`, `vertex_ai/claude-...`). A group is
treated as Claude only if every deployment is, so a mixed group never gets marks it may reject.
"""

from __future__ import annotations

from typing import Any, Callable

from core import deployment_models

_CLAUDE_PROVIDERS = ("anthropic/", "claude")


def is_claude_model(model: str) -> bool:
    m = model.lower()
    return m.startswith(_CLAUDE_PROVIDERS) or "claude" in m.rsplit("/", 1)[-1] or "anthropic.claude" in m


_FALLBACK_LISTS = ("fallbacks", "context_window_fallbacks", "content_policy_fallbacks")


def _names(value: Any) -> list[str]:
    """Model group names in a fallback list: strings, or dicts naming a `model`."""
    out = []
    for v in value if isinstance(value, (list, tuple)) else [value]:
        name = v.get("model") if isinstance(v, dict) else v
        if isinstance(name, str) and name.strip():
            out.append(name.strip())
    return out


def _router_fallbacks(router: Any, group: str) -> list[str]:
    """The groups the operator's router falls back to from `group` ({group: [...]} or {"*": [...]})."""
    out: list[str] = []
    for attr in _FALLBACK_LISTS:
        for entry in getattr(router, attr, None) or []:
            if isinstance(entry, dict):
                for key in (group, "*"):
                    out += _names(entry.get(key) or [])
    return out + _names(getattr(router, "default_fallbacks", None) or [])


def destinations(router: Any, data: dict) -> list[tuple[str, list[str]]]:
    """Every model group a request may reach, each with the models of its deployments: the groups
    it names ("a,b" is sent to both), the fallbacks the request itself asks for, and the router's
    fallbacks from any of those, followed to the end. Memory injected before the call goes with
    the request wherever LiteLLM routes it, so the destination policy reads all of them."""
    named = [g.strip() for g in str(data.get("model") or "").split(",") if g.strip()]
    for key in _FALLBACK_LISTS:
        named += _names(data.get(key) or [])
    seen: dict[str, list[str]] = {}
    while named and len(seen) < 64:
        group = named.pop(0)
        if group in seen:
            continue
        seen[group] = deployment_models(router, group)
        if router is not None:
            named += _router_fallbacks(router, group)
    return list(seen.items())


def _deployments(router: Any, group: str) -> list[tuple[dict, dict]]:
    """(litellm_params, model_info) of each deployment behind `group`."""
    if router is None or not group:
        return []
    try:
        deployments = router.get_model_list(model_name=group) or []
    except Exception:
        return []
    return [(_as_dict(d, "litellm_params"), _as_dict(d, "model_info")) for d in deployments]


def _as_dict(deployment: Any, key: str) -> dict:
    value = deployment.get(key) if isinstance(deployment, dict) else getattr(deployment, key, None)
    if isinstance(value, dict):
        return value
    return value.model_dump() if hasattr(value, "model_dump") else {}


def _known_vision(model: str, provider: str | None) -> bool:
    try:
        import litellm

        return bool(litellm.supports_vision(model=model, custom_llm_provider=provider))
    except Exception:  # a lookup that cannot answer leaves the request as sent
        return True


def group_has_vision(router: Any, group: str) -> bool:
    """Whether every deployment behind `group` sees images (a request may land on any of them).

    A deployment's own `model_info: {supports_vision: ...}` decides; else LiteLLM's model map, which
    says no for models it does not know (mark those in config.yaml if they do see)."""
    answers = []
    for params, info in _deployments(router, group):
        if info.get("supports_vision") is not None:
            answers.append(bool(info["supports_vision"]))
        elif params.get("model"):
            answers.append(_known_vision(str(info.get("base_model") or params["model"]), params.get("custom_llm_provider")))
    return all(answers) if answers else _known_vision(group, None)


class TargetResolver:
    """Caches the answer per model group; the router is read at call time (config reloads)."""

    def __init__(self, router_getter: Callable[[], Any]):
        self._router_getter = router_getter
        self._known: dict[tuple[int, str], bool] = {}
        self._vision: dict[tuple[int, str], bool] = {}

    def is_claude(self, group: str) -> bool:
        router = self._router_getter()
        key = (id(router), group)
        if key not in self._known:
            models = deployment_models(router, group)
            self._known[key] = bool(models) and all(is_claude_model(m) for m in models) if models else is_claude_model(group)
        return self._known[key]

    def has_vision(self, group: str) -> bool:
        router = self._router_getter()
        key = (id(router), group)
        if key not in self._vision:
            self._vision[key] = group_has_vision(router, group)
        return self._vision[key]
