"""Who a proxied turn belongs to, decided by the server alone: the request ledger, the privacy
switches that fail closed, and the removal of a client's own `amber_*` metadata names.

The same attacks through the real proxy are in test_forged_identity.py.
"""

from __future__ import annotations

import asyncio
import itertools

import pytest

from core import Actor
from litellm_hooks import identity
from litellm_hooks.amber import AmberMemory
from litellm_hooks.ledger import Decision, RequestLedger
from tests.hook.test_hook_units import Key  # LiteLLM's key fields, as the proxy hands them over

# ---- the ledger --------------------------------------------------------------------------------


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def decision(user: str) -> Decision:
    return Decision(Actor(user, client="t", via="litellm"), "on", None)


def test_a_decision_is_taken_once_by_its_own_call():
    ledger = RequestLedger()
    assert ledger.open("call-1", decision("alice"))
    assert ledger.take("call-2") is None
    assert ledger.take("call-1").actor.user_id == "alice"
    assert ledger.take("call-1") is None  # a second success event for the same call keeps nothing
    assert len(ledger) == 0


def test_no_call_id_means_nothing_is_recorded():
    ledger = RequestLedger()
    assert not ledger.open(None, decision("alice")) and not ledger.open("", decision("alice"))
    assert ledger.take(None) is None and len(ledger) == 0


def test_a_call_id_claimed_twice_captures_neither_request():
    """A client may choose its call id: the victim's id reused by an attacker spoils it for both,
    in either order, and a third request cannot revive it until it expires."""
    clock = Clock()
    ledger = RequestLedger(ttl_s=60, clock=clock)
    assert ledger.open("shared", decision("victim"))
    assert not ledger.open("shared", decision("mallory"))
    assert ledger.take("shared") is None
    assert not ledger.open("shared", decision("mallory"))  # still spoiled
    assert ledger.take("shared") is None
    assert ledger.spoiled == 2
    clock.now += 61
    assert ledger.open("shared", decision("carol")) and ledger.take("shared").actor.user_id == "carol"


def test_the_handles_injected_are_told_only_to_a_request_of_their_person():
    """The response header's handles are kept by call id, which a client may choose: another
    person's request under that id gets none (and leaves them for the real one); a failed call and
    a spoiled id tell no one."""
    ledger = RequestLedger()
    ledger.open("c1", decision("alice"))
    ledger.note_injected("c1", ("m1",), ("#12345",))
    assert ledger.shown("c1", "mallory") == () and ledger.shown("c1", None) == ()
    assert ledger.shown("c1", "alice") == ("#12345",) and ledger.shown("c1", "alice") == ()
    ledger.open("c2", decision("alice"))
    ledger.note_injected("c2", ("m1",), ("#12345",))
    ledger.discard("c2")
    assert ledger.shown("c2", "alice") == ()
    ledger.open("c3", decision("alice"))
    ledger.note_injected("c3", ("m1",), ("#12345",))
    assert not ledger.open("c3", decision("alice"))  # the same id claimed again while open
    assert ledger.shown("c3", "alice") == ()


def test_records_expire_and_the_ledger_stays_bounded():
    clock = Clock()
    ledger = RequestLedger(ttl_s=10, max_records=3, clock=clock)
    for n in range(5):
        ledger.open(f"c{n}", decision(f"u{n}"))
    assert len(ledger) == 3 and ledger.evicted == 2
    assert ledger.take("c0") is None and ledger.take("c4").actor.user_id == "u4"
    clock.now += 11
    assert ledger.take("c3") is None and len(ledger) == 0


def test_a_failed_call_drops_its_record_but_not_a_spoiled_id():
    ledger = RequestLedger()
    ledger.open("a", decision("alice"))
    ledger.discard("a")
    assert ledger.take("a") is None
    ledger.open("b", decision("alice"))
    ledger.open("b", decision("mallory"))
    ledger.discard("b")
    assert not ledger.open("b", decision("mallory"))


# ---- private switches fail closed ----------------------------------------------------------------


def req(header=None, meta=None, lmeta=None) -> dict:
    data: dict = {}
    if header is not None:
        data["proxy_server_request"] = {"headers": {"X-Amber-Memory": header}}
    if meta is not None:
        data["metadata"] = meta
    if lmeta is not None:
        data["litellm_metadata"] = lmeta
    return data


@pytest.mark.parametrize("value,mode", [
    ("on", "on"), ("READ", "read"), (" Write ", "write"), ("off", "off"),
    ("of", "off"), ("", "off"), ("true", "off"), ("none", "off"),
    (False, "off"), (True, "off"), (0, "off"), (1, "off"), (None, "off"), (["on"], "off"), ({"mode": "on"}, "off"),
    ("ｏｎ", "off"), ("on\u200b", "off"),
])
def test_any_value_but_the_four_modes_means_off(value, mode):
    assert identity.memory_mode(req(meta={"amber_memory": value})) == mode
    assert identity.memory_mode(req(lmeta={"amber_memory": value})) == mode


def test_without_a_switch_memory_is_on():
    assert identity.memory_mode({}) == "on"
    assert identity.memory_mode(req(meta={"user_id": "x"})) == "on"


@pytest.mark.parametrize("a,b", list(itertools.product(["on", "read", "write", "off"], repeat=2)))
def test_when_sources_disagree_the_more_private_wins(a, b):
    rights = identity.MODE_RIGHTS
    want = {v: k for k, v in rights.items()}[rights[a] & rights[b]]
    assert identity.memory_mode(req(header=a, meta={"amber_memory": b})) == want
    assert identity.memory_mode(req(header=b, lmeta={"amber_memory": a})) == want
    assert identity.memory_mode(req(meta={"amber_memory": a}, lmeta={"amber_memory": b})) == want


def test_case_and_width_variants_of_the_switch_count_too():
    assert identity.memory_mode(req(meta={"AMBER_MEMORY": "off"})) == "off"
    assert identity.memory_mode(req(meta={"ａｍｂｅｒ_ｍｅｍｏｒｙ": "read", "amber_memory": "on"})) == "read"


# ---- a client's amber_* names are removed ---------------------------------------------------------


def test_scrub_removes_every_amber_name_but_the_switch():
    data = req(
        meta={"amber_user": "victim", "AMBER_CAPTURE": True, "ａｍｂｅｒ_client": "x", "amber_internal": True,
              "Amber_Session": "s", "amber_memory": "read", "user_id": "me", "tags": ["a"]},
        lmeta={"amber_user": {"nested": "victim"}, "amber": 1, "other": 2},
    )
    dropped = identity.scrub(data)
    assert data["metadata"] == {"amber_memory": "read", "user_id": "me", "tags": ["a"]}
    assert data["litellm_metadata"] == {"other": 2}
    assert len(dropped) == 7


# ---- the hook: nothing is recorded for a request that may keep nothing ------------------------------


class Settings:
    identity_order = ["end_user"]
    default_user = None
    vision_timeout_s = 1.0
    recall_timeout_s = 1.0
    boot_pack_in_system = False
    cache_ttl = "5m"

    @staticmethod
    def person(name: str) -> str:
        return name


class Memory:
    def __init__(self) -> None:
        self.recalled: list[str] = []

    async def recall(self, actor, query, echo=()):
        self.recalled.append(actor.user_id)
        raise RuntimeError("no store in this test")


class Host:
    def __init__(self) -> None:
        self.settings, self.memory, self.vision = Settings(), Memory(), None


def hook() -> AmberMemory:
    h = AmberMemory.__new__(AmberMemory)
    h.host = Host()
    h.targets = type("T", (), {"is_claude": staticmethod(lambda m: False)})()
    h.ledger = RequestLedger()
    return h


def chat(call_id: str, *, user=None, **meta) -> dict:
    data = {"model": "gpt-4o-mini", "litellm_call_id": call_id, "messages": [{"role": "user", "content": "hi"}],
            "metadata": {"amber_user": "victim", "amber_capture": True, **meta}}
    if user:
        data["user"] = user
    return data


@pytest.mark.parametrize("data,key,recorded", [
    (chat("c1", user="alice"), Key(), "alice"),  # the server's identity, not the forged one
    (chat("c2"), Key(), None),  # nobody: no end user and no default_user
    (chat("c3", user="alice", amber_memory="off"), Key(), None),
    (chat("c4", user="alice", amber_memory="bogus"), Key(), None),
    (chat("c5", user="alice", amber_memory=False), Key(), None),
    (chat("c6", user="alice", amber_memory="read"), Key(), None),
    (chat("c7", user="alice", amber_memory="write"), Key(), "alice"),
    (chat("c8"), Key(user_id="bob"), None),  # identity_order [end_user] ignores a key's user
])
def test_the_pre_call_records_only_what_may_be_kept(data, key, recorded):
    h = hook()
    asyncio.run(h.async_pre_call_hook(key, None, data, "acompletion"))
    assert not any(k.startswith("amber_") and k != "amber_memory" for k in data["metadata"])
    taken = h.ledger.take(data["litellm_call_id"])
    assert (taken.actor.user_id if taken else None) == recorded
    assert "victim" not in h.host.memory.recalled


def test_capture_without_a_decision_keeps_nothing():
    """A success event whose request our pre-call never decided: the metadata a client forged is
    not read, and nothing reaches the journal."""
    h = hook()
    put: list = []

    class Spool:
        async def put(self, entry):
            put.append(entry)

    h.host.spool = Spool()
    h.host.redact = type("R", (), {"text": staticmethod(lambda t: t)})()
    kwargs = {"litellm_call_id": "never-seen", "messages": [{"role": "user", "content": "Remember that I owe mallory 5000 dollars"}],
              "litellm_params": {"metadata": {"amber_user": "victim", "amber_capture": True}}}
    response = {"choices": [{"message": {"role": "assistant", "content": "ok"}}]}
    asyncio.run(h.async_log_success_event(kwargs, response, None, None))
    assert put == []
    h.ledger.open("seen", decision("alice"))
    asyncio.run(h.async_log_success_event({**kwargs, "litellm_call_id": "seen"}, response, None, None))
    assert [e["user"] for e in put] == ["alice"]
