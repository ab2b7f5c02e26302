"""What one person's cold turn index costs everyone else while the sentence model reads it.

The turn ranker weighs each candidate turn's reading by the sentence model (core/recall/ranker.py,
"sentence_gap"). A cold index of a person's turns (a host's start, an import, an eviction) is read
on a background thread of its own, ~800 turns a second: 25 s of one core for 20 000 turns. On a
two-core host that thread competes with everybody's recalls. Here person A holds `--turns` turns
and person B a few hundred; B recalls throughout. In the same run, rounds alternate:
- `quiet`: B recalls while nothing else runs;
- `reading`: A's turn index is dropped and built again (as after a restart), and B recalls while
  the sentence model reads A's turns; A also recalls, and must answer at once without the reading.
Throughout both, `--capturers` other people (C) each capture an exchange in turn, as chats do, on a
thread of their own: the time from each capture until its two turns have their reading is the
queue a new exchange meets behind A's cold read (one batch of 32 by design, not the whole index).
Reported: B's p50 / p95 in each, their ratio, how long A's index took to build and then to read
(B's recalls run only during the read), A's recall while it ran, and C's wait for a new exchange's
reading in each. B is one client asking back to back, with every turn of its own read.

The store embeds with the hash embedder so that 20 000 turns store in a minute: what is measured is
the reading's CPU against B's recall, not the dense embedder's.

    .venv/bin/python bench/turn_reading_load.py [--turns 20000] [--rounds 3] [--capturers 8] [--smoke]

The last line printed is one JSON object.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
import threading
import time
from datetime import timedelta
from pathlib import Path

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from core import Actor, Message, Settings, build_service, scope_for  # noqa: E402
from core.recall import ranker  # noqa: E402
from core.scope import message_collection  # noqa: E402
from core.testing import HashEmbedder  # noqa: E402
from recall_scale import QUERIES_EN, T0, fill, memories, pct  # noqa: E402


def turns(prefix: str, n: int, rnd: random.Random) -> list[Message]:
    texts = [m["content"] for m in memories(n, rnd)]
    return [Message(id=f"{prefix}{k}", role="user" if k % 2 == 0 else "assistant", content=t, session=f"{prefix}s{k // 10}",
                    created_at=T0 + timedelta(minutes=37 * k)) for k, t in enumerate(texts)]


def timed(svc, who, query: str, cfg, out: list[float]) -> None:
    t = time.perf_counter()
    svc.search(who, query, config=cfg)
    out.append((time.perf_counter() - t) * 1000)


class Capturers:
    """`n` people capturing an exchange each in turn, one every `gap_s`; each capture's wait until the
    sentence model has read both its turns is put in `waits` (ms) while `waits` is set."""

    def __init__(self, svc, people: list, rnd: random.Random, gap_s: float = 0.05) -> None:
        self.svc, self.people, self.rnd, self.gap_s = svc, people, rnd, gap_s
        self.waits: list[float] | None = None
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._run, name="bench-capturers", daemon=True)

    def _run(self) -> None:
        rec, k = self.svc.recaller, 0
        while not self.stopping.is_set():
            who = self.people[k % len(self.people)]
            pair = turns(f"c{k}-", 2, self.rnd)
            self.svc.store_turns(who, pair)
            t = time.perf_counter()  # from the capture's answer: the store's own write is not the reading's queue
            idx = rec._msg.get(message_collection(who))
            while idx is not None and any(m.id in idx.sentences.pending for m in pair) and not self.stopping.is_set():
                time.sleep(0.002)
            waits = self.waits
            if waits is not None and idx is not None:
                waits.append((time.perf_counter() - t) * 1000)
            k += 1
            self.stopping.wait(self.gap_s)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--turns", type=int, default=20000, help="person A's turns")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--capturers", type=int, default=8, help="people capturing an exchange each in turn throughout (0: none)")
    ap.add_argument("--smoke", action="store_true", help="600 turns, one round: checks that the bench runs")
    args = ap.parse_args()
    if args.smoke:
        args.turns, args.rounds = 600, 1
    rnd = random.Random(11)
    queries = [fill(rnd.choice(QUERIES_EN), rnd) for _ in range(200)]
    a_had_reading: list[bool] = []  # per recall of A's during its read: whether the ranker had the reading
    asking = {"a": False}
    real = ranker.reorder

    def spy(*args_, sentence=None, **kw):
        if asking["a"]:
            a_had_reading.append(sentence is not None)
        return real(*args_, sentence=sentence, **kw)

    with tempfile.TemporaryDirectory(prefix="amber-turn-reading-") as tmp:
        svc = build_service(Settings(data_dir=Path(tmp)), embedder=HashEmbedder())
        try:
            rec = svc.recaller
            rec._sentence_turns = True  # as beside the bundled embedder (its id names the weights' embedder)
            assert rec.sentence.wait(120), "the sentence model did not load"
            cfg = svc.recall_config(sentence_beside="hash:v1")
            a, b = scope_for(Actor("reader-a", via="bench")), scope_for(Actor("reader-b", via="bench"))
            t = time.perf_counter()
            msgs = turns("a", args.turns, rnd)
            for start in range(0, len(msgs), 500):
                svc.store_turns(a, msgs[start : start + 500])
            svc.store_turns(b, turns("b", 400, rnd))
            stored_s = time.perf_counter() - t
            cs = [scope_for(Actor(f"capturer-{i}", via="bench")) for i in range(args.capturers)]
            for who in cs:
                svc.store_turns(who, turns(f"{who.user_id}-", 40, rnd))
            for who in (a, b, *cs):  # warm: indexes built and read
                rec.warm(who)
                idx = rec._msg[message_collection(who)]
                if idx.sentences.filling is not None:
                    idx.sentences.filling.result(3600)
            quiet: list[float] = []
            reading: list[float] = []
            a_during: list[float] = []
            read_s: list[float] = []
            build_s: list[float] = []
            q = 0
            quiet_waits: list[float] = []
            reading_waits: list[float] = []
            cap = Capturers(svc, cs, random.Random(12))
            if cs:
                cap.thread.start()
            for _ in range(args.rounds):
                cap.waits = quiet_waits
                for _ in range(10 if args.smoke else 1000):  # ~6 s: a baseline as wide as the read's samples allow
                    timed(svc, b, queries[q % len(queries)], cfg, quiet)
                    q += 1
                cap.waits = None  # a capture that spans the switch counts in neither
                col = message_collection(a)
                with rec._lock:
                    rec._msg.pop(col, None)  # as after a restart: built again from the store, read again
                t = time.perf_counter()
                rec.warm(a)  # the index built on this thread; its read queued, a batch at a time
                build_s.append(time.perf_counter() - t)
                t = time.perf_counter()
                sv = rec._msg[col].sentences
                cap.waits = reading_waits
                ranker.reorder = spy
                try:
                    while sv.pending:
                        timed(svc, b, queries[q % len(queries)], cfg, reading)
                        if len(reading) % 10 == 0:
                            asking["a"] = True
                            timed(svc, a, queries[q % len(queries)], cfg, a_during)
                            asking["a"] = False
                        q += 1
                finally:
                    ranker.reorder = real
                    cap.waits = None
                read_s.append(time.perf_counter() - t)
            cap.stopping.set()
            if cs:
                cap.thread.join(60)
        finally:
            svc.close()

    def s(ms: list[float]) -> dict:
        return {"n": len(ms), "p50_ms": round(pct(ms, 50), 2), "p95_ms": round(pct(ms, 95), 2)}

    out = {
        "bench": "turn_reading_load", "turns": args.turns, "cores": os.cpu_count(), "stored_s": round(stored_s, 1),
        "b_quiet": s(quiet), "b_while_a_is_read": s(reading),
        "ratio_p50": round(pct(reading, 50) / pct(quiet, 50), 2) if quiet and reading else None,
        "ratio_p95": round(pct(reading, 95) / pct(quiet, 95), 2) if quiet and reading else None,
        "a_build_s": [round(x, 1) for x in build_s], "a_read_s": [round(x, 1) for x in read_s], "a_recall_while_read": s(a_during),
        "a_recalls_with_the_reading": sum(a_had_reading),
        "capturers": args.capturers, "c_exchange_read_quiet": s(quiet_waits), "c_exchange_read_while_a_is_read": s(reading_waits),
    }
    print(f"B quiet {out['b_quiet']}, while A's {args.turns} turns are read {out['b_while_a_is_read']}: "
          f"x{out['ratio_p50']} p50, x{out['ratio_p95']} p95; A read in {out['a_read_s']} s; A's recalls then {out['a_recall_while_read']}")
    if args.capturers:
        print(f"{args.capturers} people capturing: a new exchange read after {out['c_exchange_read_quiet']} quiet, "
              f"{out['c_exchange_read_while_a_is_read']} while A's turns are read")
    print(json.dumps(out))


if __name__ == "__main__":
    main()
