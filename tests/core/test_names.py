"""Names a client gives (user ids, namespaces, fact keys, client cache names and keys) are checked
whole: a name that ends in a line break is refused, not taken as another name that prints the same
(a regex's `$` matches before a final newline; found by a privacy review)."""

from __future__ import annotations

import pytest

from core import Actor, InvalidInput, MemoryIn, Settings, build_service, scope_for
from core.scope import validate_namespace, validate_user_id
from core.testing import HashEmbedder


@pytest.mark.parametrize("user", ["alice\n", "alice\r", "\n", "a" * 256 + "\n", "bob\x00"])
def test_a_user_id_ending_in_a_line_break_or_holding_control_characters_is_refused(user):
    with pytest.raises(InvalidInput, match="user_id"):
        validate_user_id(user)
    assert validate_user_id("alice") == "alice" and validate_user_id("李雷 (work)") == "李雷 (work)"


@pytest.mark.parametrize("namespace", ["default\n", "project:amber\n", "client:cli\n"])
def test_a_namespace_ending_in_a_line_break_is_refused(namespace):
    with pytest.raises(InvalidInput):
        validate_namespace(namespace)
    assert validate_namespace(namespace.rstrip("\n")) == namespace.rstrip("\n")


def test_a_fact_key_and_a_client_cache_name_ending_in_a_line_break_are_refused(tmp_path):
    service = build_service(Settings(data_dir=tmp_path / "data"), embedder=HashEmbedder())
    ana = scope_for(Actor("ana"))
    try:
        with pytest.raises(InvalidInput, match="fact_key"):
            service.remember(ana, MemoryIn(content="I live in Leeds", fact_key="profile.city\n"))
        assert service.remember(ana, MemoryIn(content="I live in Leeds", fact_key="profile.city")).memory.fact_key == "profile.city"
        for namespace, key in (("chatbox\n", "k"), ("chatbox", "k\n")):
            with pytest.raises(InvalidInput):
                service.cache_put(ana, namespace, key, {"v": 1})
        service.cache_put(ana, "chatbox", "k", {"v": 1})
    finally:
        service.close()
