"""Where the memory patch goes and which blocks get a prompt-cache mark. Pure: values in, values out.

Anthropic caches the prefix tools -> system -> messages up to a block marked `cache_control`; a hit
needs a byte-identical prefix, at most 4 marks are allowed per request, and a mark only finds an
earlier entry within ~20 blocks before it. Fresh memory in the system prompt would change the prefix
every turn, so the plan keeps system and tools untouched and puts the patch at the very end, after
every mark, where it costs one uncached block per turn and breaks nothing:

- the patch is appended, unmarked, as the last content block of the last user message;
- tail anchor: the block just before the patch, so this turn writes the whole history and the next
  turn (whose history holds the same message without the patch) reads it;
- system anchor: the end of the system prompt (before the boot pack, which changes daily), so new
  conversations with the same system prompt start warm;
- bridge anchor: the previous turn's tail, when it lies beyond the lookback from the new tail;
- never more than `max_marks` in total, counting the client's own marks (and tools' marks, passed in).

Non-Claude targets get the same placement (their automatic prefix caches benefit too) and no marks.
Both OpenAI-style messages (system inside `messages`) and Anthropic-style requests (`system` apart)
are handled; the content-block shapes are the same `{"type": "text", "text": ...}` in both.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any, Sequence

SYSTEM_ROLES = ("system", "developer")


@dataclass(frozen=True)
class Target:
    """What the upstream model can do with the request."""

    claude: bool = False  # honours cache_control marks
    ttl: str = "5m"  # "5m" or "1h"
    max_marks: int = 4
    lookback: int = 20
    block_type: str = "text"  # "input_text" for the Responses API


@dataclass(frozen=True)
class Planned:
    messages: list[dict[str, Any]]
    system: Any = None  # the Anthropic-style `system` value to send (None when there was none)
    anchors: tuple[str, ...] = field(default_factory=tuple)  # which anchors were added, in order
    marks_total: int = 0


def cache_mark(ttl: str) -> dict[str, str]:
    # 5m is the API default; only 1h needs saying (and stays valid on older gateways that way).
    return {"type": "ephemeral", "ttl": "1h"} if ttl == "1h" else {"type": "ephemeral"}


def count_marks(value: Any) -> int:
    """cache_control marks anywhere in a request part (messages, system, tools)."""
    if isinstance(value, dict):
        own = 1 if value.get("cache_control") else 0
        return own + sum(count_marks(v) for k, v in value.items() if k != "cache_control")
    if isinstance(value, list):
        return sum(count_marks(v) for v in value)
    return 0


def _mark_ttls(value: Any) -> set[str]:
    if isinstance(value, dict):
        out = {value["cache_control"].get("ttl", "5m")} if isinstance(value.get("cache_control"), dict) else set()
        for k, v in value.items():
            if k != "cache_control":
                out |= _mark_ttls(v)
        return out
    if isinstance(value, list):
        return set().union(*(_mark_ttls(v) for v in value)) if value else set()
    return set()


def _blocks(content: Any, block_type: str) -> list[dict[str, Any]]:
    if isinstance(content, list):
        return content
    if content is None or content == "":
        return []
    return [{"type": block_type, "text": str(content)}]


def _block_count(msg: dict[str, Any]) -> int:
    """Blocks a message turns into upstream: its content blocks plus one per tool call."""
    content = msg.get("content")
    n = len(content) if isinstance(content, list) else (1 if content else 0)
    return n + len(msg.get("tool_calls") or [])


def _markable(block: Any) -> bool:
    if not isinstance(block, dict) or block.get("cache_control"):
        return False
    if block.get("type") in ("thinking", "redacted_thinking"):
        return False  # the API refuses marks on thinking blocks
    return not (block.get("type") in ("text", "input_text") and not block.get("text"))


def plan(
    messages: Sequence[dict[str, Any]],
    patch: str,
    target: Target,
    *,
    system: Any = None,
    system_apart: bool = False,
    existing_marks: int = 0,
    boot_pack: str = "",
) -> Planned:
    """New messages (and system) with the patch placed and anchors added. Inputs are not mutated.

    `system_apart`: Anthropic-style request whose system prompt is `system`, not a message.
    `existing_marks`: marks outside `messages` and `system` (e.g. on tools) that count toward the limit.
    """
    msgs = copy.deepcopy(list(messages))
    sys_value = copy.deepcopy(system)
    touch = bool(patch) or target.claude  # plain strings become block lists only when needed

    # -- system: anchor on its last block; the boot pack goes after that block
    sys_anchor: dict[str, Any] | None = None
    if system_apart:
        blocks = _blocks(sys_value, "text")
        sys_anchor = blocks[-1] if blocks else None
        if boot_pack:
            blocks.append({"type": "text", "text": boot_pack})
        if blocks and (boot_pack or target.claude):
            sys_value = blocks
    elif msgs and msgs[0].get("role") in SYSTEM_ROLES:
        s = _last_leading_system(msgs)
        blocks = _blocks(msgs[s].get("content"), "text")
        sys_anchor = blocks[-1] if blocks else None
        if boot_pack:
            blocks.append({"type": "text", "text": boot_pack})
        if boot_pack or target.claude:
            msgs[s] = {**msgs[s], "content": blocks}
    elif boot_pack:
        msgs.insert(0, {"role": "system", "content": [{"type": "text", "text": boot_pack}]})

    # -- the patch: last content block of the last user message, unmarked
    u = next((i for i in range(len(msgs) - 1, -1, -1) if msgs[i].get("role") == "user"), None)
    tail: dict[str, Any] | None = None
    bridge: dict[str, Any] | None = None
    if u is not None:
        if target.claude:
            bridge = _bridge_block(msgs, u, target.lookback)
        blocks = _blocks(msgs[u].get("content"), target.block_type)
        if touch:
            msgs[u] = {**msgs[u], "content": blocks}
        tail = blocks[-1] if blocks else None
        if patch:
            blocks.append({"type": target.block_type, "text": patch})

    total = existing_marks + count_marks(msgs) + count_marks(sys_value)
    if not target.claude:
        return Planned(msgs, sys_value, (), total)

    # Longer-lived marks must precede shorter ones: follow the client's shortest TTL.
    ttl = "5m" if target.ttl == "1h" and (_mark_ttls(msgs) | _mark_ttls(sys_value)) - {"1h"} else target.ttl
    added: list[str] = []
    for name, block in (("tail", tail), ("system", sys_anchor), ("bridge", bridge)):
        if total >= target.max_marks:
            break
        if block is not None and _markable(block):
            block["cache_control"] = cache_mark(ttl)
            added.append(name)
            total += 1
    return Planned(msgs, sys_value, tuple(added), total)


def _last_leading_system(msgs: list[dict[str, Any]]) -> int:
    i = 0
    while i + 1 < len(msgs) and msgs[i + 1].get("role") in SYSTEM_ROLES:
        i += 1
    return i


def _bridge_block(msgs: list[dict[str, Any]], u: int, lookback: int) -> dict[str, Any] | None:
    """The previous turn's tail (last block of the user message before this one), when the new tail
    cannot see it within the lookback window. Called before the patch is placed."""
    p = next((i for i in range(u - 1, -1, -1) if msgs[i].get("role") == "user"), None)
    if p is None:
        return None
    distance = sum(_block_count(m) for m in msgs[p + 1 : u + 1])
    if distance <= lookback:
        return None
    content = msgs[p].get("content")
    if isinstance(content, str) and content:
        msgs[p] = {**msgs[p], "content": [{"type": "text", "text": content}]}
        content = msgs[p]["content"]
    return content[-1] if isinstance(content, list) and content else None
