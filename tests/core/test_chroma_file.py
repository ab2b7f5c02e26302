"""Embedded Chroma's file in write-ahead-log mode (core/store/chroma_file.py): new and existing stores
are switched before Chroma opens them, the work Amber does on the file while Chroma has it open runs
in a child process and leaves Chroma working, and what a write acknowledged survives a SIGKILL."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

from core import Actor, MemoryIn, Settings, build_service, scope_for
from core.scope import memory_collection
from core.store import chroma_file
from core.testing import FixedClock, HashEmbedder

ROOT = Path(__file__).resolve().parents[2]


def journal_mode(chroma_dir: Path) -> str:
    """Read in a child: this process's Chroma may have the file open (see chroma_file.py)."""
    code = "import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute('PRAGMA journal_mode').fetchone()[0])"
    return subprocess.run([sys.executable, "-I", "-c", code, str(chroma_dir / "chroma.sqlite3")],
                          capture_output=True, text=True, check=True).stdout.strip()


def test_a_new_store_writes_ahead(tmp_path):
    data = tmp_path / "data"
    svc = build_service(Settings(data_dir=data), embedder=HashEmbedder(), clock=FixedClock())
    try:
        svc.remember(scope_for(Actor("wren")), MemoryIn(content="My kayak is called Driftwood"))
        assert journal_mode(data / "chroma") == "wal"
    finally:
        svc.close()


def test_a_store_in_the_old_journal_mode_is_switched_when_opened_and_keeps_its_records(tmp_path):
    data = tmp_path / "data"
    code = textwrap.dedent(f"""
        import sqlite3, sys
        from core import Actor, MemoryIn, Settings, build_service, scope_for
        from core.testing import FixedClock, HashEmbedder
        svc = build_service(Settings(data_dir=sys.argv[1]), embedder=HashEmbedder(), clock=FixedClock())
        svc.remember(scope_for(Actor("wren")), MemoryIn(content="My kayak is called Driftwood"))
        svc.close()
    """)
    subprocess.run([sys.executable, "-c", code, str(data)], cwd=ROOT, check=True, capture_output=True)
    db = sqlite3.connect(data / "chroma" / "chroma.sqlite3")  # no Chroma in this process has it open yet
    db.execute("PRAGMA journal_mode=DELETE")  # what a store written before Amber used the log looks like
    db.close()
    assert journal_mode(data / "chroma") == "delete"
    svc = build_service(Settings(data_dir=data), embedder=HashEmbedder(), clock=FixedClock())
    try:
        assert journal_mode(data / "chroma") == "wal"
        assert "Driftwood" in svc.recall(scope_for(Actor("wren")), "what is my kayak called?").text
    finally:
        svc.close()


def test_dropping_a_collection_removes_its_folder_and_chroma_goes_on(tmp_path):
    """remove_orphan_segments reads the live segments in a child process while this process's Chroma
    has the file open; Chroma must go on reading and writing afterwards, here and after a reopen."""
    data = tmp_path / "data"
    svc = build_service(Settings(data_dir=data), embedder=HashEmbedder(), clock=FixedClock())
    wren, ash = scope_for(Actor("wren")), scope_for(Actor("ash"))
    try:
        svc.remember(wren, MemoryIn(content="My kayak is called Driftwood"))
        svc.remember(ash, MemoryIn(content="I am learning the cello"))
        folders = {p.name for p in (data / "chroma").iterdir() if p.is_dir()}
        svc.store.drop(memory_collection(ash))
        left = {p.name for p in (data / "chroma").iterdir() if p.is_dir()}
        assert left < folders and left <= chroma_file.live_segments(data / "chroma")
        for i in range(20):  # enough writes to run Chroma's own log compaction past the drop
            svc.remember(wren, MemoryIn(content=f"Trip {i}: paddled the lake at dawn"))
        assert "Driftwood" in svc.recall(wren, "what is my kayak called?").text
    finally:
        svc.close()
    svc = build_service(Settings(data_dir=data), embedder=HashEmbedder(), clock=FixedClock())
    try:
        assert len(svc.list(wren).items) == 21 and svc.list(ash).items == []
    finally:
        svc.close()


def test_what_a_write_acknowledged_survives_a_sigkill(tmp_path):
    data = tmp_path / "data"
    code = textwrap.dedent("""
        import sys
        from core import Actor, MemoryIn, Settings, build_service, scope_for
        from core.testing import HashEmbedder
        svc = build_service(Settings(data_dir=sys.argv[1]), embedder=HashEmbedder())
        me = scope_for(Actor("wren"))
        i = 0
        while True:
            svc.remember(me, MemoryIn(content=f"Logbook entry number {i} for the kayak"))
            print(i, flush=True)
            i += 1
    """)
    child = subprocess.Popen([sys.executable, "-c", code, str(data)], cwd=ROOT, stdout=subprocess.PIPE, text=True)
    acknowledged = -1
    while acknowledged < 15:
        acknowledged = int(child.stdout.readline())
    os.kill(child.pid, signal.SIGKILL)
    child.wait()
    assert (data / "chroma" / "chroma.sqlite3-wal").exists()  # killed with its log not yet checkpointed
    svc = build_service(Settings(data_dir=data), embedder=HashEmbedder())
    try:
        stored = {m.content for m in svc.list(scope_for(Actor("wren")), limit=500).items}
        assert {f"Logbook entry number {i} for the kayak" for i in range(acknowledged + 1)} <= stored
    finally:
        svc.close()
