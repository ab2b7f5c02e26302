"""`POST /v1/import/chats` on a real server: an upload streamed to disk, the person taken from the
key (an admin names one), progress as JSON lines, errors naming the field, the body types a browser
form cannot send."""

from __future__ import annotations

import json
from pathlib import Path

import httpx

from core import Actor, scope_for
from server_kit import auth, zipped

FIX = Path(__file__).resolve().parents[1] / "fixtures" / "chat_exports"
OCTET = {"Content-Type": "application/octet-stream"}



def turn_ids(service, user):
    return {m.id for m in service.messages(scope_for(Actor(user)))}


def test_a_person_imports_into_their_own_memory(host):
    url, service = host
    body = zipped(FIX / "claude")
    r = httpx.post(f"{url}/v1/import/chats", params={"dry_run": "true"}, content=body, headers={**auth("alice"), **OCTET})
    assert r.status_code == 200, r.text
    assert r.json()["new"] == 10 and r.json()["stored"] == 0 and not any(i.startswith("claude:") for i in turn_ids(service, "alice"))
    r = httpx.post(f"{url}/v1/import/chats", content=body, headers={**auth("alice"), "Content-Type": "application/zip"})
    assert r.status_code == 200, r.text
    assert r.json()["stored"] == 10 and r.json()["sources"] == ["claude"]
    assert {"claude:h1", "claude:f1"} <= turn_ids(service, "alice")
    assert not any(i.startswith("claude:") for i in turn_ids(service, "bob"))
    # naming someone else with a person's key is refused
    r = httpx.post(f"{url}/v1/import/chats", content=body, headers={**auth("alice", **{"X-Amber-User": "bob"}), **OCTET})
    assert r.status_code in (401, 403), r.text
    again = httpx.post(f"{url}/v1/import/chats", content=body, headers={**auth("alice"), **OCTET}).json()
    assert again["stored"] == 0 and again["duplicates"] == 10


def test_an_admin_names_the_person(host):
    url, service = host
    body = (FIX / "chatgpt" / "conversations.json").read_bytes()
    r = httpx.post(f"{url}/v1/import/chats", content=body, headers={**auth("admin", **{"X-Amber-User": "carol"}), "Content-Type": "application/json"})
    assert r.status_code == 200, r.text
    assert r.json()["stored"] == 9 and "chatgpt:u1" in turn_ids(service, "carol")
    r = httpx.post(f"{url}/v1/import/chats", content=body, headers={**auth("admin"), **OCTET})
    assert r.status_code == 422 and r.json()["field"] == "X-Amber-User"


def test_read_only_keys_cannot_import(host):
    url, _ = host
    r = httpx.post(f"{url}/v1/import/chats", content=b"[]", headers={**auth("alice_ro"), **OCTET})
    assert r.status_code == 403, r.text


def test_progress_lines_end_with_the_report(host):
    url, service = host
    with httpx.stream("POST", f"{url}/v1/import/chats", content=zipped(FIX / "chatgpt_multipart"),
                      headers={**auth("bob"), **OCTET, "Accept": "application/x-ndjson"}) as r:
        assert r.status_code == 200
        lines = [json.loads(x) for x in r.iter_lines() if x.strip()]
    assert lines[-1]["report"]["stored"] == 9 and any("progress" in x for x in lines[:-1])
    assert "chatgpt:p1a-3" in turn_ids(service, "bob")


def test_errors_name_what_is_wrong(host):
    url, _ = host
    r = httpx.post(f"{url}/v1/import/chats", content=zipped(FIX / "chatgpt_multipart_missing"), headers={**auth("bob"), **OCTET})
    assert r.status_code == 422 and "conversations-002.json" in r.json()["detail"], r.text
    with httpx.stream("POST", f"{url}/v1/import/chats", content=zipped(FIX / "openwebui_two_users"),
                      headers={**auth("bob"), **OCTET, "Accept": "application/x-ndjson"}) as r:
        last = [json.loads(x) for x in r.iter_lines() if x.strip()][-1]
    assert last["error"]["field"] == "openwebui_user"
    r = httpx.post(f"{url}/v1/import/chats", content=b"", headers={**auth("bob"), **OCTET})
    assert r.status_code == 422 and r.json()["field"] == "body"
    r = httpx.post(f"{url}/v1/import/chats", params={"source": "myspace"}, content=b"[]", headers={**auth("bob"), **OCTET})
    assert r.status_code == 422
    # a type a cross-site form can send is refused before anything is read
    r = httpx.post(f"{url}/v1/import/chats", content=b"[]", headers={**auth("bob"), "Content-Type": "text/plain"})
    assert r.status_code in (415, 422), r.text


def test_a_large_upload_passes_the_ordinary_body_limit(host):
    url, service = host
    convs = [{"id": f"big-{i}", "title": None, "create_time": 1700000000 + i, "current_node": f"b{i}",
              "mapping": {f"b{i}": {"id": f"b{i}", "parent": None, "children": [],
                                    "message": {"id": f"b{i}", "author": {"role": "user"}, "create_time": None,
                                                "content": {"content_type": "text", "parts": ["x" * 30_000]}}}}}
             for i in range(100)]
    body = json.dumps(convs).encode()
    assert len(body) > 2 * 1024 * 1024
    r = httpx.post(f"{url}/v1/import/chats", params={"dry_run": "true"}, content=body, headers={**auth("bob"), **OCTET}, timeout=60)
    assert r.status_code == 200 and r.json()["new"] == 100, r.text[:300]


def test_a_claude_code_session_uploaded_as_is(host):
    url, service = host
    body = (FIX / "claude_code" / "projects" / "-home-someone-proj" / "sess-1.jsonl").read_bytes()
    r = httpx.post(f"{url}/v1/import/chats", content=body, headers={**auth("admin", **{"X-Amber-User": "dev"}), **OCTET})
    assert r.status_code == 200 and r.json()["sources"] == ["claude-code"] and r.json()["stored"] == 4, r.text
    assert "TOOL-SECRET-VALUE" not in " ".join(m.content for m in service.messages(scope_for(Actor("dev"))))


def test_an_import_builds_the_persons_recall_index_before_their_next_recall(host):
    """After thousands of imported turns, the index of every turn is most of the first recall's
    work: the host builds it as soon as the import is done, not when the person next chats."""
    import time

    from core.scope import message_collection

    url, service = host
    scope = scope_for(Actor("erin"))
    col = message_collection(scope)
    assert col not in service.recaller._msg
    r = httpx.post(f"{url}/v1/import/chats", content=zipped(FIX / "claude"), headers={**auth("admin", **{"X-Amber-User": "erin"}), **OCTET})
    assert r.status_code == 200 and r.json()["stored"] == 10, r.text
    deadline = time.monotonic() + 30
    while col not in service.recaller._msg and time.monotonic() < deadline:
        time.sleep(0.05)
    idx = service.recaller._msg[col]
    assert {"claude:h1", "claude:f1"} <= set(idx.msgs)
    rebuilds = service.recaller.rebuilds
    assert service.recall(scope, "what did I ask Claude about").items is not None
    assert service.recaller.rebuilds == rebuilds  # the recall found it built
