"""Chat completions through LiteLLM, for the jobs (extraction, consolidation).

Inside the LiteLLM proxy the calls go through the proxy's own router (read at call time, so a
config reload is picked up) and reuse its models and keys; elsewhere `litellm.acompletion`.
Every call is tagged `amber_internal` in its metadata, for the logs. Capture never sees these calls as
user traffic: the hook keeps only requests its own pre-call decided, and router calls skip the pre-call.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from typing import Any

from .errors import LLMError
from .jobs.extraction.parse import strip_fences

log = logging.getLogger("amber.llm")


def deployment_models(router: Any, group: str) -> list[str]:
    """The model of each deployment behind the router's model group `group` (none: no such group)."""
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


class LiteLLMClient:
    """The `LLM` port over LiteLLM. Extra keyword arguments (api_base, api_key, ...) go to every call."""

    def __init__(
        self,
        model: str,
        *,
        router_getter: Callable[[], Any] | None = None,
        timeout: float = 60,
        **params: Any,
    ):
        self.model = model
        self.router_getter = router_getter
        self.timeout = timeout
        self.params = params

    def _router(self) -> Any:
        if self.router_getter is None:
            return None
        try:
            router = self.router_getter()
        except Exception as e:  # a proxy without a router yet: fall back to plain litellm
            log.debug("no LiteLLM router available: %s", e)
            return None
        if router is None:
            return None
        try:
            names = list(router.get_model_names())
        except Exception:  # a router-like object without the listing: trust it with the call
            return router
        # a model the proxy does not serve (e.g. "openai/gpt-4o-mini" with keys in the environment)
        # is called directly rather than failing inside the router
        if self.model in names or any("*" in n for n in names):
            return router
        log.debug("model %s is not a proxy model group; calling it directly", self.model)
        return None

    def deployments(self) -> list[str]:
        """The models a call may land on, for the destination policy (core/destinations.py): each
        deployment behind the proxy's group of that name, or, called directly, the model with the
        provider LiteLLM reads from it ("gpt-4o-mini" goes to "openai/gpt-4o-mini")."""
        found = deployment_models(self._router(), self.model)
        if found:
            return found
        try:
            import litellm

            model, provider, *_ = litellm.get_llm_provider(self.model)
            return [f"{provider}/{model}"] if provider and not self.model.startswith(f"{provider}/") else []
        except Exception:  # a model LiteLLM cannot place: its name alone
            return []

    async def complete(
        self, messages: list[dict[str, Any]], *, json_schema: dict | None = None, purpose: str = ""
    ) -> tuple[str, dict[str, Any]]:
        kwargs: dict[str, Any] = {
            "model": self.model,
            "messages": messages,
            "timeout": self.timeout,
            "metadata": {"amber_internal": True, "amber_purpose": purpose},
            **self.params,
        }
        if json_schema is not None:
            kwargs["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": _schema_name(purpose), "schema": json_schema, "strict": False},
            }
        router = self._router()
        try:
            if router is not None:
                resp = await router.acompletion(**kwargs)
            else:
                import litellm

                resp = await litellm.acompletion(num_retries=0, **kwargs)
        except Exception as e:  # providers raise many types; to the jobs they all mean "try later"
            raise LLMError(f"model {self.model} failed ({purpose or 'completion'}): {type(e).__name__}: {e}") from e
        text = _text_of(resp)
        if json_schema is not None:
            try:
                json.loads(strip_fences(text))
            except ValueError as e:
                raise LLMError(f"model {self.model} returned output that is not JSON ({purpose}): {e}") from e
        return text, _usage_of(resp)


def _schema_name(purpose: str) -> str:
    name = "".join(ch if ch.isalnum() or ch in "_-" else "_" for ch in purpose)[:64]
    return name or "amber_output"


def _text_of(resp: Any) -> str:
    try:
        text = resp.choices[0].message.content
    except (AttributeError, IndexError, KeyError, TypeError) as e:
        raise LLMError(f"model answer has no message content: {e}") from e
    if not isinstance(text, str) or not text.strip():
        raise LLMError("model answered with empty content")
    return text


def _usage_of(resp: Any) -> dict[str, Any]:
    usage = getattr(resp, "usage", None)
    prompt = int(getattr(usage, "prompt_tokens", 0) or 0)
    completion = int(getattr(usage, "completion_tokens", 0) or 0)
    cost = 0.0
    try:
        import litellm

        cost = float(litellm.completion_cost(completion_response=resp) or 0.0)
    except Exception:  # unknown model prices are common (local models, proxy groups): cost unknown, not an error
        hidden = getattr(resp, "_hidden_params", None) or {}
        cost = float(hidden.get("response_cost") or 0.0) if isinstance(hidden, dict) else 0.0
    return {"prompt_tokens": prompt, "completion_tokens": completion, "cost": cost}
