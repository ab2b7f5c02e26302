"""Explicit commands in user messages take effect at once, without an LLM."""

from __future__ import annotations

import pytest

from core.commands import parse_command


@pytest.mark.parametrize(
    "text, action, body",
    [
        ("Remember that my cat is called Miso.", "remember", "my cat is called Miso"),
        ("please remember: I'm allergic to peanuts", "remember", "I'm allergic to peanuts"),
        ("记住：我对花生过敏", "remember", "我对花生过敏"),
        ("请记住我下周去上海出差", "remember", "我下周去上海出差"),
        ("forget that I live in Beijing", "forget", "I live in Beijing"),
        ("忘掉我住在北京这件事", "forget", "我住在北京这件事"),
    ],
)
def test_commands_are_recognised(text, action, body):
    cmd = parse_command(text)
    assert cmd is not None and (cmd.action, cmd.text) == (action, body)


@pytest.mark.parametrize("text", ["Do you remember my cat?", "I remember the trip", "remember me", "", "你还记得我的猫吗？"])
def test_questions_and_mentions_are_not_commands(text):
    assert parse_command(text) is None


def test_remember_then_forget_through_the_service(service, alice):
    done = service.apply_commands(alice, "Remember that I am allergic to peanuts", source_id="msg-1")
    assert [(a, m.content, m.source_ids) for a, m in done] == [("remember", "I am allergic to peanuts", ["msg-1"])]
    assert any("peanuts" in c.text for c in service.search(alice, "allergies"))
    forgotten = service.apply_commands(alice, "forget that I am allergic to peanuts")
    assert [a for a, _ in forgotten] == ["forget"]
    assert service.list(alice).items == []
    assert service.apply_commands(alice, "what do you know about me") == []
