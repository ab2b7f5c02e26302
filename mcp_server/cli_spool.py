"""`amber spool status` and `amber spool replay`: the proxy's capture journal, read and repaired on this machine.

The journal (`<data_dir>/spool`, core/journal.py) holds the turns a proxy answered and memory has not
stored yet, and the quarantine: turns set aside because memory refused them. `replay` moves set-aside
turns back into the journal as new; the proxy's drainer stores them (it takes the journals of
processes that have ended, this command's included, within 30 s, or when it next starts).
"""

from __future__ import annotations

import argparse
import json
from datetime import timedelta
from pathlib import Path

from core import Journal, Settings, master_key


def _journal(args: argparse.Namespace) -> Journal:
    try:
        settings: Settings | None = Settings()
    except Exception:  # a broken config must not hide the journal from --data-dir
        if not args.data_dir:
            raise
        settings = None
    data_dir = Path(args.data_dir) if args.data_dir else Path(settings.data_dir)
    # the proxy seals the journal's lines under the master key when one is set: read them with it
    return Journal(data_dir / "spool", max_bytes=int(settings.spool_max_mb * 1_000_000) if settings else None,
                   master_key=master_key(settings) if settings else None)


def _age(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    return str(timedelta(seconds=int(seconds)))


def status(args: argparse.Namespace) -> int:
    journal = _journal(args)
    s = journal.status()
    if args.json:
        print(json.dumps(s, ensure_ascii=False, indent=2))
        return 0
    print(f"journal      {s['dir']}{'' if journal.dir.is_dir() else ' (not there: nothing was ever journaled here)'}")
    print(f"waiting      {s['pending']} exchange(s)" + (f", the oldest journaled {_age(s['oldest_pending_age_s'])} ago" if s["pending"] else "")
          + (f", {s['failing']} failed at least once" if s["failing"] else ""))
    if s["last_error"]:
        print(f"last error   {s['last_error']}")
    if s["backing_off_until"]:
        print(f"backing off  until {s['backing_off_until']} (memory was unreachable)")
    budget = f" of {s['max_bytes'] / 1e6:.0f} MB" if s["max_bytes"] else ""
    full = f" FULL ({s['full']}): new turns are not kept" if s["full"] else ""
    print(f"disk         {s['bytes'] / 1e6:.1f} MB{budget}{full}")
    print(f"set aside    {s['quarantined']} exchange(s)")
    if s["last_quarantined"]:
        error, at = s["last_quarantined"]
        print(f"             last at {at}: {error}")
        print("             after fixing the cause: `amber spool replay` stores them again")
    return 0


def replay(args: argparse.Namespace) -> int:
    journal = _journal(args)
    moved = journal.replay(user=args.user)
    who = f" of user {args.user!r}" if args.user else ""
    if not moved:
        print(f"nothing set aside{who} in {journal.dir}")
        return 0
    print(f"{moved} exchange(s){who} moved back into the journal at {journal.dir}; "
          "a running proxy stores them within 30 s, a stopped one when it next starts")
    return 0
