"""Extraction for one user: recover, plan windows, ask the model, decide, write, move the cursor.

Store and embedder calls are synchronous and run in worker threads; only the model call is
awaited on the loop. Crash safety comes from three things: windows are planned once and stored;
each fact's write is linked to its window before the next one starts (a retried window skips
what already landed); the cursor moves only after a window is done. A window an import planned
waits for its turns, and the ones it was run without come back in a window of their own
(core/jobs/extraction/windows.py), so an import stopped halfway loses no turn to extraction.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from .. import registry
from ...errors import InvalidInput, LLMError
from ...model import SAID_BY_ASSISTANT, SAID_BY_USER, Kind, MemoryIn, MemoryPatch, Status, content_hash, said_by
from ...ports import LLM
from ...scope import Scope, memory_where
from . import windows as W
from .decide import Decision, Existing, Policy, chain_neighbours, cosine, decide, independent_statement, placed
from .parse import FACT_SCHEMA, Fact, parse_facts
from .prompt import extraction_messages

log = logging.getLogger("amber.extract")

Progress = Callable[[dict[str, Any]], None]


@dataclass
class ExtractOptions:
    window_size: int = W.WINDOW_SIZE
    max_window_chars: int = W.MAX_WINDOW_CHARS
    max_retries: int = W.MAX_RETRIES
    stuck_after: timedelta = W.STUCK_AFTER
    import_wait: timedelta = W.IMPORT_WAIT
    policy: Policy = field(default_factory=Policy)
    backfill: bool = False
    neighbours: int = 5


@dataclass
class ExtractStats:
    windows: dict[str, int] = field(default_factory=lambda: {"processed": 0, "failed": 0, "retried": 0, "recovered": 0, "left_pending": 0,
                                                                 "waiting": 0, "carried_over": 0})
    facts: dict[str, int] = field(default_factory=lambda: {"added": 0, "seen": 0, "superseded": 0, "candidates": 0, "dropped": 0})
    llm: dict[str, float] = field(default_factory=lambda: {"calls": 0, "prompt_tokens": 0, "completion_tokens": 0, "cost": 0.0})
    errors: list[str] = field(default_factory=list)


async def extract_user(
    service: Any,
    scope: Scope,
    llm: LLM,
    *,
    now: Callable[[], datetime],
    opts: ExtractOptions,
    stats: ExtractStats,
    progress: Progress = lambda e: None,
    heartbeat: Callable[[], None] = lambda: None,
) -> None:
    reg, user = service.registry, scope.user_id
    wins = await asyncio.to_thread(_prepare, service, scope, now(), opts, stats, progress)
    if wins is None:
        return
    for w in W.order(wins):
        if w["state"] != W.PENDING:
            continue
        msgs = await asyncio.to_thread(_window_messages, service, scope, w)
        if w.get("imported"):
            # turns an import has planned but not stored yet: wait for them, or (past the wait) go
            # on without them and note them, to be read on their own once they are stored
            missing = await asyncio.to_thread(_missing, service, scope, w, msgs)
            if W.arriving(w, missing, now(), opts.import_wait):
                stats.windows["waiting"] += 1
                progress({"stage": "waiting", "window": w["id"], "missing": len(missing)})
                continue
            w = {**w, "unseen": missing}
        done = await _run_window(service, scope, llm, w, msgs, now, opts, stats, progress)
        by_id = {x["id"]: x for x in wins}
        by_id[done["id"]] = done
        wins = list(by_id.values())
        live = [x for x in wins if not x.get("imported")]  # imported windows keep their own state, not the cursor
        cursor = W.cursor_after(live, W.Mark.from_dict(await asyncio.to_thread(registry.get_cursor, reg, "extract", user)))
        await asyncio.to_thread(registry.set_cursor, reg, "extract", user, cursor.as_dict() if cursor else None)
        await asyncio.to_thread(heartbeat)
        if done["state"] == W.PENDING:  # model error: the rest waits too, so the log is read in order
            stats.windows["left_pending"] += sum(1 for x in wins if x["state"] == W.PENDING)
            break


def _prepare(service: Any, scope: Scope, now: datetime, opts: ExtractOptions, stats: ExtractStats, progress: Progress) -> list[dict[str, Any]] | None:
    """Recover stuck windows and plan new ones. None: another live worker is inside this user's log."""
    reg, user = service.registry, scope.user_id
    wins = registry.get_windows(reg, user)
    for i, w in enumerate(wins):
        if w["state"] != W.PROCESSING:
            continue
        if not W.is_stuck(w, now, opts.stuck_after):
            stats.errors.append(f"user {scope.actor}: window {w['id']} is being processed elsewhere; skipped")
            return None
        wins[i] = W.failed_attempt(w, "worker stopped in the middle of this window", now, opts.max_retries)
        registry.put_window(reg, wins[i])
        stats.windows["recovered"] += 1
        progress({"stage": "recovered", "window": w["id"], "state": wins[i]["state"]})
    cursor = W.Mark.from_dict(registry.get_cursor(reg, "extract", user))
    # windows an import planned (core/chat_import) sit at their conversations' dates: they do not
    # move where new turns are planned from, or live turns older than an imported chat would be skipped
    ends = [m for m in (W.Mark.from_dict(w["end"]) for w in wins if not w.get("imported")) if m is not None]
    last = max([*ends, *([cursor] if cursor else [])], default=None)
    since = datetime.fromtimestamp(last.ts, tz=UTC) if last else None
    msgs = [m for m in service.messages(scope, since=since) if not m.imported]  # an import plans its own windows
    known = {w["id"] for w in wins}
    planned = {i for w in wins for i in w["message_ids"]}
    short = [w for w in wins if w.get("imported") and w["state"] == W.PROCESSED and w.get("unseen")]
    held = Counter(i for w in wins for i in w["message_ids"]) if short else Counter()
    for w in short:
        follow = _carry_over(service, scope, w, {i for i in w["unseen"] if held[i] > 1}, now)
        if follow is not None:
            wins.append(follow)
            planned.update(follow["message_ids"])
            held.update(follow["message_ids"])
            stats.windows["carried_over"] += 1
            progress({"stage": "planned", "window": follow["id"], "messages": len(follow["message_ids"])})
    for chunk in W.plan_windows(msgs, after=last, planned=planned, backfill=opts.backfill, size=opts.window_size, max_chars=opts.max_window_chars):
        w = W.new_window(user, chunk, now)
        if w["id"] not in known:
            registry.put_window(reg, w)
            wins.append(w)
            progress({"stage": "planned", "window": w["id"], "messages": len(chunk)})
    return wins


def _missing(service: Any, scope: Scope, w: dict[str, Any], msgs: list) -> list[str]:
    """The window's turns that are not in the log (yet): an import stores them after planning the
    window. A turn forgotten in the meantime has a tombstone and is not waited for."""
    got = {m.id for m in msgs}
    gone = [i for i in w["message_ids"] if i not in got]
    buried = service.tombstones.buried(scope.user_id, gone) if gone else set()
    return [i for i in gone if i not in buried]


def _carry_over(service: Any, scope: Scope, w: dict[str, Any], elsewhere: set[str], now: datetime) -> dict[str, Any] | None:
    """The turns a processed imported window was run without, stored since: planned as a window of
    their own (written before the old window lets go of them). Turns another window already holds
    (`elsewhere`: a carry-over written before a crash) are not planned again; forgotten ones are let go."""
    reg, ids = service.registry, list(w["unseen"])
    have = service.reads.turns_by_id(scope, ids)
    buried = service.tombstones.buried(scope.user_id, [i for i in ids if i not in have])
    arrived = [have[i] for i in ids if i in have and i not in elsewhere]
    still = [i for i in ids if i not in have and i not in buried]
    follow, rest = W.carried_over(w, arrived, still, now)
    if follow is not None:
        registry.put_window(reg, follow)
    if rest["unseen"] != w["unseen"]:
        registry.put_window(reg, rest)
    return follow


async def _run_window(service: Any, scope: Scope, llm: LLM, w: dict[str, Any], msgs: list, now: Callable[[], datetime],
                      opts: ExtractOptions, stats: ExtractStats, progress: Progress) -> dict[str, Any]:
    reg = service.registry
    w = W.started(w, now())
    await asyncio.to_thread(registry.put_window, reg, w)
    outcome = dict(w.get("outcome") or {})
    if msgs:
        prompt, refs = extraction_messages(msgs)
        try:
            stats.llm["calls"] += 1
            text, usage = await llm.complete(prompt, json_schema=FACT_SCHEMA, purpose="amber-extract")
            for k in ("prompt_tokens", "completion_tokens", "cost"):
                stats.llm[k] += usage.get(k, 0) or 0
            facts = parse_facts(text, refs)
        except LLMError as e:
            w = W.failed_attempt(w, str(e), now(), opts.max_retries)
            await asyncio.to_thread(registry.put_window, reg, w)
            stats.windows["failed" if w["state"] == W.FAILED else "retried"] += 1
            stats.errors.append(f"window {w['id']}: {e}")
            progress({"stage": "model_error", "window": w["id"], "state": w["state"], "retry_count": w["retry_count"]})
            log.warning("extraction window %s: model error (attempt %d): %s", w["id"], w["retry_count"], e)
            return w
        said = {m.id: m.created_at for m in msgs} if w.get("imported") else None
        w = await asyncio.to_thread(_apply_facts, service, scope, w, facts, opts, stats, outcome, progress, said, msgs)
    w = W.finished(w, outcome, now())
    await asyncio.to_thread(registry.put_window, reg, w)
    stats.windows["processed"] += 1
    progress({"stage": "window_done", "window": w["id"], "messages": len(msgs), "outcome": outcome})
    return w


def _window_messages(service: Any, scope: Scope, w: dict[str, Any]) -> list:
    start, end = W.Mark.from_dict(w["start"]), W.Mark.from_dict(w["end"])
    assert start and end
    since = datetime.fromtimestamp(start.ts, tz=UTC)
    until = datetime.fromtimestamp(end.ts, tz=UTC) + timedelta(milliseconds=1)
    wanted = set(w["message_ids"])
    # messages dropped by retention in the meantime are simply absent
    return [m for m in service.messages(scope, since=since, until=until) if m.id in wanted]


CONFIDENCE_STEP = 0.1  # how much surer a fact gets each time the person states it again themselves
_COUNTER = {"created": "added", "seen": "seen", "superseded": "superseded", "deduplicated": "seen"}


def _apply_facts(service: Any, scope: Scope, w: dict[str, Any], facts: list[Fact], opts: ExtractOptions,
                 stats: ExtractStats, outcome: dict[str, int], progress: Progress,
                 said: dict[str, datetime] | None = None, turns: list | None = None) -> dict[str, Any]:
    """`said`: for a window of imported turns, when each was said: a fact is dated by its evidence.
    `turns`: the window's turns in time order, to tell the person's own statement from a retelling."""
    order = {m.id: i for i, m in enumerate(turns or [])}
    links = dict(w.get("links") or {})
    keyed = functools.partial(service.writes.keyed, scope)
    todo = [(W.fact_signature(keyed, w["id"], f.fact, f.fact_key), f) for f in facts]
    todo = [(sig, f) for sig, f in todo if sig not in links]
    vectors = service.embed_background([f.fact for _, f in todo]) if todo else []
    written: set[str] = set()  # by this attempt: a repeated fact in one answer is "seen", not "already landed"
    # a forget can land while the model answers or the facts are embedded: a fact taken only from turns
    # erased since is not written (it would bring back what the person erased, with the erased turn as
    # its evidence). Each fact's turns are checked under the person's lock, held through that fact's
    # write, so no forget lands between the check and the write; the lock is let go between facts.
    for (sig, fact), vec in zip(todo, vectors):
        when = None
        if said is not None:
            when = max((said[i] for i in fact.evidence if i in said), default=None) or max(said.values(), default=None)
        own = True
        if turns:
            first = min((order[i] for i in fact.evidence if i in order), default=len(turns))
            own = independent_statement(fact.fact, [(turns[order[i]].role.value, turns[order[i]].content) for i in fact.evidence if i in order],
                                        [m.content for m in turns[:first]])
        with service.writes.lock(scope):
            if fact.evidence and not service.reads.existing_turn_ids(scope, list(fact.evidence)):
                stats.facts["dropped"] += 1
                outcome["dropped"] = outcome.get("dropped", 0) + 1
                continue
            mem_id, counted = _apply_fact(service, scope, w["id"], fact, vec, opts, written, when, own)
        if mem_id is not None:
            written.add(mem_id)
        links[sig] = mem_id
        w = {**w, "links": links}
        if counted == "seen":
            # records this window created carry its tag, so a retry finds them without a link; a "seen"
            # leaves no such trace: link it before the next fact, or a retry would count it twice
            registry.put_window(service.registry, w)
        stats.facts[counted] += 1
        outcome[counted] = outcome.get(counted, 0) + 1
        progress({"stage": "fact", "window": w["id"], "action": counted, "memory": mem_id})
    return w


def _apply_fact(service: Any, scope: Scope, window: str, fact: Fact, vec: list[float], opts: ExtractOptions,
                written: set[str], said_at: datetime | None = None, own: bool = True) -> tuple[str | None, str]:
    reads, ns = service.reads, scope.write_namespace
    tag = f"window:{window}"
    # a previous attempt may have written this fact and died before linking it
    same_text = reads.memories(scope, memory_where(scope, statuses=None, namespaces=[ns], content_hash=content_hash(fact.fact)))
    for m in same_text:
        if tag in m.source_ids and m.id not in written:
            return m.id, "candidates" if m.status == Status.candidate else "added"
    same_key = None
    if fact.fact_key:
        holders = reads.memories(scope, memory_where(scope, namespaces=[ns], fact_key=fact.fact_key))
        if holders:
            h = max(holders, key=lambda m: m.updated_at)
            same_key = Existing(h, reads.memory_vectors(scope, [h.id]).get(h.id, []))
    neighbours: list[Existing] = []
    try:
        near = reads.nearest_memories(scope, vec, opts.neighbours, memory_where(scope, namespaces=[ns], kinds=[fact.kind]))
    except Exception as e:  # an empty collection or a filter with no match: nothing to compare with
        log.debug("neighbour query found nothing: %s", e)
        near = []
    if near:
        vecs = reads.memory_vectors(scope, [m.id for m, _ in near])
        neighbours = [Existing(m, vecs[m.id]) for m, _ in near if m.id in vecs]
    d = decide(fact, vec, same_key, neighbours, opts.policy)
    if said_at is not None and d.action in ("supersede", "candidate") and same_key is not None and d.target_id == same_key.memory.id:
        holder = same_key.memory
        if holder.valid_from is not None and holder.valid_from > said_at:
            return _as_history(service, scope, fact, vec, holder, said_at, tag, own, opts.policy)
    return _carry_out(service, scope, fact, d, tag, said_at, own)


def _as_history(service: Any, scope: Scope, fact: Fact, vec: list[float], head: Any, said_at: datetime, tag: str,
                own: bool, policy: Policy) -> tuple[str, str]:
    """A value said before the one the key holds now (an imported conversation from 2023 against a
    fact from 2025): put into the key's history at its date, between the versions said before and
    after it (decide.placed), never in front of the newer one. The same value as the version said
    just before or after it is that version, seen again: history holds each change once."""
    data = MemoryIn(content=fact.fact, namespace=scope.write_namespace, kind=Kind(fact.kind), category=fact.category,
                    fact_key=fact.fact_key, lang=fact.lang, importance=fact.importance, confidence=fact.confidence,
                    source_ids=[*fact.evidence, tag], valid_from=said_at, tags=[SAID_BY_USER if own else SAID_BY_ASSISTANT])
    data = service.redact.fields(data)  # as every write: secrets never reach the store
    reads, writes = service.reads, service.writes
    with writes.lock(scope):
        versions = reads.memories(scope, memory_where(scope, statuses=[Status.active, Status.superseded],
                                                      namespaces=[scope.write_namespace], fact_key=fact.fact_key))
        head = next((m for m in versions if m.id == head.id), head)  # as stored now, links included
        before, after = chain_neighbours(versions, head, said_at)
        near = [m for m in (before, after) if m is not None]
        vecs = reads.memory_vectors(scope, [m.id for m in near])
        h = content_hash(data.content)
        for m in near:
            if m.content_hash == h or cosine(vec, vecs.get(m.id) or []) >= policy.seen_cosine:
                return m.id, "seen"
        now = service.clock.now()
        records = placed(writes.new(scope, data, now), before, after, now)
        writes.write(scope, records, embed=records[:1])  # one store call: the chain never shows a gap
        writes.audit(scope, "history", [m.id for m in records], fact_key=fact.fact_key)
    return records[0].id, "superseded"


def _carry_out(service: Any, scope: Scope, fact: Fact, d: Decision, tag: str, said_at: datetime | None = None,
               own: bool = True) -> tuple[str | None, str]:
    if d.action == "drop":
        return None, "dropped"
    if d.action == "seen":
        target = service.get(scope, d.target_id)
        if not own:
            # an assistant's retelling, or the person quoting one, is no new evidence: linked, not counted
            return target.id, "seen"
        if target.confidence < 1.0:  # the person said it again themselves: surer than before
            service.update(scope, target.id, MemoryPatch(confidence=round(min(1.0, target.confidence + CONFIDENCE_STEP), 3)))
        if SAID_BY_ASSISTANT in target.tags:  # first heard from an assistant, now the person's own words
            target = service.update(scope, target.id, MemoryPatch(tags=said_by(list(target.tags), SAID_BY_USER)))
        # re-stating the stored wording is the service's own "seen" path (count, time, audit)
        again = MemoryIn(content=target.content, namespace=target.namespace, kind=target.kind, category=target.category,
                         fact_key=target.fact_key, title=target.title, importance=target.importance)
        r = service.remember(scope, again)
        return r.memory.id, _COUNTER.get(r.action, "seen")
    data = MemoryIn(
        content=fact.fact, namespace=scope.write_namespace, kind=Kind(fact.kind), category=fact.category,
        fact_key=fact.fact_key, lang=fact.lang, importance=fact.importance, confidence=fact.confidence,
        source_ids=[*fact.evidence, tag], status=Status.candidate if d.action == "candidate" else Status.active,
        tags=[SAID_BY_USER if own else SAID_BY_ASSISTANT],
        valid_from=said_at,  # a fact from an imported conversation holds from when it was said
    )
    try:
        if d.action == "supersede":  # the version it retires ends when this was said (MemoryService._supersede)
            r = service.supersede(scope, d.target_id, data)
        else:
            r = service.remember(scope, data)
    except InvalidInput as e:  # e.g. the holder was retired meanwhile: store as new rather than lose it
        log.info("extraction fell back to remember: %s", e)
        r = service.remember(scope, data)
    if d.action == "candidate" and r.action == "created":
        return r.memory.id, "candidates"
    return r.memory.id, _COUNTER.get(r.action, "added")
