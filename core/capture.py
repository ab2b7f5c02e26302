"""Capture: how conversation turns become a person's log, for every path that brings them (a face's
ingest, the Redis capture queue, an import). `MemoryService` owns one and answers for it.

A captured turn is cleaned first (`as_said`: Amber's own echoed memory block stripped, empty
turns dropped, repeated ids refused), its secrets redacted, its time believed only up to now; the
commands in new user turns ("remember …", "forget …") are carried out at once, and a "forget"
exchange is not stored, as it would say again what was just forgotten.
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from datetime import datetime, timedelta
from typing import Any, Callable, Sequence

from .commands import parse_command
from .correction import forgets_by_handle
from .embed.fair import background_owner
from .errors import InvalidInput, TransientError
from .model import MEMORY_MAX_CHARS, SAID_BY_USER, Memory, MemoryIn, Message, Role, WriteResult
from .recall.turns import DENSE_CONTEXT, message_index_texts
from .recall.render import strip_patch
from .scope import Scope, message_collection, message_where
from .store.gate import writing
from .store.reads_first import in_background
from .turns import dated, keyed_turn_ids, unsaved

# Turns embedded and written together by store_turns: about what the background lane embeds in a
# batch or two, so a part is seconds of work and a failure loses at most that.
STORE_PART = 64
# A request somebody waits for this small (an exchange or two) is embedded now, on the interactive lane
WAITED_TEXTS, WAITED_CHARS = 8, 6000

log = logging.getLogger("amber.capture")


def as_said(messages: Sequence[Message]) -> list[Message]:
    """Turns as the person and the model said them, whichever face or queue brought them: a client may
    echo back the memory block Amber gave it (stored, it would be recalled as if someone had said
    it), and a turn left empty by that is dropped. One request naming an id twice is refused (the
    capture queue merges a retried entry's turns before it calls, core/capture_queue.py)."""
    if len({m.id for m in messages}) != len(messages):
        raise InvalidInput("messages", "message ids repeat within one request")
    out = []
    for m in messages:
        text = strip_patch(m.content)
        if text.strip():
            out.append(m if text == m.content else m.model_copy(update={"content": text}))
    return out


REPLY_AWAITED = timedelta(minutes=15)  # how long after a lone "forget …" its reply is still recognised
REPLY_AWAITED_MAX = 10_000  # conversations remembered as awaiting that reply, the oldest dropped first


class Capture:
    def __init__(self, reads: Any, writes: Any, recaller: Any, *, redact: Any, clock: Any, tombstones: Any, forgetting: Any,
                 embed_background: Callable[[list[str]], list[list[float]]], remember: Callable[[Scope, MemoryIn], WriteResult]):
        self.reads, self.writes, self.recaller = reads, writes, recaller
        self.redact, self.clock, self.tombstones, self.forgetting = redact, clock, tombstones, forgetting
        self.embed_background = embed_background  # bulk work goes where it cannot delay a query
        self.remember = remember
        # conversations whose last captured turn was a "forget …" with no reply yet: (person, session) ->
        # when. The reply a client sends in its next call ("Done, I have forgotten that your sister is
        # called Inès") answers the forget and repeats what it forgets: it is not kept either. No words.
        self._awaiting_reply: OrderedDict[tuple[str, str], datetime] = OrderedDict()

    def apply_commands(self, scope: Scope, text: str, *, source_id: str | None = None) -> list[tuple[str, Memory]]:
        """Carry out "remember ..." / "记住 ..." / "forget ..." in a user message at once.
        Returns what was done: ("remember", memory) or ("forget", memory) per record touched."""
        cmd = parse_command(text)
        if cmd is None:
            return []
        if cmd.action == "remember":
            if len(cmd.text) > MEMORY_MAX_CHARS:
                # "Remember this: <a long paste>": longer than a memory may be. The turn itself is kept
                # (and recalled) whole; cutting it into a memory would keep half of what was asked
                log.info("amber: a 'remember' of %d characters is longer than a memory (%d): its turn is kept, no memory made",
                         len(cmd.text), MEMORY_MAX_CHARS)
                return []
            data = MemoryIn(content=cmd.text, importance=0.8, tags=[SAID_BY_USER], source_ids=[source_id] if source_id else [])
            return [("remember", self.remember(scope, data).memory)]
        # the memories that state it, the raw turns that still say it and those the memories came from
        return [("forget", m) for m in self.forgetting.forget_subject(scope, cmd.text).memories]

    def capture(self, scope: Scope, messages: Sequence[Message], *, commands: bool = True) -> tuple[int, list[tuple[str, Memory]]]:
        """Store captured turns and carry out the commands in new user turns. Returns (turns stored,
        [(action, memory touched)])."""
        messages = self.redact.messages(as_said(self.keyed(scope, messages)))  # before a "remember" command can keep a secret
        messages = [dated(m, self.clock.now()) for m in messages]  # a client's clock does not date a turn into the future
        new = unsaved(self.reads, scope, messages)[0] if commands else list(messages)
        done: list[tuple[str, Memory]] = []
        keep: list[Message] = []
        forgets: list[str] = []
        dropping = commands and self._reply_awaited(scope, new)
        held: set[str] | None = None  # the turns a forget keeps out (asked once, and only when a command comes)
        for m in new:
            if m.role == Role.user:
                cmd = parse_command(m.content) if commands else None
                # a forget in words, or by handles alone ("forget #48213"): the turn, and its reply, are not kept
                dropping = commands and ((cmd is not None and cmd.action == "forget") or forgets_by_handle(m.content))
                if cmd is not None and held is None:
                    held = self.tombstones.buried_turns(scope.user_id, new)
                if cmd is not None and m.id not in held:  # a "remember X" said before "forget X", arriving after it, is not done
                    done.extend(self.apply_commands(scope, m.content, source_id=m.id))
                if dropping and cmd is not None:
                    forgets.append(cmd.text)
            if not dropping:
                keep.append(m)
        if dropping and new and new[-1].role == Role.user:  # the forget came last: its reply may come in the next call
            self._await_reply(scope, new[-1])
        n = self.store_turns(scope, keep, redacted=True)
        if forgets:  # a turn of this same batch may say what a later turn of it forgot
            said = {i for text in forgets for i in self.forgetting.turns_saying(scope, text)}
            said |= {i for action, mem in done if action == "forget" for i in mem.source_ids}
            if said:
                # those of this batch that were stored (one said before the forget already stayed out)
                mine = said & {m.id for m in keep}
                mine = self.reads.existing_turn_ids(scope, sorted(mine)) if mine else set()
                self.forgetting.delete_messages(scope, sorted(said))
                n -= len(mine)
        return n, done

    def keyed(self, scope: Scope, messages: Sequence[Message]) -> list[Message]:
        """Ids a face derived from the words, keyed by the person's secret (core/turns.py)."""
        return keyed_turn_ids(messages, lambda plain: self.writes.keyed(scope, "turn", plain))

    def _await_reply(self, scope: Scope, turn: Message) -> None:
        self._awaiting_reply[(scope.user_id, turn.session or "")] = self.clock.now()
        while len(self._awaiting_reply) > REPLY_AWAITED_MAX:
            self._awaiting_reply.popitem(last=False)

    def _reply_awaited(self, scope: Scope, new: Sequence[Message]) -> bool:
        """Whether the first of `new` is the reply to a "forget …" captured alone in the call before."""
        if not new:
            return False
        since = self._awaiting_reply.pop((scope.user_id, new[0].session or ""), None)
        return since is not None and new[0].role == Role.assistant and self.clock.now() - since <= REPLY_AWAITED

    def store_turns(self, scope: Scope, messages: Sequence[Message], *, redacted: bool = False) -> int:
        """Append turns to the user's log, carrying out no command (imports, benches, `ingest`). A message id already stored is skipped when its words are the
        same, and replaced when they changed (a regenerated reply, core/turns.py). Returns how many were written."""
        if len(messages) > WAITED_TEXTS or sum(len(m.content) for m in messages) > WAITED_CHARS:
            return self._store_turns(scope, messages, redacted)  # bulk (an import's batch): its reads wait their turn
        with writing():  # a client waits: its reads before the lock go first too (the hook's drainer stays background, store/gate.py)
            return self._store_turns(scope, messages, redacted)

    def _store_turns(self, scope: Scope, messages: Sequence[Message], redacted: bool) -> int:
        if not redacted:  # capture has done all three already
            messages = self.redact.messages(as_said(self.keyed(scope, messages)))
        if not messages:
            return 0
        # Embedding happens before the user's lock is taken: it is the slow part, and the user's
        # other writes (a memory saved now) must not wait behind a batch of captured turns.
        now = self.clock.now()
        col = message_collection(scope)
        # a turn the person made Amber forget stays forgotten when a journal or queue replays it, and so
        # does one said before a forget that reaches the store after it (core/tombstones.py; asked together)
        (new, _), (secret, out) = self.writes.at_once(lambda: unsaved(self.reads, scope, messages),
                                                      lambda: self.tombstones.held_turns(scope.user_id, messages))
        new = [m for m in new if m.id not in out]
        if not new:
            return 0
        # Neighbours are read from the whole request, then it is embedded and written a part at a
        # time: a 1 000-turn ingest keeps what was done when the embedder fails at its 900th turn
        # (it took minutes and wrote nothing before), and the same request sent again stores only
        # the rest, since stored turns are skipped by id.
        texts = self._index_texts(scope, new)
        embed = self._embedding_for(texts)
        written = 0
        for start in range(0, len(new), STORE_PART):
            part = new[start : start + STORE_PART]
            try:
                with background_owner(scope.user_id):  # the background lane shares itself out per person (core/embed/fair.py)
                    vectors = embed(texts[start : start + STORE_PART])
                written += self._write_turns(scope, col, part, vectors, now, secret)
            except TransientError as e:
                if written:  # the caller retries the whole request: say what is kept and that a retry resumes
                    e.args = (f"{e} ({written} of {len(new)} new turns were stored before this; "
                              "sending the same turns again stores only the rest)",)
                raise
        return written

    def _embedding_for(self, texts: Sequence[str]) -> Callable[[list[str]], list[list[float]]]:
        """Where these turns are embedded. An exchange a client waits for (a REST ingest; not the hook's
        drainer or the capture queue, which nobody waits for: store/reads_first.py) goes to the
        interactive lane, like a memory saved now: queued behind the niced background lane, a REST
        ingest of two turns took ~0.8 s at p50 and was the 20-thread mix's tail (bench/README.md).
        Bulk requests and background work stay on the background lane, shared out per person."""
        if in_background() or len(texts) > WAITED_TEXTS or sum(len(t) for t in texts) > WAITED_CHARS:
            return self.embed_background
        return self.recaller.embedder.embed_documents

    def _write_turns(self, scope: Scope, col: str, part: Sequence[Message], vectors: Sequence[Sequence[float]], now,
                     secret: bytes | None) -> int:
        with self.writes.lock(scope):
            # another writer may have stored some meanwhile, or a forget named them since they were read;
            # read with the registry row (last: it keeps the revision here)
            marks = self.tombstones.turn_rows(scope.user_id, part, secret, unkeyed=True)  # a forget meanwhile may have keyed them
            (fresh, replacing), _ = self.writes.at_once(lambda: unsaved(self.reads, scope, part),
                                                        lambda: self.writes.register_user(scope, col, marks))
            fresh_ids = {m.id for m in fresh} - self.tombstones.turns_out(scope.user_id, part, secret, marks)
            keep = [(m, v) for m, v in zip(part, vectors) if m.id in fresh_ids]
            if not keep:
                return 0
            # retention ages a turn from when Amber stored it, whatever clock the client keeps
            stored = [m.model_copy(update={"stored_at": now}) if m.stored_at is None else m for m, _ in keep]
            self.writes.add_messages(col, stored, [v for _, v in keep], replacing=bool(replacing))
            if replacing:  # the discarded words were sealed under the turn's key: a fresh one, and they open no more
                self.writes.reseal(scope, sorted(replacing), col)
                self.writes.audit(scope, "replace_message", [], message_ids=sorted(replacing), count=len(replacing))
            return len(stored)

    def _index_texts(self, scope: Scope, new: Sequence[Message]) -> list[str]:
        """What each new turn is embedded as: with its neighbours in the session (date, the turn
        before, the turn, the turn after when it is in the same batch): a reply like "yes, last
        Tuesday" means nothing alone. Earlier turns are not re-embedded when their successors
        arrive: that doubled the embedding work of every capture (bench/README.md, proxy load)."""
        c, col = DENSE_CONTEXT, message_collection(scope)
        by_session: dict[str, list[Message]] = {}
        for m in new:
            by_session.setdefault(m.session or "", []).append(m)
        chains: list[Message] = []
        for key, turns in by_session.items():
            # the session's last turns: from the warm recall index when it is current and the new
            # turns come after them (the usual capture), else from the store (a full session read)
            ids = {m.id for m in turns}
            earlier = self.recaller.session_tail(col, key, c) if c else []
            if earlier is None or (earlier and (earlier[-1].created_at > turns[0].created_at or ids & {x.id for x in earlier})):
                # the session's turns, then those before the batch: asked of Chroma together, the time
                # bound matched every older turn of the person first (92 ms at 20 000 turns, growing
                # with the log: an import's later batches slowed with each one stored before them)
                until = turns[0].created_at.timestamp()
                earlier = [x for x in self.reads.turns(scope, message_where(session=key)) if x.created_at.timestamp() < until]
            earlier = [x for x in earlier if x.id not in ids]  # a turn being replaced is not its own neighbour
            chains.extend(earlier[-c:] if c else [])
            chains.extend(turns)
        text = dict(zip((m.id for m in chains), message_index_texts(chains, c)))
        return [text[m.id] for m in new]
