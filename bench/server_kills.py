"""A Chroma server killed while it writes: what plain Chroma keeps, and what an Amber host keeps.

Chroma writes a collection's vector index to disk in place, several files one after the other, and
a server killed between them (SIGKILL, the OOM killer, a power cut) can leave the index's files
disagreeing with each other. From then on Chroma fails every call on that collection, reads
included, for good (core/store/index_repair.py). An Amber host that reaches the server's persist
directory (`chroma_data_path`) sets such an index aside and gives its vectors back.

Two phases, same machine, same run:
1. **plain**: a `chromadb.HttpClient` upserts one record at a time into three collections set as
   Amber sets a person's (`batch_size` 1, `sync_threshold` 1: the index written at every change),
   the server is killed at a random moment, started again, and every collection is read in full,
   vectors included. Counted: the rounds after which a collection fails, and the first such round.
   A failing store is kept as it is for the next rounds (as an operator would meet it).
2. **amber**: an Amber host (in process, `chroma_data_path` set, the hash embedder) remembers for
   six people at once, the server is killed and started again the same way, and the host goes on.
   After the last round, once the host's repairs are done: every memory the host acknowledged must
   be listed, and the query of its own words must find it with similarity 1 among the first three
   (its vector is in the index, in a place of its own; the hash embedder's words may collide). Counted: indexes set aside, acknowledged memories lost or unreadable, calls
   that failed once the server answered again.

    .venv/bin/python bench/server_kills.py [--rounds 40] [--seed 1] [--only plain|amber] [--keep] [--smoke]

The last line printed is one JSON object.
"""

from __future__ import annotations

import argparse
import json
import logging
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import chromadb  # noqa: E402
from chromadb.config import Settings as ChromaSettings  # noqa: E402

from core import Actor, MemoryIn, Settings, StoreUnavailable, build_service, scope_for  # noqa: E402
from core.scope import memory_collection  # noqa: E402
from core.store.index_pool import PERSON_INDEX  # noqa: E402
from core.testing import HashEmbedder  # noqa: E402
from tests.kit.servers import free_port, stop_process, wait_answering  # noqa: E402

PEOPLE = ("ana", "bo", "chen", "dara", "eli", "fay")
WORDS = ("apple bridge candle dragon engine forest garden harbor island jacket kettle ladder marble needle orchard "
         "pepper quartz rocket saddle tunnel umbrella velvet walnut yacht zipper anchor bucket cactus dolphin "
         "feather glacier hammock igloo jigsaw koala lantern mitten nutmeg oyster parrot quiver raisin scooter "
         "teapot unicorn violin wombat xylophone yogurt zebra acorn beacon cobalt denim ember fjord gravel").split()
BIN = Path(sys.executable).parent


class Server:
    """`chroma run` on one persist directory, killed and started again on the same port."""

    def __init__(self, work: Path):
        work.mkdir(parents=True, exist_ok=True)
        self.port, self.path = free_port(), work / "chroma"
        self.cfg = work / "chroma.yaml"
        self.cfg.write_text(json.dumps({"port": self.port, "listen_address": "127.0.0.1", "persist_path": str(self.path)}))
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc: subprocess.Popen | None = None

    def start(self) -> None:
        self.proc = subprocess.Popen([str(BIN / "chroma"), "run", str(self.cfg)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_answering(self.url + "/api/v2/heartbeat", self.proc, what="chroma run", timeout=60)

    def kill(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=30)

    def stop(self) -> None:
        if self.proc is not None:
            stop_process(self.proc)

    def client(self):
        return chromadb.HttpClient(host="127.0.0.1", port=self.port, settings=ChromaSettings(anonymized_telemetry=False))


def _vector(i: int) -> list[float]:
    r = random.Random(i)
    return [r.gauss(0, 1) for _ in range(64)]


def plain(work: Path, rounds: int, rnd: random.Random) -> dict:
    server = Server(work)
    server.start()
    n, broken_rounds, first = 0, 0, None
    try:
        for round_ in range(1, rounds + 1):
            cols = [server.client().get_or_create_collection(f"person-{k}", embedding_function=None,
                                                             configuration={"hnsw": dict(PERSON_INDEX)}) for k in range(3)]
            stop = threading.Event()

            def write() -> None:
                nonlocal n
                while not stop.is_set():
                    n += 1
                    try:
                        rnd.choice(cols).upsert(ids=[f"r{n}"], embeddings=[_vector(n)], documents=[f"record {n}"])
                    except Exception:
                        return  # the server is gone, or the collection fails for good

            t = threading.Thread(target=write)
            t.start()
            time.sleep(rnd.uniform(0.3, 1.5))
            server.kill()
            stop.set()
            t.join()
            server.start()
            failing = 0
            for k in range(3):
                try:
                    server.client().get_collection(f"person-{k}").get(include=["embeddings"])
                except Exception:
                    failing += 1
            if failing:
                broken_rounds += 1
                first = first or round_
            print(f"plain round {round_}: {failing} of 3 collections failing", flush=True)
    finally:
        server.stop()
    return {"rounds": rounds, "records_written": n, "rounds_ending_with_a_collection_failing": broken_rounds,
            "first_failing_round": first}


class _SetAside(logging.Handler):
    """Counts the store's mends: indexes set aside, collections made again from their records."""

    def __init__(self):
        super().__init__(logging.WARNING)
        self.count = self.made = self.behind = 0

    def emit(self, record: logging.LogRecord) -> None:
        said = record.getMessage()
        self.count += "set aside" in said
        self.made += " again from its " in said
        if m := re.search(r"behind their records \((\d+)\)", said):  # whole, but older than Chroma's note of what it holds
            self.behind += int(m.group(1))


def amber(work: Path, rounds: int, rnd: random.Random) -> dict:
    server = Server(work)
    server.start()
    seen = _SetAside()
    logging.getLogger("amber.store").addHandler(seen)
    emb = HashEmbedder()
    service = build_service(Settings(data_dir=work / "host", chroma_url=server.url, chroma_data_path=server.path,
                                     embedding_model="hash"), embedder=emb)
    scopes = {p: scope_for(Actor(p)) for p in PEOPLE}
    acknowledged: dict[str, list[str]] = {p: [] for p in PEOPLE}
    failed_while_up, n = [], 0
    up = threading.Event()
    up.set()
    try:
        for round_ in range(1, rounds + 1):
            stop = threading.Event()

            def write(person: str) -> None:  # one writer a person, as six people chatting at once
                nonlocal n
                while not stop.is_set():
                    n += 1
                    text = f"{person}'s note {n}: " + " ".join(rnd.sample(WORDS, 6))
                    try:
                        service.remember(scopes[person], MemoryIn(content=text))
                        acknowledged[person].append(text)
                    except StoreUnavailable:
                        time.sleep(0.05)
                    except Exception as e:
                        if up.is_set():
                            failed_while_up.append(f"{type(e).__name__}: {e}"[:300])
                        time.sleep(0.05)

            writers = [threading.Thread(target=write, args=(p,)) for p in PEOPLE]
            for t in writers:
                t.start()
            time.sleep(rnd.uniform(0.3, 1.5))
            up.clear()
            server.kill()
            server.start()
            up.set()
            time.sleep(0.3)  # the writer goes on against the server that is back
            stop.set()
            for t in writers:
                t.join()
            print(f"amber round {round_}: {sum(map(len, acknowledged.values()))} acknowledged, "
                  f"{seen.count} index(es) set aside so far", flush=True)
        deadline = time.monotonic() + 120
        while service.store.vectors_to_rebuild() and time.monotonic() < deadline:
            time.sleep(0.2)
        lost, unfound = 0, []
        for person, texts in acknowledged.items():
            listed = every_memory(service, scopes[person])
            lost += sum(1 for t in texts if t not in listed)
            for t in texts:  # its own vector in the index: found with similarity 1 (the hash embedder's words may collide)
                hits = service.store.query_memories(memory_collection(scopes[person]), emb.embed_query(t), 3, None)
                if not any(m.content == t and score > 0.999 for m, score in hits):
                    unfound.append((memory_collection(scopes[person]), t))
        return {"rounds": rounds, "acknowledged": sum(map(len, acknowledged.values())), "indexes_set_aside": seen.count, "of_them_behind_their_records": seen.behind, "collections_made_again": seen.made,
                "acknowledged_lost": lost, "acknowledged_not_found_by_own_vector": len(unfound), "not_found": unfound[:20],
                "vectors_still_to_rebuild": len(service.store.vectors_to_rebuild()),
                "calls_failed_with_the_server_up": len(failed_while_up), "failures": failed_while_up[:5]}
    finally:
        service.close()
        logging.getLogger("amber.store").removeHandler(seen)
        server.stop()


def every_memory(service, scope) -> set[str]:
    out, cursor = set(), None
    while True:
        page = service.list(scope, limit=500, cursor=cursor)
        out |= {m.content for m in page.items}
        if not (cursor := page.next_cursor):
            return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=40, help="kills per phase")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--only", choices=("plain", "amber"), default=None, help="run one phase")
    ap.add_argument("--keep", action="store_true", help="keep the stores (their folder is printed)")
    ap.add_argument("--smoke", action="store_true", help="two rounds per phase: checks that the bench runs")
    args = ap.parse_args()
    rounds = 2 if args.smoke else args.rounds
    work = Path(tempfile.mkdtemp(prefix="amber-kills-"))
    try:
        res = {name: run(work / name, rounds, random.Random(args.seed))
               for name, run in (("plain", plain), ("amber", amber)) if args.only in (None, name)}
    finally:
        if args.keep:
            print(f"stores kept in {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    p, a = res.get("plain"), res.get("amber")
    if p:
        print(f"\nplain Chroma: a collection failing after {p['rounds_ending_with_a_collection_failing']} of {p['rounds']} kills "
              f"(first after kill {p['first_failing_round']})")
    if a:
        print(f"Amber host: {a['indexes_set_aside']} index(es) set aside ({a['of_them_behind_their_records']} behind their records), {a['collections_made_again']} collection(s) made again, "
              f"{a['acknowledged']} memories acknowledged, "
              f"{a['acknowledged_lost']} lost, {a['acknowledged_not_found_by_own_vector']} not found by their own vector, "
              f"{a['calls_failed_with_the_server_up']} calls failed with the server up")
    print(json.dumps(res))


if __name__ == "__main__":
    main()
