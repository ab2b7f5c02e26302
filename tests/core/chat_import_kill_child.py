"""Child process for tests/core/test_chat_import_crash.py:

    python chat_import_kill_child.py DATA_DIR PATH N   import the export, killing this process (SIGKILL)
                                                       once N or more turns are stored

With batch 16 and conversations of 10 turns, N = 36 lands inside a batch: its conversations'
extraction windows are planned, the first conversation's turns are stored, the second's only in part.
"""

from __future__ import annotations

import os
import signal
import sys

from core import Actor, Settings, build_service, import_chats, scope_for
from core.testing import HashEmbedder


def main(data_dir: str, path: str, n: int) -> None:
    service = build_service(Settings(data_dir=data_dir, embedding_model="hash"), embedder=HashEmbedder())
    store, stored = service.store_turns, 0

    def store_then_die(scope, turns):
        nonlocal stored
        done = store(scope, turns)
        stored += done
        if stored >= n:
            os.kill(os.getpid(), signal.SIGKILL)
        return done

    service.store_turns = store_then_die
    import_chats(service, scope_for(Actor("crash", client="import")), path, batch=16)
    print("done", flush=True)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]))
