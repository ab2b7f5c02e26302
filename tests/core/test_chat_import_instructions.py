"""ChatGPT custom instructions come in as profile facts labelled as imported custom instructions,
not silently skipped: the newest snapshot wins, an older export does not roll a newer one back,
a re-import changes nothing, and a forget keeps them out of later imports."""

from __future__ import annotations

import copy
import json
from pathlib import Path

from core.chat_import import import_chats
from core.model import Status
from core.scope import memory_where

FIX = Path(__file__).resolve().parents[1] / "fixtures" / "chat_exports"
ABOUT, STYLE = "profile.chatgpt_custom_instructions", "conversation_style.chatgpt_custom_instructions"


def keyed(service, scope, key, statuses=(Status.active,)):
    return service.reads.memories(scope, memory_where(scope, statuses=list(statuses), fact_key=key))


def export_with(tmp: Path, name: str, snapshots: list[tuple[float, str, str]]) -> Path:
    """The hand-written ChatGPT fixture, each conversation given one custom-instructions snapshot
    (time, about me, how to answer) in turn."""
    convs = json.loads((FIX / "chatgpt" / "conversations.json").read_text())
    out = []
    for i, (when, about, respond) in enumerate(snapshots):
        c = copy.deepcopy(convs[0])
        c["id"] = f"{c['id']}-{name}-{i}"
        for node in c["mapping"].values():
            m = node.get("message")
            if isinstance(m, dict):
                m["id"] = f"{m['id']}-{name}-{i}"
                if (m.get("metadata") or {}).get("is_user_system_message"):
                    m["create_time"] = when
                    m["content"] = {"content_type": "user_editable_context", "user_profile": about, "user_instructions": respond}
        out.append(c)
    d = tmp / name
    d.mkdir()
    (d / "conversations.json").write_text(json.dumps(out))
    return d


def test_custom_instructions_become_labelled_profile_facts(service, alice, bob):
    dry = import_chats(service, alice, FIX / "chatgpt", dry_run=True)
    assert dry.as_dict()["custom_instructions"] == {"snapshots": 1, "facts": 2}
    assert keyed(service, alice, ABOUT) == []  # a dry run writes nothing
    r = import_chats(service, alice, FIX / "chatgpt")
    assert r.as_dict()["custom_instructions"] == {"snapshots": 1, "facts": 2, "forgotten": 0, "older": 0}
    assert r.skipped["custom_instructions"] == 1 and r.stored == 9  # counted, not among the thread's turns
    [about] = keyed(service, alice, ABOUT)
    [style] = keyed(service, alice, STYLE)
    assert about.content == "From ChatGPT custom instructions (imported), about me: I am a gardener"
    assert style.content == "From ChatGPT custom instructions (imported), how I want answers: Be brief"
    assert about.category.value == "profile" and style.category.value == "conversation_style"
    assert "imported" in about.tags and "chatgpt-custom-instructions" in about.tags
    assert about.source_ids == ["chatgpt:ctx"] and about.valid_from.timestamp() == 1700000001.0
    assert "gardener" in service.recall(alice, "what do I do in my garden? am I a gardener").text
    assert keyed(service, bob, ABOUT) == []

    again = import_chats(service, alice, FIX / "chatgpt")  # nothing new: the same facts, seen again
    assert again.stored == 0 and [m.id for m in keyed(service, alice, ABOUT)] == [about.id]


def test_the_newest_snapshot_wins_and_an_older_export_does_not_roll_it_back(service, alice, tmp_path):
    both = export_with(tmp_path, "both", [(1700000000, "I live in Porto", "Answer in Portuguese"),
                                          (1710000000, "I live in Lisbon", "Answer in English")])
    import_chats(service, alice, both)
    [about] = keyed(service, alice, ABOUT)
    assert about.content.endswith("about me: I live in Lisbon")
    assert keyed(service, alice, STYLE)[0].content.endswith("Answer in English")
    old = export_with(tmp_path, "old", [(1690000000, "I live in Faro", "Answer in Spanish")])
    r = import_chats(service, alice, old)
    assert r.as_dict()["custom_instructions"]["older"] == 2
    assert [m.content for m in keyed(service, alice, ABOUT)] == [about.content]


def test_forgotten_custom_instructions_stay_out_of_a_later_import(service, alice):
    import_chats(service, alice, FIX / "chatgpt")
    service.forget(alice, "I am a gardener")
    assert keyed(service, alice, ABOUT, statuses=list(Status)) == []
    assert not any("gardener" in m.content for m in service.messages(alice))  # its turn went with it
    r = import_chats(service, alice, FIX / "chatgpt")  # ChatGPT exports are cumulative: it is in there again
    assert r.as_dict()["custom_instructions"]["forgotten"] == 1
    assert keyed(service, alice, ABOUT, statuses=list(Status)) == []
    assert not any("gardener" in m.content for m in service.messages(alice))
