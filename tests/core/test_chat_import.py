"""Importing chat exports into a person's message log (issue 29): counts, ids, times, clients,
re-imports, forget, retention, two people, Open WebUI exports of several people."""

from __future__ import annotations

import json
import shutil
import zipfile
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from core import InvalidInput, Message
from core.chat_import import import_chats
from core.chat_import.record import SENTINEL
from core.jobs import writes as ops
from core.jobs.retention import RetentionPolicy, apply_retention

FIX = Path(__file__).resolve().parents[1] / "fixtures" / "chat_exports"


def texts(service, scope):
    return {m.id: m.content for m in service.messages(scope)}


def test_chatgpt_export_active_thread_only(service, alice):
    r = import_chats(service, alice, FIX / "chatgpt")
    assert r.sources == ["chatgpt"]
    assert r.conversations == 4
    assert dict(r.conversations_skipped) == {"do_not_remember": 1}
    assert r.stored == r.messages == 9
    got = texts(service, alice)
    instructions = got.pop("chatgpt:ctx")  # the custom instructions' own turn (test_chat_import_instructions.py)
    assert "I am a gardener" in instructions and "Be brief" in instructions
    assert set(got) == {"chatgpt:u1", "chatgpt:a2b", "chatgpt:u3", "chatgpt:img", "chatgpt:odd",
                        "chatgpt:z1", "chatgpt:z2", "chatgpt:k1", "chatgpt:k2"}
    joined = " ".join(got.values())
    for gone in ("ABANDONED", "SECRET-DNR", "They need light", "Thought for", "gardener", "Be brief"):
        assert gone not in joined
    assert got["chatgpt:odd"].startswith("[future_widget]") and "a card nobody has seen yet" in got["chatgpt:odd"]
    assert "[image_asset_pointer]" in got["chatgpt:u3"]
    assert got["chatgpt:z1"] == "我的猫叫年糕，今年三岁了。"
    skipped = r.as_dict()["skipped"]
    assert skipped["abandoned_branch"] == 1 and skipped["hidden"] == 1 and skipped["thoughts"] == 2
    assert skipped["custom_instructions"] == 1
    assert skipped["do_not_remember"] == 2


def test_times_clients_sessions_and_import_mark(service, alice):
    import_chats(service, alice, FIX / "chatgpt")
    by_id = {m.id: m for m in service.messages(alice)}
    u1 = by_id["chatgpt:u1"]
    assert u1.created_at == datetime.fromtimestamp(1700000100.0, tz=timezone.utc)
    assert (u1.client, u1.session, u1.imported, u1.role.value) == ("chatgpt", "chatgpt:c-branches", True, "user")
    # a message without a time: just after the one before it, in thread order
    assert by_id["chatgpt:u3"].created_at == by_id["chatgpt:a2b"].created_at + timedelta(microseconds=1)
    # no time at all: the sentinel, in order; the conversation's time when only that is known
    assert by_id["chatgpt:z1"].created_at == SENTINEL + timedelta(microseconds=1)
    assert by_id["chatgpt:z2"].created_at == SENTINEL + timedelta(microseconds=2)
    assert by_id["chatgpt:k1"].created_at == datetime.fromtimestamp(1710000000.0, tz=timezone.utc) + timedelta(microseconds=1)


def test_reimport_is_idempotent_and_counts_duplicates(service, alice):
    first = import_chats(service, alice, FIX / "chatgpt")
    before = texts(service, alice)
    again = import_chats(service, alice, FIX / "chatgpt")
    assert again.stored == 0 and again.duplicates == first.stored
    assert texts(service, alice) == before


def test_dry_run_writes_nothing_and_estimates_tokens(service, alice):
    r = import_chats(service, alice, FIX / "chatgpt", dry_run=True)
    assert service.messages(alice) == []
    d = r.as_dict()
    assert d["dry_run"] and d["stored"] == 0 and d["new"] == 9 and d["messages"] == 9
    assert d["extraction"]["windows"] == 3  # one per conversation
    assert 3 * 1000 < d["extraction"]["tokens_estimate"] < 3 * 2500  # the prompt (~900 tokens), an answer, the turns
    import_chats(service, alice, FIX / "chatgpt")
    d2 = import_chats(service, alice, FIX / "chatgpt", dry_run=True).as_dict()
    assert d2["new"] == 0 and d2["duplicates"] == 9 and d2["extraction"]["tokens_estimate"] == 0


def test_a_dry_run_counts_a_message_met_twice_in_one_export_as_a_real_run_does(service, alice, tmp_path):
    # the same conversations in two parts of one export, read in batches smaller than a part: the
    # real run finds the second copy stored; the dry run, which stores nothing, must count it alike
    export = tmp_path / "twice"
    export.mkdir()
    for part in ("conversations-000.json", "conversations-001.json"):
        shutil.copy(FIX / "chatgpt" / "conversations.json", export / part)
    (export / "export_manifest.json").write_text(json.dumps({"files": [{"path": "conversations-000.json"}, {"path": "conversations-001.json"}]}))
    dry = import_chats(service, alice, export, dry_run=True, batch=2).as_dict()
    real = import_chats(service, alice, export, batch=2).as_dict()
    assert (dry["new"], dry["duplicates"]) == (real["stored"], real["duplicates"]) == (9, 9)
    assert dry["extraction"]["windows"] == real["extraction"]["windows"]


def test_forgotten_turn_never_comes_back(service, alice):
    import_chats(service, alice, FIX / "chatgpt")
    plan = service.forget(alice, "tomato seedlings leggy north windowsill")
    assert "chatgpt:u1" in plan.message_ids
    assert "chatgpt:u1" not in texts(service, alice)
    r = import_chats(service, alice, FIX / "chatgpt")
    assert r.stored == 0 and r.forgotten == 1
    assert "chatgpt:u1" not in texts(service, alice)
    assert import_chats(service, alice, FIX / "chatgpt", dry_run=True).as_dict()["skipped"]["forgotten"] == 1


def test_an_export_said_before_a_forget_is_held_to_it(service, alice):
    """Forgotten first, imported after: the export's turns that say it were never stored, so no
    tombstone names them, but they were said before the forget and stay out."""
    service.forget(alice, "my tomato seedlings are leggy on the north windowsill")
    r = import_chats(service, alice, FIX / "chatgpt")
    assert r.forgotten >= 1 and r.stored == r.messages - r.forgotten
    assert "chatgpt:u1" not in texts(service, alice)
    assert not [t for t in texts(service, alice).values() if "windowsill" in t.lower()]
    assert "chatgpt:u3" in texts(service, alice)  # the rest of the export is in, by the forget's own rule: the reply
    assert "chatgpt:a2b" in texts(service, alice)  # ("Leggy seedlings want more light") holds too few of its words


def test_secrets_are_redacted_on_the_way_in(service, alice, tmp_path):
    convo = (FIX / "chatgpt" / "conversations.json").read_text(encoding="utf-8")
    key = "sk-proj-" + "Ab3dE5gH7jK9mN1pQ3sT5vX7zA9cE1gI3kM5oQ7s"
    (tmp_path / "conversations.json").write_text(convo.replace("Here is a photo", f"my key is {key}"), encoding="utf-8")
    import_chats(service, alice, tmp_path)
    assert key not in texts(service, alice)["chatgpt:u3"]


def test_multipart_export(service, alice):
    r = import_chats(service, alice, FIX / "chatgpt_multipart")
    assert (r.conversations, r.stored) == (3, 9)


def test_multipart_with_a_missing_part_names_it_and_writes_nothing(service, alice):
    with pytest.raises(InvalidInput) as e:
        import_chats(service, alice, FIX / "chatgpt_multipart_missing")
    assert "conversations-002.json" in str(e.value) and "missing" in str(e.value)
    assert service.messages(alice) == []


def test_zip_of_a_folder_and_a_nested_claude_zip(service, alice, tmp_path):
    inner = tmp_path / "conversations-000.zip"
    with zipfile.ZipFile(inner, "w") as z:
        for f in (FIX / "claude").iterdir():
            z.write(f, f.name)
    outer = tmp_path / "claude-data.zip"
    with zipfile.ZipFile(outer, "w") as z:
        z.write(inner, "conversations-000.zip")
    r = import_chats(service, alice, outer)
    assert r.sources == ["claude"] and r.stored == 10


def test_claude_export(service, alice):
    r = import_chats(service, alice, FIX / "claude")
    got = texts(service, alice)
    assert set(got) == {"claude:h1", "claude:a1", "claude:h2", "claude:a2", "claude:l0", "claude:lb1", "claude:f1", "claude:f2",
                        "claude:project-instructions-proj-1", "claude:doc-doc-1"}
    joined = " ".join(got.values())
    for gone in ("OLD BRANCH", "THINKING", "TOOL OUTPUT", "NEWER BUT NOT THE LEAF", "web_search"):
        assert gone not in joined
    assert "the river floods" in got["claude:l0"] and "[attachment: notes.txt]" in got["claude:l0"]
    assert got["claude:f1"] == "我住在杭州，喜欢喝龙井茶。"
    assert got["claude:f2"].startswith("杭州的龙井很有名。") and "[voice_memo]" in got["claude:f2"]
    assert {m.client for m in service.messages(alice)} == {"claude.ai"}
    assert r.as_dict()["skipped"]["abandoned_branch"] == 4 and r.as_dict()["skipped"]["empty"] == 1
    # a project's documents and instructions come in labelled as imported, in the project's session
    doc = next(m for m in service.messages(alice) if m.id == "claude:doc-doc-1")
    assert doc.content.startswith("[imported document plan.md from Claude project 'Garden']") and "bed C gets beans" in doc.content
    assert doc.session == "claude:project:proj-1" and doc.created_at == datetime(2024, 4, 1, 8, 5, tzinfo=timezone.utc)
    assert got["claude:project-instructions-proj-1"].endswith("Answer as a patient gardening coach.")


def test_claude_code_prompts_and_prose_only(service, alice):
    r = import_chats(service, alice, FIX / "claude_code", source="claude-code")
    got = texts(service, alice)
    assert list(got) == ["claude-code:e1", "claude-code:e2", "claude-code:e6", "claude-code:e8"]
    joined = " ".join(got.values())
    for gone in ("TOOL-SECRET-VALUE", ".env", "THINKING-CC", "SIDECHAIN", "/clear"):
        assert gone not in joined
    assert r.as_dict()["skipped"] == {"sidechain": 1, "system": 1, "tool": 2}
    assert {m.session for m in service.messages(alice)} == {"claude-code:sess-1"}


def test_openwebui_export(service, alice):
    r = import_chats(service, alice, FIX / "openwebui")
    got = texts(service, alice)
    # named as Amber's Open WebUI filter names the turns it captures live, in the chat's session
    assert set(got) == {"owui-o1", "owui-o1-reply", "owui-p2", "owui-p2-reply"}
    assert "REGENERATED AWAY" not in " ".join(got.values())
    assert r.as_dict()["skipped"] == {"abandoned_branch": 1, "system": 1}
    assert {m.session for m in service.messages(alice)} == {"ow-1", "ow-2"}
    assert {m.client for m in service.messages(alice)} == {"open-webui"}


def test_openwebui_chats_the_filter_captured_are_not_stored_twice(service, alice, clock):
    live = [Message(id="owui-o1", role="user", content="I commute by bike, 12 km each way.", client="open-webui",
                    session="ow-1", created_at=clock.now()),
            Message(id="owui-o1-reply", role="assistant", content="That is a healthy commute.", client="open-webui",
                    session="ow-1", created_at=clock.now())]
    service.store_turns(alice, live)
    r = import_chats(service, alice, FIX / "openwebui")
    assert (r.stored, r.duplicates) == (2, 2) and len(service.messages(alice)) == 4


def test_openwebui_export_of_two_people_is_refused_unless_one_is_named(service, alice, bob):
    with pytest.raises(InvalidInput) as e:
        import_chats(service, alice, FIX / "openwebui_two_users")
    assert e.value.field == "openwebui_user" and "2 people" in str(e.value)
    assert service.messages(alice) == []
    import_chats(service, alice, FIX / "openwebui_two_users", openwebui_user="owu-ann")
    import_chats(service, bob, FIX / "openwebui_two_users", openwebui_user="owu-bob")
    assert "BOB-ONLY" not in " ".join(texts(service, alice).values())
    assert set(texts(service, bob)) == {"owui-b1", "owui-b1-reply"}


def test_two_people_importing_the_same_export_never_mix(service, alice, bob):
    import_chats(service, alice, FIX / "chatgpt")
    service.forget(alice, "tomato seedlings leggy north windowsill")
    import_chats(service, bob, FIX / "chatgpt")  # alice's forget is hers: bob's copy comes in whole
    assert "chatgpt:u1" in texts(service, bob) and "chatgpt:u1" not in texts(service, alice)
    import_chats(service, bob, FIX / "claude")
    assert not any(i.startswith("claude:") for i in texts(service, alice))


def test_source_given_must_match_the_structure(service, alice):
    with pytest.raises(InvalidInput) as e:
        import_chats(service, alice, FIX / "chatgpt", source="claude")
    assert e.value.field == "source" and "chatgpt" in str(e.value)


def test_detection_is_by_structure_not_name(service, alice, tmp_path):
    shutil.copy(FIX / "claude" / "conversations.json", tmp_path / "chatgpt-conversations.json")
    assert import_chats(service, alice, tmp_path / "chatgpt-conversations.json").sources == ["claude"]


def test_not_an_export(service, alice, tmp_path):
    (tmp_path / "users.json").write_text('[{"uuid": "u"}]')
    with pytest.raises(InvalidInput) as e:
        import_chats(service, alice, tmp_path)
    assert "no ChatGPT" in str(e.value)
    with pytest.raises(InvalidInput):
        import_chats(service, alice, tmp_path / "nothing-here.json")


def test_retention_keeps_imported_turns(service, alice, clock):
    import_chats(service, alice, FIX / "chatgpt")
    live = service.store_turns(alice, [Message(id="live-1", role="user", content="a live turn", created_at=clock.now())])
    assert live == 1
    clock.advance(days=60)
    stats = apply_retention(service, alice, clock.now(), ops, RetentionPolicy(pause_s=0))
    assert stats.messages_deleted == 1
    # the nine turns and the custom instructions' turn
    assert len(service.messages(alice)) == 10 and "live-1" not in texts(service, alice)
    # the operator may set a limit for imported history too
    stats = apply_retention(service, alice, clock.now(), ops, RetentionPolicy(pause_s=0, imported_days=30))
    assert stats.messages_deleted == 10 and service.messages(alice) == []


def test_the_operator_setting_limits_imported_history(service, alice, clock, tmp_path):
    from core import Settings
    from core.jobs.runner import run_job

    import_chats(service, alice, FIX / "chatgpt")
    later = clock.advance(days=20)
    run_job("retention", service, Settings(data_dir=tmp_path / "data"), now=later)
    assert len(service.messages(alice)) == 10  # kept by default (the custom instructions' turn too)
    run_job("retention", service, Settings(data_dir=tmp_path / "data", jobs_imported_days=10), now=later)
    assert service.messages(alice) == []


def test_a_size_cap_stops_an_import_that_would_pass_it(service, alice):
    with pytest.raises(InvalidInput) as e:
        import_chats(service, alice, FIX / "chatgpt_multipart", max_turns=4, batch=2)
    assert "import_max_turns" in str(e.value) and "run the same import again" in str(e.value)
    assert len(service.messages(alice)) <= 4
    import_chats(service, alice, FIX / "chatgpt_multipart", max_turns=9)  # raised: the same import goes on
    assert len(service.messages(alice)) == 9
    with pytest.raises(InvalidInput):  # the dry run says so too, writing nothing
        import_chats(service, alice, FIX / "chatgpt", dry_run=True, max_turns=10)


def test_a_turn_dated_in_the_future_is_stored_at_the_import_time(service, alice, tmp_path, clock):
    convo = json.loads((FIX / "chatgpt" / "conversations.json").read_text(encoding="utf-8"))
    convo[0]["mapping"]["u1"]["message"]["create_time"] = 5_000_000_000  # year 2128
    (tmp_path / "conversations.json").write_text(json.dumps(convo), encoding="utf-8")
    import_chats(service, alice, tmp_path)
    assert next(m for m in service.messages(alice) if m.id == "chatgpt:u1").created_at == clock.now()


@pytest.mark.parametrize("kind", ["device", "pipe"])
def test_a_path_that_is_not_a_file_or_a_folder_is_refused_by_name(service, alice, tmp_path, kind):
    """`amber import-chats /dev/zero` read until memory ran out; a named pipe hung for ever."""
    import os

    path = Path("/dev/zero") if kind == "device" else tmp_path / "fifo"
    if kind == "pipe":
        os.mkfifo(path)
    with pytest.raises(InvalidInput, match="not a regular file or a folder"):
        import_chats(service, alice, path, dry_run=True)
