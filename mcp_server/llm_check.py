"""Is the LLM the jobs use reachable? One tiny completion through Amber's LLM client.
Shared by `/health?check_llm=true` (admin) and `amber doctor`."""

from __future__ import annotations

from typing import Any

import core
from core import AmberError, Settings


async def llm_status(settings: Settings) -> dict[str, Any]:
    """One tiny completion through Amber's LLM client: is the model the jobs use reachable?"""
    client_cls = getattr(core, "LiteLLMClient", None)
    if client_cls is None:
        return {"model": settings.llm_model, "checked": False, "error": "no LLM client in this build"}
    llm = client_cls(settings.llm_model, timeout=min(15.0, settings.llm_timeout_s), max_tokens=5)
    try:
        await llm.complete([{"role": "user", "content": "Reply with the word: ok"}], purpose="health")
    except AmberError as e:
        return {"model": settings.llm_model, "checked": True, "ok": False, "error": str(e)[:300]}
    return {"model": settings.llm_model, "checked": True, "ok": True}
