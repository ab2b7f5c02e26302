"""Images for models that cannot see them: a vision model describes each one, the text goes on.

Opt-in (`Settings.vision_model`). When a request carries images and its target has no vision, each
image block is replaced where it stands by one text block

    [Image described by <vision model>: <description>]

so the conversation keeps its order and the target reads what it could not see. The description
is the user's content, not memory: it never goes into Amber's `<memory_context>` patch, and the
system prompt and tools are not touched.

Block shapes found (in any message; Anthropic tool results one level down):
- OpenAI chat: {"type": "image_url", "image_url": {"url": "https://... | data:image/png;base64,..."}}
  (LiteLLM also takes "image_url": "<url>")
- Anthropic:   {"type": "image", "source": {"type": "base64", "media_type": ..., "data": ...}}
               {"type": "image", "source": {"type": "url", "url": "https://..."}}
A client's cache mark on an image block moves to its text block, so the count of marks holds.

`find_images`, `replace_images` and `frame` are pure. `VisionRelay` asks the vision model through
the LLM port (whose calls are tagged internal, so capture skips them) and remembers answers per
image: clients re-send a conversation's images every turn, and a description that changed between
turns would change the prompt prefix and miss the prompt cache.
"""

from __future__ import annotations

import asyncio
import copy
import hashlib
import hmac
import os
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from core import LLM

DESCRIBE_PROMPT = (
    "Describe this image for a reader who cannot see it, so that they can answer questions about it. "
    "Transcribe any visible text exactly. Name the people, objects, layout, colours, numbers and, for "
    "charts or tables, their values. Be factual and say nothing you cannot see. Reply with the description only."
)


@dataclass(frozen=True)
class ImageRef:
    path: tuple[int, ...]  # (message, block) or (message, tool_result block, block inside it)
    url: str  # what the vision model is sent: an http(s) URL or a data: URL


def image_url(block: Any) -> str | None:
    """The URL a vision model can be given for an image block of either shape; None otherwise."""
    if not isinstance(block, dict):
        return None
    kind = block.get("type")
    if kind == "image_url":
        value = block.get("image_url")
        url = value.get("url") if isinstance(value, dict) else value
        return url if isinstance(url, str) and url else None
    if kind == "image":
        src = block.get("source")
        if not isinstance(src, dict):
            return None
        if src.get("type") == "base64" and isinstance(src.get("data"), str) and src["data"]:
            return f"data:{src.get('media_type') or 'image/png'};base64,{src['data']}"
        if src.get("type") == "url" and isinstance(src.get("url"), str) and src["url"]:
            return src["url"]
    return None  # file ids and unknown shapes cannot be sent on: left as they are


def find_images(messages: Sequence[Any] | None) -> list[ImageRef]:
    out: list[ImageRef] = []
    for i, msg in enumerate(messages or []):
        content = msg.get("content") if isinstance(msg, dict) else None
        if not isinstance(content, list):
            continue
        for j, block in enumerate(content):
            url = image_url(block)
            if url:
                out.append(ImageRef((i, j), url))
            elif isinstance(block, dict) and block.get("type") == "tool_result" and isinstance(block.get("content"), list):
                out += [ImageRef((i, j, k), u) for k, inner in enumerate(block["content"]) if (u := image_url(inner))]
    return out


def frame(model: str, description: str) -> str:
    return f"[Image described by {model}: {description.strip()}]"


def replace_images(messages: list[Any], texts: Mapping[tuple[int, ...], str]) -> list[Any]:
    """New messages with the block at each path replaced by a text block carrying its cache mark.

    Inputs are not mutated; with nothing to replace the same list comes back."""
    if not texts:
        return messages
    out = list(messages)
    for i in sorted({path[0] for path in texts}):
        msg = copy.deepcopy(out[i])
        for path, text in texts.items():
            if path[0] != i:
                continue
            blocks = msg["content"] if len(path) == 2 else msg["content"][path[1]]["content"]
            old = blocks[path[-1]]
            new: dict[str, Any] = {"type": "text", "text": text}
            if isinstance(old, dict) and old.get("cache_control"):
                new["cache_control"] = old["cache_control"]
            blocks[path[-1]] = new
        out[i] = msg
    return out


class VisionRelay:
    """Describes a request's images with `llm` (named `model` in the framing) and swaps them for text."""

    def __init__(self, llm: LLM, model: str, *, prompt: str = DESCRIBE_PROMPT, max_chars: int = 4000, remember: int = 256):
        self.llm = llm
        self.model = model
        self.prompt = prompt
        self.max_chars = max_chars
        self.remember = remember
        # (person, image) digest -> description: a person's next turn re-sends the image, gets the same
        # words and keeps the prompt cache warm. Per person: shared, one person's image (a signed URL
        # since expired, a photo of a lab report) would be described to anyone who sends its URL, and
        # a quick answer would tell them someone had. A private or unnamed request keeps nothing.
        self._known: OrderedDict[bytes, str] = OrderedDict()
        self._salt = os.urandom(32)

    async def describe(self, url: str, person: str | None = None) -> str:
        key = hmac.new(self._salt, f"{person}\x1f{url}".encode("utf-8", "surrogatepass"), hashlib.sha256).digest() if person else None
        if key is not None and key in self._known:
            self._known.move_to_end(key)
            return self._known[key]
        content = [{"type": "text", "text": self.prompt}, {"type": "image_url", "image_url": {"url": url}}]
        text, _ = await self.llm.complete([{"role": "user", "content": content}], purpose="vision")
        text = text.strip()[: self.max_chars]
        if key is None:
            return text
        self._known[key] = text
        while len(self._known) > self.remember:
            self._known.popitem(last=False)
        return text

    async def relay(self, messages: list[Any], person: str | None = None) -> list[Any]:
        """`messages` with every image described; the same list when there is none. Raises if any
        description fails, so the caller keeps the request as sent rather than half-described.
        `person`: whose descriptions these are, to keep for their next turn (None: kept for nobody)."""
        refs = find_images(messages)
        if not refs:
            return messages
        urls = list(dict.fromkeys(r.url for r in refs))
        results = await asyncio.gather(*(self.describe(u, person) for u in urls), return_exceptions=True)
        failed = next((r for r in results if isinstance(r, BaseException)), None)
        if failed is not None:
            raise failed
        by_url = dict(zip(urls, results))
        return replace_images(messages, {r.path: frame(self.model, str(by_url[r.url])) for r in refs})
