"""The recall pipeline: dense and lexical arms over memories and raw messages, fused and budgeted.

The lexical indexes live in process, one per user collection, and are kept current by the
service's writes (`note_memories`, `note_messages`) instead of being rebuilt. In client/server
mode another host may write too, so each index remembers the collection revision it reflects
and, when the stored revision moves, reads back what changed since (core/recall/catch_up.py).
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor, TimeoutError as FutureTimeout
from datetime import datetime, timedelta
from functools import cache, partial
from pathlib import Path
from typing import Callable, Collection, Iterable, Iterator, Sequence, TypeVar

import numpy as np

from ..embed.fair import asked_by
from ..embed import sentence
from ..errors import EmbedderUnavailable, StoreUnavailable
from ..filters import Eq, Where
from ..model import Memory, Message, Status
from ..ports import LLM, Embedder, Reranker
from ..scope import Scope, memory_collection, memory_where, message_collection, message_where
from .config import RecallConfig
from .catch_up import CatchUp, caught_up, log_built, stamped_after
from .fusion import Candidate, dedup, fuse, lexical_trust
from .turns import LEXICAL_CONTEXT, Turn, TurnIndex, add_turns, turn_tokens
from .query import dense_query, lexical_query
from .background import Background, backgrounds
from .relevance import PASSING, Floor, is_cjk, select, verdicts
from .render import estimate_tokens
from .result import RecallResult, build_result
from .refine import Refines
from . import ranker, sentence_arm, warm_start
from .memory_index import ListEntry, MemIndex, memory_candidate
from .sentence_arm import SentenceVectors
from ..destinations import DestinationPolicy

log = logging.getLogger("amber.recall")


# How long a recall waits for a person's turn index to be built (or caught up) before it goes on
# without the turns, the build running on: 200 000 imported turns take over a minute to index here,
# and a chat should not queue behind that. A store of a few thousand turns builds well within it.
# The default of Settings.recall_index_wait_s, which sets `Recaller.index_wait_s`.
INDEX_WAIT_S = 2.0
BUILD_PART = 20_000  # turns indexed between two looks at whether the host is shutting down
T = TypeVar("T")


class Recaller(CatchUp, Refines):
    def __init__(
        self,
        store,
        embedder: Embedder,
        revision: Callable[[str], int],
        reranker: Reranker | None = None,
        compressor: LLM | None = None,
        changes: Callable[[str], tuple[int, list[tuple[int, list[str]]]]] | None = None,
        revisions: Callable[[Sequence[str]], dict[str, int]] | None = None,
    ):
        self.store = store
        self.embedder = embedder
        self.revision = revision
        self.revisions = revisions  # several collections' revisions in one read (a search reads two)
        self.changes = changes  # Revisions.changes: what stamped records cannot say (None: always rebuild)
        self.reranker = reranker  # used when RecallConfig.rerank is on
        self.compressor = compressor  # a cheap LLM, used when RecallConfig.compress is on
        # the destination policy (core/destinations.py): which items the rerank and compression models may read
        self.destinations: DestinationPolicy | None = None
        # prompts about nobody, for the floor's margin and distinct route: embedded ahead when the floors are this embedder's
        self.background = Background(embedder, ahead=getattr(embedder, "id", None) == RecallConfig().floor_embedder)
        self.sentence = sentence.shared()  # the sentence arm's model: loading from now on when the defaults use it
        self._sentence_on = sentence_arm.runs(RecallConfig(), embedder)
        self._sentence_turns = sentence_arm.reads_turns(RecallConfig(), embedder)  # turn indexes keep its vectors
        if self._sentence_on or self._sentence_turns:
            self.sentence.ready()
        self.rebuilds = 0  # full lexical index builds so far: writes update in place, so this stays low
        self.catch_ups = 0  # indexes brought up to other hosts' writes by reading only what changed
        self._mem: dict[str, MemIndex] = {}
        self._msg: dict[str, TurnIndex] = {}
        self._kept: dict[str, SentenceVectors] = {}  # col -> the vectors of a turn index dropped by a forget, for its rebuild
        self._lock = threading.RLock()
        self._build_locks: dict[str, threading.Lock] = {}
        # col -> the writes noted while its index is being built from the store (see _caught_up)
        self._notes: dict[str, list[tuple[str, object, int, int]]] = {}
        # query embeddings run here while the lexical arms run on the caller's thread
        self._refine_loop: asyncio.AbstractEventLoop | None = None  # rerank/compress calls (async clients)
        self._refine_guard = threading.Lock()
        self._query_pool = ThreadPoolExecutor(max_workers=8, thread_name_prefix="amber-query")
        self._index_pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="amber-index")  # see INDEX_WAIT_S
        # the sentence model's reads of turn indexes, one at a time (minutes for an import): never ahead of a build above
        self._fill_pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="amber-sentence")
        self._index_builds: dict[str, Future] = {}
        self.index_wait_s = INDEX_WAIT_S
        self.reading_wait_s = 0.0  # Settings.recall_reading_wait_s
        self.index_max_turns = 500_000  # Settings.recall_index_max_turns
        self.index_max_people = 10_000  # Settings.recall_index_max_people
        self._used: dict[str, float] = {}  # col -> when its index (memories or turns) last served
        self._closed = False
        self.warm_file: Path | None = None  # whose indexes to build again at the next start (warm_start.py)
        self.warming: threading.Thread | None = None  # building them at this start

    closed = property(lambda self: self._closed)

    def close(self) -> None:
        """Stop building: a turn index being built gives up at its next page or chunk, queued builds never start (a build of
        200 000 turns takes a minute, and the interpreter waits for the pools' threads at exit). First, whose indexes it
        held is noted for the next start."""
        if self.warm_file is not None and not self._closed:
            warm_start.save_quietly(self, self.warm_file)
        self._closed = True
        if self.warming is not None:  # it stops at its next page: the store must outlive its reads
            self.warming.join(timeout=10)
        self._index_pool.shutdown(wait=False, cancel_futures=True)  # query embeddings are short: their pool stays
        self._fill_pool.shutdown(wait=False, cancel_futures=True)

    def serving(self) -> list[tuple[str, str]]:
        """("memories" | "turns", collection) of every index held here, most recently used first."""
        with self._lock:
            held = [("memories", c) for c in self._mem] + [("turns", c) for c in self._msg]
            return sorted(held, key=lambda e: -self._used.get(e[1], 0.0))

    def rebuild(self, kind: str, col: str) -> None:
        """Build (or bring up to date) one index on the caller's thread, as a recall would; a memory
        index with its sentence arm's vectors, when the defaults use that arm and its model is loaded."""
        if kind == "turns":
            idx = self._msg_index(col)
            if idx.sentences is not None and self.sentence.wait(30):  # its vectors on their own thread: the next index need not wait
                self._turn_vectors_soon(col, idx)
        elif self._sentence_on and self.sentence.wait(30):  # a warm start runs as the host starts: the model loads beside it
            idx = self._mem_index(col)
            sentence_arm.fill(idx.sentences, self.sentence, self._lock, 1 << 62, lambda: self._closed or self._mem.get(col) is not idx)
        else:
            self._mem_index(col)

    def _unless_closed(self, items: Iterable[T]) -> Iterator[T]:
        for item in items:
            if self._closed:
                raise StoreUnavailable("the recall index build stopped: this host is shutting down")
            yield item

    # ---- index upkeep ------------------------------------------------------------------------

    def _mem_index(self, col: str, rev: int | None = None) -> MemIndex:
        rev = self.revision(col) if rev is None else rev
        idx = self._mem.get(col)
        if idx is not None and idx.rev >= rev:
            self._used[col] = time.monotonic()
            return idx
        with self._building(col):
            idx = self._mem.get(col)
            if idx is not None and idx.rev >= rev:  # another thread built it while we waited
                return idx
            if idx is not None and self._catch_up(col, idx, rev, self._mem, lambda at: self.store.find_memories(col, stamped_after(at)),
                                                  self._mem_note, drops=True):
                return idx
            self.rebuilds += 1
            started, was = time.monotonic(), (idx.rev if idx is not None else None, rev)
            with self._lock:
                self._notes[col] = []
            idx = MemIndex(rev=self.revision(col))
            try:
                for m in self.store.find_memories(col, Where.of(Eq("status", Status.active.value))):
                    self._mem_add(idx, m)
            finally:
                with self._lock:
                    notes = self._notes.pop(col, [])
            with self._lock:
                caught_up(idx, notes, self._mem_note)
                if (old := self._mem.get(col)) is not None:
                    idx.sentences.adopt(old.sentences)
                self._mem[col] = idx
                self._used[col] = time.monotonic()
                self._evict_indexes(keep=col)
            log_built(col, len(idx.cands), notes, started, was, idx.rev, self.rebuilds)
            return idx

    def memory_readings(self, scope: Scope, items: Sequence[tuple[str, str]]) -> dict[str, np.ndarray]:
        """The sentence model's reading of each (memory id, words) that the person's index read from those words."""
        with self._lock:
            idx = self._mem.get(memory_collection(scope))
            return {} if idx is None else sentence_arm.readings(idx.sentences, items)

    def active_listing(self, col: str) -> list[ListEntry]:
        """Every active memory of the collection as the list sees it (from the lexical index, built if cold)."""
        idx = self._mem_index(col)
        with self._lock:  # writes update the index in place under this lock
            return list(idx.listing.values())

    def _mem_note(self, idx, what: str, payload) -> None:
        if what == "add":
            for m in payload:
                self._mem_add(idx, m)
        else:
            for i in payload:
                idx.drop(i)

    def _note(self, col: str, what: str, payload, old_rev: int, new_rev: int) -> None:
        """Keep a write for the index being built for `col`, if one is (the caller holds self._lock)."""
        building = self._notes.get(col)
        if building is not None:
            building.append((what, payload, old_rev, new_rev))

    def _building(self, col: str) -> threading.Lock:
        """One lock per collection for (re)building its index: a user's cold index (seconds at 100k
        turns) never holds up another user's recall or anyone's write."""
        with self._lock:
            return self._build_locks.setdefault(col, threading.Lock())

    @staticmethod
    def _mem_add(idx: MemIndex, m: Memory) -> None:
        if m.status != Status.active:
            idx.drop(m.id)
            return
        idx.background.pop(m.id, None)  # its words, so its vector, may have changed
        text = " ".join(x for x in (m.title, *m.aliases, m.content) if x)  # a plain memory's reading is of its content alone
        idx.bm25.add(m.id, text)
        idx.sentences.add(m.id, text)
        idx.cands[m.id] = memory_candidate(m)
        idx.meta[m.id] = (m.namespace, m.expire_at.timestamp() if m.expire_at else 0.0)
        idx.listing[m.id] = ListEntry(m.updated_at, m.id, m.namespace, m.kind.value, m.category.value if m.category else None, m.fact_key)

    def note_memories(self, col: str, memories: Sequence[Memory], old_rev: int, new_rev: int) -> None:
        with self._lock:
            self._note(col, "add", list(memories), old_rev, new_rev)
            idx = self._mem.get(col)
            if idx is None:
                return
            if idx.rev != old_rev:
                self._mem.pop(col, None)
                self._used.pop(col, None)
                return
            for m in memories:
                self._mem_add(idx, m)
            idx.rev = new_rev

    def forget_memories(self, col: str, ids: Sequence[str], old_rev: int, new_rev: int) -> None:
        with self._lock:
            self._note(col, "forget", list(ids), old_rev, new_rev)
            idx = self._mem.get(col)
            if idx is None:
                return
            if idx.rev != old_rev:
                self._mem.pop(col, None)
                self._used.pop(col, None)
                return
            for i in ids:
                idx.drop(i)
            idx.rev = new_rev

    def _msg_index(self, col: str, rev: int | None = None) -> TurnIndex:
        rev = self.revision(col) if rev is None else rev
        idx = self._msg.get(col)
        if idx is not None and idx.rev >= rev:
            return idx
        with self._building(col):
            idx = self._msg.get(col)
            if idx is not None and idx.rev >= rev:  # another thread built it while we waited
                return idx
            if idx is not None and self._catch_up(col, idx, rev, self._msg, lambda at: list(self.store.each_message(col, stamped_after(at))),
                                                  lambda i, _what, msgs: add_turns(i, msgs), drops=False):
                with self._lock:
                    self._evict_indexes(keep=col)
                return idx
            self.rebuilds += 1
            started, was = time.monotonic(), (idx.rev if idx is not None else None, rev)
            with self._lock:
                self._notes[col] = []
            idx = TurnIndex(rev=self.revision(col), sentences=SentenceVectors(np.int8) if self._sentence_turns else None)
            if idx.sentences is not None:
                idx.sentences.fill_started = started  # a recall's wait for its readings (reading_wait_s) counts from the build
            try:
                turns = sorted((Turn.of(m) for m in self._unless_closed(self.store.each_message(col))), key=lambda t: (t.created_at, t.id))
                for part in self._unless_closed(range(0, len(turns), BUILD_PART)):  # in time order, parts make the same index
                    add_turns(idx, turns[part : part + BUILD_PART])
            finally:
                with self._lock:
                    notes = self._notes.pop(col, [])
            with self._lock:
                caught_up(idx, notes, lambda i, _what, msgs: add_turns(i, msgs))
                kept, cur = self._kept.pop(col, None), self._msg.get(col)
                if idx.rev < 0:  # dropped while it was read (a forget, an erasure): read again at the next recall
                    idx.sentences = None
                elif idx.sentences is not None and (old := cur.sentences if cur is not None and cur.sentences is not None else kept):
                    idx.sentences.adopt(old)  # a forget rebuilds the index: only what changed is read again
                self._msg[col] = idx
                self._used[col] = time.monotonic()
                self._evict_indexes(keep=col)
                self._turn_vectors_soon(col, idx)
            log_built(col, len(idx.msgs), notes, started, was, idx.rev, self.rebuilds)
            return idx

    def _turn_vectors_soon(self, col: str, idx: TurnIndex) -> Future | None:
        """The sentence model's read of the turn index's pending vectors on its own thread (none while the model loads)."""
        if idx.sentences is not None and idx.sentences.pending and self.sentence.ready():
            return sentence_arm.queue_fill(idx.sentences, self.sentence, self._lock, self._fill_pool.submit,
                                           lambda: self._closed or self._msg.get(col) is not idx, turns=True)
        return None

    def _evict_indexes(self, keep: str) -> None:
        """A host's memory stays bounded however many people it serves: past `index_max_turns` turns in all, the turn
        indexes used least recently go; past `index_max_people` people (~27 KB for one with 5 memories and 10 turns, and
        16 KB of sentence arm rows), all their indexes, down to nine tenths so the sort is paid once per thousand. Their
        next recall builds them again. Called with the lock held."""
        total = sum(len(i.msgs) for i in self._msg.values())
        if total > self.index_max_turns:
            for col in sorted(self._msg, key=lambda c: self._used.get(c, 0.0)):
                if total <= self.index_max_turns:
                    break
                if col != keep:
                    total -= len(self._msg.pop(col).msgs)
                    self._used.pop(col, None)
                    log.info("turn index of %s dropped: %d turns indexed on this host, more than %d", col, total, self.index_max_turns)
        if len(self._mem) + len(self._msg) > 2 * self.index_max_people:
            target = int(2 * self.index_max_people * 0.9)
            cols = sorted([*self._mem, *self._msg], key=lambda c: self._used.get(c, 0.0))
            dropped = 0
            for col in cols[: max(0, len(cols) - target)]:
                if col != keep:
                    self._mem.pop(col, None)
                    self._msg.pop(col, None)
                    self._used.pop(col, None)
                    dropped += 1
            log.info("recall indexes of %d people's collections dropped: more than %d people indexed on this host", dropped, self.index_max_people)

    def note_messages(self, col: str, messages: Sequence[Message], old_rev: int, new_rev: int) -> None:
        tokens = turn_tokens(messages) if col in self._msg else None  # their words read before the lock is taken
        with self._lock:
            self._note(col, "add", list(messages), old_rev, new_rev)
            idx = self._msg.get(col)
            if idx is None:
                return
            if idx.rev != old_rev:
                self._msg.pop(col, None)
                self._used.pop(col, None)
                return
            add_turns(idx, messages, tokens)
            idx.rev = new_rev
            self._evict_indexes(keep=col)
            self._turn_vectors_soon(col, idx)  # read before the next recall needs them

    def session_tail(self, col: str, session: str, n: int) -> list[Turn] | None:
        """The last n turns of a session from the in-process index, or None when it is not loaded
        or not current (the caller then reads the store)."""
        idx = self._msg.get(col)
        if idx is None or idx.rev < self.revision(col) or n > LEXICAL_CONTEXT:
            return None
        return list(idx.tails.get(session, []))[-n:] if n else []

    def _build_soon(self, col: str, rev: int) -> Future:
        """The person's turn index being built (or caught up) in the index pool: the build already
        under way, or a new one."""
        with self._lock:
            fut = self._index_builds.get(col)
            if fut is None or fut.done():
                if self._closed:
                    raise StoreUnavailable("this host is shutting down")
                fut = self._index_builds[col] = self._index_pool.submit(self._msg_index, col, rev)
                fut.amber_started = time.monotonic()  # type: ignore[attr-defined]
                fut.add_done_callback(lambda f, c=col: self._index_builds.pop(c, None) if self._index_builds.get(c) is f else None)
        return fut

    def _msg_index_soon(self, col: str, rev: int, again: bool = True) -> TurnIndex | None:
        """The turn index, if it is current or made so within `index_wait_s`; else None while its
        build goes on (in the index pool), so recalls in the meantime answer from the person's
        memories instead of each waiting for the build. A store error is raised as before."""
        idx = self._msg.get(col)
        if idx is not None:  # only a person whose index this host holds: never one entry per person asking
            self._used[col] = time.monotonic()
        if idx is not None and idx.rev >= rev:
            return idx
        fut = self._build_soon(col, rev)
        try:  # the wait counts from the build's submission: once past it, nobody waits on it
            idx = fut.result(timeout=max(0.0, fut.amber_started + self.index_wait_s - time.monotonic()))  # type: ignore[attr-defined]
        except FutureTimeout:
            if not fut.done():
                if not getattr(fut, "amber_said", False):
                    fut.amber_said = True  # type: ignore[attr-defined]
                    log.warning("recall of %s goes on without its captured turns while their index is built", col)
                return None
            idx = fut.result()  # done after all: its index, or the build's own error (a store timeout)
        if idx.rev >= rev:
            return idx
        # built for a revision older than this recall's (writes it could not catch up): once more
        # through the pool, never on this thread, where a full rebuild could take minutes
        return self._msg_index_soon(col, rev, again=False) if again else None

    def warm(self, scope: Scope, wait: bool = True) -> None:
        """Build (or catch up) a person's in-process indexes now rather than at their next
        recall: after an import of thousands of turns, that build is most of the first recall.
        The turn index is built in the index pool, like a recall's; `wait=False` returns at once."""
        self._mem_index(memory_collection(scope))
        col = message_collection(scope)
        fut = self._build_soon(col, self.revision(col))
        if wait:
            fut.result()

    def messages(self, col: str) -> list[Turn]:
        """Every captured turn of a collection, from the (built or current) recall index."""
        return list(self._msg_index(col).msgs.values())

    def drop_indexes(self, *cols: str, gone: Sequence[str] | None = None) -> None:
        """The indexes rebuild on their next read. `gone` (turns forgotten or reworded): the sentence model's vectors of the others are kept for it."""
        with self._lock:
            idx = self._msg.get(cols[0]) if gone is not None and len(cols) == 1 else None
            for c in cols:
                self._kept.pop(c, None)
                self._note(c, "drop", None, -1, -1)
                self._mem.pop(c, None)
                self._msg.pop(c, None)
                self._used.pop(c, None)
            if idx is not None and idx.sentences is not None:
                sentence_arm.keep_for_rebuild(self._kept, cols[0], idx.sentences, gone or (), self.index_max_turns // 10)

    # ---- query -------------------------------------------------------------------------------

    def search(self, scope: Scope, query: str, cfg: RecallConfig, now: datetime) -> list[Candidate]:
        """Ranked candidates for a query, best first, at most `cfg.top_k`."""
        if not query.strip():
            return []
        query = lexical_query(query)  # its tail: every reading below (the ranker's, the floor's) is bounded
        w = cfg.weights
        on = {arm for arm in ("mem_dense", "mem_lexical", "msg_dense", "msg_lexical") if w.get(arm, 1.0) > 0}
        if sentence_arm.runs(cfg, self.embedder):
            on.add("mem_sentence")
        if not cfg.include_messages:
            on -= {"msg_dense", "msg_lexical"}
        mcol = memory_collection(scope)
        now_ts = now.timestamp()
        lex_q = lexical_query(query)
        rankings: dict[str, list[str]] = {}
        cands: dict[str, Candidate] = {}
        neighbours: dict[str, list[str]] = {}
        sims: dict[str, float] = {}  # cosine similarity of each dense hit to the query
        cover: dict[str, float] = {}  # each lexical hit's coverage of the query's words

        gcol, turns = message_collection(scope), bool(on & {"msg_dense", "msg_lexical"})
        # both revisions in one registry read: with hosts sharing a store, that read was a third of
        # Chroma's requests in the uniform mix (bench/README.md, "What a second host adds")
        cols = [mcol, gcol] if turns else [mcol]
        revs = self.revisions(cols) if self.revisions is not None else {}
        # one query vector serves both dense arms; skipped entirely when no dense arm is on. It is
        # computed (in the embedder's worker process) while the indexes are read and the lexical
        # arms run here. Collections never written (a new person's first turn) wait until their
        # indexes say whether there is anything to compare it with: usually nothing, and then no
        # query queues for the embedder at all.
        embed = bool(on & {"mem_dense", "msg_dense"})
        ask = partial(self._query_pool.submit, asked_by, scope.user_id, self.embedder.embed_query, dense_query(query, cfg.context_turns, cfg.query_max_chars))
        qfut: Future | None = ask() if embed and any(revs.get(c, 1) for c in cols) else None
        midx = self._mem_index(mcol, revs.get(mcol))
        allowed = midx.allowed(tuple(scope.read_namespaces), now_ts)
        gidx = self._msg_index_soon(gcol, revs[gcol] if gcol in revs else self.revision(gcol)) if turns else None
        since = None
        if cfg.message_window_days is not None:
            since = (now - timedelta(days=cfg.message_window_days)).timestamp()
        lexical: dict[str, list[str]] = {}
        if allowed and "mem_lexical" in on:
            # everything readable (the usual case): no per-posting membership test
            every = len(allowed) == len(midx.bm25)
            lexical["mem_lexical"] = [i for i, _ in midx.bm25.search(lex_q, cfg.k_lexical, None if every else allowed)]
            cover.update(midx.bm25.coverage(lex_q, lexical["mem_lexical"]))
        if gidx is not None and gidx.msgs and "msg_lexical" in on:
            allowed_m = None if since is None else gidx.since(since)  # read beside captures adding turns
            lexical["msg_lexical"] = [i for i, _ in gidx.bm25.search(lex_q, cfg.k_lexical, allowed_m)]
            cover.update(gidx.bm25.coverage(lex_q, lexical["msg_lexical"]))
        squery = cache(partial(self.sentence.encode_query, query, scope.user_id))  # the sentence model's reading of the query, once
        if allowed and "mem_sentence" in on:  # a second embedder's reading of the memories, while e5 reads the query
            got = sentence_arm.rank(midx.sentences, self.sentence, squery, cfg.k_dense, allowed, self._lock, self._index_pool.submit,
                                    self.reading_wait_s, stop=lambda: self._closed or self._mem.get(mcol) is not midx)
            if got is not None:
                rankings["mem_sentence"] = got
        elif gidx is not None and gidx.msgs and sentence_arm.reads_turns(cfg, self.embedder) and self.sentence.ready(load=False):
            sentence_arm.ahead(squery)  # for the turn ranker, read while e5 reads the query in its worker (as the memory arm's is)

        if embed and qfut is None and (allowed and "mem_dense" in on or gidx is not None and gidx.msgs and "msg_dense" in on):
            qfut = ask()
        qvec = None
        if qfut is not None:
            try:
                qvec = qfut.result()
            except EmbedderUnavailable as e:  # a worker restarting: the lexical arms still answer
                log.warning("recall without the dense arms: %s", e)
                on -= {"mem_dense", "msg_dense"}

        if allowed:
            if "mem_dense" in on:
                hits_d = self._dense_memories(scope, mcol, qvec, min(cfg.k_dense, len(allowed)), allowed, len(midx.meta))
                rankings["mem_dense"] = [i for i, _ in hits_d]
                sims.update(hits_d)
            if "mem_lexical" in lexical:
                rankings["mem_lexical"] = lexical["mem_lexical"]
            for arm in ("mem_dense", "mem_lexical", "mem_sentence"):
                for i in rankings.get(arm, ()):
                    if (c := midx.cands.get(i)) is not None:  # a memory forgotten while this search read
                        cands[i] = c

        if gidx is not None and gidx.msgs:
            if "msg_dense" in on:
                dense_m = self.store.nearest_ids(gcol, qvec, min(cfg.k_dense, len(gidx.msgs)), message_where(since=since))
                rankings["msg_dense"] = [i for i, _ in dense_m if i in gidx.cands]
                sims.update(dense_m)
            if "msg_lexical" in lexical:
                rankings["msg_lexical"] = lexical["msg_lexical"]
            hits = rankings.get("msg_dense", []) + rankings.get("msg_lexical", [])
            if cfg.neighbours > 0:
                neighbours = gidx.neighbours(hits)
                if since is not None:  # a neighbour outside the window stays out
                    neighbours = {i: [n for n in nb if gidx.msgs[n].created_at.timestamp() >= since] for i, nb in neighbours.items()}
                hits += [n for nb in neighbours.values() for n in nb]
            for i in hits:
                cands[i] = gidx.cands[i]

        evidence = {i: (sims.get(i, 0.0), cover.get(i, 0.0)) for i in cands}
        weights = lexical_trust(w, rankings, cover, cfg.lexical_evidence) if is_cjk(query) else w
        ranked = fuse(cands, rankings, weights, now, cfg.boosts, cfg.rrf_k, neighbours, cfg.neighbours, evidence)
        if "mem_sentence" in rankings:
            ranked = sentence_arm.with_similarity(ranked, cfg.top_k, qvec, sims, partial(self.store.memory_embeddings, mcol))
        if cfg.turn_ranker and gidx is not None:  # turns put in order by what fusion leaves out (ranker.py)
            said = sentence_arm.reads_turns(cfg, self.embedder) and sentence_arm.turn_similarities(
                gidx.sentences, self.sentence, squery, [c.id for c in ranker.turns_of(ranked, gidx)], self._lock,
                partial(self._turn_vectors_soon, gcol, gidx), self.reading_wait_s) or None
            ranked = ranker.reorder(query, ranked, gidx, rankings.get("msg_lexical", ()), cfg.rrf_k, sentence=said)
        ranked = [c for c in ranked if c.score >= cfg.min_score]
        return dedup(ranked, cfg.dedup_threshold, cfg.top_k)

    def _dense_memories(self, scope: Scope, col: str, qvec, k: int, allowed: set[str], active: int) -> list[tuple[str, float]]:
        """Top-k memory ids by vector, with their similarity. A filtered Chroma query costs ~30 ms at 10k records against
        ~3 ms unfiltered (measured, bench/README.md), and the index already knows which ids are
        allowed: so over-fetch unfiltered and filter here. Only when retired records or other
        namespaces crowd the top does the filtered query run, so the result is the same."""
        fetch = min(2 * k, active)  # active <= records in the collection: Chroma never sees n > count
        hits = self.store.nearest_ids(col, qvec, fetch)
        ids = [h for h in hits if h[0] in allowed][:k]
        if len(ids) < k and len(hits) == fetch:
            ids = [h for h in self.store.nearest_ids(col, qvec, k, memory_where(scope)) if h[0] in allowed]
        return ids

    def backgrounds_of(self, scope: Scope, items: Sequence[Candidate]) -> dict[str, float]:
        """Background similarity (background.py) of the memories and turns among `items`, kept by the person's indexes."""
        out: dict[str, float] = {}
        try:
            for source, col, idx in (("memory", memory_collection(scope), self._mem.get(memory_collection(scope))),
                                     ("message", message_collection(scope), self._msg.get(message_collection(scope)))):
                if idx is not None:
                    out.update(backgrounds(items, source, idx.background, partial(self.store.memory_embeddings, col), self.background))
        except Exception as e:  # the floors alone decide this recall: it answers as before the margin
            log.warning("recall without backgrounds: %s", e)
        return out

    def _held(self, scope: Scope) -> dict[str, int]:
        """How many memories and captured turns the person holds, from the indexes the search just
        used (never a store read): the relevance floor rises with them (relevance.Floor)."""
        midx, gidx = self._mem.get(memory_collection(scope)), self._msg.get(message_collection(scope))
        return {"memory": len(midx.meta) if midx else 0, "message": len(gidx.msgs) if gidx else 0}

    def recall(self, scope: Scope, query: str, cfg: RecallConfig, now: datetime, *, echo: Collection[str] = (),
               count_tokens=None, destination: str | None = None) -> RecallResult:
        """The block to inject: a pool twice the size that is kept, without echoes, filler and turns
        a fact covers (relevance.select); of its best, only the items that clear the relevance floor
        themselves (and pinned facts); refined when configured, fitted to the budget and rendered."""
        query = lexical_query(query)  # a 3 MB paste read whole by the floor and the ranker took seconds
        wide = max(2 * cfg.top_k, cfg.rerank_pool if cfg.rerank and self.reranker is not None else 0)
        pool = self.search(scope, query, cfg.model_copy(update={"top_k": wide}), now)
        pool = select(pool, echo=frozenset(echo), query=query)
        if destination is not None and self.destinations is not None:  # only what may go to that model is packed
            pool = self.destinations.admit(pool, destination)
        floor = Floor(cfg.floor_memory, cfg.floor_message, cfg.floor_lexical, cfg.floor_cjk_offset, cfg.floor_per_decade,
                      cfg.floor_margin, cfg.floor_distinct, reads_talk=cfg.floor_small_talk, about_me=cfg.floor_about_me)
        if getattr(self.embedder, "id", None) != cfg.floor_embedder:
            floor = Floor()
        # Each item on its own evidence: one that clears the floor brings no weaker one in with it.
        # A reranker may promote any item of its pool, so then the whole pool is weighed.
        reranking = cfg.rerank and self.reranker is not None
        weighed = pool if reranking else pool[: cfg.top_k]
        bg = self.backgrounds_of(scope, weighed) if floor.weighs_background else {}
        said = verdicts(weighed, is_cjk(query), floor.for_query(query), self._held(scope), bg)
        kept = {i for i, v in said.items() if v in PASSING}
        considered, abstained = len(pool), not kept and not floor.off
        left_out = [c for c in weighed if c.id not in kept and not c.pinned]
        said.update({c.id: "pinned" for c in pool if c.pinned and c.id not in kept})
        pool = [c for c in pool if c.id in kept or c.pinned]  # pinned facts go everywhere: the person asked for that
        staged = reranking or (cfg.compress and self.compressor is not None)
        items = self.refine_sync(query, pool, cfg) if staged else pool[: cfg.top_k]
        result = build_result(items, cfg.budget_tokens, count_tokens or estimate_tokens, query)
        result.considered, result.abstained, result.verdicts, result.backgrounds = considered, abstained, said, bg
        result.left_out = left_out
        return result

