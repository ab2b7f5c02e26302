"""Chroma evicts vector indexes from its pool; the store reads them back instead of failing.

Chroma keeps at most N vector indexes in memory (a server: its config file's
`hnsw_index_pool_cache_config`; embedded: the open-file limit / 5). Chroma 1.5.9 cannot load an
evicted index it never wrote to disk, and a query on that collection fails "Nothing found on disk"
(chroma-core/chroma#4212). Each test first shows the failure with the plain chromadb client on the
same Chroma, then that every collection answers through ChromaStore (core/store/guarded.py)."""

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
from tests.kit.servers import free_port, stop_process, wait_answering

ROOT = Path(__file__).resolve().parents[2]
NOW = datetime(2026, 6, 1, 12, 0, tzinfo=timezone.utc)
COLLECTIONS = 50  # more than either pool below holds


def _fill(store: ChromaStore) -> list[str]:
    """Two turns in each collection, each read back once (as capture does): Chroma then counts the
    collection as loaded, and once its index is evicted a query has to read it from disk."""
    names = []
    for i in range(COLLECTIONS):
        name = f"amber_msg_pool{i:03d}"
        turns = [Message(id=f"t{i}-{j}", role="user", content=f"turn {j}", created_at=NOW) for j in range(2)]
        store.put_messages(name, turns, [t.content for t in turns], [[1.0, float(i), float(j), 0.5] for j in range(2)])
        assert store.existing_ids(name, [turns[0].id]) == {turns[0].id}
        names.append(name)
    return names


def _plain_failures(client, names: list[str]) -> int:
    failed = 0
    for name in names:
        try:
            client.get_collection(name, embedding_function=None).query(query_embeddings=[[1.0, 0.0, 0.0, 0.5]], n_results=2)
        except Exception as e:
            assert "Nothing found on disk" in str(e)
            failed += 1
    return failed


def _answers(store: ChromaStore, names: list[str]) -> list[int]:
    return [len(store.nearest_ids(name, [1.0, 0.0, 0.0, 0.5], 2)) for name in names]


CHILD = """
import json, resource, sys
from pathlib import Path
_, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (200, hard))  # embedded Chroma's pool: 200 // 5 = 40 indexes
sys.path.insert(0, sys.argv[2])
from tests.core.test_index_pool import _answers, _fill, _plain_failures
from core.store.chroma import ChromaStore
store = ChromaStore(data_dir=Path(sys.argv[1]), embedder_id="test", dim=4)
names = _fill(store)
failed = _plain_failures(store.client, names[:10])
print(json.dumps({"plain_failed": failed, "answers": _answers(store, names)}))
"""


def test_an_embedded_store_reads_evicted_indexes_back(tmp_path):
    out = subprocess.run([sys.executable, "-c", CHILD, str(tmp_path / "data"), str(ROOT)],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got["plain_failed"] > 0  # the bug is there: these indexes were evicted
    assert got["answers"] == [2] * COLLECTIONS


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
        assert _plain_failures(plain, names[:10]) > 0
        assert _answers(store, names) == [2] * COLLECTIONS
        assert _answers(store, names) == [2] * COLLECTIONS  # and again, in the same order (each evicted again)
        assert all(store.count(name) == 2 for name in names)  # the reload deleted nothing
    finally:
        stop_process(proc)
