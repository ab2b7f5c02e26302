"""What of a conversation comes in, on a real store: ChatGPT's tool traffic (calls and results left
out and counted, a memory update kept labelled), messages hidden from the conversation, a Claude.ai
message's words given once, the Claude.ai branch whose subtree is newest, and a damaged ZIP named."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import pytest

from core import InvalidInput
from core.chat_import import import_chats
from core.chat_import.chatgpt import MEMORY_LABEL

FIX = Path(__file__).resolve().parents[1] / "fixtures" / "chat_exports"
ZERO = "00000000-0000-4000-8000-000000000000"


def texts(service, scope):
    return {m.id: m.content for m in service.messages(scope)}


def test_chatgpt_tool_calls_and_results_stay_out_counted_and_a_memory_update_comes_in_labelled(service, alice):
    r = import_chats(service, alice, FIX / "chatgpt_tools")
    got = texts(service, alice)
    assert list(got) == ["chatgpt:w1", "chatgpt:w4", "chatgpt:w5", "chatgpt:w6", "chatgpt:w11", "chatgpt:w16"]
    # what ChatGPT saved to its memory of the person is theirs: an assistant turn, labelled so
    assert got["chatgpt:w6"] == f"{MEMORY_LABEL} Is vegetarian."
    assert next(m for m in service.messages(alice) if m.id == "chatgpt:w6").role.value == "assistant"
    joined = " ".join(got.values())
    assert "TOOL-" not in joined and "HIDDEN-" not in joined and "file-tool" not in joined
    # code, a search and an image prompt sent to tools; their outputs, whatever their content type
    # (the one nobody knows included), and the memory update's confirmation; two hidden messages
    assert r.as_dict()["skipped"] == {"tool_call": 3, "tool": 5, "hidden": 2}
    assert r.stored == r.messages == 6


def test_a_hidden_user_or_assistant_message_is_skipped_as_hidden(service, alice, tmp_path):
    convo = json.loads((FIX / "chatgpt_tools" / "conversations.json").read_text(encoding="utf-8"))
    for mid in ("w12", "w13"):
        m = convo[0]["mapping"][mid]["message"]
        assert m["author"]["role"] in ("user", "assistant") and m["metadata"]["is_visually_hidden_from_conversation"]
    (tmp_path / "conversations.json").write_text(json.dumps(convo), encoding="utf-8")
    r = import_chats(service, alice, tmp_path, dry_run=True)
    assert r.skipped["hidden"] == 2 and r.skipped["system"] == 0
    # shown again, the same messages come in as the person's and the assistant's words
    for mid in ("w12", "w13"):
        convo[0]["mapping"][mid]["message"]["metadata"]["is_visually_hidden_from_conversation"] = False
    (tmp_path / "conversations.json").write_text(json.dumps(convo), encoding="utf-8")
    import_chats(service, alice, tmp_path)
    got = texts(service, alice)
    assert got["chatgpt:w12"].startswith("HIDDEN-USER") and got["chatgpt:w13"].startswith("HIDDEN-ASSISTANT")


def claude_export(tmp_path, *convs) -> Path:
    path = tmp_path / "conversations.json"
    path.write_text(json.dumps(list(convs), ensure_ascii=False), encoding="utf-8")
    return path


def cmsg(uid, sender, parent, t, content=(), text=""):
    return {"uuid": uid, "sender": sender, "parent_message_uuid": parent, "created_at": t, "text": text,
            "content": list(content), "attachments": []}


def test_a_claude_message_with_blocks_and_text_gives_its_words_once(service, alice, tmp_path):
    words = "I keep two hives of bees on the roof."
    conv = {"uuid": "cl-both", "name": "Bees", "created_at": "2024-07-01T08:00:00Z", "chat_messages": [
        cmsg("b1", "human", ZERO, "2024-07-01T08:00:00Z", [{"type": "text", "text": words}], text=words),
        cmsg("b2", "assistant", "b1", "2024-07-01T08:00:05Z",
             [{"type": "text", "text": "Two hives is a good start."}, {"type": "text", "text": "Mind the swarming season."}],
             text="Two hives is a good start.\n\nMind the swarming season."),
    ]}
    import_chats(service, alice, claude_export(tmp_path, conv))
    got = texts(service, alice)
    assert got["claude:b1"] == words
    assert got["claude:b2"] == "Two hives is a good start.\nMind the swarming season."
    assert got["claude:b2"].count("swarming") == 1


def test_a_claude_branch_is_chosen_by_its_newest_subtree_not_its_newest_child(service, alice, tmp_path):
    # after q1's answer two edits: `late` was asked last, but the conversation went on under `early`,
    # whose reply is the newest message of all: that is the thread the person last saw
    conv = {"uuid": "cl-subtree", "name": None, "created_at": "2024-08-01T09:00:00Z", "chat_messages": [
        cmsg("q1", "human", ZERO, "2024-08-01T09:00:00Z", [{"type": "text", "text": "Which trail should I hike on Saturday?"}]),
        cmsg("r1", "assistant", "q1", "2024-08-01T09:00:05Z", [{"type": "text", "text": "How long a hike do you want?"}]),
        cmsg("early", "human", "r1", "2024-08-01T09:10:00Z", [{"type": "text", "text": "About 15 km, with a lake."}]),
        cmsg("late", "human", "r1", "2024-08-01T09:20:00Z", [{"type": "text", "text": "NEWEST CHILD: something short"}]),
        cmsg("early-r", "assistant", "early", "2024-08-01T09:30:00Z", [{"type": "text", "text": "The lake loop is 14 km."}]),
    ]}
    r = import_chats(service, alice, claude_export(tmp_path, conv))
    got = texts(service, alice)
    assert list(got) == ["claude:q1", "claude:r1", "claude:early", "claude:early-r"]
    assert r.skipped["abandoned_branch"] == 1


def test_a_damaged_zip_is_named_not_taken_for_no_export(service, alice, tmp_path):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as z:
        z.writestr("conversations.json", (FIX / "chatgpt" / "conversations.json").read_bytes())
    data = bytearray(buf.getvalue())
    at = data.index(b"tomato seedlings")
    data[at] = ord("T")  # one byte changed on the way: its CRC no longer matches
    (tmp_path / "export.zip").write_bytes(bytes(data))
    with pytest.raises(InvalidInput) as e:
        import_chats(service, alice, tmp_path / "export.zip")
    assert "conversations.json is damaged in the ZIP" in str(e.value) and "download the export again" in str(e.value)
    assert service.messages(alice) == []
