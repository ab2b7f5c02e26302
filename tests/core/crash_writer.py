"""A writer for the crash test (tests/core/test_crash_supersede.py): replaces keyed facts as fast as it
can until it is killed. Prints "ready" once its first write is stored.

Usage: python crash_writer.py DATA_DIR ROUND [split]. With `split`, the writer stores a supersede's
two versions in two store calls, as Amber did before: the crash test must catch that.
"""

from __future__ import annotations

import itertools
import sys

from core import Actor, MemoryIn, Settings, build_service, scope_for
from core.testing import HashEmbedder

KEYS = ["profile.city", "preference.drink", "goal.trip", "skill.language"]


def main() -> None:
    data_dir, round_ = sys.argv[1], sys.argv[2]
    service = build_service(Settings(data_dir=data_dir, embedding_model="hash"), embedder=HashEmbedder())
    if sys.argv[3:] == ["split"]:
        whole = service.store.put_memories

        def one_by_one(col, memories, embeddings, **stamp):  # the old write: new version first, the retired one after
            for i, m in enumerate(memories):
                whole(col, [m], None if embeddings is None else [embeddings[i]], **stamp)

        service.store.put_memories = one_by_one
    me = scope_for(Actor("crash", client="crash-test"))
    for i in itertools.count():
        for key in KEYS:
            service.remember(me, MemoryIn(content=f"{key} value {round_}.{i}", fact_key=key))
        if i == 0:
            print("ready", flush=True)


if __name__ == "__main__":
    main()
