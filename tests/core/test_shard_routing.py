"""ShardedStore keeps up with ChromaStore and with core/scope.py's collection names (no servers)."""

from __future__ import annotations

import inspect

from core.scope import Actor, event_collection, memory_collection, message_collection, scope_for, user_key
from core.store import ChromaStore
from core.store.shards import USER_KINDS, ShardedStore, ShardRoutes, user_collections, user_key_of


def test_the_sharded_store_routes_every_public_method_of_the_chroma_store():
    """A method added to ChromaStore and not to ShardedStore would fail only with shards configured."""
    public = {n for n, _ in inspect.getmembers(ChromaStore, inspect.isfunction) if not n.startswith("_")}
    missing = sorted(n for n in public if not callable(getattr(ShardedStore, n, None)))
    assert missing == []


def test_user_collections_are_named_as_the_router_expects():
    scope = scope_for(Actor("ann@example.org", client=None, via="test"))
    key = user_key("ann@example.org")
    names = [memory_collection(scope), message_collection(scope), event_collection(scope)]
    assert [user_key_of(n) for n in names] == [key] * 3
    assert sorted(user_collections(key)) == sorted(names) and len(USER_KINDS) == 3
    assert user_key_of(f"rev:{names[0]}") == key  # a revision goes with its collection
    assert user_key_of("amber_registry") is None and user_key_of("rev:amber_registry") is None


def test_a_new_user_is_placed_by_a_hash_that_adding_a_shard_changes_only_for_the_new_shards_users():
    keys = [user_key(f"user{i}") for i in range(400)]
    two = ShardRoutes(None, ["s1", "s2"])
    three = ShardRoutes(None, ["s1", "s2", "s3"])
    spread = [two.hashed(k) for k in keys]
    assert 120 < spread.count("s1") < 280
    assert all(three.hashed(k) in (was, "s3") for k, was in zip(keys, spread))
    assert ShardRoutes(None, ["s2", "s1"]).hashed(keys[0]) == spread[0]  # the listing order does not matter
