"""
title: Amber Memory
author: Amber
version: 0.1.0
license: MIT
required_open_webui_version: 0.12.0
description: Long-term memory from an Amber host. Before each reply it recalls what this user told any of their AI clients and adds it to the last message; after each reply it saves the exchange. Explicit "remember ..." takes effect at once.
"""

# One file, pasted into Admin -> Functions (or created through Open WebUI's API). It is an HTTP
# client of the Amber memory host (`amber serve`, or the LiteLLM proxy at /memory) and imports
# only what Open WebUI itself ships. Open WebUI keeps one Filter instance per function id and
# shares it between all users and requests, so nothing about a request is ever stored on `self`.

from __future__ import annotations

import asyncio
import copy
import fnmatch
import hashlib
import logging
import time
import unicodedata
from datetime import datetime, timedelta, timezone
from typing import Any, Awaitable, Callable, Optional

import httpx
from pydantic import BaseModel, Field

log = logging.getLogger("amber.openwebui")

OPEN = "<memory_context>"
CLOSE = "</memory_context>"
CLIENT = "open-webui"
MAX_QUERY_CHARS = 4000
MAX_TURN_CHARS = 100_000  # Amber's MESSAGE_MAX_CHARS: a longer turn is kept as its head and tail


def clip(text: str, limit: int = MAX_TURN_CHARS) -> str:
    """A captured turn cut to what Amber stores, saying so (a long paste is kept, not refused)."""
    if len(text) <= limit:
        return text
    keep = limit - 64
    note = f"\n[… {len(text) - keep} characters not kept …]\n"
    return text[: keep // 2] + note + text[len(text) - (keep - keep // 2) :]

FINGERPRINT_CHARS = 1000  # Amber's core.fingerprint, which this copies (a test keeps them equal)


def fingerprint(text: str) -> str:
    """A turn's digest as Amber computes it: recall leaves out turns the chat already shows."""
    norm = " ".join(unicodedata.normalize("NFKC", text).casefold().split())[:FINGERPRINT_CHARS]
    return hashlib.sha256(norm.encode("utf-8", "surrogatepass")).hexdigest()[:16]


Emitter = Optional[Callable[[dict], Awaitable[Any]]]

# Captures still in flight. asyncio keeps only weak references to tasks, so a task nobody holds
# can be collected before it runs; this set is a process-wide registry, not per-request state.
_PENDING: set[asyncio.Task] = set()


def strip_patch(text: str) -> str:
    """Remove every memory block this filter (or Amber's proxy hook) added to a text."""
    if OPEN not in text:
        return text
    while OPEN in text:
        start = text.index(OPEN)
        end = text.find(CLOSE, start)
        text = text[:start] if end < 0 else text[:start] + text[end + len(CLOSE) :]
    return text.strip()


def content_text(content: Any) -> str:
    """The text of a message's content, whether a string or a list of OpenAI-style parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [p.get("text", "") for p in content if isinstance(p, dict) and p.get("type") == "text"]
        return "\n".join(p for p in parts if p)
    return ""


def strip_content(content: Any) -> Any:
    """Content with memory blocks removed; list parts holding only a block are dropped."""
    if isinstance(content, str):
        return strip_patch(content)
    if isinstance(content, list):
        out = []
        for part in content:
            if isinstance(part, dict) and part.get("type") == "text" and OPEN in (part.get("text") or ""):
                text = strip_patch(part["text"])
                if not text:
                    continue
                part = {**part, "text": text}
            out.append(part)
        return out
    return content


def with_patch(content: Any, patch: str) -> Any:
    """Content with the patch at its very end, so everything before it stays byte-identical
    (the provider's prompt cache keeps hitting on the history)."""
    if isinstance(content, list):
        return [*strip_content(content), {"type": "text", "text": patch}]
    return f"{strip_patch(content or '')}\n\n{patch}"


def last_index(messages: list, role: str) -> int:
    for i in range(len(messages) - 1, -1, -1):
        if isinstance(messages[i], dict) and messages[i].get("role") == role:
            return i
    return -1


def project_for(rules: str, model_id: str) -> str:
    """`rules` is a comma-separated list of `model-glob=project`; the first match wins."""
    for rule in (rules or "").split(","):
        pattern, _, project = rule.partition("=")
        if project.strip() and fnmatch.fnmatch(model_id or "", pattern.strip()):
            return project.strip()
    return ""


def when(ts: Any) -> datetime:
    """Open WebUI stores message times as unix seconds (sometimes milliseconds)."""
    try:
        if isinstance(ts, (int, float)) and ts > 0:
            return datetime.fromtimestamp(ts / 1000 if ts > 1e11 else ts, timezone.utc)
    except (OverflowError, OSError, ValueError):
        pass
    return datetime.now(timezone.utc)


def iso(ts: Any) -> str:
    return when(ts).isoformat()


def user_tag(user_id: str) -> str:
    return hashlib.sha256(user_id.encode()).hexdigest()[:10]  # logs never carry raw user ids


class Filter:
    class Valves(BaseModel):
        priority: int = Field(0, description="Order among filters (lower runs first). Run Amber after filters that rewrite the user's message.")
        amber_url: str = Field("http://127.0.0.1:4100", description="Amber memory host: `amber serve`, or a LiteLLM proxy with Amber at <proxy>/memory.")
        api_key: str = Field("", description="Amber trusted-client key (acts for the Open WebUI user named in each request).")
        top_k: int = Field(8, ge=1, le=50, description="Most memories to recall per message.")
        budget_tokens: int = Field(600, ge=50, le=8000, description="Token budget of the injected memory block.")
        namespace: str = Field("", description="An extra namespace every user's recall reads besides `default` and `client:open-webui`, e.g. `project:team`.")
        project_rules: str = Field("", description="Comma-separated `model-glob=project` rules; a match also recalls project:<project>. E.g. `coder-*=code,gpt-4o*=work`.")
        disable_builtin_memory: bool = Field(True, description="Switch off Open WebUI's own memory for requests Amber answered, so facts are not injected twice.")
        capture: bool = Field(True, description="Save each exchange to Amber after the reply.")
        show_status: bool = Field(True, description="Show a status line such as 'Recalled 3 memories'.")
        show_citations: bool = Field(True, description="List the recalled memories as sources under the reply.")
        recall_timeout_s: float = Field(3.0, gt=0, le=60, description="Recall gives up after this long; the chat goes on without memory.")
        capture_timeout_s: float = Field(15.0, gt=0, le=300, description="Time limit of the background capture.")

    class UserValves(BaseModel):
        enabled: bool = Field(True, description="Use Amber memory in my chats.")
        private_namespace: str = Field("", description="My own extra namespace to recall from in Open WebUI (e.g. `project:journal`); replaces the admin's namespace valve for me.")

    def __init__(self):
        self.valves = self.Valves()

    # ---- inlet: recall and inject -------------------------------------------------------------

    async def inlet(
        self,
        body: dict,
        __user__: Optional[dict] = None,
        __event_emitter__: Emitter = None,
        __metadata__: Optional[dict] = None,
        __model__: Optional[dict] = None,
    ) -> dict:
        valves = self.valves  # Open WebUI swaps this object per request; read it once.
        try:
            plan = _plan(valves, body, __user__, __metadata__, __model__)
            if plan is None:
                return body
            idx, query, user_id, namespace, project = plan
            echo = sorted({fingerprint(t) for t in _chat_texts(body["messages"])})
            result = await _recall(valves, user_id, query, namespace, project, echo)
        except Exception as e:  # never break the chat: no memory this turn
            log.warning("amber recall failed, chat goes on without memory: %s: %s", type(e).__name__, e)
            await _emit(__event_emitter__, _status(f"Memory unavailable ({_reason(e)})"), valves.show_status)
            return body

        text, items = result.get("text") or "", result.get("items") or []
        messages = body["messages"]
        if text:
            last = messages[idx]
            messages[idx] = {**last, "content": with_patch(last.get("content"), text)}
        if valves.disable_builtin_memory:
            features = body.get("features")
            body["features"] = {**(features if isinstance(features, dict) else {}), "memory": False}
        shown = len(items) if text else 0
        log.info("amber recall user=%s items=%d tokens=%s", user_tag(user_id), shown, result.get("tokens"))
        noun = "memory" if shown == 1 else "memories"
        await _emit(__event_emitter__, _status(f"Recalled {shown} {noun}" if shown else "No memories recalled"), valves.show_status)
        if shown:
            await _emit(__event_emitter__, _citation(items), valves.show_citations)
        return body

    # ---- outlet: strip and capture ------------------------------------------------------------

    async def outlet(
        self,
        body: dict,
        __user__: Optional[dict] = None,
        __metadata__: Optional[dict] = None,
        __model__: Optional[dict] = None,
    ) -> dict:
        valves = self.valves
        try:
            messages = body.get("messages")
            if not isinstance(messages, list):
                return body
            for i, m in enumerate(messages):
                if isinstance(m, dict) and m.get("role") == "user" and OPEN in content_text(m.get("content")):
                    messages[i] = {**m, "content": strip_content(m.get("content"))}
            user = __user__ or {}
            uv = user.get("valves")
            if not (valves.capture and valves.api_key and user.get("id") and getattr(uv, "enabled", True)):
                return body
            if conversation_kind(body, __metadata__) != "private":
                return body  # a temporary chat promises not to keep anything; a channel is not one person's
            turns = _turns(body, messages, user, __metadata__ or {}, __model__)
            if turns:
                # Open WebUI awaits the outlet before answering API callers: save in the background.
                task = asyncio.create_task(_capture(valves, user["id"], turns))
                _PENDING.add(task)
                task.add_done_callback(_PENDING.discard)
        except Exception as e:
            log.warning("amber capture skipped: %s: %s", type(e).__name__, e)
        return body


# ---- helpers (module level: they hold no state) ----------------------------------------------


def conversation_kind(body: dict, metadata: Optional[dict]) -> str:
    """"temporary" (Open WebUI's temporary chat: nothing may be kept), "shared" (a channel: other
    people read it) or "private" (an ordinary chat of one person)."""
    meta = metadata or {}
    chat_id = str(body.get("chat_id") or meta.get("chat_id") or "")
    if chat_id.startswith("channel:") or meta.get("channel_id") or body.get("channel_id"):
        return "shared"
    if chat_id.startswith(("temporary:", "local:")) or chat_id == "local":
        return "temporary"
    return "private"


def _plan(valves, body, user, metadata, model):
    """What to recall for this request, or None when memory does not apply to it."""
    user = user or {}
    uv = user.get("valves")
    if not getattr(uv, "enabled", True) or not user.get("id"):
        return None
    if (metadata or {}).get("task"):  # title, tags and other background generations
        return None
    if conversation_kind(body, metadata) == "shared":  # others read a channel: no private memory there
        return None
    if not valves.api_key:
        raise RuntimeError("no Amber key configured")
    messages = body.get("messages")
    if not isinstance(messages, list):
        return None
    idx = last_index(messages, "user")
    if idx < 0:
        return None
    query = strip_patch(content_text(messages[idx].get("content"))).strip()
    if not query:
        return None
    model_id = body.get("model") or (model or {}).get("id") or ""
    namespace = (getattr(uv, "private_namespace", "") or "").strip() or valves.namespace.strip()
    return idx, query[-MAX_QUERY_CHARS:], user["id"], namespace, project_for(valves.project_rules, model_id)


def _headers(valves, user_id: str) -> dict:
    # X-Amber-Client makes the host also read (and label writes with) the client:open-webui namespace.
    return {"Authorization": f"Bearer {valves.api_key}", "X-Amber-User": user_id, "X-Amber-Client": CLIENT}


def _chat_texts(messages: list) -> list[str]:
    """The words of every user and assistant turn in the chat, as Amber stored them."""
    out = []
    for m in messages:
        if isinstance(m, dict) and m.get("role") in ("user", "assistant"):
            text = strip_patch(content_text(m.get("content"))).strip()
            if text:
                out.append(text)
    return out


async def _recall(valves, user_id: str, query: str, namespace: str, project: str, echo: Optional[list] = None) -> dict:
    payload: dict[str, Any] = {"query": query, "top_k": valves.top_k, "budget_tokens": valves.budget_tokens}
    if echo:
        payload["echo"] = echo[-1000:]
    if namespace:
        payload["namespace"] = namespace
    if project:
        payload["project"] = project
    url = valves.amber_url.rstrip("/") + "/v1/recall"
    async with httpx.AsyncClient(timeout=valves.recall_timeout_s) as client:
        # wait_for bounds the whole call, connection setup and slow bodies included
        r = await asyncio.wait_for(client.post(url, json=payload, headers=_headers(valves, user_id)), valves.recall_timeout_s)
    r.raise_for_status()
    data = r.json()
    if not isinstance(data, dict):
        raise ValueError("unexpected recall answer")
    return data


def _turns(body: dict, messages: list, user: dict, metadata: dict, model: Optional[dict]) -> list[dict]:
    """The exchange that just finished: the last user message and the assistant replies after it."""
    idx = last_index(messages, "user")
    if idx < 0:
        return []
    chat_id = body.get("chat_id") or metadata.get("chat_id") or ""
    model_id = body.get("model") or (model or {}).get("id") or ""
    reply_id = body.get("id") or metadata.get("message_id") or ""
    out = []
    last_at: Optional[datetime] = None
    for n, m in enumerate(messages[idx:]):
        role = m.get("role") if isinstance(m, dict) else None
        text = strip_patch(content_text(m.get("content"))).strip() if role else ""
        if role not in ("user", "assistant") or not text:
            continue
        # Saved chats carry message ids; API chats do not, so derive one that is stable for this
        # exchange (a retried capture lands on the same id) and distinct from every other exchange.
        mid = m.get("id") or hashlib.sha256(f"{user['id']}|{chat_id}|{reply_id}|{n}|{role}|{text}".encode()).hexdigest()[:32]
        # Times are whole seconds, so a question and its reply often tie; Amber orders ties by id,
        # so each turn is kept at least a millisecond after the one before it.
        at = when(m.get("timestamp"))
        if last_at is not None and at <= last_at:
            at = last_at + timedelta(milliseconds=1)
        last_at = at
        turn = {"id": f"owui-{mid}", "role": role, "content": clip(text), "client": CLIENT, "created_at": at.isoformat()}
        if chat_id:
            turn["session"] = chat_id
        if role == "assistant" and (m.get("model") or model_id):
            turn["author"] = m.get("model") or model_id
        out.append(turn)
    return out if any(t["role"] == "user" for t in out) else []


async def _capture(valves, user_id: str, turns: list[dict]) -> None:
    url = valves.amber_url.rstrip("/") + "/v1/messages"
    started = time.monotonic()
    try:
        async with httpx.AsyncClient(timeout=valves.capture_timeout_s) as client:
            r = await client.post(url, json={"messages": turns, "commands": True}, headers=_headers(valves, user_id))
        r.raise_for_status()
        data = r.json()
        log.info(
            "amber capture user=%s turns=%d ingested=%s commands=%d ms=%d",
            user_tag(user_id), len(turns), data.get("ingested"), len(data.get("commands") or []), (time.monotonic() - started) * 1000,
        )
    except Exception as e:
        log.warning("amber capture failed user=%s: %s: %s", user_tag(user_id), type(e).__name__, e)


def _status(description: str) -> dict:
    return {"type": "status", "data": {"description": description, "done": True, "hidden": False}}


def _citation(items: list) -> dict:
    """One source group, 'Amber memory', with an excerpt per recalled item (Open WebUI's source event)."""
    docs, metas = [], []
    for it in items:
        if not isinstance(it, dict):
            continue
        date = str(it.get("created_at") or "")[:10]
        label = f"{it.get('kind') or it.get('source') or 'memory'} {date}".strip()
        docs.append(str(it.get("text") or ""))
        metas.append({"source": "Amber memory", "name": label, "memory_id": it.get("id"), "score": it.get("score")})
    return {
        "type": "source",
        "data": {"source": {"id": "amber-memory", "name": "Amber memory"}, "document": docs, "metadata": metas},
    }


def _reason(e: BaseException) -> str:
    if isinstance(e, (asyncio.TimeoutError, httpx.TimeoutException)):
        return "timed out"
    if isinstance(e, httpx.HTTPStatusError):
        return f"host answered {e.response.status_code}"
    if isinstance(e, httpx.TransportError):
        return "host unreachable"
    if isinstance(e, RuntimeError):
        return str(e)
    return type(e).__name__


async def _emit(emitter: Emitter, event: dict, enabled: bool = True) -> None:
    if not (enabled and emitter):
        return
    try:
        await emitter(copy.deepcopy(event))
    except Exception as e:  # a closed socket must not cost the user their reply
        log.debug("amber event not delivered: %s", e)
