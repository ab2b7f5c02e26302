"""A chat import killed in the middle (SIGKILL, between or inside a batch) and run again: every turn
ends up stored once, the second run stores only what the first did not, a third stores nothing."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

from core import Actor, Settings, build_service, import_chats, scope_for
from core.testing import HashEmbedder

CHILD = Path(__file__).with_name("chat_import_child.py")
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
