"""Explicit memory commands in a user's message: "remember that ...", "记住 ...", "forget ...".

Pure parsing; `MemoryService.apply_commands` carries them out at once, without an LLM.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .recall.lexical import tokenize

_REMEMBER = re.compile(
    r"^\s*(?:please\s+|pls\s+)?(?:remember|(?:make\s+a\s+)?note(?:\s+to\s+self)?)(?:\s+that)?\s*[:,：，-]?\s*(?P<x>.+?)\s*$"
    r"|^\s*(?:请)?(?:记住|记得|帮我记住|请记住)\s*[:：,，]?\s*(?P<y>.+?)\s*$",
    re.IGNORECASE | re.DOTALL,
)
_FORGET = re.compile(
    r"^\s*(?:please\s+)?forget(?:\s+that|\s+about)?\s*[:,：，]?\s*(?P<x>.+?)\s*$"
    r"|^\s*(?:请)?(?:忘记|忘掉|忘了|删除记忆)\s*[:：,，]?\s*(?P<y>.+?)\s*$",
    re.IGNORECASE | re.DOTALL,
)


@dataclass(frozen=True)
class Command:
    action: str  # "remember" | "forget"
    text: str


# "Remember when we went hiking…" and "记得我们去爬山吗" reminisce or ask; they ask nothing to be kept.
_REMINISCING = re.compile(
    r"^\s*(?:please\s+)?remember\s+(?:when|what|where|who|how|why|whether|if|the\s+(?:time|day|night|way)|us|our)\b", re.IGNORECASE
)
_ZH_QUESTION = ("吗", "么", "呢", "吧")


def parse_command(text: str) -> Command | None:
    """The command a user message opens with, if any. Only the message's start counts, so
    "do you remember the trip?" is a question, not a command."""
    first = text.strip()
    if not first or first.rstrip("。.!！ ").endswith(("?", "？", *_ZH_QUESTION)):
        return None
    for action, pattern in (("remember", _REMEMBER), ("forget", _FORGET)):
        m = pattern.match(first)
        if m:
            body = (m.group("x") or m.group("y") or "").strip().rstrip("。.!！")
            if action == "remember" and _REMINISCING.match(first):
                return None
            if len(tokenize(body)) >= 2:  # "remember me" is not a fact
                return Command(action, body)
    return None
