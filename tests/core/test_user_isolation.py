"""No service call made for one user ever returns another user's records."""

from __future__ import annotations

from datetime import datetime, timezone

from core import MemoryIn, Message


def _fill(service, scope, word):
    service.remember(scope, MemoryIn(content=f"My secret word is {word}", fact_key="profile.secret"))
    service.remember(scope, MemoryIn(content=f"{word} is my favourite colour"))
    service.glossary_set(scope, f"{word}-term", f"{word} definition")
    service.digest_set(scope, f"Digest about {word}")
    service.precious_add(scope, f"a {word} quote")
    service.store_turns(scope, [Message(id="same-id", role="user", content=f"I said {word}", created_at=datetime(2026, 1, 1, tzinfo=timezone.utc))])


def test_two_users_never_see_each_other(service, alice, bob):
    _fill(service, alice, "amethyst")
    _fill(service, bob, "beryl")
    for me, other in ((alice, "beryl"), (bob, "amethyst")):
        texts = []
        texts += [m.content for m in service.list(me, status="any", limit=500).items]
        texts += [c.text for c in service.search(me, f"secret word {other} colour quote")]
        texts += [service.recall(me, f"what is {other}").text]
        texts += [m.content for m in service.glossary_get(me)]
        texts += [service.digest_get(me).content]
        texts += [m.content for m in service.messages(me)]
        texts += [str(line) for line in service.export(me)]
        texts += [str(e) for e in service.events(me)]
        assert texts and not any(other in t for t in texts), other
    # the same message id is a different record per user
    assert service.messages(alice)[0].content == "I said amethyst"
    assert service.messages(bob)[0].content == "I said beryl"


def test_ids_from_another_user_are_not_found(service, alice, bob):
    m = service.remember(alice, MemoryIn(content="Alice only")).memory
    import pytest
    from core import NotFound

    with pytest.raises(NotFound):
        service.get(bob, m.id)
    with pytest.raises(NotFound):
        service.delete(bob, m.id)
    assert service.get(alice, m.id).status.value == "active"
