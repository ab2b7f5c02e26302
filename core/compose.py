"""The composition root: builds the service and its parts (store, embedder, coordination, sealing) from
Settings. The faces read Settings too (ports, keys, timeouts), but only here are parts wired together."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from .clock import SystemClock
from .config import Settings
from .coordination import coordination_for
from .destinations import DestinationPolicy
from .errors import InvalidInput
from .ports import Clock, Embedder
from .redact import Redactor
from .repair import repair_all
from .service import MemoryService
from .store import ChromaStore
from .store.format import ensure_format
from .store.lock import DirectoryLock
from .store.sealing import MasterKeyError, RecordKeys, load_master_key

log = logging.getLogger("amber")


def build_embedder(name: str, settings: Settings | None = None, **kwargs: Any) -> Embedder:
    if name == "local":
        from .embed.local import LocalE5Embedder

        s = settings or Settings()
        return LocalE5Embedder(
            query_workers=s.embed_query_workers,
            query_timeout_s=s.embed_query_timeout_s,
            document_timeout_s=s.embed_document_timeout_s,
        )
    if name == "hash":
        from .testing import HashEmbedder

        return HashEmbedder()
    if "/" not in name and not name.startswith("text-embedding"):
        raise InvalidInput("embedding_model", f"{name!r} is neither 'local' nor a LiteLLM model like 'openai/text-embedding-3-small'")
    from .embed.remote import LiteLLMEmbedder

    return LiteLLMEmbedder(name, **kwargs)


def master_key(settings: Settings) -> bytes | None:
    """The operator's master key (encryption at rest), or None; a malformed one is refused by name."""
    try:
        return load_master_key(settings.master_key, settings.master_key_file)
    except MasterKeyError as e:
        raise InvalidInput("master_key", str(e)) from None


def rotate_master_key(settings: Settings, new_key: str | None) -> int:
    """Wrap every record key of the embedded store under a new master key (None: store them
    unwrapped, encryption at rest off). The store must not be open elsewhere (its lock is taken).
    Returns how many keys were rewrapped; afterwards only the new key opens the store."""
    if settings.chroma_url:
        raise InvalidInput("chroma_url", "records in a Chroma server are not sealed: there is no key table to rotate")
    try:
        new = load_master_key(new_key) if new_key else None
    except MasterKeyError as e:
        raise InvalidInput("new master key", str(e)) from None
    lock = DirectoryLock(Path(settings.data_dir))
    lock.acquire()
    try:
        keys = RecordKeys(Path(settings.data_dir) / "record_keys.sqlite3", master_key(settings))
    except MasterKeyError as e:
        lock.release()
        raise InvalidInput("master_key", str(e)) from None
    try:
        return keys.rotate(new)
    finally:
        keys.close()
        lock.release()


def erase_person(settings: Settings, user_id: str) -> dict[str, int]:
    """Erase one person from the store this configuration names (the store must not be held by a
    running host: its lock is taken). Returns what went."""
    from .scope import Actor, scope_for

    service = build_service(settings)
    try:
        return service.erase_person(scope_for(Actor(settings.person(user_id), client=None, via="cli")))
    finally:
        service.close()


def build_service(settings: Settings | None = None, *, embedder: Embedder | None = None, clock: Clock | None = None) -> MemoryService:
    """Open the store and build the service. Raises StoreLocked if another process owns the store."""
    settings = settings or Settings()
    owns_embedder = embedder is None
    if embedder is None:
        extra = {k: v for k, v in (("api_base", settings.embedding_api_base), ("api_key", settings.embedding_api_key)) if v}
        embedder = build_embedder(settings.embedding_model, settings, **extra)
    store = ChromaStore(
        data_dir=settings.data_dir if not settings.chroma_url else None,
        chroma_url=settings.chroma_url,
        tenant=settings.chroma_tenant,
        database=settings.chroma_database,
        token=settings.chroma_token,
        embedder_id=embedder.id,
        dim=embedder.dim,
        master_key=master_key(settings),
    )
    try:
        ensure_format(store)  # refuses a store from a newer Amber; seals an older one's records
    except BaseException:
        store.close()
        raise
    log.info("amber store %s, embedder %s", store.location, embedder.id)
    service = MemoryService(
        store, embedder, clock or SystemClock(), recall_preset=settings.recall_preset, remote_store=bool(settings.chroma_url),
        coordination=coordination_for(settings, store), redact=Redactor(settings.redact_secrets, settings.redact_patterns, settings.redact_phone_numbers),
    )
    service.owns_embedder = owns_embedder
    # a preset carries its own budget; `recall_budget_tokens` replaces it only when the operator set it
    service.recall_budget = settings.recall_budget_tokens if "recall_budget_tokens" in settings.model_fields_set else None
    service.timezone = settings.timezone
    repair_all(service)  # keyed facts left with two active versions by an interrupted write (core/repair.py)
    if settings.rerank_model:
        from .recall.rerank import LiteLLMReranker

        service.recaller.reranker = LiteLLMReranker(settings.rerank_model)
    if settings.compress_model:
        from .llm import LiteLLMClient

        service.recaller.compressor = LiteLLMClient(settings.compress_model)
    # recall's own model calls obey the destination policy too (core/destinations.py)
    service.recaller.destinations = DestinationPolicy.from_settings(settings)
    return service
