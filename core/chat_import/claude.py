"""Claude.ai's export: one conversation (`chat_messages`) → its active thread. Pure.

A message's words come from its `content[]` text blocks, else its `text`, then its attachments'
`extracted_content`; thinking and tool blocks are left out. Messages form a tree through
`parent_message_uuid` (the root's parent is the all-zeros uuid): the thread is the one ending at
`current_leaf_message_uuid` when the export names it, else at each branch the child whose subtree
holds the newest message. An export without parents is one thread in its stored order.
"""

from __future__ import annotations

from typing import Any

from .record import Conversation, Timeline, Turn, as_list, parse_time, raw_text, turn_id

SOURCE = "claude"
ROOT = "00000000-0000-4000-8000-000000000000"
SKIP_BLOCKS = {"thinking", "redacted_thinking", "tool_use", "tool_result", "server_tool_use", "web_search_tool_result"}


def is_conversation(value: Any) -> bool:
    return isinstance(value, dict) and isinstance(value.get("chat_messages"), list)


def _words(msg: dict[str, Any]) -> str:
    texts: list[str] = []
    for b in as_list(msg.get("content")):
        if not isinstance(b, dict):
            continue
        kind = b.get("type") if isinstance(b.get("type"), str) else ""
        if kind == "text" and isinstance(b.get("text"), str):
            texts.append(b["text"])
        elif kind not in SKIP_BLOCKS:  # a block this parser does not know: kept as it came
            texts.append(raw_text(kind or "unknown block", {k: v for k, v in b.items() if k not in ("type", "start_timestamp", "stop_timestamp")}))
    body = "\n".join(t for t in texts if t.strip())
    if not body.strip() and isinstance(msg.get("text"), str):
        body = msg["text"]
    for a in as_list(msg.get("attachments")):
        if isinstance(a, dict) and isinstance(a.get("extracted_content"), str) and a["extracted_content"].strip():
            body += f"\n\n[attachment: {a.get('file_name') or 'file'}]\n{a['extracted_content']}"
    return body.strip()


def _active(msgs: list[dict[str, Any]], leaf: Any) -> list[dict[str, Any]]:
    by_id = {str(m.get("uuid")): m for m in msgs if m.get("uuid")}
    parents = {k: str(m.get("parent_message_uuid") or "") for k, m in by_id.items()}
    if not any(p and p != ROOT for p in parents.values()):
        return msgs  # no tree: the export's order is the thread
    if isinstance(leaf, str) and leaf in by_id:
        path, seen, node = [], set(), leaf
        while node in by_id and node not in seen:
            seen.add(node)
            path.append(by_id[node])
            node = parents[node]
        return path[::-1]
    children: dict[str, list[str]] = {}
    for k, p in parents.items():
        children.setdefault(p if p in by_id else ROOT, []).append(k)
    newest: dict[str, float] = {}

    def subtree_newest(k: str) -> float:
        stack, order = [k], []
        while stack:  # iterative: a deep thread must not hit the recursion limit
            x = stack.pop()
            order.append(x)
            stack.extend(c for c in children.get(x, []) if c not in newest and c != x)
        for x in reversed(order):
            t = parse_time(by_id[x].get("created_at"))
            own = t.timestamp() if t else 0.0
            newest[x] = max([own, *(newest.get(c, 0.0) for c in children.get(x, []))])
        return newest[k]

    path, node, seen = [], ROOT, set()
    while children.get(node):
        best = max(children[node], key=lambda c: (subtree_newest(c) if c not in newest else newest[c], c))
        if best in seen:
            break
        seen.add(best)
        path.append(by_id[best])
        node = best
    return path


def is_project(value: Any) -> bool:
    """An entry of `projects.json`: a project with its documents."""
    return isinstance(value, dict) and isinstance(value.get("docs"), list) and "chat_messages" not in value


def parse_project(proj: dict[str, Any], index: int = 0) -> Conversation:
    """A project's documents, each one turn labelled as an imported document (the person put them
    there as context for their chats); the project's own instructions likewise."""
    pid = str(proj.get("uuid") or f"project-{index}")
    name = proj.get("name") if isinstance(proj.get("name"), str) and proj.get("name") else None
    out = Conversation(SOURCE, f"project:{pid}", name)
    times = Timeline(parse_time(proj.get("created_at")))
    label = f"Claude project {name!r}" if name else "a Claude project"
    template = proj.get("prompt_template")
    if isinstance(template, str) and template.strip():
        out.turns.append(Turn(turn_id(SOURCE, f"project-instructions-{pid}", pid, 0), "user",
                              f"[imported instructions of {label}]\n{template.strip()}", times.next(parse_time(proj.get("updated_at")))))
    for pos, doc in enumerate(as_list(proj.get("docs")), start=1):
        if not isinstance(doc, dict) or not isinstance(doc.get("content"), str) or not doc["content"].strip():
            out.skipped["empty"] += 1
            continue
        when = times.next(parse_time(doc.get("created_at")))
        fname = doc.get("filename") if isinstance(doc.get("filename"), str) else "document"
        out.turns.append(Turn(turn_id(SOURCE, doc.get("uuid") and f"doc-{doc.get('uuid')}", pid, pos), "user",
                              f"[imported document {fname} from {label}]\n{doc['content'].strip()}", when))
    return out


def parse(conv: dict[str, Any], index: int = 0) -> Conversation:
    cid = str(conv.get("uuid") or f"conversation-{index}")
    title = conv.get("name") if isinstance(conv.get("name"), str) and conv.get("name") else None
    out = Conversation(SOURCE, cid, title)
    msgs = [m for m in as_list(conv.get("chat_messages")) if isinstance(m, dict)]
    thread = _active(msgs, conv.get("current_leaf_message_uuid"))
    out.skipped["abandoned_branch"] = len(msgs) - len(thread)
    times = Timeline(parse_time(conv.get("created_at")))
    for pos, m in enumerate(thread):
        when = times.next(parse_time(m.get("created_at")))
        role = {"human": "user", "assistant": "assistant"}.get(str(m.get("sender")))
        if role is None:
            out.skipped["system"] += 1
            continue
        text = _words(m)
        if not text:
            out.skipped["empty"] += 1
            continue
        out.turns.append(Turn(turn_id(SOURCE, m.get("uuid"), cid, pos), role, text, when))
    return out
