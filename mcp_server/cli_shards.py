"""`amber shards list | show USER | move USER TO`: users spread over several Chroma servers.

Reads `chroma_shards` and `redis_url` from the same settings the hosts use. `move` runs beside
running hosts (it takes the user's write lock, as they do); killed, it is run again with the
same arguments and finishes the move (core/store/shard_move.py says how).
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from core import Settings, shard_mover


def register(sub: Any) -> None:
    sh = sub.add_parser("shards", help="users spread over several Chroma servers: list, show a user, move a user")
    ssub = sh.add_subparsers(dest="shards_command", required=True, metavar="ACTION")
    ls = ssub.add_parser("list", help="each shard: its URL, whether it answers, its collections, the users routed to it")
    ls.set_defaults(run=list_)
    sw = ssub.add_parser("show", help="a user's shard, their collections and any unfinished move")
    sw.add_argument("user", help="the person's user id (an alias is mapped to its person)")
    sw.set_defaults(run=show)
    mv = ssub.add_parser("move", help="move a user to another shard (rerun the same command after a crash)")
    mv.add_argument("user", help="the person's user id (an alias is mapped to its person)")
    mv.add_argument("to", help="the target shard's name, as in chroma_shards")
    mv.add_argument("--batch", type=int, default=1000, help="records copied per request (default 1000)")
    mv.add_argument("--grace", type=float, default=2.0,
                    help="seconds between the route's flip and dropping the old copy, for reads under way (default 2)")
    mv.set_defaults(run=move)


def list_(args: argparse.Namespace) -> int:
    mover, close = shard_mover(Settings())
    try:
        print(json.dumps(mover.list(), indent=2))
    finally:
        close()
    return 0


def show(args: argparse.Namespace) -> int:
    settings = Settings()
    mover, close = shard_mover(settings)
    try:
        print(json.dumps(mover.show(settings.person(args.user)), indent=2))
    finally:
        close()
    return 0


def move(args: argparse.Namespace) -> int:
    settings = Settings()
    mover, close = shard_mover(settings, grace_s=args.grace, batch=args.batch, say=lambda line: print(line, flush=True))
    try:
        print(json.dumps(mover.move(settings.person(args.user), args.to)))
    finally:
        close()
    return 0
