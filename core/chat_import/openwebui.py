"""Open WebUI's chat export (Settings › Chats › Export, or the admin's "export all chats"): one
chat → its active thread. Pure.

An exported chat is `{id, user_id, title, created_at, chat: {history: {messages: {id: {id, parentId,
childrenIds, role, content, timestamp, model}}, currentId}, messages: [...]}}`. The thread runs
from `history.currentId` back through `parentId` (other branches are regenerations); a chat
without a history is taken from `chat.messages` in order. Open WebUI's database (`webui.db`) holds
the same chat JSON in its `chat` table and is read too (openwebui_db.py). An admin's export of
everyone's chats, like the database, names each chat's `user_id` (see `owner`): the importer takes
only the accounts that are the importing person's (openwebui_db.owners_for).

Turns are named as Amber's Open WebUI filter names them when it captures them live: a question
`owui-<message id>`, its answer `owui-<question id>-reply`, the session the chat's id. A chat the
filter already captured is then found as already stored instead of coming in a second time.
"""

from __future__ import annotations

from typing import Any

from .record import Conversation, Timeline, Turn, as_list, clean_id, parse_time, turn_id

SOURCE = "openwebui"


def is_conversation(value: Any) -> bool:
    return isinstance(value, dict) and isinstance(value.get("chat"), dict) and (
        isinstance(value["chat"].get("history"), dict) or isinstance(value["chat"].get("messages"), list))


def owner(value: dict[str, Any]) -> str | None:
    u = value.get("user_id")
    return str(u) if u not in (None, "") else None


def _thread(chat: dict[str, Any]) -> tuple[list[dict[str, Any]], int]:
    history = chat.get("history") if isinstance(chat.get("history"), dict) else {}
    nodes = history.get("messages") if isinstance(history.get("messages"), dict) else {}
    current = history.get("currentId")
    if nodes and isinstance(current, str) and current in nodes:
        path, seen, node = [], set(), current
        while isinstance(node, str) and node in nodes and node not in seen and isinstance(nodes[node], dict):
            seen.add(node)
            path.append(nodes[node])
            node = nodes[node].get("parentId")
        return path[::-1], len(nodes) - len(path)
    listed = [m for m in as_list(chat.get("messages")) if isinstance(m, dict)]
    return listed, 0


def parse(item: dict[str, Any], index: int = 0) -> Conversation:
    chat = item.get("chat") if isinstance(item.get("chat"), dict) else {}
    cid = str(item.get("id") or chat.get("id") or f"chat-{index}")
    title = item.get("title") or chat.get("title")
    out = Conversation(SOURCE, cid, title if isinstance(title, str) else None, session_key=clean_id(cid) or None)
    thread, abandoned = _thread(chat)
    question, replies = "", 0
    out.skipped["abandoned_branch"] = abandoned
    times = Timeline(parse_time(item.get("created_at") or chat.get("timestamp")))
    for pos, m in enumerate(thread):
        when = times.next(parse_time(m.get("timestamp")))
        role = m.get("role")
        if role not in ("user", "assistant"):
            out.skipped["system" if role == "system" else "tool"] += 1
            continue
        content = m.get("content")
        if isinstance(content, list):  # OpenAI-style parts
            content = "\n".join(p.get("text", "") for p in content if isinstance(p, dict) and isinstance(p.get("text"), str))
        if not isinstance(content, str) or not content.strip():
            out.skipped["empty"] += 1
            continue
        mid = clean_id(m.get("id"))
        if role == "user" and mid:
            question, replies = f"owui-{mid}", 0
            tid = question
        elif role == "assistant" and question:
            replies += 1
            tid = f"{question}-reply" if replies == 1 else f"{question}-reply-{replies}"
        else:
            question = "" if role == "user" else question
            tid = turn_id(SOURCE, m.get("id"), cid, pos)
        out.turns.append(Turn(tid, role, content, when))
    return out
