"""With a master key the proxy's journal keeps no chat text in the clear: waiting turns, set-aside
turns and a drainer's state are sealed lines, the turns are still stored (and replayed) with their
words, a forget rewrites the files without the entries that say it, and a process without the key
refuses the journal by name instead of dropping what it cannot read."""

from __future__ import annotations

import asyncio
import os

import pytest

from core import InvalidInput, Journal
from core.journal import SealedJournal
from core.forgetting import forget_request
from litellm_hooks.spool import Spool

KEY = os.urandom(32)


def entry(user: str, n: int, text: str) -> dict:
    return {"user": user, "client": "t", "command": text, "messages": [{"id": f"{user}-{n}", "role": "user", "content": text}]}


class Store:
    def __init__(self, refuse=()):
        self.refuse = set(refuse)
        self.texts: list[str] = []

    async def __call__(self, user, entries):
        if self.refuse & {e["messages"][0]["id"] for e in entries}:
            raise InvalidInput("messages", "refused")
        self.texts += [m["content"] for e in entries for m in e["messages"]]


def files_holding(directory, word: str) -> list[str]:
    return sorted(p.name for p in directory.rglob("*") if p.is_file() and word.encode() in p.read_bytes())


def test_waiting_and_set_aside_turns_are_sealed_and_still_stored(tmp_path):
    spool = Spool(tmp_path, master_key=KEY)
    said = ["my locker code is Quetzalcoatlus", "I keep a Xylophonium at home", "the Brontosaurix met us"]

    async def run():
        for n, text in enumerate(said):
            assert await spool.put(entry("ana", n, text))
        assert all(files_holding(tmp_path, w) == [] for w in ("Quetzalcoatlus", "Xylophonium", "Brontosaurix"))
        store = Store(refuse={"ana-1"})
        await spool.drain_once(store)
        assert sorted(store.texts) == sorted([said[0], said[2]])
        assert len(spool.quarantined()) == 1 and spool.quarantined()[0]["messages"][0]["content"] == said[1]
        assert files_holding(tmp_path, "Xylophonium") == [] and (tmp_path / "quarantine.ndjson").exists()
        assert spool.replay() == 1
        again = Store()
        await spool.drain_once(again)
        assert again.texts == [said[1]]

    asyncio.run(run())
    assert files_holding(tmp_path, "Xylophonium") == []


def test_a_forget_rewrites_the_sealed_journal_without_the_entry(tmp_path):
    spool = Spool(tmp_path, master_key=KEY)

    async def run():
        await spool.put(entry("ben", 1, "my passport number is ZX-998877"))
        await spool.put(entry("ben", 2, "I like green tea"))
        await spool.put(entry("eve", 3, "my passport number is ZX-998877"))

    asyncio.run(run())
    own = next(tmp_path.glob("*.jsonl"))
    before = own.read_bytes()
    match = forget_request("forget my passport number")
    assert match is not None
    assert spool.forget("ben", match) == 1
    assert own.read_bytes() != before
    left = spool.read([own])
    assert [(e["user"], e["command"]) for e in left] == [("ben", "I like green tea"), ("eve", "my passport number is ZX-998877")]


def test_without_the_key_the_journal_is_refused_and_kept(tmp_path):
    spool = Spool(tmp_path, master_key=KEY)
    asyncio.run(spool.put(entry("cy", 1, "the Hippogriffin is mine")))
    lines = next(tmp_path.glob("*.jsonl")).read_text()
    for other in (Journal(tmp_path), Journal(tmp_path, master_key=os.urandom(32))):
        with pytest.raises(SealedJournal):
            other.status()
        with pytest.raises(SealedJournal):
            other.take(10)
    # nothing was dropped: the key opens it all again
    pending = list(tmp_path.glob("*.jsonl")) + list(tmp_path.glob("*.replay-*"))
    assert "".join(p.read_text() for p in pending) == lines
    assert [e["command"] for e in Journal(tmp_path, master_key=KEY).read(pending)] == ["the Hippogriffin is mine"]


def test_lines_from_before_the_key_are_read_and_sealed_when_rewritten(tmp_path):
    plain = Spool(tmp_path)
    asyncio.run(plain.put(entry("di", 1, "my Capybarion is called Ned")))
    assert files_holding(tmp_path, "Capybarion")
    sealed = Spool(tmp_path, master_key=KEY)
    store = Store(refuse={"di-1"})
    asyncio.run(sealed.drain_once(store))  # set aside: written again, sealed
    assert [e["command"] for e in sealed.quarantined()] == ["my Capybarion is called Ned"]
    assert files_holding(tmp_path, "Capybarion") == []


def test_amber_spool_reads_a_sealed_journal_with_the_configured_key(tmp_path, monkeypatch, capsys):
    from mcp_server.cli import main as amber

    spool = Spool(tmp_path / "spool", master_key=KEY)
    asyncio.run(spool.put(entry("ann", 0, "my Okapiroon is hungry")))
    asyncio.run(spool.drain_once(Store(refuse={"ann-0"})))
    monkeypatch.setenv("AMBER_MASTER_KEY", KEY.hex())
    assert amber(["spool", "status", "--data-dir", str(tmp_path)]) == 0
    assert "set aside    1 exchange(s)" in capsys.readouterr().out
    assert amber(["spool", "replay", "--data-dir", str(tmp_path), "--user", "ann"]) == 0
    assert "1 exchange(s) of user 'ann' moved back" in capsys.readouterr().out
    assert files_holding(tmp_path, "Okapiroon") == []
    again = Store()
    asyncio.run(Spool(tmp_path / "spool", master_key=KEY).drain_once(again))
    assert again.texts == ["my Okapiroon is hungry"]
