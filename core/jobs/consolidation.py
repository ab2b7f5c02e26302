"""Nightly consolidation for one user ("dream"): merge near-duplicates, resolve conflicting keyed
facts, archive stale memories, put each key's history in date order, then one bounded model call
that picks retirements the rules cannot see, verbatim excerpts worth keeping (precious, at most 8
a day), the digest (at most 500 characters) and yesterday's daily log.

The planning functions are pure; `consolidate_user` does the I/O through the service.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from . import registry, writes
from ..destinations import HOST_ONLY_TAG
from ..errors import InvalidInput, LLMError
from .extraction.decide import ordered_history
from .extraction.parse import strip_fences
from .extraction.prompt import consolidation_messages
from ..model import DIGEST_MAX_CHARS, Kind, Memory, MemoryIn, Message, Role, Status
from ..ports import LLM
from .retention import last_used
from ..scope import Scope, memory_where

log = logging.getLogger("amber.consolidate")

MERGEABLE = (Kind.fact, Kind.event, Kind.instruction)
PRECIOUS_PER_DAY = 8

CONSOLIDATION_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "required": ["retire", "precious", "digest", "daily_log"],
    "properties": {
        "retire": {"type": "array", "items": {"type": "string"}},
        "precious": {
            "type": "array",
            "maxItems": PRECIOUS_PER_DAY,
            "items": {"type": "object", "additionalProperties": False, "required": ["ref", "text"],
                      "properties": {"ref": {"type": "string"}, "text": {"type": "string", "minLength": 1}}},
        },
        "digest": {"type": "string", "maxLength": DIGEST_MAX_CHARS},
        "daily_log": {"type": "string"},
    },
}


@dataclass(frozen=True)
class ConsolidateOptions:
    merge_cosine: float = 0.92
    max_llm_calls: int = 2  # per user per night: one attempt and one retry
    max_memories_shown: int = 80
    max_message_chars: int = 16_000
    stale_event_days: int = 90
    stale_low_importance_days: int = 60
    # the destination policy (core/destinations.py) and the model it is applied to: what the model may read
    destinations: Any = None
    model: str = ""
    deployments: tuple[str, ...] = ()  # what the model name lands on (LiteLLMClient.deployments)


@dataclass
class ConsolidateStats:
    counts: dict[str, int] = field(default_factory=lambda: {
        "merged": 0, "conflicts_resolved": 0, "archived": 0, "retired_by_model": 0, "precious_added": 0,
        "digests": 0, "daily_logs": 0, "history_ordered": 0})
    llm: dict[str, float] = field(default_factory=lambda: {"calls": 0, "prompt_tokens": 0, "completion_tokens": 0, "cost": 0.0})
    errors: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class ModelPlan:
    retire: tuple[str, ...]
    precious: tuple[tuple[str, str], ...]  # (message id, verbatim text)
    digest: str
    daily_log: str


# ---- pure planning ---------------------------------------------------------------------------


def yesterday(now: datetime, tz: str) -> tuple[str, datetime, datetime]:
    """The calendar day before `now` in the user's time zone, as (YYYY-MM-DD, start, end)."""
    zone = ZoneInfo(tz)
    day: date = now.astimezone(zone).date() - timedelta(days=1)
    start = datetime.combine(day, time(0), tzinfo=zone)
    return day.isoformat(), start, start + timedelta(days=1)


def plan_conflicts(memories: Iterable[Memory]) -> list[tuple[Memory, Memory]]:
    """Several active records under one key: the newest stays, the others lose. Returns (loser, keeper)."""
    groups: dict[tuple[str, str], list[Memory]] = {}
    for m in memories:
        if m.status == Status.active and m.fact_key and m.kind != Kind.precious:
            groups.setdefault((m.namespace, m.fact_key), []).append(m)
    out = []
    for ms in groups.values():
        if len(ms) > 1:
            ms = sorted(ms, key=lambda m: (m.valid_from or m.created_at, m.updated_at, m.id))
            out.extend((loser, ms[-1]) for loser in ms[:-1])
    return out


def _rank(m: Memory) -> tuple:
    return (m.pinned, m.fact_key is not None, m.seen_count, -m.created_at.timestamp())


def plan_merges(pairs: Iterable[tuple[Memory, Memory, float]], threshold: float) -> list[tuple[Memory, Memory]]:
    """Near-duplicate pairs (a, b, cosine) -> (duplicate, survivor). The survivor is the pinned, keyed,
    most-seen, oldest one; a record is merged away at most once and never into something merged away."""
    gone: set[str] = set()
    kept: set[str] = set()
    out = []
    for a, b, sim in sorted(pairs, key=lambda p: -p[2]):
        if sim < threshold or a.id == b.id or a.namespace != b.namespace or a.kind != b.kind:
            continue
        if a.kind not in MERGEABLE or a.status != Status.active or b.status != Status.active:
            continue
        if a.fact_key and b.fact_key and a.fact_key != b.fact_key:
            continue
        survivor, dup = (a, b) if _rank(a) >= _rank(b) else (b, a)
        if dup.pinned or dup.id in gone or survivor.id in gone or dup.id in kept:
            continue
        gone.add(dup.id)
        kept.add(survivor.id)
        out.append((dup, survivor))
    return out


def plan_stale(memories: Iterable[Memory], now: datetime, opts: ConsolidateOptions = ConsolidateOptions()) -> list[Memory]:
    """Active, unpinned memories that no longer describe the present: ended validity, old unused
    events, long-unused trivia. Archived, not deleted: they can come back."""
    out = []
    for m in memories:
        if m.status != Status.active or m.pinned or m.kind not in MERGEABLE:
            continue
        ended = m.valid_to is not None and m.valid_to < now
        old_event = m.kind == Kind.event and m.hit_count == 0 and m.importance < 0.5 and m.created_at < now - timedelta(days=opts.stale_event_days)
        trivia = m.importance < 0.2 and last_used(m) < now - timedelta(days=opts.stale_low_importance_days)
        if ended or old_event or trivia:
            out.append(m)
    return out


def trim_digest(text: str, limit: int = DIGEST_MAX_CHARS) -> str:
    """At most `limit` characters, cut at a sentence or word boundary when one is near."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text[:limit]
    for sep in ("。", ". ", "！", "! ", "？", "? ", "；", "; "):
        i = cut.rfind(sep)
        if i >= limit * 0.6:
            return cut[: i + len(sep)].strip()
    i = cut.rfind(" ")
    return (cut[:i] if i >= limit * 0.6 else cut).strip()


def parse_plan(text: str, shown: set[str], refs: dict[str, str], messages: dict[str, Message]) -> ModelPlan:
    """Strict: a malformed answer is an LLMError. Individual items that point nowhere, or 'verbatim'
    excerpts that are not in the message, are dropped: they are the model's mistakes, not the user's words."""
    try:
        data = json.loads(strip_fences(text))
    except ValueError as e:
        raise LLMError(f"consolidation output is not JSON: {e}") from None
    need = set(CONSOLIDATION_SCHEMA["required"])
    if not isinstance(data, dict) or set(data) != need:
        raise LLMError(f"consolidation output must have exactly the fields {sorted(need)}")
    if not isinstance(data["retire"], list) or not all(isinstance(i, str) for i in data["retire"]):
        raise LLMError("retire must be a list of memory ids")
    if not isinstance(data["precious"], list) or not all(isinstance(p, dict) and set(p) == {"ref", "text"} for p in data["precious"]):
        raise LLMError("precious must be a list of {ref, text}")
    if not isinstance(data["digest"], str) or not isinstance(data["daily_log"], str):
        raise LLMError("digest and daily_log must be strings")
    precious = []
    for p in data["precious"]:
        mid = refs.get(p["ref"]) if isinstance(p["ref"], str) else None
        quote = p["text"].strip() if isinstance(p["text"], str) else ""
        msg = messages.get(mid or "")
        if msg and quote and msg.role == Role.user and quote in msg.content:
            precious.append((msg.id, quote))
    return ModelPlan(
        retire=tuple(i for i in dict.fromkeys(data["retire"]) if i in shown),
        precious=tuple(precious[:PRECIOUS_PER_DAY]),
        digest=trim_digest(data["digest"]),
        daily_log=" ".join(data["daily_log"].split()),
    )


@dataclass(frozen=True)
class Admitted:
    """What the job's model may read, and the tags for what it writes from it."""

    shown: list[Memory]
    msgs: list[Message]
    digest: Memory | None
    marked: tuple[str, ...] = ()
    host_turns: frozenset[str] = frozenset()  # shown turns a host-only memory came from: a quote of one is marked


def admit_inputs(policy: Any, model: str, shown: Sequence[Memory], msgs: Sequence[Message], digest: Memory | None,
                 sources: set[str], deployments: Sequence[str] = ()) -> Admitted:
    """The destination policy (core/destinations.py) applied to the model's inputs. `sources`: ids of
    the turns a host-only memory was taken from. A model on the host reads everything, and if any of
    it is host-only (a memory, a source turn, a marked digest), the digest and daily log it writes are
    marked host-only too. A model elsewhere reads no host-only memory, no turn a host-only memory came
    from, and no marked digest (it writes the next digest without it; the marked one stays in the
    history). Turns carry no kind or tags of their own: a health or private detail that no memory was
    taken from yet (said after the last extraction, or extracted untagged) still reaches that model."""
    if policy.on_host(model, deployments):
        host_only = (any(policy.stays(m) for m in shown) or any(m.id in sources for m in msgs)
                     or (digest is not None and policy.stays(digest)))
        return Admitted(list(shown), list(msgs), digest, (HOST_ONLY_TAG,) if host_only else (),
                        frozenset(m.id for m in msgs if m.id in sources))
    return Admitted(policy.admit(shown, model, deployments), [m for m in msgs if m.id not in sources],
                    None if digest is None or policy.stays(digest) else digest)


# ---- carrying it out -------------------------------------------------------------------------


async def consolidate_user(service: Any, scope: Scope, llm: LLM | None, *, now: datetime, tz: str,
                           opts: ConsolidateOptions, stats: ConsolidateStats,
                           progress: Callable[[dict[str, Any]], None] = lambda e: None) -> None:
    fresh_since = await asyncio.to_thread(_last_run, service, scope.user_id, now)
    await asyncio.to_thread(_rules, service, scope, now, fresh_since, opts, stats)
    progress({"stage": "rules", "user": scope.actor, **stats.counts})
    day, start, end = yesterday(now, tz)
    msgs = await asyncio.to_thread(lambda: [m for m in service.messages(scope, since=start, until=end) if m.role in (Role.user, Role.assistant)])
    shown = await asyncio.to_thread(_shown_memories, service, scope, opts)
    digest = await asyncio.to_thread(service.digest_get, scope)
    policy, marked, host_turns = opts.destinations, [], frozenset()
    digest_text = digest.content if digest is not None else None
    if policy is not None and not policy.receives_memory(opts.model, opts.deployments):
        llm = None  # the job's model may receive no memory: the rules only (the runner notes it on the run record)
    elif policy is not None and llm is not None:  # with no model (the rules only) nothing is read for it
        sources = await asyncio.to_thread(_host_only_sources, service, scope, policy)
        seen = admit_inputs(policy, opts.model, shown, msgs, digest, sources, opts.deployments)
        shown, msgs, marked, host_turns = seen.shown, seen.msgs, list(seen.marked), seen.host_turns
        digest_text = seen.digest.content if seen.digest is not None else None
    changed = any(m.updated_at >= fresh_since for m in shown)
    if llm is None or not (msgs or changed or digest is None) or not shown and not msgs:
        await asyncio.to_thread(_mark_run, service, scope.user_id, now)
        return
    msgs = _fit(msgs, opts.max_message_chars)
    prompt, refs = consolidation_messages(shown, msgs, day, digest_text)
    plan = None
    for attempt in range(opts.max_llm_calls):
        stats.llm["calls"] += 1
        try:
            text, usage = await llm.complete(prompt, json_schema=CONSOLIDATION_SCHEMA, purpose="amber-consolidate")
            for k in ("prompt_tokens", "completion_tokens", "cost"):
                stats.llm[k] += usage.get(k, 0) or 0
            plan = parse_plan(text, {m.id for m in shown if not m.pinned}, refs, {m.id: m for m in msgs})
            break
        except LLMError as e:
            stats.errors.append(f"consolidation model call {attempt + 1}: {e}")
            log.warning("consolidation model error (attempt %d): %s", attempt + 1, e)
    inputs = ({m.id: m.updated_at for m in [*shown, *([digest] if digest is not None else [])]}, [m.id for m in msgs])
    if plan is not None and await asyncio.to_thread(_apply_unless_forgotten, service, scope, inputs, plan, day, start, now, stats, marked, host_turns):
        progress({"stage": "model", "user": scope.actor, **stats.counts})
        await asyncio.to_thread(_mark_run, service, scope.user_id, now)


def _apply_unless_forgotten(service: Any, scope: Scope, inputs: tuple[dict[str, datetime], list[str]], plan: ModelPlan, day: str, start: datetime,
                            now: datetime, stats: ConsolidateStats, marked: Sequence[str], host_turns: frozenset[str]) -> bool:
    """The plan, applied under the person's lock unless something it was made from (`inputs`: the
    memories and digest, the turns) is gone since the model was asked (a forget, a delete, a purge):
    its precious quotes, digest and daily log would write the forgotten words back (a daily log a
    forget rewrote keeps its id: its time says). Then nothing is applied and the run is not marked,
    so the next run reads again, without what went."""
    memories, turn_ids = inputs
    with service.writes.lock(scope):
        now_held = service.reads.memories_by_id(scope, list(memories)) if memories else []
        held = {m.id for m in now_held if m.status == Status.active and m.updated_at == memories[m.id]}
        turns = service.reads.existing_turn_ids(scope, turn_ids) if turn_ids else set()
        if len(held) < len(memories) or len(turns) < len(set(turn_ids)):
            stats.errors.append("what the model read changed while it answered (a forget, a delete): its plan is not applied; "
                                "the next run reads again")
            log.info("consolidation of %s: its inputs changed during the model call; plan not applied", scope.actor)
            return False
        _apply_plan(service, scope, plan, day, start, now, stats, marked, host_turns)
        return True


def _last_run(service: Any, user_id: str, now: datetime) -> datetime:
    mark = registry.get_cursor(service.registry, "consolidate", user_id)
    return datetime.fromisoformat(mark["at"]) if mark else now - timedelta(days=2)


def _mark_run(service: Any, user_id: str, now: datetime) -> None:
    registry.set_cursor(service.registry, "consolidate", user_id, {"at": now.isoformat()})


def _rules(service: Any, scope: Scope, now: datetime, fresh_since: datetime, opts: ConsolidateOptions, stats: ConsolidateStats) -> None:
    reads = service.reads
    active = reads.memories(scope, memory_where(scope, all_namespaces=True))
    for loser, keeper in plan_conflicts(active):
        writes.set_status(service, scope, [loser], Status.superseded, "resolve", now, superseded_by=keeper.id, valid_to=now)
        stats.counts["conflicts_resolved"] += 1
    losers = {l.id for l, _ in plan_conflicts(active)}
    active = [m for m in active if m.id not in losers]
    pairs = []
    by_id = {m.id: m for m in active}
    fresh = [m for m in active if m.updated_at >= fresh_since and m.kind in MERGEABLE]
    vecs = reads.memory_vectors(scope, [m.id for m in fresh])
    for m in fresh:
        if m.id not in vecs:
            continue
        where = memory_where(scope, namespaces=[m.namespace], kinds=[m.kind.value])
        try:
            near = reads.nearest_memories(scope, vecs[m.id], 4, where)
        except Exception:  # nothing comparable yet
            near = []
        pairs.extend((m, by_id[n.id], sim) for n, sim in near if n.id in by_id and n.id != m.id)
    for dup, survivor in plan_merges(pairs, opts.merge_cosine):
        writes.set_status(service, scope, [survivor], Status.active, "merge", now,  # a patch: the survivor's text stays as stored
                            seen_count=survivor.seen_count + dup.seen_count,
                            source_ids=sorted(set(survivor.source_ids) | set(dup.source_ids)),
                            last_seen_at=max(t for t in (survivor.last_seen_at, dup.last_seen_at, survivor.created_at) if t))
        writes.set_status(service, scope, [dup], Status.superseded, "merge", now, superseded_by=survivor.id, valid_to=now)
        stats.counts["merged"] += 1
    gone = {d.id for d, _ in plan_merges(pairs, opts.merge_cosine)}
    stale = plan_stale([m for m in active if m.id not in gone], now, opts)
    if stale:
        writes.set_status(service, scope, stale, Status.archived, "archive", now)
        stats.counts["archived"] += len(stale)
    _order_histories(service, scope, now, stats)


def _order_histories(service: Any, scope: Scope, now: datetime, stats: ConsolidateStats) -> None:
    """Keys whose history an earlier Amber stored flat (older imported values side by side, each
    superseded by the current one) put in date order (decide.ordered_history), one write and one
    audit event per key, read again under the person's lock: a write since the first reading wins.
    `history_ordered` counts the keys."""
    reads, w = service.reads, service.writes
    kept = (Status.active, Status.superseded)
    keys: dict[tuple[str, str], list[Memory]] = {}
    for m in reads.memories(scope, memory_where(scope, statuses=kept, all_namespaces=True)):
        if m.fact_key:
            keys.setdefault((m.namespace, m.fact_key), []).append(m)
    for (namespace, key), versions in sorted(keys.items()):
        if not ordered_history(versions, now):
            continue
        with w.lock(scope):
            stored = reads.memories(scope, memory_where(scope, statuses=kept, namespaces=[namespace], fact_key=key))
            records = ordered_history(stored, now)
            if records:
                w.write(scope, records)  # one store call: the history is never seen half relinked
                w.audit(scope, "history_ordered", [m.id for m in records], fact_key=key, namespace=namespace)
                stats.counts["history_ordered"] += 1


def _host_only_sources(service: Any, scope: Scope, policy: Any) -> set[str]:
    """Ids of the turns a host-only memory (any status, any namespace: a deleted health fact's turn
    still says it) was taken from."""
    every = service.reads.memories(scope, memory_where(scope, statuses=None, all_namespaces=True))
    return {i for m in every if policy.stays(m) for i in m.source_ids}


def _shown_memories(service: Any, scope: Scope, opts: ConsolidateOptions) -> list[Memory]:
    active = service.reads.memories(scope, memory_where(scope, kinds=[k.value for k in MERGEABLE]))
    active.sort(key=lambda m: (m.pinned, m.importance, m.updated_at), reverse=True)
    return active[: opts.max_memories_shown]


def _fit(msgs: Sequence[Message], max_chars: int) -> list[Message]:
    """The latest messages of the day that fit the character budget, in order."""
    out, used = [], 0
    for m in reversed(msgs):
        used += min(len(m.content), 4000)
        if used > max_chars and out:
            break
        out.append(m)
    return out[::-1]


def _apply_plan(service: Any, scope: Scope, plan: ModelPlan, day: str, start: datetime, now: datetime, stats: ConsolidateStats,
                marked: Sequence[str] = (), host_turns: frozenset[str] = frozenset()) -> None:
    retire = service.reads.memories_by_id(scope, list(plan.retire))
    retire = [m for m in retire if m.status == Status.active and not m.pinned and m.kind in MERGEABLE]
    if retire:
        writes.set_status(service, scope, retire, Status.archived, "retire", now)
        stats.counts["retired_by_model"] += len(retire)
    tag = f"day:{day}"
    kept = [m for m in service.reads.memories(scope, memory_where(scope, statuses=None, kinds=[Kind.precious.value])) if tag in m.tags]
    room = max(0, PRECIOUS_PER_DAY - len(kept))
    for mid, quote in plan.precious[:room]:
        tags = [tag, HOST_ONLY_TAG] if mid in host_turns else [tag]
        r = service.remember(scope, MemoryIn(content=quote, kind=Kind.precious, tags=tags, source_ids=[mid], importance=0.8, valid_from=start))
        stats.counts["precious_added"] += r.action == "created"
    if plan.digest:
        try:
            service.digest_set(scope, plan.digest, marked)
            stats.counts["digests"] += 1
        except InvalidInput as e:
            stats.errors.append(f"digest not stored: {e}")
    if plan.daily_log:
        content = f"{day}: {plan.daily_log}"
        logs = [m for m in service.reads.memories(scope, memory_where(scope, namespaces=[scope.write_namespace], kinds=[Kind.daily_log.value])) if tag in m.tags]
        data = MemoryIn(content=content, kind=Kind.daily_log, tags=[tag, *marked], importance=0.5, valid_from=start)
        if logs and logs[0].content != content:
            service.supersede(scope, logs[0].id, data)
        elif not logs:
            service.remember(scope, data)
        stats.counts["daily_logs"] += 1
