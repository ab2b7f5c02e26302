"""Is the LLM the jobs use reachable? One tiny completion through Amber's LLM client.
Shared by `/health?check_llm=true` (admin) and `amber doctor`."""

from __future__ import annotations

import sys
from typing import Any

from core import AmberError, LiteLLMClient, Settings


def proxy_router() -> Any:
    """Inside the LiteLLM proxy the jobs call its model groups through its router (their keys and
    api_base); the check must take the same road or it tests a call the jobs never make. The proxy
    module is only looked up, never imported: `amber serve` must not pay for loading it."""
    ps = sys.modules.get("litellm.proxy.proxy_server")
    return getattr(ps, "llm_router", None) if ps is not None else None


def quiet_litellm() -> None:
    """LiteLLM prints "Give Feedback / Get Help" banners to stdout on every failed call; `amber doctor`
    reports the failure itself, in its own words. (Not done inside a host: the proxy's own output is
    its operator's business.)"""
    litellm = sys.modules.get("litellm")
    if litellm is None:
        import litellm
    litellm.suppress_debug_info = True


async def llm_status(settings: Settings) -> dict[str, Any]:
    """One tiny completion through Amber's LLM client: is the model the jobs use reachable?"""
    llm = LiteLLMClient(settings.llm_model, router_getter=proxy_router, timeout=min(15.0, settings.llm_timeout_s), max_tokens=5)
    try:
        await llm.complete([{"role": "user", "content": "Reply with the word: ok"}], purpose="health")
    except AmberError as e:
        return {"model": settings.llm_model, "checked": True, "ok": False, "error": str(e)[:300]}
    return {"model": settings.llm_model, "checked": True, "ok": True}
