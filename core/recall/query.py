"""Query shaping: what each arm is asked. Pure.

A face passes the user's last message, or the last few turns of a conversation, one per line.
The dense arm embeds only the tail: the last `max_lines` non-empty lines, at most `max_chars`
characters (cut at a word boundary). What was said last is what the memory should answer, and
the embedding cost of a pasted page would otherwise blow the latency budget. The lexical arm
reads the whole text up to a larger cap, because a rare word anywhere in it is a good clue.
"""

from __future__ import annotations

LEXICAL_MAX_CHARS = 4000


def dense_query(text: str, max_lines: int, max_chars: int) -> str:
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    tail = "\n".join(lines[-max_lines:]) if max_lines > 0 else "\n".join(lines)
    if len(tail) <= max_chars:
        return tail
    cut = tail[-max_chars:]
    space = cut.find(" ")
    # cut at a word boundary for spaced scripts; CJK text has none to find and is cut as is
    return cut[space + 1 :] if 0 <= space < max_chars // 4 else cut


def lexical_query(text: str, max_chars: int = LEXICAL_MAX_CHARS) -> str:
    return text if len(text) <= max_chars else text[-max_chars:]
