"""Which upstream a model group goes to, and so whether it honours Claude's cache marks.

The client names a model group ("claude-sonnet"); the router's deployments for it say what is
behind (`anthropic/claude-...`, `bedrock/...anthropic.claude...`, `vertex_ai/claude-...`). A group is
treated as Claude only if every deployment is, so a mixed group never gets marks it may reject.
"""

from __future__ import annotations

from typing import Any, Callable

_CLAUDE_PROVIDERS = ("anthropic/", "claude")


def is_claude_model(model: str) -> bool:
    m = model.lower()
    return m.startswith(_CLAUDE_PROVIDERS) or "claude" in m.rsplit("/", 1)[-1] or "anthropic.claude" in m


def deployment_models(router: Any, group: str) -> list[str]:
    if router is None or not group:
        return []
    try:
        deployments = router.get_model_list(model_name=group) or []
    except Exception:  # a router without that group, or an older signature
        return []
    out = []
    for d in deployments:
        params = d.get("litellm_params") if isinstance(d, dict) else getattr(d, "litellm_params", None)
        model = params.get("model") if isinstance(params, dict) else getattr(params, "model", None)
        if model:
            out.append(str(model))
    return out


class TargetResolver:
    """Caches the answer per model group; the router is read at call time (config reloads)."""

    def __init__(self, router_getter: Callable[[], Any]):
        self._router_getter = router_getter
        self._known: dict[tuple[int, str], bool] = {}

    def is_claude(self, group: str) -> bool:
        router = self._router_getter()
        key = (id(router), group)
        if key not in self._known:
            models = deployment_models(router, group)
            self._known[key] = bool(models) and all(is_claude_model(m) for m in models) if models else is_claude_model(group)
        return self._known[key]
