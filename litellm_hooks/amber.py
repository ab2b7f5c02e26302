"""The LiteLLM callback: memory for every OpenAI or Anthropic client behind the proxy.

config.yaml:
    litellm_settings:
      callbacks: ["litellm_hooks.amber.amber_memory"]

Before a call (/chat/completions, /v1/messages, /responses; streaming or not): find the user,
recall with a hard timeout, and let `core.cache_plan` place the patch and the Claude cache anchors.
Opt-in, before all that: images sent to a model without vision are described by `vision_model`.
After a call: capture the user's turn (patch stripped) and the answer, and carry out explicit
"remember ..." / "forget ..." commands at once. Nothing here may fail a request: every error is a
log line and the request goes on as the client sent it.

Who a turn belongs to is decided once, by the pre-call hook, from what the operator's
`identity_order` trusts; it reaches the success callback through the request ledger (ledger.py),
never through the request's metadata, which a client can fill with anything. A client's own
`amber_*` metadata names are removed before anything else happens; only `amber_memory` is read,
and it can only take rights away.

LiteLLM finds hooks on the registered class itself (not on intermediate bases), so the hooks are
defined right here. The instance is a process singleton: its one piece of per-request state is the
bounded, time-limited ledger.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import time
from typing import Any

from litellm.integrations.custom_logger import CustomLogger

from core import (
    ECHO_MAX,
    QUERY_MAX_CHARS,
    CacheTarget,
    DestinationPolicy,
    Message,
    clip,
    fingerprints,
    handle_of,
    parse_command,
    render_correction_note,
    render_forget_note,
    render_recall,
    strip_patch,
    words_turn_id,
)

from . import capture, identity, request
from .vision import find_images
from .host import Host, describe, router
from .ledger import Decision, RequestLedger
from .targets import TargetResolver, destinations

log = logging.getLogger("amber.litellm")


class AmberMemory(CustomLogger):
    def __init__(self, host: Host | None = None) -> None:
        super().__init__()
        self.host = host or Host()
        self.targets = TargetResolver(router)
        self.ledger = RequestLedger()

    # ---- before the call -----------------------------------------------------------------------

    async def async_pre_call_hook(self, user_api_key_dict: Any, cache: Any, data: dict, call_type: Any) -> dict | None:
        if not isinstance(data, dict):
            return None
        # first, on every route and whatever happens next: a client's own `amber_*` names go
        dropped = identity.scrub(data)
        if dropped:
            log.info("amber pre-call: dropped client-sent metadata %s", ",".join(sorted(set(dropped))))
        kind = request.kind_of(call_type)
        if kind is None:
            return data if dropped else None
        memory, settings = self.host.memory, self.host.settings
        if settings is None:
            return data if dropped else None
        # first: recall and the cache plan then see the description as the user's words
        relayed = await self._relay_images(data, kind, settings.vision_timeout_s, _keeper(data, user_api_key_dict, settings))
        if memory is None:
            return data if relayed or dropped else None
        started = time.perf_counter()
        try:
            actor = identity.actor_for(data, user_api_key_dict, settings.identity_order, settings.default_user, settings.person)
            mode = identity.memory_mode(data)
            if actor is None or mode == "off":
                return data if relayed or dropped else None  # nobody's, or private: nothing recorded, nothing kept
            if mode in ("on", "write"):
                # the success callback captures for whoever is recorded here, and only if recorded
                session = identity.session_of(data, request.metadata_of(data, kind))
                self.ledger.open(data.get("litellm_call_id"), Decision(actor, mode, session))
            query = request.last_user_text(data, kind) if mode in ("on", "read") else ""
            patch, items, tokens, why = "", 0, 0, ""
            call_id = data.get("litellm_call_id")
            # where this request goes decides whether it may carry memory, and which (core/destinations.py)
            model = str(data.get("model") or "")
            # every group the request may reach: those it names ("a,b"), and the request's and the
            # router's fallbacks from them (what is injected goes wherever LiteLLM routes it)
            dests = destinations(router(), data) or [(model, [])]
            policy = DestinationPolicy.from_settings(settings)
            sends, home = policy.receives_all(dests), policy.on_host_all(dests)
            off_host = None if home else policy
            # "that's wrong, I moved to Hangzhou", "forget #48213": carried out now, before this turn's recall
            note = ""
            stages: dict[str, float] = {}  # where the time went, for the log line (ms)
            # the whole pre-call answers within twice the recall timeout: each step gets its own limit or
            # what is left (a stalled store made the chat wait for the correction, recall and boot pack in
            # turn), and never less than a moment, in which what is kept in process (a boot pack) still answers
            ends = started + 2 * settings.recall_timeout_s
            left = lambda limit: min(limit, max(0.05, ends - time.perf_counter()))  # noqa: E731
            if mode in ("on", "write"):
                said = query or request.last_user_text(data, kind)
                at = time.perf_counter()
                # a chat that receives no memory (mode write, or this model) answers no block: only a handle is read
                shown_here = mode == "on" and sends
                # recall keeps a share: a correction reading a slow store must not leave it no time at all
                note, why = await self._correct(memory, actor, said, left(1.5 * settings.recall_timeout_s), shown_here, off_host)
                stages["correct"] = (time.perf_counter() - at) * 1000
                note = note if shown_here else ""
            if not sends:
                query, why = "", why or f"model {model} receives no memory (destination policy)"
            asked = parse_command(query) if query and not note else None
            if asked is not None and asked.action == "forget":
                # the model answers before capture carries the forget out: tell it what will go, so
                # "done" is true, and recall nothing (it would bring back what is being forgotten)
                patch, why = await self._forget_note(memory, actor, asked.text, kept=mode == "on", timeout=left(settings.recall_timeout_s),
                                                     off_host=off_host)
                query = ""
            if query:
                try:
                    echo = sorted(fingerprints(request.turn_texts(data, kind)[-ECHO_MAX:]))  # the latest, as many as a host takes
                    # a request in mode `on` names itself, so the host keeps what it injected and why (core/why.py)
                    named = str(call_id) if mode == "on" and call_id else None
                    # the host packs only what may go to this model, so its why record says what went. It knows
                    # the group's name only: where the deployments behind it decide otherwise (a group named
                    # "local" over ollama/*), it is asked for everything and the check below does the rest
                    by_name = len(dests) == 1 and policy.on_host(model) == home and policy.receives_memory(model)
                    at = time.perf_counter()
                    # its tail, as REST and MCP take it (a memory host refuses more: a long paste went without memory)
                    result = await asyncio.wait_for(memory.recall(actor, query[-QUERY_MAX_CHARS:], echo, why=named,
                                                                  destination=model if by_name else None),
                                                    timeout=left(settings.recall_timeout_s))
                    stages["recall"] = (time.perf_counter() - at) * 1000
                    kept = policy.admit_all(result.items, dests)
                    patch = (result.text or "") if len(kept) == len(result.items) else render_recall(kept)
                    items, tokens = len(kept), result.tokens
                    self.ledger.note_injected(call_id, tuple(c.id for c in kept), tuple(handle_of(c.id) for c in kept))
                except asyncio.TimeoutError:
                    why = f"recall timed out ({settings.recall_timeout_s}s, within the pre-call's {2 * settings.recall_timeout_s}s)"
                except Exception as e:  # store, embedder, remote host: all mean "no memory this turn"
                    why = f"recall failed: {type(e).__name__}: {e}"
            if note:  # the model is told what the correction changed, before what is recalled now
                patch = f"{note}\n{patch}" if patch else note
            boot = ""
            if settings.boot_pack_in_system and kind != "responses" and mode in ("on", "read") and sends:
                # a model off the host gets the boot pack without what stays on the host (pinned health facts...)
                at = time.perf_counter()
                boot = await self._boot_pack(memory, actor, left(settings.recall_timeout_s), off_host)
                stages["boot"] = (time.perf_counter() - at) * 1000
            target = CacheTarget(
                claude=kind != "responses" and self.targets.is_claude(str(data.get("model") or "")), ttl=settings.cache_ttl
            )
            planned = request.apply(data, kind, patch, target, boot_pack=boot)
            log.info(
                "amber pre-call %s %s mode=%s memories=%d tokens=%d anchors=%s marks=%d %s%.0fms%s",
                kind, describe(actor), mode, items, tokens, ",".join(planned.anchors) or "-", planned.marks_total,
                "".join(f"{k}={v:.0f}ms " for k, v in stages.items()), (time.perf_counter() - started) * 1000,
                f" ({why})" if why else "",
            )
            return data
        except Exception as e:  # fail open: request.apply writes only once a plan exists, so data is as sent
            log.warning("amber pre-call skipped: %s: %s", type(e).__name__, e)
            return data if relayed or dropped else None

    async def _relay_images(self, data: dict, kind: str, timeout: float, person: str | None) -> bool:
        """Images for a target without vision become the vision model's description (opt-in).
        Any failure keeps the images: the upstream gets the request as the client sent it.
        `person`: whose descriptions may be kept for their next turn (vision.py)."""
        relay = self.host.vision
        messages = data.get("messages")
        if relay is None or kind == "responses" or not isinstance(messages, list) or not find_images(messages):
            return False
        model = str(data.get("model") or "")
        started = time.perf_counter()
        try:
            if self.targets.has_vision(model):
                return False
            data["messages"] = await asyncio.wait_for(relay.relay(messages, person), timeout=timeout)
        except asyncio.TimeoutError:
            log.warning("amber vision relay skipped for %s: %s took longer than %ss; images sent as they are", model, relay.model, timeout)
            return False
        except Exception as e:
            log.warning("amber vision relay skipped for %s: %s: %s; images sent as they are", model, type(e).__name__, e)
            return False
        log.info("amber vision relay: images for %s described by %s in %.0fms", model, relay.model, (time.perf_counter() - started) * 1000)
        return True

    async def _forget_note(self, memory: Any, actor: Any, subject: str, *, kept: bool, timeout: float,
                           off_host: DestinationPolicy | None = None) -> tuple[str, str]:
        if not kept:
            return render_forget_note(subject, 0, 0, kept=False), ""
        try:
            found = await asyncio.wait_for(memory.forget_preview(actor, subject, off_host), timeout=timeout)
        except Exception as e:  # no preview: say nothing rather than something untrue
            return "", f"forget preview failed: {type(e).__name__}: {e}"
        return render_forget_note(subject, *found), ""

    async def _correct(self, memory: Any, actor: Any, said: str, timeout: float, shown_here: bool,
                       off_host: DestinationPolicy | None = None) -> tuple[str, str]:
        """Carry out a correction of what was just injected, if this turn makes one: (note for the model, why not)."""
        if not said:
            return "", ""
        try:
            done = await asyncio.wait_for(memory.correct(actor, said, shown_here), timeout=timeout)
        except TimeoutError:
            return "", f"correction skipped: no answer within {timeout:.1f}s"
        except Exception as e:  # no correction this turn: the turn is still captured, extraction may learn from it
            return "", f"correction skipped: {type(e).__name__}: {e}"
        if done is None:
            return "", ""
        log.info("amber correction %s: %s %s", describe(actor), done.action, done.handle)
        packs = getattr(memory, "packs", None)
        if packs is not None:  # a corrected pin leaves the boot pack now, this request's included
            packs.drop(actor.user_id)
        return render_correction_note(done, old_words=off_host is None or not off_host.stays(done)), ""

    async def async_post_call_response_headers_hook(self, data: dict, user_api_key_dict: Any, response: Any,
                                                    request_headers: dict | None = None, litellm_call_info: dict | None = None) -> dict | None:
        """`x-amber-memories`: the handles of what was injected into this request (mode `on`), so a
        person can ask why (GET /memory/v1/why) or correct one by naming it."""
        if response is None:  # a failed call (LiteLLM asks on that path too): nothing was answered with memory
            return None
        try:
            settings = self.host.settings
            # the request's own person, found as the pre-call found it: a call id names no one
            actor = identity.actor_for(data, user_api_key_dict, settings.identity_order, settings.default_user, settings.person)
            shown = self.ledger.shown(data.get("litellm_call_id"), actor.user_id if actor is not None else None)
        except Exception:
            return None
        return {"x-amber-memories": " ".join(shown)} if shown else None

    async def _boot_pack(self, memory: Any, actor: Any, timeout: float, off_host: DestinationPolicy | None) -> str:
        try:
            return await asyncio.wait_for(memory.boot_pack(actor, off_host), timeout=timeout) or ""
        except Exception as e:
            log.warning("amber boot pack skipped: %s: %s", type(e).__name__, e)
            return ""

    # ---- after the call ------------------------------------------------------------------------

    async def async_log_success_event(self, kwargs: dict, response_obj: Any, start_time: Any, end_time: Any) -> None:
        try:
            await self._capture(kwargs, response_obj, start_time, end_time)
        except Exception as e:  # capture must never disturb the proxy's logging worker
            log.warning("amber capture skipped: %s: %s", type(e).__name__, e)

    async def async_log_failure_event(self, kwargs: dict, response_obj: Any, start_time: Any, end_time: Any) -> None:
        self.ledger.discard(kwargs.get("litellm_call_id"))  # a failed call keeps nothing

    async def _capture(self, kwargs: dict, response_obj: Any, start_time: Any, end_time: Any) -> None:
        # whom to capture for comes from the pre-call's record, never from the request's metadata
        decided = self.ledger.take(kwargs.get("litellm_call_id"))
        memory = self.host.memory
        if decided is None or memory is None:
            return  # not decided by our pre-call (internal, private, nobody's): nothing is kept
        turn = capture.turn(kwargs, response_obj)
        if turn is None:
            return
        # secrets go before the turn touches the journal on disk (the store redacts again: a no-op). In a
        # thread: a 60 KB paste takes 0.5-1.3 s to scan, and on the event loop every request waited for it
        redact = self.host.redact.text
        user_text, answer = await asyncio.to_thread(lambda: [redact(clip(strip_patch(t))) for t in (turn.user, turn.assistant)])
        if not user_text and not answer:
            return
        actor, session = decided.actor, decided.session
        started = capture.when(start_time)
        msgs = []
        if user_text:
            # a client's retry of the same turn (same words, same place, same day) keeps one copy
            key = f"{actor.user_id}\x1f{session or ''}\x1f{started.date()}\x1f{turn.position}\x1f{user_text}"
            msgs.append(Message(id=words_turn_id("lt", key, suffix="_u"), role="user", content=user_text, client=actor.client,
                                session=session, created_at=started))
        if answer:
            # the answer belongs to this call: LiteLLM's call id, stable across its own retries
            key = f"{actor.user_id}\x1f{kwargs.get('litellm_call_id') or _digest(str(msgs[0].id if msgs else started))}"
            msgs.append(Message(id=words_turn_id("lt", key, suffix="_a"), role="assistant", content=answer, client=actor.client,
                                session=session, created_at=capture.when(end_time)))
        # journaled (fsynced) and handed to the background drainer: back to LiteLLM in milliseconds
        entry = {"user": actor.user_id, "client": actor.client, "command": user_text,
                 "messages": [m.model_dump(mode="json") for m in msgs]}
        await self.host.spool.put(entry)
        log.debug("amber capture journaled %s turns=%d", describe(actor), len(msgs))

def _keeper(data: dict, key: Any, settings: Any) -> str | None:
    """Whose image descriptions a request's may be kept as: nobody's for a private (`off`) or unnamed one."""
    try:
        actor = identity.actor_for(data, key, settings.identity_order, settings.default_user, settings.person)
        return actor.user_id if actor is not None and identity.memory_mode(data) != "off" else None
    except Exception:  # whoever it is, the images are still described; only nothing is kept
        return None


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:24]


amber_memory = AmberMemory()
amber_memory.host.start_soon()
