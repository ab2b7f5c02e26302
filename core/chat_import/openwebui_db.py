"""Open WebUI's own database (`webui.db`, SQLite): every person's chats, read one row at a time.

Open WebUI keeps a chat as one row of its `chat` table: `id`, `user_id` (the owner), `title`,
`created_at` (epoch seconds) and `chat`, a JSON text holding the same `{history: {messages,
currentId}, messages}` as its chat export; the people are rows of its `user` table (`id`, `email`,
`name`). Each row is handed to openwebui.py's parser as the export's `{id, user_id, title,
created_at, chat}`, so a chat reads the same from the database as from an export, and turns get
the same ids as Amber's Open WebUI filter gives them live.

The database holds everybody's chats: the importer takes only those of the Open WebUI accounts
that are the importing person's (`owners_for`), never anybody else's. The file is opened
read-only (`mode=ro`) and Open WebUI's own tables are never written.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from ..errors import InvalidInput

HEADER = b"SQLite format 3\x00"


def is_sqlite(head: bytes) -> bool:
    return head.startswith(HEADER)


def _open(path: Path) -> sqlite3.Connection:
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=10)
        db.execute("SELECT 1 FROM sqlite_master LIMIT 1")
    except sqlite3.Error as e:
        raise InvalidInput("path", f"{path.name} is not a readable SQLite database ({e})") from None
    return db


def is_openwebui(path: Path) -> bool:
    """An Open WebUI database: a `chat` table with `user_id` and `chat` columns, and a `user` table."""
    try:
        db = _open(path)
    except InvalidInput:
        return False
    try:
        tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if not {"chat", "user"} <= tables:
            return False
        cols = {r[1] for r in db.execute("PRAGMA table_info(chat)")}
        return {"id", "user_id", "chat"} <= cols
    except sqlite3.Error:
        return False
    finally:
        db.close()


def accounts(path: Path) -> dict[str, str | None]:
    """Open WebUI user id -> email, for every account that owns a chat."""
    db = _open(path)
    try:
        emails = {str(i): (str(e) if e else None) for i, e in db.execute('SELECT id, email FROM "user"')}
        owners = {str(u) for (u,) in db.execute("SELECT DISTINCT user_id FROM chat WHERE user_id IS NOT NULL")}
    except sqlite3.Error as e:
        raise InvalidInput("path", f"{path.name}: Open WebUI's tables could not be read ({e})") from None
    finally:
        db.close()
    return {u: emails.get(u) for u in sorted(owners)}


def owners_for(found: dict[str, str | None], me: str, person: Callable[[str], str], named: str | None, where: str) -> set[str]:
    """Which Open WebUI accounts' chats go into `me`'s memory: the one named; else those the
    identity map (`person`: a name a client knows someone by -> their person) joins with `me`, by
    Open WebUI id or email; else, when only one account has chats, that one. Anything else is
    refused: an import never files one person's chats in another's memory."""
    if named is not None:
        if found and named not in found:
            raise InvalidInput("openwebui_user", f"{where} has no chats of an Open WebUI user {named!r}")
        return {named}
    mine = {u for u, email in found.items() if me in (u, person(u)) or (email and me in (email, person(email)))}
    if mine or len(found) <= 1:
        return mine or set(found)
    raise InvalidInput("openwebui_user", f"{where} holds the chats of {len(found)} people and none of them is known as {me!r}: "
                       f"add their Open WebUI id or email to {me!r}'s names in the identity map (settings `users:`), "
                       "or name the Open WebUI user whose chats are theirs")


def chats(path: Path, owners: set[str] | None) -> Iterator[dict[str, Any]]:
    """The chats of `owners` (None: everybody's), oldest first, as Open WebUI exports them."""
    db = _open(path)
    try:
        cols = {r[1] for r in db.execute("PRAGMA table_info(chat)")}
        extra = ", created_at" if "created_at" in cols else ", NULL"
        rows = db.execute(f"SELECT id, user_id, title, chat{extra} FROM chat ORDER BY 5, 1")
        for cid, uid, title, raw, created in rows:
            if owners is not None and str(uid) not in owners:
                continue
            try:
                chat = json.loads(raw) if isinstance(raw, (str, bytes)) else None
            except (ValueError, RecursionError):
                chat = None
            yield {"id": cid, "user_id": uid, "title": title, "created_at": created,
                   "chat": chat if isinstance(chat, dict) else {"messages": []}}
    except sqlite3.Error as e:
        raise InvalidInput("path", f"{path.name}: Open WebUI's chats could not be read ({e})") from None
    finally:
        db.close()
