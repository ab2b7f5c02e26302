"""ChatGPT's export (Settings › Data controls › Export): one conversation → its active thread. Pure.

A conversation is a tree (`mapping` of nodes with `parent` and `children`); regenerations and edits
are other branches. The thread a person last saw runs from `current_node` back through `parent`
to the root; every other branch is left out and counted as `abandoned_branch`.

The person's custom instructions ride along in each conversation as a hidden message marked
`is_user_system_message` (`content_type: user_editable_context`, with `user_profile` and
`user_instructions`): they are not a turn of the thread, so they are counted as
`custom_instructions` and handed to the importer (`Conversation.instructions`), which keeps the
newest as profile facts labelled as imported custom instructions.

Tool traffic is not the person's conversation: what the assistant sends to a tool (`recipient`
other than "all": code for `python`, a query for `web`, a prompt for `dalle.text2im`, ...) is
counted as `tool_call`, and what a tool answers (author role `tool`) as `tool`, whatever its
content type. One exception: what the assistant sends to `bio`, ChatGPT's memory of the person
("Is vegetarian"), is what ChatGPT had learned about them, so it comes in as an assistant turn
labelled as ChatGPT's saved memory.
"""

from __future__ import annotations

from typing import Any

from .record import Conversation, Instructions, Timeline, Turn, as_list, parse_time, raw_text, turn_id

SOURCE = "chatgpt"
SKIP_TYPES = {"thoughts": "thoughts", "reasoning_recap": "thoughts", "user_editable_context": "system"}
MEMORY_TOOL = "bio"  # the recipient of ChatGPT's memory updates
MEMORY_LABEL = "[ChatGPT saved to its memory of the person]"


def is_conversation(value: Any) -> bool:
    return isinstance(value, dict) and isinstance(value.get("mapping"), dict)


def _content_text(content: Any) -> tuple[str | None, str]:
    """(the words, or None to skip with a reason in the second slot)."""
    if not isinstance(content, dict):
        return None, "empty"
    ctype = str(content.get("content_type") or "")
    if ctype in SKIP_TYPES:
        return None, SKIP_TYPES[ctype]
    if ctype in ("text", "multimodal_text"):
        parts = []
        for p in as_list(content.get("parts")):
            if isinstance(p, str):
                parts.append(p)
            elif isinstance(p, dict):  # an image, a file, audio: say it was there
                parts.append(f"[{p.get('content_type') or 'attachment'}]")
        return "\n".join(x for x in parts if x), "empty"
    if ctype == "code":
        return str(content.get("text") or ""), "empty"
    if isinstance(content.get("text"), str) and set(content) <= {"content_type", "text", "language"}:
        return content["text"], "empty"
    # a type this parser does not know: kept as it came, never dropped without a word
    return raw_text(ctype or "unknown content", {k: v for k, v in content.items() if k != "content_type"}), "empty"


def _active_path(mapping: dict[str, Any], current: Any) -> list[dict[str, Any]]:
    """Nodes from the root to `current_node` (or, without one, to the newest leaf)."""
    if not isinstance(current, str) or current not in mapping:
        leaves = [n for n in mapping.values() if isinstance(n, dict) and not n.get("children")]
        if not leaves:
            return []
        def when(n: dict[str, Any]) -> float:
            t = parse_time(((n.get("message") or {}) if isinstance(n.get("message"), dict) else {}).get("create_time"))
            return t.timestamp() if t else 0.0
        current = next((k for k, v in mapping.items() if v is max(leaves, key=when)), None)
    path: list[dict[str, Any]] = []
    seen: set[str] = set()
    node_id = current
    while isinstance(node_id, str) and node_id in mapping and node_id not in seen:
        seen.add(node_id)
        node = mapping[node_id]
        if not isinstance(node, dict):
            break
        path.append(node)
        node_id = node.get("parent")
    path.reverse()
    return path


def parse(conv: dict[str, Any], index: int = 0) -> Conversation:
    cid = str(conv.get("id") or conv.get("conversation_id") or f"conversation-{index}")
    title = conv.get("title") if isinstance(conv.get("title"), str) else None
    out = Conversation(SOURCE, cid, title)
    mapping = conv.get("mapping") or {}
    if conv.get("is_do_not_remember"):
        out.skip_all = "do_not_remember"
        out.skipped["do_not_remember"] = sum(1 for n in mapping.values() if isinstance(n, dict) and n.get("message"))
        return out
    path = _active_path(mapping, conv.get("current_node"))
    on_path = {id(n) for n in path}
    out.skipped["abandoned_branch"] = sum(
        1 for n in mapping.values() if isinstance(n, dict) and n.get("message") and id(n) not in on_path)
    times = Timeline(parse_time(conv.get("create_time")))
    for pos, node in enumerate(path):
        msg = node.get("message")
        if not isinstance(msg, dict):
            continue  # the root and other empty nodes: nothing was said
        meta = msg.get("metadata") if isinstance(msg.get("metadata"), dict) else {}
        role = (msg.get("author") or {}).get("role") if isinstance(msg.get("author"), dict) else None
        when = times.next(parse_time(msg.get("create_time")))
        if meta.get("is_user_system_message") and isinstance(msg.get("content"), dict):
            about, respond = (str(msg["content"].get(k) or "").strip() for k in ("user_profile", "user_instructions"))
            if about or respond:
                out.instructions.append(Instructions(turn_id(SOURCE, msg.get("id") or node.get("id"), cid, pos), about, respond, when))
                out.skipped["custom_instructions"] += 1
                continue
        if meta.get("is_visually_hidden_from_conversation"):
            out.skipped["hidden"] += 1
            continue
        if role == "system" or meta.get("is_user_system_message"):
            out.skipped["system"] += 1
            continue
        if role not in ("user", "assistant"):
            out.skipped["tool"] += 1  # a tool's answer (code output, search results, "memory updated")
            continue
        recipient = msg.get("recipient") if isinstance(msg.get("recipient"), str) and msg.get("recipient") else "all"
        if role == "assistant" and recipient not in ("all", MEMORY_TOOL):
            out.skipped["tool_call"] += 1
            continue
        text, reason = _content_text(msg.get("content"))
        if text is None or not text.strip():
            out.skipped[reason] += 1
            continue
        if role == "assistant" and recipient == MEMORY_TOOL:
            text = f"{MEMORY_LABEL} {text.strip()}"
        out.turns.append(Turn(turn_id(SOURCE, msg.get("id") or node.get("id"), cid, pos), role, text, when))
    return out
