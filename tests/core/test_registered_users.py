"""Who is registered: a person's registry row is written on their first write. An embedded store,
which this process alone writes, remembers who is registered instead of reading the registry on
every write; erasing the person forgets it, so their next write registers them again. A store
shared by several hosts keeps asking (another host may have erased the person). Real Chroma."""

from __future__ import annotations

from core import Actor, MemoryIn, Settings, build_service, scope_for
from core.scope import memory_collection
from core.testing import HashEmbedder
from tests.kit.topology import chroma_server


def _user_reads(service, together: list[list[str]] | None = None) -> list[str]:
    """Every registry read of a `user:` row from now on, by key; `together`: the keys of each read
    that asked for a user row with other keys, and of each revision read alone. Every registry read
    goes through `reg_get_many` (`reg_get` included)."""
    reads: list[str] = []
    store, many = service.store, service.store.reg_get_many

    def counted_many(keys):
        keys = list(keys)
        reads.extend(k for k in keys if k.startswith("user:"))
        if together is not None and (any(k.startswith("user:") for k in keys) or (len(keys) == 1 and keys[0].startswith("rev:"))):
            together.append(keys)
        return many(keys)

    store.reg_get_many = counted_many
    return reads


def test_an_embedded_store_reads_a_persons_registry_row_once_and_again_after_erasing_them(tmp_path):
    service = build_service(Settings(data_dir=tmp_path / "data", embedding_model="hash"), embedder=HashEmbedder())
    try:
        ana = scope_for(Actor("ana"))
        reads = _user_reads(service)
        for i in range(3):
            service.remember(ana, MemoryIn(content=f"ana note {i}"))
        assert reads == ["user:ana"] and service.users() == ["ana"]
        service.erase_person(ana)
        assert service.users() == []
        service.remember(ana, MemoryIn(content="ana is back"))
        service.remember(ana, MemoryIn(content="ana again"))
        assert reads == ["user:ana", "user:ana"] and service.users() == ["ana"]  # registered again, read once more
    finally:
        service.close()


def test_a_store_shared_by_several_hosts_reads_the_row_on_every_write(tmp_path):
    with chroma_server(tmp_path / "chroma") as url:
        service = build_service(Settings(data_dir=tmp_path / "host", chroma_url=url, embedding_model="hash"), embedder=HashEmbedder())
        try:
            ana = scope_for(Actor("ana"))
            together: list[list[str]] = []
            reads = _user_reads(service, together)
            for i in range(3):
                service.remember(ana, MemoryIn(content=f"ana note {i}"))
            assert reads == ["user:ana"] * 3 and service.users() == ["ana"]
            # each read also brings the revision the write then stamps, instead of a read of its own, and
            # whether the new memory's id was a forgotten record's (its tombstone's key: `tomb:`)
            rev = f"rev:{memory_collection(ana)}"
            assert [keys[:2] for keys in together] == [["user:ana", rev]] * 3
            assert all(len(keys) == 3 and keys[2].startswith("tomb:ana:") for keys in together)
            assert service.writes._revisions.get(memory_collection(ana)) == 3
        finally:
            service.close()
