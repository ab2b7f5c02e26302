"""Secrets never reach the store: every write path of the service passes through the redactor."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

from core import MemoryIn, MemoryPatch, Message
from redact_corpus import PLANTED

T0 = datetime(2026, 1, 1, tzinfo=timezone.utc)


def _stored_text(service, scope) -> str:
    return "\n".join(json.dumps(row, ensure_ascii=False, default=str) for row in service.export(scope))


def test_planted_secrets_are_in_no_stored_record_or_export(service, alice):
    turns = [Message(id=f"t{i}", role="user" if i % 2 == 0 else "assistant", content=text, session="s", created_at=T0 + timedelta(minutes=i))
             for i, (text, _) in enumerate(PLANTED)]
    service.capture(alice, turns)  # captured turns, and a "remember" command among them
    service.capture(alice, [Message(id="cmd", role="user", content="Remember that my wifi password is Tr0ub4dor&3", created_at=T0)])
    for i, (text, _) in enumerate(PLANTED[:10]):
        service.remember(alice, MemoryIn(content=text, title=f"note {i}"))
    mem = service.remember(alice, MemoryIn(content="the staging database", fact_key="project.staging_db")).memory
    service.update(alice, mem.id, MemoryPatch(content=f"staging db: {PLANTED[16][0]}"))
    service.import_(alice, [{"type": "message", "id": "imp-1", "role": "user", "content": PLANTED[3][0], "created_at": T0.isoformat()}])
    stored = _stored_text(service, alice) + "\n".join(m.content for m in service.messages(alice))
    assert "[redacted:" in stored
    assert "Tr0ub4dor&3" not in stored
    leaked = [secret for _, secret in PLANTED if len(secret) >= 6 and secret in stored]
    assert leaked == []
    # a short secret (a PIN, a CVV) could match an id or a time stamp: look for it in its own turn
    turn_of = {m.id: m.content for m in service.messages(alice)}
    assert [s for i, (_, s) in enumerate(PLANTED) if len(s) < 6 and s in turn_of[f"t{i}"]] == []


def test_redaction_can_be_turned_off_and_extended(tmp_path):
    from core import Actor, Settings, build_service, scope_for
    from core.testing import HashEmbedder

    svc = build_service(Settings(data_dir=tmp_path / "off", redact_secrets=False), embedder=HashEmbedder())
    try:
        me = scope_for(Actor("u"))
        assert svc.remember(me, MemoryIn(content="my password is hunter2!")).memory.content == "my password is hunter2!"
    finally:
        svc.close()
    svc = build_service(Settings(data_dir=tmp_path / "extra", redact_patterns=[r"badge (?P<secret>B-\d{4})"]), embedder=HashEmbedder())
    try:
        me = scope_for(Actor("u"))
        assert "B-1234" not in svc.remember(me, MemoryIn(content="my badge B-1234 opens the lab")).memory.content
    finally:
        svc.close()


def test_secrets_as_people_say_them_are_in_no_stored_record_or_export(service, alice):
    from redaction_corpus import SECRETS, leaked

    turns = [Message(id=f"s{i}", role="user", content=c.text, session="s", created_at=T0 + timedelta(minutes=i))
             for i, c in enumerate(SECRETS)]
    service.capture(alice, turns)
    for i, case in enumerate(SECRETS[:20]):
        service.remember(alice, MemoryIn(content=case.text, title=f"note {i}"))
    stored = {m.id: m.content for m in service.messages(alice)}
    assert [c.text for i, c in enumerate(SECRETS) if leaked(c, stored[f"s{i}"])] == []
    exported = _stored_text(service, alice)
    # long secrets anywhere in the export; short ones (a PIN, a CVV) could match an id or a time stamp
    assert [s for c in SECRETS for s in c.secrets if len(s) >= 8 and s in exported] == []
