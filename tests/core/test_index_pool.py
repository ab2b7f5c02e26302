"""Chroma evicts vector indexes from its pool; every collection still answers with every record.

Chroma keeps at most N vector indexes in memory (a server: its config file's
`hnsw_index_pool_cache_config`; embedded: what core/store/index_pool.py sizes it to). With its
default settings Chroma 1.5.9 cannot load an evicted index it never wrote to disk ("Nothing found
on disk", chroma-core/chroma#4212) and loads one it did write as last written. An embedded store's
own collections keep their index on disk after every write, so a plain chromadb client reads them
whole after eviction; a collection made with Chroma's defaults (as stores made before this were)
first shows the failure with the plain client, then answers through ChromaStore, which switches it
over (index_pool.keep_on_disk). A Chroma server's collections keep the defaults, and ChromaStore
reads them back (core/store/guarded.py)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path

import chromadb
from chromadb.config import Settings as ChromaSettings

from core import Message
from core.store.chroma import ChromaStore
from core.store.index_pool import pool_size
from tests.kit.servers import free_port, stop_process, wait_answering

ROOT = Path(__file__).resolve().parents[2]
NOW = datetime(2026, 6, 1, 12, 0, tzinfo=timezone.utc)
COLLECTIONS = 130  # more than either pool below holds
TURNS = 3  # written one at a time: an odd count, so a half-written index would show
QUERY = [1.0, 0.0, 0.0, 0.5]


def _fill(store: ChromaStore, prefix: str = "pool") -> list[str]:
    """Turns written one at a time into each collection, each read back once (as capture does):
    Chroma then counts the collection as loaded, and once its index is evicted a query has to read
    it from disk."""
    names = []
    for i in range(COLLECTIONS):
        name = f"amber_msg_{prefix}{i:03d}"
        for j in range(TURNS):
            turn = Message(id=f"t{i}-{j}", role="user", content=f"turn {j}", created_at=NOW)
            store.put_messages(name, [turn], [turn.content], [[1.0, float(i), float(j), 0.5]])
            assert store.existing_ids(name, [turn.id]) == {turn.id}
        names.append(name)
    return names


def _fill_plain(client, prefix: str = "legacy") -> list[str]:
    """Collections as a store made before index_pool.py left them: Chroma's default settings."""
    names = []
    for i in range(COLLECTIONS):
        name = f"amber_msg_{prefix}{i:03d}"
        col = client.create_collection(name, metadata={"amber:embedder": "test", "amber:dim": 4},
                                       embedding_function=None, configuration={"hnsw": {"space": "cosine"}})
        for j in range(TURNS):
            col.add(ids=[f"t{i}-{j}"], embeddings=[[1.0, float(i), float(j), 0.5]], metadatas=[{"role": "user"}])
        col.query(query_embeddings=[QUERY], n_results=1)
        names.append(name)
    return names


def _plain(client, names: list[str]) -> dict[str, int]:
    """What a plain chromadb client gets: queries that failed, and answers short of every record."""
    failed = short = 0
    for name in names:
        try:
            got = client.get_collection(name, embedding_function=None).query(query_embeddings=[QUERY], n_results=TURNS)
        except Exception as e:
            assert "Nothing found on disk" in str(e)
            failed += 1
            continue
        short += len(got["ids"][0]) < TURNS
    return {"failed": failed, "short": short}


def _answers(store: ChromaStore, names: list[str]) -> list[int]:
    return [len(store.nearest_ids(name, QUERY, TURNS)) for name in names]


CHILD = """
import json, resource, sys
from pathlib import Path
resource.setrlimit(resource.RLIMIT_NOFILE, (1024, 1024))  # the store gives Chroma a pool of 1024 // 10 = 102 indexes
sys.path.insert(0, sys.argv[2])
from tests.core.test_index_pool import _answers, _fill, _fill_plain, _plain
from core.store.chroma import ChromaStore
store = ChromaStore(data_dir=Path(sys.argv[1]), embedder_id="test", dim=4)
legacy = _fill_plain(store.client)  # beside the store, on the same Chroma, before the store opens them
got = {"legacy_plain": _plain(store.client, legacy[:10]), "legacy_answers": _answers(store, legacy)}
got["legacy_plain_after"] = _plain(store.client, legacy)
names = _fill(store)
got["plain"] = _plain(store.client, names)
got["answers"] = _answers(store, names)
got["soft_limit"] = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
print(json.dumps(got))
"""


def test_an_embedded_store_reads_evicted_indexes_back_whole(tmp_path):
    out = subprocess.run([sys.executable, "-c", CHILD, str(tmp_path / "data"), str(ROOT)],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got["legacy_plain"]["failed"] > 0  # the bug is there: these indexes were evicted
    assert got["legacy_answers"] == [TURNS] * COLLECTIONS
    assert got["legacy_plain_after"] == {"failed": 0, "short": 0}  # switched over: whole on disk
    assert got["plain"] == {"failed": 0, "short": 0}  # the store's own collections never needed it
    assert got["answers"] == [TURNS] * COLLECTIONS
    assert got["soft_limit"] == 1024  # 260 collections on a pool of 102 within 1 024 open files


def test_a_chroma_server_with_a_small_index_pool_answers_every_collection(tmp_path):
    port = free_port()
    config = tmp_path / "chroma.yaml"
    config.write_text(json.dumps({"port": port, "listen_address": "127.0.0.1", "persist_path": str(tmp_path / "chroma"),
                                  "segment_manager": {"persist_path": str(tmp_path / "chroma"),
                                                      "hnsw_index_pool_cache_config": {"memory": {"capacity": 10}}}}))
    exe = shutil.which("chroma", path=str(Path(sys.executable).parent))
    proc = subprocess.Popen([exe, "run", str(config)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_answering(f"{url}/api/v2/heartbeat", proc, what="chroma run", timeout=60)
        store = ChromaStore(chroma_url=url, embedder_id="test", dim=4)
        names = _fill(store)
        plain = chromadb.HttpClient(host="127.0.0.1", port=port, settings=ChromaSettings(anonymized_telemetry=False))
        assert _plain(plain, names[:10])["failed"] > 0  # a server's collections keep Chroma's defaults
        assert _answers(store, names) == [TURNS] * COLLECTIONS
        assert _answers(store, names) == [TURNS] * COLLECTIONS  # and again, in the same order (each evicted again)
        assert all(store.count(name) == TURNS for name in names)  # the reload deleted nothing
    finally:
        stop_process(proc)


POOL_CHILD = """
import json, resource, sys
from pathlib import Path
sys.path.insert(0, sys.argv[2])
from chromadb.config import Settings
from core.store.index_pool import embedded_client
hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
resource.setrlimit(resource.RLIMIT_NOFILE, (256, hard))
got = []
for most in (500, None, hard):
    client = embedded_client(Path(sys.argv[1]) / f"chroma{most}", Settings(anonymized_telemetry=False), most)
    got.append([client._server.hnsw_cache_size, list(resource.getrlimit(resource.RLIMIT_NOFILE))])
print(json.dumps({"hard": hard, "got": got}))
"""


def test_the_embedded_pool_is_the_setting_and_at_most_a_tenth_of_the_open_file_limit(tmp_path):
    """In a child: a fresh process's few open files (a long test run holds thousands, and the pool
    is never sized below what is already open)."""
    out = subprocess.run([sys.executable, "-c", POOL_CHILD, str(tmp_path), str(ROOT)], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-3000:]
    got = json.loads(out.stdout.strip().splitlines()[-1])
    hard = got["hard"]
    assert [pool for pool, _ in got["got"]] == [min(500, hard // 10), pool_size(hard), hard // 10]
    assert all(limit == [hard, hard] for _, limit in got["got"])  # raised for everything else


def test_closing_an_embedded_store_lets_go_of_its_files(tmp_path):
    """Each pooled index on disk holds four files open; a closed store holds none of its directory's,
    so nothing of it stays open once another process may take the directory."""
    import os
    import time

    data = tmp_path / "data"

    def held() -> list[str]:
        names = []
        for fd in os.listdir("/proc/self/fd"):
            try:
                path = os.readlink(f"/proc/self/fd/{fd}")
            except OSError:
                continue
            if path.startswith(str(data)):
                names.append(path[len(str(data)):])
        return names

    store = ChromaStore(data_dir=data, embedder_id="test", dim=4)
    turns = [Message(id=f"t{i}", role="user", content="a turn", created_at=NOW) for i in range(1000)]
    vectors = [[1.0, float(i), 0.0, 0.5] for i in range(1000)]
    store.put_messages("amber_msg_close", turns, [t.content for t in turns], vectors)  # 1 000 changes: written to disk
    assert store.nearest_ids("amber_msg_close", vectors[7], 1)[0][0] == "t7"
    assert len([f for f in held() if "sqlite3" not in f]) >= 4  # the index on disk: four files
    store.close()
    # the index files at once; Chroma's SQLite pool closes its connections in the background
    assert [f for f in held() if "sqlite3" not in f] == []
    deadline = time.monotonic() + 10
    while held() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert held() == []
    again = ChromaStore(data_dir=data, embedder_id="test", dim=4)  # and the directory opens again, whole
    try:
        assert again.nearest_ids("amber_msg_close", vectors[7], 1)[0][0] == "t7" and again.count("amber_msg_close") == 1000
    finally:
        again.close()
