"""Top-level JSON arrays read one element at a time, so a 2 GB export never sits in memory whole.

Chat exports (ChatGPT's `conversations.json`, Claude.ai's, Open WebUI's) are one array of
conversations. `iter_array` decodes each element with the standard decoder as soon as its text is
buffered; the buffer holds one element (plus a read-ahead chunk), grows by doubling when an element
is larger than it, and is refused past `max_element` bytes instead of growing without bound.
"""

from __future__ import annotations

import json
from typing import IO, Any, Iterator

from ..errors import InvalidInput

CHUNK = 1 << 20
MAX_ELEMENT = 512 << 20  # one conversation larger than this is refused, not buffered
_WS = " \t\r\n"
_decoder = json.JSONDecoder()


def _constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number JSON allows")


_strict = json.JSONDecoder(parse_constant=_constant)


def iter_array(stream: IO[str], *, name: str, chunk: int = CHUNK, max_element: int = MAX_ELEMENT) -> Iterator[Any]:
    """The elements of the JSON array `stream` holds, in order. A file that is not one array (or
    is cut short) is an InvalidInput naming `name` and the element's index."""
    buf = ""
    pos = 0
    eof = False

    def more(size: int) -> bool:
        nonlocal buf, pos, eof
        if eof:
            return False
        data = stream.read(size)
        if not data:
            eof = True
            return False
        buf = buf[pos:] + data
        pos = 0
        return True

    def skip_ws() -> bool:
        """Move past whitespace; False at the end of the input."""
        nonlocal pos
        while True:
            while pos < len(buf) and buf[pos] in _WS:
                pos += 1
            if pos < len(buf):
                return True
            if not more(chunk):
                return False

    if not skip_ws() or buf[pos] != "[":
        raise InvalidInput(name, "is not a JSON array of conversations")
    pos += 1
    index = 0
    if not skip_ws():
        raise InvalidInput(name, "ends before its array closes")
    if buf[pos] == "]":
        return
    while True:
        if not skip_ws():
            raise InvalidInput(name, f"ends inside element {index}")
        want = chunk
        while True:
            try:
                value, end = _strict.raw_decode(buf, pos)
                if end == len(buf) and not eof and not isinstance(value, (dict, list, str)):
                    raise json.JSONDecodeError("number may continue", buf, end)  # a number cut by the chunk
                break
            except json.JSONDecodeError as e:
                if len(buf) - pos > max_element:
                    raise InvalidInput(name, f"element {index} is larger than {max_element:,} bytes") from None
                if not more(max(want, len(buf) - pos)):
                    raise InvalidInput(name, f"element {index} is not JSON ({e.msg})") from None
                want *= 2
            except RecursionError:
                raise InvalidInput(name, f"element {index} nests too deeply") from None
            except ValueError as e:
                raise InvalidInput(name, f"element {index}: {e}") from None
        pos = end
        yield value
        index += 1
        if not skip_ws():
            raise InvalidInput(name, f"ends after element {index - 1} without closing its array")
        c = buf[pos]
        pos += 1
        if c == "]":
            return
        if c != ",":
            raise InvalidInput(name, f"expects ',' or ']' after element {index - 1}, found {c!r}")


def first_element(stream: IO[str], *, name: str) -> Any:
    """The array's first element (for detection), or None when the array is empty."""
    for value in iter_array(stream, name=name):
        return value
    return None
