"""Open WebUI's own database (webui.db) as an import source: the `chat` and `user` tables as Open WebUI
0.12 lays them out (built here by hand, two people), told from its structure, each account's chats
filed only in the memory of the person the identity map joins it with; a database of several people
that names nobody the importer is refused; nobody lands in another's memory."""

from __future__ import annotations

import json
import sqlite3
import zipfile
from pathlib import Path

import pytest

from core import InvalidInput, Settings
from core.chat_import import import_chats

# the columns Open WebUI 0.12 gives its tables (open_webui/models/chats.py, users.py), fewer of them
SCHEMA = """
CREATE TABLE user (id VARCHAR NOT NULL PRIMARY KEY, email VARCHAR, username VARCHAR(50), role VARCHAR,
                   name VARCHAR NOT NULL, profile_image_url TEXT, created_at BIGINT, updated_at BIGINT);
CREATE TABLE chat (id VARCHAR NOT NULL PRIMARY KEY, user_id VARCHAR, title TEXT, chat JSON, created_at BIGINT,
                   updated_at BIGINT, share_id TEXT, archived BOOLEAN, pinned BOOLEAN, meta JSON DEFAULT '{}',
                   folder_id TEXT);
CREATE TABLE config (id INTEGER PRIMARY KEY, data JSON);
"""


def chat_json(cid: str, turns: list[tuple[str, str, str]], t0: int) -> str:
    """A chat as Open WebUI stores it: a message tree (history) with the current leaf, and the list."""
    messages, prev = {}, None
    for i, (mid, role, content) in enumerate(turns):
        messages[mid] = {"id": mid, "parentId": prev, "childrenIds": [], "role": role, "content": content,
                         "timestamp": t0 + 10 * i, "models": ["gpt-x"]}
        if prev:
            messages[prev]["childrenIds"].append(mid)
        prev = mid
    return json.dumps({"id": cid, "title": "t", "models": ["gpt-x"], "history": {"messages": messages, "currentId": prev},
                       "messages": list(messages.values()), "timestamp": t0}, ensure_ascii=False)


def webui_db(path: Path, extra_user: bool = False) -> Path:
    db = sqlite3.connect(path)
    db.executescript(SCHEMA)
    users = [("owui-a", "ana@example.org", "Ana"), ("owui-b", "bruno@example.org", "Bruno")]
    if extra_user:
        users.append(("owui-c", None, "Carla"))
    db.executemany("INSERT INTO user (id, email, name, role) VALUES (?, ?, ?, 'user')", users)
    rows = [
        ("chat-a1", "owui-a", "Garden", chat_json("chat-a1", [("a1q", "user", "My tomato plants are on the north balcony"),
                                                            ("a1r", "assistant", "North light is weak for tomatoes.")], 1_720_000_000)),
        ("chat-a2", "owui-a", "猫", chat_json("chat-a2", [("a2q", "user", "我的猫叫年糕")], 1_721_000_000)),
        ("chat-b1", "owui-b", "Bank", chat_json("chat-b1", [("b1q", "user", "BRUNO-ONLY my bank PIN hint is the harbour"),
                                                          ("b1r", "assistant", "I will not repeat that.")], 1_722_000_000)),
    ]
    if extra_user:
        rows.append(("chat-c1", "owui-c", "x", chat_json("chat-c1", [("c1q", "user", "CARLA-ONLY words")], 1_723_000_000)))
    db.executemany("INSERT INTO chat (id, user_id, title, chat, created_at, updated_at, archived) VALUES (?, ?, ?, ?, ?, ?, 0)",
                   [(c, u, t, j, 1_720_000_000, 1_725_000_000) for c, u, t, j in rows])
    db.commit()
    db.close()
    return path


MAP = Settings(users={"ana": ["owui-a"], "bruno": ["bruno@example.org"]}).person  # by id, and by email


def said(service, who) -> str:
    return " ".join(m.content for m in service.messages(who))


def test_each_account_lands_only_in_its_own_persons_memory(service, tmp_path):
    from core import Actor, scope_for

    db = webui_db(tmp_path / "webui.db")
    ana, bruno = scope_for(Actor("ana", client="tests")), scope_for(Actor("bruno", client="tests"))
    r = import_chats(service, ana, db, person=MAP)
    assert r.sources == ["openwebui"] and r.conversations == 2 and r.stored == 3
    assert {m.id for m in service.messages(ana)} == {"owui-a1q", "owui-a1q-reply", "owui-a2q"}  # the filter's own names
    assert {m.session for m in service.messages(ana)} == {"chat-a1", "chat-a2"}
    assert {m.client for m in service.messages(ana)} == {"open-webui"}
    assert "BRUNO-ONLY" not in said(service, ana)
    r = import_chats(service, bruno, db, person=MAP)  # joined by email
    assert r.stored == 2 and "BRUNO-ONLY" in said(service, bruno)
    assert "tomato" not in said(service, bruno) and "年糕" not in said(service, bruno)
    assert import_chats(service, ana, db, person=MAP).stored == 0  # again: nothing new, nothing of Bruno's
    assert "BRUNO-ONLY" not in said(service, ana)


def test_a_database_of_several_people_that_names_nobody_is_refused(service, alice, tmp_path):
    db = webui_db(tmp_path / "webui.db", extra_user=True)
    for person in (None, MAP):  # no identity map; a map in which alice is nobody
        with pytest.raises(InvalidInput) as e:
            import_chats(service, alice, db, person=person, dry_run=True)
        assert e.value.field == "openwebui_user" and "3 people" in str(e.value) and "identity map" in str(e.value)
    assert service.messages(alice) == []
    r = import_chats(service, alice, db, openwebui_user="owui-c")  # an account named outright
    assert r.stored == 1 and said(service, alice) == "CARLA-ONLY words"
    with pytest.raises(InvalidInput, match="no chats of an Open WebUI user 'owui-z'"):
        import_chats(service, alice, db, openwebui_user="owui-z")


def test_a_database_of_one_person_needs_no_map_and_is_found_in_a_zip_or_folder(service, alice, bob, tmp_path):
    db = sqlite3.connect(tmp_path / "one.db")
    db.executescript(SCHEMA)
    db.execute("INSERT INTO user (id, email, name) VALUES ('solo', NULL, 'Solo')")
    db.execute("INSERT INTO chat (id, user_id, title, chat, created_at) VALUES ('c', 'solo', NULL, ?, 1720000000)",
               (chat_json("c", [("q", "user", "I ride a blue bike to work")], 1_720_000_000),))
    db.execute("INSERT INTO chat (id, user_id, title, chat, created_at) VALUES ('broken', 'solo', NULL, '{not json', 1720000001)")
    db.commit()
    db.close()
    z = tmp_path / "backup.zip"
    with zipfile.ZipFile(z, "w") as f:
        f.write(tmp_path / "one.db", "data/webui.db")
    r = import_chats(service, alice, z)
    assert r.sources == ["openwebui"] and r.stored == 1 and said(service, alice) == "I ride a blue bike to work"
    folder = tmp_path / "folder"
    folder.mkdir()
    (folder / "webui.db").write_bytes((tmp_path / "one.db").read_bytes())
    assert import_chats(service, bob, folder, source="openwebui").stored == 1
    not_owui = tmp_path / "other.db"
    sqlite3.connect(not_owui).executescript("CREATE TABLE notes (id INTEGER); INSERT INTO notes VALUES (1);")
    with pytest.raises(InvalidInput, match="no ChatGPT, Claude.ai, Open WebUI or Claude Code conversations"):
        import_chats(service, alice, not_owui)
