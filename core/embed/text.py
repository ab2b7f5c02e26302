"""What an embedder may be given: text made safe for native code and bounded in size. Pure.

Every text goes through `prepare` before any embedder sees it:
- NFKC first. A compatibility character can expand a lot (U+FDFA, 3 bytes, becomes 18
  characters); a tokenizer that sizes its buffers from the byte length then writes past them.
  After NFKC the expansion has happened in Python, where it is only memory.
- Lone surrogates become U+FFFD (they cannot be encoded as UTF-8 at all); NUL and other control
  and format characters (bidi overrides, zero-width joiners) are dropped: they carry no meaning
  for a vector and C strings stop at NUL.
- At most `MAX_EMBED_CHARS` characters reach the model: the head and the tail of a longer text.
  The model reads 512 tokens; what lies between the first and the last few thousand characters
  only costs time (embedding grows linearly with length: 8 000 words took 31 s).
"""

from __future__ import annotations

import re
import unicodedata

# ~4 windows of English text, ~8 of CJK: enough for the worker to cut exact token windows from.
MAX_EMBED_CHARS = 8000
_GAP = " … "
_SURROGATE = re.compile("[\ud800-\udfff]")
_KEEP_CONTROL = {"\n", "\t"}


def _keep(ch: str) -> bool:
    cat = unicodedata.category(ch)
    if cat == "Cc":
        return ch in _KEEP_CONTROL
    return cat not in ("Cf", "Cs", "Co", "Cn") or ch == "\ufffd"


def prepare(text: str, max_chars: int = MAX_EMBED_CHARS) -> str:
    """`text` as the embedder may see it: normalised, cleaned, at most `max_chars` characters."""
    if not isinstance(text, str):
        text = str(text)
    # cap before normalising too: NFKC of a megabyte of expanding characters is itself costly
    text = _head_tail(text, 4 * max_chars)
    text = _SURROGATE.sub("\ufffd", text)
    text = unicodedata.normalize("NFKC", text)
    if not text.isascii() or any(ord(c) < 32 and c not in _KEEP_CONTROL for c in text):
        text = "".join(ch for ch in text if _keep(ch))
    return _head_tail(text, max_chars)


def _head_tail(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    half = (limit - len(_GAP)) // 2
    return text[:half] + _GAP + text[len(text) - half :]
