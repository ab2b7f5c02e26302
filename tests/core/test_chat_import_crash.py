"""A chat import killed in the middle (SIGKILL, between or inside a batch) and run again: every turn
ends up stored once, the second run stores only what the first did not, a third stores nothing; and
extraction run in between (the host's job does not wait for imports) still shows the model every
imported turn exactly once."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from collections import Counter
from datetime import timedelta
from pathlib import Path

import pytest

from core import Actor, Settings, build_service, import_chats, scope_for
from core.jobs.extraction.pipeline import ExtractOptions, ExtractStats, extract_user
from core.testing import HashEmbedder, ScriptedLLM

CHILD = Path(__file__).with_name("chat_import_child.py")
KILL_CHILD = Path(__file__).with_name("chat_import_kill_child.py")
ENV = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[2]), "OMP_WAIT_POLICY": "PASSIVE"}
CONVERSATIONS, TURNS = 30, 10


def test_killed_import_resumes_without_duplicates(tmp_path):
    export = tmp_path / "conversations.json"
    subprocess.run([sys.executable, str(CHILD), "export", str(export), str(CONVERSATIONS), str(TURNS)], env=ENV, check=True, timeout=120)
    data = tmp_path / "data"
    proc = subprocess.Popen([sys.executable, str(CHILD), "import", str(data), str(export)], env=ENV,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        for line in proc.stdout:  # wait until a few batches have landed, then kill it mid-run
            if line.startswith("stored ") and int(line.split()[1]) >= 48:
                break
            assert line.strip() != "done", "the import finished before it could be killed"
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    service = build_service(Settings(data_dir=data, embedding_model="hash"), embedder=HashEmbedder())
    try:
        scope = scope_for(Actor("crash"))
        before = {m.id for m in service.messages(scope)}
        total = CONVERSATIONS * TURNS
        assert 48 <= len(before) < total
        second = import_chats(service, scope, export)
        assert second.stored == total - len(before) and second.duplicates == len(before)
        after = service.messages(scope)
        assert len(after) == len({m.id for m in after}) == total
        assert before <= {m.id for m in after}
        third = import_chats(service, scope, export)
        assert third.stored == 0 and third.duplicates == total
    finally:
        service.close()


SHOWN = re.compile(r"conversation (\d+) turn (\d+) about")


async def extract(service, scope, now):
    llm, stats = ScriptedLLM([{"facts": []}] * 200), ExtractStats()
    await extract_user(service, scope, llm, now=now, opts=ExtractOptions(), stats=stats)
    return Counter(SHOWN.findall(" ".join(c[1]["content"] for c in llm.calls))), stats


@pytest.mark.parametrize("late", [False, True], ids=["resumed-soon", "resumed-after-the-wait"])
async def test_extraction_between_a_killed_import_and_its_resume_reads_every_turn_once(tmp_path, late):
    """Killed with a conversation's window planned and 6 of its 10 turns stored, extraction runs,
    then the import is resumed, then extraction runs again. Soon after the kill, the window waits
    for its turns; an hour or more after it, the 6 are read and the other 4 later on their own."""
    conversations, turns = 12, 10
    export = tmp_path / "conversations.json"
    subprocess.run([sys.executable, str(CHILD), "export", str(export), str(conversations), str(turns)], env=ENV, check=True, timeout=120)
    data = tmp_path / "data"
    killed = subprocess.run([sys.executable, str(KILL_CHILD), str(data), str(export), "36"], env=ENV, capture_output=True, text=True, timeout=300)
    assert killed.returncode == -signal.SIGKILL, killed.stderr[-2000:]
    service = build_service(Settings(data_dir=data, embedding_model="hash"), embedder=HashEmbedder())
    try:
        scope = scope_for(Actor("crash"))
        assert len(service.messages(scope)) == 36  # conversations 0-2, and 6 turns of conversation 3
        later = timedelta(hours=2) if late else timedelta(0)
        now = lambda: service.clock.now() + later  # noqa: E731
        first, stats = await extract(service, scope, now)
        if late:
            assert len(first) == 36 and stats.windows["waiting"] == 0
        else:
            assert len(first) == 30 and stats.windows["waiting"] == 1 and ("3", "1") not in first
        resumed = import_chats(service, scope, export)
        assert resumed.stored == conversations * turns - 36
        second, stats = await extract(service, scope, now)
        assert stats.windows["carried_over"] == (1 if late else 0)
        seen = first + second
        assert set(seen) == {(str(c), str(t)) for c in range(conversations) for t in range(1, turns + 1)}
        assert set(seen.values()) == {1}, "a turn was shown to the model twice"
        third, stats = await extract(service, scope, now)
        assert not third and stats.windows["processed"] == 0
    finally:
        service.close()
