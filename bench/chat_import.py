"""What a big chat import costs: a synthetic ChatGPT export of 5 000 conversations / 200 000
messages (branches, hidden and system messages, a do-not-remember conversation in every 50,
Chinese and English text, some messages without times), generated here, then read and imported.

Each phase runs in a child process of its own, so its peak RSS is its own:
  - parse:   every conversation read from the ZIP and parsed (no store)
  - dry-run: the same through `import_chats(dry_run=True)` against an empty store
  - import:  the real import into a fresh embedded store with the deterministic hash embedder
             (in this process: the figures are Amber's own work, streaming, parsing, redaction,
             Chroma, plus the fake embedder's tokenizing, under a tenth of it since 2026-12-03), or
             with `--embedder local` the real ONNX engine in its background worker, then 200
             recalls for that person (p50/p95). Another person recalls every 50 ms during the
             import and as often again after it (at most 1 000: the idle figure). By default on the
             export's first 500 conversations (`--import-conversations`, 0 = all: about half an
             hour with the hash embedder on the shared 2-core machine, 2026-12-03)
  - reimport: the same export again (everything is a duplicate: the resume cost)

A progress line goes to stderr every 30 s (turns stored, RSS, load average). Each store phase
reports `import_s` and `turns_per_s` (the import_chats call alone), `import_peak_rss_mib` (before
that person's index of every turn is built), `index_build_s` and `rss_after_index_mib` (building it,
as the host does after an import over REST) and the load average seen.

    .venv/bin/python bench/chat_import.py            # 5 000 conversations, 200 000 messages
    .venv/bin/python bench/chat_import.py --smoke    # 10 conversations, seconds
    .venv/bin/python bench/chat_import.py --phases parse,dry-run   # skip the store phases
    nohup .venv/bin/python bench/chat_import.py --phases import,reimport --import-conversations 0 \
        > import.json 2> import.log &                                # the whole export, ~40 min

Last line: JSON with per-phase seconds, messages per second and peak RSS (MiB), and the export's size.

Measured 2026-12-02 on the shared 2-core machine (load average 9-11 from other work, so times are
upper bounds): export 5 000 conversations / 200 000 messages, 25 MiB zipped. parse 196 000 turns in
14.8 s, peak 121 MiB; dry run (store lookups, windows, token estimate: 4 932 windows, ~36 M tokens)
50.9 s, peak 154 MiB; import of the first 500 conversations (19 600 turns) 622 s (32 turns/s, most of
it redaction and embedding), peak 572 MiB, that person's recall afterwards p50 199 / p95 579 ms;
re-import of the same 19 600 (all duplicates) 5.5 s. Another person's recall while 3 920 turns were
imported: p50 43 / p95 441 ms against 13 / 53 ms idle (batch 64; batch 16: 51 / 392 against 13 / 77,
at half the import's speed): the import still takes the interpreter from live recall.

2026-12-03 (load average ~10), `--phases import --import-conversations 60 --recalls 100`, hash
embedder, the import stepping aside for a quarter of its own CPU time: 2 360 turns in 108.5 s (22
turns/s; a profile: the hash embedder 34 %, redaction 20 %, the step-aside 19 %, Chroma's upserts
19 %), peak RSS 222 MiB; another person's recall during the import p50 34.7 / p95 177.6 ms against
15.6 / 56.6 ms idle (p95 x3.1, was x8.3); that person's recall afterwards p50 55.6 / p95 104 ms.
With `--embedder local` at that load the import of 2 360 turns did not finish in 20 minutes: the
background worker runs at nice 10 and got ~17 % of a core while other work kept the machine busy.
With `--embedder local --conversations 500 --messages 20000 --import-conversations 20` (800 turns,
load falling from ~7 to ~1): 330 s (2.4 turns/s: each turn is embedded with its neighbours, one
window of ~240 tokens, about half of it the neighbours, as 1 200 turns sampled in the tenth session
showed, on the niced worker while the other person's recalls use the other lane),
peak RSS 208 MiB; another person's recall p50 27.7 / p95 57.9 ms during against 25.5 / 57.5 ms idle
(p95 x1.01); that person's recall afterwards p50 39.4 / p95 48.3 ms. With the real engine the
import is bound by embedding: 200 000 messages at this rate take about a day.

2026-12-03 (load average 15-19 from everybody's runs: upper bounds), the whole synthetic export
(5 000 conversations, 200 000 messages, 25 MiB zipped, generated in 165 s), `--phases
parse,dry-run,import --import-conversations 25 --recalls 50`, hash embedder: parse 196 000 turns in
26.6 s, peak RSS 109 MiB; dry run 105.5 s, peak 134 MiB (4 932 extraction windows, ~33 M tokens
estimated); import of the first 25 conversations (1 000 turns) 115.8 s for the phase (with the
other person's 200 memories and their idle recalls), peak RSS 187 MiB; the other person's recall
during the import p50 70 / p95 350 ms against 25 / 105 ms idle (x3.3 at p95 on a machine this
loaded). The whole 196 000 were not imported: at this phase's rate (under 9 turns/s) that is over
6 hours with the hash embedder here, and with the real engine (2.4 turns/s on 2026-12-02) about a
day. Peak RSS grows little with the export (they stream it): the smoke size's 200 turns peaked at
92 MiB parsing and 116 MiB in the dry run, against 109 and 134 MiB for 196 000.

2026-12-03, tenth session: the whole export imported with the hash embedder. Profiles (py-spy, hash
embedder, 2 360 turns, quiet machine) of the import's wall time: Chroma's upserts 36 %, redaction 24 %,
the hash embedder 16 %, Chroma's reads 10 %, the extraction windows written one by one 7 %, the
step-aside most of the rest. Changed: the stemmer and the hash embedder cache per word (vectors
unchanged), the `key = value` search runs only on a text naming a key word, a batch's windows go
in one write; same session, `--conversations 100 --messages 4000 --phases import --recalls 0
--import-conversations 0`, the code before against after: 102 against 155 turns/s (load 9.8 against
6.9), the other person's recall p95 during/idle 71.6/25.5 ms (x2.8) against 56.6/33.3 ms (x1.7).
Then the whole export (`nohup .venv/bin/python bench/chat_import.py --phases import,reimport
--import-conversations 0`) slowed from 64 to 37 turns/s within 5 minutes: each batch read the
earlier neighbour of its first turn with Chroma asked for the session and a time bound together,
which matched every older turn of the person (92 ms at 20 000 turns, 11 ms by session alone;
core/capture.py now asks by session and cuts by time itself; the same turns). After that change:
196 000 turns (5 000 conversations) in 2 571 s, 42.9 min (76 turns/s; 60-125 turns/s by the
progress lines as the load average went 9-15 from others' work), RSS 186 MiB after 2 880 turns,
315 MiB at 59 000, 418 MiB at 118 000, 555 MiB at 196 000: it grows with the person's store
(Chroma's vector index is in memory), not with the export, which is streamed. That person's first
recall after the import builds their lexical index of all 196 000 turns in this process: still
building after ~10 minutes at 2.6 GiB RSS, when the run was stopped (so no `recall_ms`). The other
person's recall during the import: p50 20.3 / p95 127.1 ms over 15 877 recalls (read from the
running process with `py-spy dump --locals`; the idle figure was not kept; idle p95 in the runs
above 14-34 ms). Re-import of the whole export on that store (`--phase reimport --export ... --data
...` by hand): 196 000 duplicates in 39.7 s (4 934 turns/s), peak RSS 615 MiB, load 5-7.
With `--embedder local` (`--conversations 5 --messages 200 --import-conversations 0 --phases
import`, under py-spy, load 11-15): 200 turns in 75.7 s, 2.6 turns/s; the import waits on the
worker 95 % of its time, the worker's ONNX run is the work. Each synthetic turn is embedded as one
window of ~240 tokens (its own ~113 and its neighbours'; none of 1 200 turns needs a second window,
so "mostly two windows" above was wrong): the neighbours double the tokens the engine reads, and
196 000 turns at this rate take ~21 hours. Nothing about what is embedded was changed.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WORDS_EN = ("garden tomato cello lisbon bike sister birthday pytest loader heron river commute tea coffee "
            "project deadline meeting python rust tokyo marathon recipe bread sourdough novel chapter").split()
WORDS_ZH = list("我们今天讨论了花园番茄大提琴里斯本自行车妹妹生日测试加载器河流通勤茶咖啡项目会议")


def sentence(rng: random.Random) -> str:
    if rng.random() < 0.2:
        return "".join(rng.choice(WORDS_ZH) for _ in range(rng.randint(8, 40))) + "。"
    return " ".join(rng.choice(WORDS_EN) for _ in range(rng.randint(6, 60))).capitalize() + "."


def conversation(rng: random.Random, c: int, turns: int) -> dict:
    t0 = 1_600_000_000 + c * 6000
    mapping = {f"{c}-root": {"id": f"{c}-root", "parent": None, "children": [f"{c}-sys"], "message": None},
               f"{c}-sys": {"id": f"{c}-sys", "parent": f"{c}-root", "children": [f"{c}-1"],
                            "message": {"id": f"{c}-sys", "author": {"role": "system"}, "create_time": None,
                                        "content": {"content_type": "text", "parts": [""]},
                                        "metadata": {"is_visually_hidden_from_conversation": True}}}}
    prev = f"{c}-sys"
    for t in range(1, turns + 1):
        nid = f"{c}-{t}"
        if nid not in mapping[prev]["children"]:
            mapping[prev]["children"].append(nid)
        role = "user" if t % 2 else "assistant"
        mapping[nid] = {"id": nid, "parent": prev, "children": [],
                        "message": {"id": f"m-{c}-{t}", "author": {"role": role},
                                    "create_time": None if rng.random() < 0.03 else t0 + t * 30,
                                    "content": {"content_type": "text", "parts": [" ".join(sentence(rng) for _ in range(rng.randint(1, 4)))]},
                                    "metadata": {}}}
        if role == "assistant" and rng.random() < 0.1:  # a regenerated answer: the first try is a dead branch
            dead = f"{c}-{t}-old"
            mapping[prev]["children"].insert(0, dead)
            mapping[dead] = {"id": dead, "parent": prev, "children": [],
                             "message": {"id": f"m-{c}-{t}-old", "author": {"role": "assistant"}, "create_time": t0 + t * 30 - 5,
                                         "content": {"content_type": "text", "parts": [sentence(rng)]}, "metadata": {}}}
        prev = nid
    return {"id": f"conv-{c}", "title": None if c % 9 == 0 else f"Conversation {c}", "create_time": t0,
            "update_time": t0 + turns * 30, "current_node": prev, "mapping": mapping,
            "is_do_not_remember": c % 50 == 49, "default_model_slug": "gpt-4o"}


def generate(path: Path, conversations: int, messages: int, seed: int = 29, first: int | None = None) -> dict:
    """Written conversation by conversation: the generator never holds the export either. `first`:
    only the first conversations of the same export."""
    rng = random.Random(seed)
    per = max(2, messages // conversations)
    conversations = min(conversations, first or conversations)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        with z.open("conversations.json", "w", force_zip64=True) as f:
            f.write(b"[")
            for c in range(conversations):
                if c:
                    f.write(b",\n")
                f.write(json.dumps(conversation(rng, c, per), ensure_ascii=False).encode())
            f.write(b"]")
        z.writestr("user.json", '{"id": "user-synthetic"}')
    return {"conversations": conversations, "messages_on_threads": per * conversations, "zip_mib": round(path.stat().st_size / 2**20, 1)}


IDLE_RECALLS = 1000  # the other person's idle recalls, after the import: as many as during it, up to this


class SideRecall:
    """Another person's recalls, one every 50 ms, on a thread of their own: p50/p95 in ms."""

    def __init__(self, service, scope, limit: int | None = None):
        import threading

        self.service, self.scope, self.limit = service, scope, limit
        self.took: list[float] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        rng = random.Random(3)
        while not self._stop.is_set() and (self.limit is None or len(self.took) < self.limit):
            q = " ".join(rng.choice(WORDS_EN) for _ in range(5))
            t = time.perf_counter()
            self.service.recall(self.scope, q)
            self.took.append((time.perf_counter() - t) * 1000)
            time.sleep(0.05)

    def start(self) -> None:
        self._thread.start()

    def join(self) -> None:
        self._thread.join()

    def stop(self) -> dict:
        self._stop.set()
        self._thread.join()
        took = sorted(self.took) or [0.0]
        return {"n": len(self.took), "p50": round(statistics.median(took), 1), "p95": round(took[max(0, int(len(took) * 0.95) - 1)], 1)}


def current_mib() -> float:
    try:
        with open("/proc/self/statm") as f:
            return round(int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20, 1)
    except OSError:
        return 0.0


def peak_mib() -> float:
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


def phase(name: str, export: str, data: str, recalls: int, batch: int, embedder: str = "hash", others: int = 200) -> dict:
    sys.path.insert(0, str(ROOT))
    from core import Actor, Settings, build_service, import_chats, scope_for
    from core.chat_import.sources import Export, conversations
    from core.testing import HashEmbedder

    started = time.perf_counter()
    out: dict = {}
    if name == "parse":
        n = turns = 0
        with Export(export) as ex:
            for part in ex.parts():
                for conv in conversations(part):
                    n += 1
                    turns += len(conv.turns)
        out = {"conversations": n, "turns": turns}
    else:
        if embedder == "local":  # the real engine, in its worker processes (the background lane)
            service = build_service(Settings(data_dir=data, embedding_model="local"))
        else:
            service = build_service(Settings(data_dir=data, embedding_model="hash"), embedder=HashEmbedder())
        try:
            scope = scope_for(Actor("bench", client="import"))
            other = scope_for(Actor("other", client="live"))
            side = None
            if name == "import":  # another person recalls while the import runs (is the import fair?)
                from core import MemoryIn

                for i in range(others):
                    service.remember(other, MemoryIn(content=sentence(random.Random(i))))
                side = SideRecall(service, other)
                side.start()
            began, said, loads = time.perf_counter(), [time.perf_counter()], [os.getloadavg()[0]]

            def progress(e: dict) -> None:  # a line on stderr every 30 s: a long run can be watched
                if time.perf_counter() - said[0] >= 30 or e["stage"] == "done":
                    said[0] = time.perf_counter()
                    loads.append(os.getloadavg()[0])
                    print(f"  {name} {said[0] - began:.0f}s {e} rss {current_mib()} MiB load {loads[-1]:.1f}", file=sys.stderr, flush=True)

            report = import_chats(service, scope, export, dry_run=name == "dry-run", batch=batch, progress=progress).as_dict()
            import_s = time.perf_counter() - began
            import_peak = peak_mib()  # before that person's recalls build their index of every turn
            fair = {}
            if side is not None:
                fair["other_recall_ms_during"] = side.stop()
                idle = SideRecall(service, other, limit=min(len(side.took), IDLE_RECALLS) or 1)
                idle.start()
                idle.join()
                fair["other_recall_ms_idle"] = idle.stop()
            out = {k: report[k] for k in ("conversations", "messages", "new", "stored", "duplicates")}
            out["skipped"] = report["skipped"]
            # the import_chats call alone (the phase's seconds also hold the setup and the recalls)
            out["import_s"] = round(import_s, 1)
            out["import_peak_rss_mib"] = import_peak
            out["load_avg"] = {"min": round(min(loads), 1), "max": round(max(loads), 1), "mean": round(statistics.fmean(loads), 1)}
            out["turns_per_s"] = round((report["stored"] or report["messages"]) / import_s, 1) if import_s else None
            out["extraction"] = report["extraction"]
            out.update(fair)
            if name == "import" and recalls:
                # what the host does after an import over REST (mcp_server/rest_import.py): that
                # person's turn index built at once; recalls meanwhile go on without the turns
                t = time.perf_counter()
                service.recaller.warm(scope)
                out["index_build_s"] = round(time.perf_counter() - t, 1)
                out["rss_after_index_mib"] = current_mib()
                took = []
                rng = random.Random(7)
                for _ in range(recalls):
                    q = " ".join(rng.choice(WORDS_EN) for _ in range(5))
                    t = time.perf_counter()
                    service.recall(scope, q)
                    took.append((time.perf_counter() - t) * 1000)
                took.sort()
                out["recall_ms"] = {"p50": round(statistics.median(took), 1), "p95": round(took[int(len(took) * 0.95) - 1], 1)}
        finally:
            service.close()
    seconds = time.perf_counter() - started
    out.update(seconds=round(seconds, 1), peak_rss_mib=peak_mib())
    turns = out.get("turns") or out.get("messages") or 0
    out["messages_per_s"] = round(turns / seconds) if seconds else None
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--conversations", type=int, default=5000)
    ap.add_argument("--messages", type=int, default=200_000)
    ap.add_argument("--smoke", action="store_true", help="10 conversations, 200 messages: seconds")
    ap.add_argument("--phases", default="parse,dry-run,import,reimport")
    ap.add_argument("--recalls", type=int, default=200)
    ap.add_argument("--import-conversations", type=int, default=500, help="conversations the store phases import (0: all)")
    ap.add_argument("--batch", type=int, default=64, help="turns per ingest call (import_chats' batch)")
    ap.add_argument("--embedder", choices=("hash", "local"), default="hash",
                    help="hash: the deterministic test embedder in this process; local: the real ONNX engine in its worker processes")
    ap.add_argument("--others", type=int, default=200, help=argparse.SUPPRESS)  # the other person's memories
    ap.add_argument("--phase", help=argparse.SUPPRESS)
    ap.add_argument("--export", help=argparse.SUPPRESS)
    ap.add_argument("--data", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.phase:
        print(json.dumps(phase(args.phase, args.export, args.data, args.recalls, args.batch, args.embedder, args.others)))
        return
    if args.smoke:
        args.conversations, args.messages, args.recalls, args.import_conversations, args.others = 10, 200, 20, 0, 20
    work = Path(tempfile.mkdtemp(prefix="amber-bench-import-"))
    export = work / "chatgpt-export.zip"
    t = time.perf_counter()
    result: dict = {"bench": "chat_import", "embedder": args.embedder, "export": generate(export, args.conversations, args.messages)}
    result["export"]["generate_s"] = round(time.perf_counter() - t, 1)
    stored = export
    if args.import_conversations and args.import_conversations < args.conversations:
        stored = work / "chatgpt-export-first.zip"
        result["import_export"] = generate(stored, args.conversations, args.messages, first=args.import_conversations)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OMP_WAIT_POLICY": "PASSIVE"}
    for name in args.phases.split(","):
        print(f"phase {name} ...", file=sys.stderr, flush=True)
        source = stored if name in ("import", "reimport") else export
        r = subprocess.run([sys.executable, __file__, "--phase", name, "--export", str(source), "--data", str(work / "data"),
                            "--recalls", str(args.recalls), "--others", str(args.others), "--batch", str(args.batch), "--embedder", args.embedder],
                           stdout=subprocess.PIPE, text=True, env=env)
        if r.returncode != 0:
            sys.exit(f"phase {name} failed (its error is above)")
        result[name] = json.loads(r.stdout.strip().splitlines()[-1])
        print(f"  {result[name]}", file=sys.stderr, flush=True)
    subprocess.run(["rm", "-rf", str(work)])
    print(json.dumps(result, ensure_ascii=False))


if __name__ == "__main__":
    main()
