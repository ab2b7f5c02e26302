"""What a finished proxied call said: the user's last turn and the answer, from LiteLLM's log payload.

The success event carries the request as forwarded (so the user's turn still holds Amber's patch,
which the hook strips) and the response object, whose type depends on the route: a ModelResponse
for chat completions (streams arrive assembled), a dict-like Anthropic message for /v1/messages,
a ResponsesAPIResponse for /responses. `standard_logging_object` is the fallback for shapes not
known here.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from .request import TEXT_TYPES, text_of


@dataclass(frozen=True)
class Turn:
    user: str  # the user's new words; "" when the request only continues a turn (tool results)
    assistant: str
    position: str = ""  # where the user's words sit in the conversation, for a retry-stable id


def _get(obj: Any, key: str, default: Any = None) -> Any:
    if isinstance(obj, dict):
        return obj.get(key, default)
    return getattr(obj, key, default)


def _last_user(messages: Any) -> str:
    if isinstance(messages, str):
        return messages
    for msg in reversed(messages or []):
        if _get(msg, "role") == "user":
            text = text_of(_get(msg, "content")).strip()
            if text:
                return text
    return ""


def answer_text(response: Any) -> str:
    """The assistant's text from a chat, Anthropic or Responses API result."""
    if response is None:
        return ""
    choices = _get(response, "choices")
    if choices:
        msg = _get(choices[0], "message")
        return text_of(_get(msg, "content")) if msg is not None else ""
    content = _get(response, "content")
    if isinstance(content, list):  # Anthropic message
        return "\n".join(str(_get(b, "text") or "") for b in content if _get(b, "type") == "text").strip()
    output = _get(response, "output")
    if isinstance(output, list):  # Responses API
        parts = []
        for item in output:
            for block in _get(item, "content") or []:
                if _get(block, "type") in TEXT_TYPES:
                    parts.append(str(_get(block, "text") or ""))
        return "\n".join(p for p in parts if p).strip()
    return ""


def fresh_user_turn(kwargs: dict[str, Any]) -> tuple[str, str]:
    """The user's words if the request ends with them, and their position in the conversation.

    A request that ends with a tool result or an assistant prefill continues an earlier turn whose
    words were captured already: only its answer is new."""
    items = kwargs.get("messages") or kwargs.get("input")
    if isinstance(items, str):
        return items, f"1|{kwargs.get('previous_response_id') or ''}"
    items = [m for m in items or [] if _get(m, "role")]
    if not items or _get(items[-1], "role") != "user":
        return "", ""
    before = text_of(_get(items[-2], "content"))[:200] if len(items) > 1 else ""
    return text_of(_get(items[-1], "content")), f"{len(items)}|{kwargs.get('previous_response_id') or ''}|{before}"


def turn(kwargs: dict[str, Any], response: Any) -> Turn | None:
    answer = answer_text(response)
    if not answer:
        slo = kwargs.get("standard_logging_object") or {}
        answer = answer_text(slo.get("response")) if isinstance(slo, dict) else ""
    user, position = fresh_user_turn(kwargs)
    return Turn(user, answer, position) if user or answer else None


def when(value: Any) -> datetime:
    if isinstance(value, datetime):
        return value.astimezone(timezone.utc)  # LiteLLM's times are naive local time; astimezone reads them so
    if isinstance(value, (int, float)):
        return datetime.fromtimestamp(value, tz=timezone.utc)
    return datetime.now(timezone.utc)

