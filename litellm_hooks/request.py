"""The three request shapes the hook serves, read and rewritten in one place.

- chat:      /chat/completions   messages (system inside), tools; metadata in data["metadata"]
- messages:  /v1/messages        messages, system apart, tools; metadata in data["litellm_metadata"]
- responses: /responses          input (string or items), instructions; metadata in data["litellm_metadata"]
"""

from __future__ import annotations

from typing import Any

from core import CacheTarget, Planned, count_marks, plan_cache, strip_patch

CALL_KINDS = {
    "completion": "chat",
    "acompletion": "chat",
    "anthropic_messages": "messages",
    "aanthropic_messages": "messages",
    "responses": "responses",
    "aresponses": "responses",
}
TEXT_TYPES = ("text", "input_text", "output_text")


def kind_of(call_type: Any) -> str | None:
    return CALL_KINDS.get(str(getattr(call_type, "value", call_type)))


def metadata_of(data: dict[str, Any], kind: str) -> dict[str, Any]:
    """The request's LiteLLM metadata dict (created if missing)."""
    key = "metadata" if kind == "chat" else "litellm_metadata"
    meta = data.get(key)
    if not isinstance(meta, dict):
        meta = {}
        data[key] = meta
    return meta


def text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") in TEXT_TYPES]
        return "\n".join(p for p in parts if p)
    return ""


def _items(data: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    if kind == "responses":
        value = data.get("input")
        if isinstance(value, str):
            return [{"role": "user", "content": value}]
        return [i for i in value or [] if isinstance(i, dict) and i.get("role")]
    return [m for m in data.get("messages") or [] if isinstance(m, dict)]


def last_user_text(data: dict[str, Any], kind: str) -> str:
    """What the user just said: the text of the last user message that has any."""
    for msg in reversed(_items(data, kind)):
        if msg.get("role") == "user":
            text = text_of(msg.get("content")).strip()
            if text:
                return text
    return ""


def turn_texts(data: dict[str, Any], kind: str) -> list[str]:
    """The words of every user and assistant turn the request carries (Amber's own block removed):
    recall must not inject back what the model is about to read anyway."""
    out = []
    for msg in _items(data, kind):
        if msg.get("role") in ("user", "assistant"):
            text = strip_patch(text_of(msg.get("content")))
            if text:
                out.append(text)
    return out


def apply(data: dict[str, Any], kind: str, patch: str, target: CacheTarget, boot_pack: str = "") -> Planned:
    """Place the patch and anchors into `data` (in place: LiteLLM forwards this dict)."""
    tool_marks = count_marks(data.get("tools"))
    if kind == "chat":
        planned = plan_cache(data.get("messages") or [], patch, target, existing_marks=tool_marks, boot_pack=boot_pack)
        data["messages"] = planned.messages
    elif kind == "messages":
        planned = plan_cache(
            data.get("messages") or [], patch, target, system=data.get("system"), system_apart=True,
            existing_marks=tool_marks, boot_pack=boot_pack,
        )
        data["messages"] = planned.messages
        if planned.system is not None:
            data["system"] = planned.system
    else:
        value = data.get("input")
        items = [{"role": "user", "content": value}] if isinstance(value, str) else list(value or [])
        # Responses API items carry input_text blocks; marks are not planned for this route
        responses_target = CacheTarget(claude=False, block_type="input_text")
        planned = plan_cache(items, patch, responses_target)
        data["input"] = planned.messages
    return planned
