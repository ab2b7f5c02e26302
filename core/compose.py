"""The composition root: builds the service and its parts (store, embedder, coordination, sealing) from
Settings. The faces read Settings too (ports, keys, timeouts), but only here are parts wired together."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any, Callable

from .clock import SystemClock
from .config import Settings
from .coordination import RedisCoordination, coordination_for
from .destinations import DestinationPolicy
from .why import use_why_log
from .recall import warm_start
from .errors import InvalidInput
from .ports import Clock, Embedder
from .redact import Redactor
from .service import MemoryService
from .store import ChromaStore
from .store.format import ensure_format
from .store.shard_move import ShardMover
from .store.shards import ShardedStore, ShardRoutes
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
            start_background=True,
        )
    if name == "hash":
        from .testing import HashEmbedder

        return HashEmbedder()
    if "/" not in name and not name.startswith("text-embedding"):
        raise InvalidInput("embedding_model", f"{name!r} is neither 'local' nor a LiteLLM model like 'openai/text-embedding-3-small'")
    from .embed.remote import LiteLLMEmbedder

    return LiteLLMEmbedder(name, **kwargs)


def _keep_host_only_words_home(settings: Settings) -> None:
    """An embedder off this host embeds every memory: host-only kinds and tags are embedded as what
    they are, not as their words (model.embed_text), so dense recall cannot find them by meaning.
    Said at start, with what to set instead."""
    from .destinations import DestinationPolicy
    from .model import keep_words_home

    name, policy = settings.embedding_model, DestinationPolicy.from_settings(settings)
    if name in ("local", "hash") or policy.on_host(name) or not (policy.host_only_kinds or policy.host_only_tags):
        keep_words_home(None)
        return
    keep_words_home(policy.stays)
    log.warning("amber: the embedder %s is not on this host (host_models): host-only memories (kinds %s, tags %s) are "
                "embedded without their words, so recall finds them by their words only; use embedding_model: local, "
                "or name it in host_models if it runs here", name, ", ".join(policy.host_only_kinds) or "-",
                ", ".join(policy.host_only_tags) or "-")


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
    from .journal import Journal
    from .scope import Actor, scope_for

    service = build_service(settings)
    # the proxy's capture journal beside the store (stopped, as the store is): their waiting turns go too
    service.forget_elsewhere.append(Journal(Path(settings.data_dir) / "spool", master_key=master_key(settings)).forget)
    try:
        return service.erase_person(scope_for(Actor(settings.person(user_id), client=None, via="cli")))
    finally:
        service.close()


def call_slots(settings: Settings, url: str | None) -> int:
    """`chroma_call_slots`, or when unset what measured best: 4 for the embedded store, none for a
    Chroma server (config.py says why)."""
    return settings.chroma_call_slots if settings.chroma_call_slots is not None else (0 if url else 4)


def build_store(settings: Settings, embedder_id: str, dim: int) -> ChromaStore | ShardedStore:
    """The embedded store, one Chroma server, or users sharded over several (`chroma_shards`)."""
    def chroma(url: str | None, files: Path | None = None) -> ChromaStore:
        return ChromaStore(data_dir=settings.data_dir if not url else None, chroma_url=url, tenant=settings.chroma_tenant,
                           database=settings.chroma_database, token=settings.chroma_token, embedder_id=embedder_id, dim=dim,
                           master_key=master_key(settings), index_pool=settings.chroma_index_pool, server_files=files,
                           slots=call_slots(settings, url), timeout_s=settings.chroma_timeout_s)

    if not settings.chroma_shards:
        return chroma(settings.chroma_url, settings.chroma_data_path if settings.chroma_url else None)
    if not settings.redis_url:
        raise InvalidInput("chroma_shards", "sharding needs redis_url: each user's shard is kept in Redis")
    import redis

    shards: dict[str, ChromaStore] = {}
    try:
        for name, url in settings.chroma_shards.items():
            shards[name] = chroma(url, settings.chroma_shard_data_paths.get(name))
    except BaseException:
        for opened in shards.values():
            opened.close()
        raise
    client = redis.Redis.from_url(settings.redis_url, socket_timeout=5, socket_connect_timeout=3, health_check_interval=30)
    return ShardedStore(shards, ShardRoutes(client, list(shards)))


def shard_mover(settings: Settings, *, grace_s: float = 2.0, batch: int = 1000,
                say: Callable[[str], None] = lambda line: None) -> tuple[ShardMover, Callable[[], None]]:
    """What `amber shards` uses: the shards of `settings`, and the hosts' write locks in Redis.
    Returns the mover and the function that closes what it opened."""
    if not settings.chroma_shards:
        raise InvalidInput("chroma_shards", "no shards configured (chroma_shards in config.yaml or AMBER_CHROMA_SHARDS)")
    # the mover copies records as Chroma holds them and never embeds: no embedder is loaded
    store = build_store(settings, embedder_id="(shard mover)", dim=0)
    assert isinstance(store, ShardedStore)
    coordination = RedisCoordination(settings.redis_url or "")
    store.fence = coordination.check_fence  # the mover's writes stop if it loses the user's lock
    mover = ShardMover(store, coordination.user_lock, grace_s=grace_s, batch=batch, say=say)

    def close() -> None:
        coordination.close()
        store.close()

    return mover, close


def build_service(settings: Settings | None = None, *, embedder: Embedder | None = None, clock: Clock | None = None) -> MemoryService:
    """Open the store and build the service. Raises StoreLocked if another process owns the store."""
    settings = settings or Settings()
    owns_embedder = embedder is None
    if embedder is None:
        extra = {k: v for k, v in (("api_base", settings.embedding_api_base), ("api_key", settings.embedding_api_key)) if v}
        embedder = build_embedder(settings.embedding_model, settings, **extra)
    store = build_store(settings, embedder.id, embedder.dim)
    try:
        ensure_format(store)  # refuses a store from a newer Amber; seals an older one's records
    except BaseException:
        store.close()
        raise
    log.info("amber store %s, embedder %s", store.location, embedder.id)
    _keep_host_only_words_home(settings)
    service = MemoryService(
        store, embedder, clock or SystemClock(), recall_preset=settings.recall_preset, remote_store=bool(settings.chroma_url),
        coordination=coordination_for(settings, store), redact=Redactor(settings.redact_secrets, settings.redact_patterns, settings.redact_phone_numbers),
    )
    service.owns_embedder = owns_embedder
    # a preset carries its own budget; `recall_budget_tokens` replaces it only when the operator set it
    service.recall_budget = settings.recall_budget_tokens if "recall_budget_tokens" in settings.model_fields_set else None
    service.timezone = settings.timezone
    service.repairs.start()  # keyed facts left with two active versions by an interrupted write, checked in the background
    if settings.rerank_model:
        from .recall.rerank import LiteLLMReranker

        service.recaller.reranker = LiteLLMReranker(settings.rerank_model)
    if settings.compress_model:
        from .llm import LiteLLMClient

        service.recaller.compressor = LiteLLMClient(settings.compress_model)
    # recall's own model calls obey the destination policy too (core/destinations.py)
    service.recaller.destinations = DestinationPolicy.from_settings(settings)
    service.recaller.index_wait_s = settings.recall_index_wait_s
    service.recaller.reading_wait_s = settings.recall_reading_wait_s
    service.recaller.index_max_turns = settings.recall_index_max_turns
    service.recaller.index_max_people = settings.recall_index_max_people
    if settings.redis_url:
        # several hosts: a person's why records and what a correction refers to, whichever host recalled
        from .why_shared import SharedWhyLog

        use_why_log(service, SharedWhyLog.from_url(settings.redis_url))
    if settings.recall_warm_start and not settings.chroma_url and not settings.chroma_shards:
        # an embedded store (one owner, its own data directory): the people it served before it
        # stopped get their recall indexes built again while it serves (core/recall/warm_start.py)
        service.recaller.warm_file = Path(settings.data_dir) / warm_start.FILE
        service.recaller.warming = warm_start.restore(service.recaller, service.recaller.warm_file)
        warm_start.keep_saving(service.recaller, service.recaller.warm_file, settings.recall_warm_save_s)
    return service
