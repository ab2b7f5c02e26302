"""Claude Code's session transcripts (`~/.claude/projects/<project>/<session>.jsonl`). Pure.

Each line is an event: `{type: user|assistant|summary|..., uuid, parentUuid, sessionId, timestamp,
isSidechain, isMeta, message: {role, content: str | [blocks]}}`. Only what a person said and the
assistant's prose come in: a user line that carries tool results, every tool_use and thinking
block, meta lines (the client's own notes) and sidechains (sub-agents talking to each other) stay
out, so file contents and `.env` files a tool read never reach memory.
"""

from __future__ import annotations

from typing import Any, Iterable

from .record import Conversation, Timeline, Turn, parse_time, turn_id

SOURCE = "claude-code"
# what a shell command or slash command printed, echoed into the transcript as a user line
TOOL_OUTPUT_TAGS = ("<bash-stdout>", "<bash-stderr>", "<local-command-stdout>", "<local-command-stderr>", "<bash-input>")


def is_event(value: Any) -> bool:
    return isinstance(value, dict) and "sessionId" in value and "type" in value


def _text(content: Any) -> tuple[str, bool]:
    """(the prose, whether the line carried tool traffic)."""
    if isinstance(content, str):
        return content, False
    texts, tools = [], False
    for b in content if isinstance(content, list) else []:
        if not isinstance(b, dict):
            continue
        if b.get("type") == "text" and isinstance(b.get("text"), str):
            texts.append(b["text"])
        elif b.get("type") in ("tool_use", "tool_result"):
            tools = True
    return "\n".join(texts), tools


def parse(events: Iterable[dict[str, Any]], session_hint: str) -> Conversation:
    """One session file's events → one conversation (its events in file order)."""
    out: Conversation | None = None
    times: Timeline | None = None
    pos = 0
    for ev in events:
        pos += 1
        if not isinstance(ev, dict):
            continue
        if out is None:
            sid = str(ev.get("sessionId") or session_hint)
            out = Conversation(SOURCE, sid, None)
            times = Timeline(parse_time(ev.get("timestamp")))
        if ev.get("type") == "summary" and isinstance(ev.get("summary"), str) and out.title is None:
            out.title = ev["summary"]
        if ev.get("type") not in ("user", "assistant"):
            continue
        assert times is not None
        when = times.next(parse_time(ev.get("timestamp")))
        if ev.get("isSidechain"):
            out.skipped["sidechain"] += 1
            continue
        if ev.get("isMeta"):
            out.skipped["system"] += 1
            continue
        msg = ev.get("message") if isinstance(ev.get("message"), dict) else {}
        text, tools = _text(msg.get("content"))
        if not text.strip():
            out.skipped["tool" if tools else "empty"] += 1
            continue
        if ev["type"] == "user" and (tools or text.lstrip().startswith(TOOL_OUTPUT_TAGS)):
            out.skipped["tool"] += 1
            continue
        out.turns.append(Turn(turn_id(SOURCE, ev.get("uuid"), out.id, pos), "user" if ev["type"] == "user" else "assistant", text, when))
    return out or Conversation(SOURCE, session_hint, None)
