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
import collections
import copy
import fnmatch
import hashlib
import logging
import re
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
    head = " ".join(text[: 64 * FINGERPRINT_CHARS].split())[: 4 * FINGERPRINT_CHARS]  # NFKC on a bounded head only
    norm = " ".join(unicodedata.normalize("NFKC", head).casefold().split())[:FINGERPRINT_CHARS]
    return hashlib.sha256(norm.encode("utf-8", "surrogatepass")).hexdigest()[:16]


Emitter = Optional[Callable[[dict], Awaitable[Any]]]

# Captures still in flight. asyncio keeps only weak references to tasks, so a task nobody holds
# can be collected before it runs; this set is a process-wide registry, not per-request state.
_PENDING: set[asyncio.Task] = set()


# Every block Amber renders opens with the tag and, on the next line, a header naming Amber
# (recall: "Background from Amber, …"; boot pack: "Standing background from Amber, …"); its data
# lines have their angle brackets defused, so the first closing tag after it is its own. A user
# who writes the tag themselves (a question about it, pasted XML) writes no such header, and their
# words stay as they are, in what the model reads, in what is saved and in what is captured.
AMBER_BLOCK = re.compile(
    re.escape(OPEN) + r"\n(?:Standing b|B)ackground from Amber\b.*?(?:" + re.escape(CLOSE) + r"|\Z)", re.DOTALL
)


def strip_patch(text: str) -> str:
    """Remove every memory block Amber added to a text (this filter, or Amber's proxy hook)."""
    if OPEN not in text:
        return text
    out = AMBER_BLOCK.sub("", text)
    return out if out == text else out.strip()


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
                if text == part["text"]:
                    pass  # the user's own tag, not Amber's block
                elif not text:
                    continue
                else:
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


# Amber's namespace syntax (core.model.NAMESPACE_RE, which a test keeps this equal to).
NAMESPACE = re.compile(r"^(default|(project|client):[A-Za-z0-9][A-Za-z0-9._\-]{0,63})\Z")
BARE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._\-]{0,63}\Z")


def namespace_for(value: str) -> tuple[str, str]:
    """The namespace a valve names, and a hint for the person when it cannot be used. A bare name
    is a project: `journal` reads `project:journal`, as Amber's other clients call it."""
    value = (value or "").strip()
    if not value or NAMESPACE.match(value):
        return value, ""
    if BARE_NAME.match(value):
        return f"project:{value}", ""
    shown = value if len(value) <= 40 else value[:39] + "…"
    return "", f"namespace {shown!r} ignored: name it like journal or project:journal (letters, digits, . _ -)"


def user_tag(user_id: str) -> str:
    return hashlib.sha256(user_id.encode()).hexdigest()[:10]  # logs never carry raw user ids


class Filter:
    class Valves(BaseModel):
        priority: int = Field(0, description="Order among filters (lower runs first). Run Amber after filters that rewrite the user's message.")
        amber_url: str = Field("http://127.0.0.1:4100", description="Amber memory host: `amber serve`, or a LiteLLM proxy with Amber at <proxy>/memory.")
        api_key: str = Field(
            "",
            description="Amber trusted-client key (acts for the Open WebUI user named in each request).",
            json_schema_extra={"input": {"type": "password"}},  # masked in the admin panel
        )
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
        user_key: str = Field(
            "id", pattern="^(id|email)$", description="How Amber knows each Open WebUI user: `id` (Open WebUI's own id) or `email`, to share one memory "
            "with the same person's other clients (list their names under `users:` in Amber's settings).")

    class UserValves(BaseModel):
        enabled: bool = Field(True, description="Use Amber memory in my chats.")
        private_namespace: str = Field("", description="My own extra namespace to recall from in Open WebUI: a name such as `journal` (read as `project:journal`) or `project:journal`; replaces the admin's namespace valve for me.")
        show_memories_used: bool = Field(False, description="Show one line under each reply naming the memories used (their #handles), "
                                         "to ask why or say which is wrong (\"forget #12345\", \"#12345 is wrong, ...\").")

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
            namespace, hint = namespace_for(namespace)
            echo = sorted({fingerprint(t) for t in _chat_texts(body["messages"])})
            # an ordinary chat names its request: Amber keeps what it injected and why, and carries out a
            # correction of what it injected last ("that's wrong, ..."); a temporary chat names nothing
            named = request_name(body, __metadata__)
            # the chat's model: the host's destination policy decides what memory it may receive
            model = str(body.get("model") or (__model__ or {}).get("id") or "")
            result = await _recall(valves, user_id, query, namespace, project, echo, named, model)
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
        line = f"Recalled {shown} {noun}" if shown else "No memories recalled"
        # a namespace Amber cannot read is said where the person sees it, not dropped in silence
        await _emit(__event_emitter__, _status(f"{line} · {hint}" if hint else line), valves.show_status or bool(hint))
        used = getattr((__user__ or {}).get("valves"), "show_memories_used", False)
        if shown and used:
            await _emit(__event_emitter__, _status("Memories used: " + " ".join(handle_of(str(it.get("id"))) for it in items if isinstance(it, dict))), True)
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
                    stripped = strip_content(m.get("content"))
                    if stripped != m.get("content"):  # Amber's block only: the saved chat keeps the user's words
                        messages[i] = {**m, "content": stripped}
            user = __user__ or {}
            uv = user.get("valves")
            if not (valves.capture and valves.api_key and user.get("id") and getattr(uv, "enabled", True)):
                return body
            if conversation_kind(body, __metadata__) != "private":
                return body  # a temporary chat promises not to keep anything; a channel is not one person's
            turns = _turns(body, messages, user, __metadata__ or {}, __model__)
            if turns:
                # Open WebUI awaits the outlet before answering API callers: save in the background.
                task = asyncio.create_task(_capture(valves, person_of(valves, user), turns))
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
    return idx, query[-MAX_QUERY_CHARS:], person_of(valves, user), namespace, project_for(valves.project_rules, model_id)


def person_of(valves, user: dict) -> str:
    """The name Amber knows this user by: Open WebUI's id, or their email when the valve says so
    (Amber's identity map joins it with the person's other clients)."""
    email = str(user.get("email") or "").strip()
    return email if getattr(valves, "user_key", "id") == "email" and email else user["id"]


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


async def _recall(valves, user_id: str, query: str, namespace: str, project: str, echo: Optional[list] = None,
                  named: str = "", model: str = "") -> dict:
    payload: dict[str, Any] = {"query": query, "top_k": valves.top_k, "budget_tokens": valves.budget_tokens}
    if model:
        payload["model"] = model[:200]
    if named:
        payload.update(why=named, correct=True)
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
    question = ""
    replies = 0
    for n, m in enumerate(messages[idx:]):
        role = m.get("role") if isinstance(m, dict) else None
        text = strip_patch(content_text(m.get("content"))).strip() if role else ""
        if role not in ("user", "assistant") or not text:
            continue
        if role == "user":
            # Saved chats carry message ids; API chats do not, so derive one that is stable for
            # this exchange (a retried capture lands on the same id) and distinct from every other.
            # Derived from the words, it is sent as `owui~<24 hex>`: Amber's store keys that form
            # with the person's secret on arrival, so no stored id is a plain hash of the words.
            derived = hashlib.sha256(f"{user['id']}|{chat_id}|{reply_id}|{n}|{role}|{text}".encode()).hexdigest()[:24]
            question = f"owui-{m['id']}" if m.get("id") else f"owui~{derived}"
            tid = question
        elif not question:
            continue
        else:
            # A reply is named after its question, not after Open WebUI's id for it: "regenerate"
            # makes a new assistant message under the same question, and it lands on the same
            # record as the answer it replaces instead of being kept next to it.
            replies += 1
            tid = f"{question}-reply" if replies == 1 else f"{question}-reply-{replies}"
        # Times are whole seconds, so a question and its reply often tie; Amber orders ties by id,
        # so each turn is kept at least a millisecond after the one before it.
        at = when(m.get("timestamp"))
        if last_at is not None and at <= last_at:
            at = last_at + timedelta(milliseconds=1)
        last_at = at
        turn = {"id": tid, "role": role, "content": clip(text), "client": CLIENT, "created_at": at.isoformat()}
        if chat_id:
            turn["session"] = chat_id
        if role == "assistant" and (m.get("model") or model_id):
            turn["author"] = m.get("model") or model_id
        out.append(turn)
    return out if any(t["role"] == "user" for t in out) else []


# ---- turns kept while the host is away ------------------------------------------------------------
# Like the proxy's spool, but in memory: a capture that fails because the host is unreachable,
# slow or restarting is held here and sent again, first after a short wait (backing off), and at
# the latest right after the next capture that succeeds. Amber ignores a turn id it already has,
# so sending one twice is harmless. This is process-wide state on purpose (one queue per Open
# WebUI worker), never state on the shared Filter instance; a restart of Open WebUI loses it.
BACKLOG_MAX = 200  # exchanges held; past it the oldest is dropped (and logged)
BACKLOG_MAX_CHARS = 2_000_000  # the same, by the size of what is held
BACKLOG_MAX_AGE_S = 24 * 3600  # an exchange not delivered within a day is dropped
RETRY_FIRST_S, RETRY_MAX_S = 2.0, 60.0


class _Held:
    """One exchange waiting for the host (compared by identity: two flushes never drop each other's)."""

    __slots__ = ("user_id", "turns", "since", "chars")

    def __init__(self, user_id: str, turns: list[dict]):
        self.user_id, self.turns, self.since = user_id, turns, time.monotonic()
        self.chars = sum(len(t.get("content") or "") for t in turns)


_BACKLOG: collections.deque = collections.deque()
_RETRY: dict[str, Any] = {"task": None, "valves": None}  # the one retry task, and the valves it sends with


def _transient(e: BaseException) -> bool:
    """Worth trying again later: the host was unreachable, slow, overloaded or restarting."""
    if isinstance(e, httpx.HTTPStatusError):
        return e.response.status_code in (408, 425, 429) or e.response.status_code >= 500
    return isinstance(e, (httpx.TransportError, httpx.TimeoutException, asyncio.TimeoutError))


def _hold(user_id: str, turns: list[dict]) -> None:
    _BACKLOG.append(_Held(user_id, turns))
    while len(_BACKLOG) > BACKLOG_MAX or (len(_BACKLOG) > 1 and sum(h.chars for h in _BACKLOG) > BACKLOG_MAX_CHARS):
        dropped = _BACKLOG.popleft()
        log.warning("amber capture backlog full: dropped the oldest exchange of user=%s", user_tag(dropped.user_id))


async def _send(valves, user_id: str, turns: list[dict]) -> dict:
    url = valves.amber_url.rstrip("/") + "/v1/messages"
    async with httpx.AsyncClient(timeout=valves.capture_timeout_s) as client:
        r = await asyncio.wait_for(
            client.post(url, json={"messages": turns, "commands": True}, headers=_headers(valves, user_id)), valves.capture_timeout_s
        )
    r.raise_for_status()
    data = r.json()
    return data if isinstance(data, dict) else {}


async def _flush(valves) -> bool:
    """Send what is held, oldest first. False when the host is still away (the rest stays held)."""
    for held in list(_BACKLOG):
        if held not in _BACKLOG:
            continue  # another flush delivered it meanwhile
        if time.monotonic() - held.since > BACKLOG_MAX_AGE_S:
            _BACKLOG.remove(held)
            log.warning("amber capture dropped after %d h undelivered: user=%s", BACKLOG_MAX_AGE_S // 3600, user_tag(held.user_id))
            continue
        try:
            await _send(valves, held.user_id, held.turns)
        except Exception as e:
            if _transient(e):
                return False
            log.warning("amber capture refused on retry user=%s: %s", user_tag(held.user_id), _reason(e))
        if held in _BACKLOG:
            _BACKLOG.remove(held)
    log.info("amber capture backlog delivered")
    return True


async def _retry_loop() -> None:
    delay = RETRY_FIRST_S
    while _BACKLOG:
        await asyncio.sleep(delay)
        if not _BACKLOG or await _flush(_RETRY["valves"]):
            break
        delay = min(delay * 2, RETRY_MAX_S)


def _schedule_retry(valves) -> None:
    _RETRY["valves"] = valves
    task = _RETRY["task"]
    if task is None or task.done():
        _RETRY["task"] = asyncio.create_task(_retry_loop())


async def _capture(valves, user_id: str, turns: list[dict]) -> None:
    started = time.monotonic()
    try:
        data = await _send(valves, user_id, turns)
    except Exception as e:
        if _transient(e):
            _hold(user_id, turns)
            _schedule_retry(valves)
            log.warning("amber capture failed, held to retry (%d waiting) user=%s: %s", len(_BACKLOG), user_tag(user_id), _reason(e))
        else:
            log.warning("amber capture refused user=%s: %s", user_tag(user_id), _reason(e))
        return
    log.info(
        "amber capture user=%s turns=%d ingested=%s commands=%d ms=%d",
        user_tag(user_id), len(turns), data.get("ingested"), len(data.get("commands") or []), (time.monotonic() - started) * 1000,
    )
    if _BACKLOG and not await _flush(valves):  # the host is back: what waited goes now
        _schedule_retry(valves)


def handle_of(item_id: str) -> str:
    """The short handle Amber shows for a recalled item (core.handle_of; a test keeps them equal)."""
    return "#%05d" % (int.from_bytes(hashlib.sha256(item_id.encode()).digest()[:8], "big") % 100_000)


def request_name(body: dict, metadata: Optional[dict]) -> str:
    """The id Amber keeps this request's why record under; "" for a temporary chat (nothing kept)."""
    if conversation_kind(body, metadata) != "private":
        return ""
    meta = metadata or {}
    chat, message = str(body.get("chat_id") or meta.get("chat_id") or ""), str(meta.get("message_id") or "")
    return f"owui:{chat}:{message}"[:200] if chat and message else ""


def _status(description: str) -> dict:
    return {"type": "status", "data": {"description": description, "done": True, "hidden": False}}


def _citation(items: list) -> dict:
    """One source group, 'Amber memory', with an excerpt per recalled item (Open WebUI's source event)."""
    docs, metas = [], []
    for it in items:
        if not isinstance(it, dict):
            continue
        date = str(it.get("created_at") or "")[:10]
        label = f"{handle_of(str(it.get('id')))} {it.get('kind') or it.get('source') or 'memory'} {date}".strip()
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
        # Amber's error bodies say what was wrong ({"error", "detail", "field"}): pass that on
        try:
            detail = str(e.response.json().get("detail") or "")
        except Exception:
            detail = ""
        detail = " ".join(detail.split())
        if len(detail) > 160:
            detail = detail[:159] + "…"
        return f"host answered {e.response.status_code}: {detail}" if detail else f"host answered {e.response.status_code}"
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
