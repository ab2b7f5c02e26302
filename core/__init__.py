"""Amber's core: one long-term memory store and the operations every face shares.

Faces import from here only; see README, Architecture.
"""

from .asyncio_api import AsyncMemory
from .boot import boot_for_model, boot_text_without, build_boot, render_boot
from .cache_plan import Planned, count_marks
from .chat_import import ImportReport, import_chats
from .cache_plan import Target as CacheTarget
from .cache_plan import plan as plan_cache
from .client import RemoteMemory
from .sync_memory import SyncMemory
from .capture_queue import CaptureConsumer, CaptureQueue, entry_messages, store_entries
from .store.reads_first import background_writes
from .clock import SystemClock
from .embed.model_cache import cache_root as model_cache_root
from .embed.model_cache import earlier_models
from .compose import build_embedder, build_service, erase_person, master_key, rotate_master_key, shard_mover
from .config import ApiKeyConfig, Settings, config_file, config_path
from .errors import (
    AmberError,
    Busy,
    Conflict,
    EmbedderMismatch,
    EmbedderUnavailable,
    Forbidden,
    Immutable,
    InvalidInput,
    LLMError,
    NotFound,
    PermanentError,
    StoreLocked,
    StoreTooNew,
    StoreUnavailable,
    Timeout,
    TransientError,
    Unauthenticated,
)
from .import_check import JSON_MAX_DEPTH, json_too_deep, parse_jsonl
from .commands import Command, parse_command
from .forgetting import forget_request
from .journal import Journal
from .outage import disk_space
from .user_overview import active_memories, kind_counts, vector_health
from .jobs.runner import RunRecord, arun_job, list_runs, register_jobs, run_job
from .client_cache import ClientCache
from .llm import LiteLLMClient, deployment_models
from .model import (
    DEFINITION_MAX_CHARS,
    ECHO_MAX,
    MEMORY_MAX_CHARS,
    MESSAGE_MAX_CHARS,
    QUERY_MAX_CHARS,
    Category,
    Event,
    Kind,
    Memory,
    MemoryIn,
    MemoryPatch,
    Message,
    Page,
    Role,
    Status,
    WriteResult,
    clip,
)
from .ports import LLM, MemoryPort
from .recall.config import PRESETS, RecallConfig
from .recall.fusion import Candidate
from .recall.pipeline import RecallResult
from .recall.relevance import fingerprint, fingerprints
from .redact import Redactor
from .results import (
    BootPack,
    CacheEntry,
    CandidateAction,
    CommandDone,
    ForgetResult,
    ImportCounts,
    IngestResult,
    PurgeResult,
    ReindexReport,
    TurnsDeleted,
    VectorsHealth,
    WhyRequest,
    WhyShown,
)
from .recall.render import defuse, estimate_tokens, fenced, handle_of, render_forget_note, strip_patch
from .recall.render import render as render_recall
from .correcting import Corrected, correct_in_turn, render_correction_note
from .destinations import DestinationPolicy
from .scope import Actor, Scope, scope_for, user_hash
from .service import MemoryService
from .store.index_pool import MMAP_FIXED
from .store.sealing import TCACHE_OFF, thread_caches_off
from .turns import words_turn_id
from .identity import ADMIN, READ, WRITE, Identity
from .local_memory import LocalMemory

__all__ = [
    "ADMIN",
    "Actor",
    "AmberError",
    "ApiKeyConfig",
    "AsyncMemory",
    "BootPack",
    "Busy",
    "CacheEntry",
    "CacheTarget",
    "Candidate",
    "CandidateAction",
    "CaptureConsumer",
    "CaptureQueue",
    "Category",
    "ClientCache",
    "Command",
    "CommandDone",
    "Conflict",
    "Corrected",
    "DEFINITION_MAX_CHARS",
    "DestinationPolicy",
    "ECHO_MAX",
    "EmbedderMismatch",
    "EmbedderUnavailable",
    "Event",
    "Forbidden",
    "ForgetResult",
    "Identity",
    "Immutable",
    "ImportCounts",
    "ImportReport",
    "IngestResult",
    "InvalidInput",
    "JSON_MAX_DEPTH",
    "Journal",
    "Kind",
    "LLM",
    "LLMError",
    "LiteLLMClient",
    "LocalMemory",
    "MEMORY_MAX_CHARS",
    "MESSAGE_MAX_CHARS",
    "MMAP_FIXED",
    "Memory",
    "MemoryIn",
    "MemoryPatch",
    "MemoryPort",
    "MemoryService",
    "Message",
    "NotFound",
    "PRESETS",
    "Page",
    "PermanentError",
    "Planned",
    "PurgeResult",
    "QUERY_MAX_CHARS",
    "READ",
    "RecallConfig",
    "RecallResult",
    "Redactor",
    "ReindexReport",
    "RemoteMemory",
    "Role",
    "RunRecord",
    "Scope",
    "Settings",
    "Status",
    "StoreLocked",
    "StoreTooNew",
    "StoreUnavailable",
    "SyncMemory",
    "SystemClock",
    "TCACHE_OFF",
    "Timeout",
    "TransientError",
    "TurnsDeleted",
    "Unauthenticated",
    "VectorsHealth",
    "WRITE",
    "WhyRequest",
    "WhyShown",
    "WriteResult",
    "active_memories",
    "arun_job",
    "background_writes",
    "boot_for_model",
    "boot_text_without",
    "build_boot",
    "build_embedder",
    "build_service",
    "clip",
    "config_file",
    "config_path",
    "correct_in_turn",
    "count_marks",
    "defuse",
    "deployment_models",
    "disk_space",
    "earlier_models",
    "entry_messages",
    "erase_person",
    "estimate_tokens",
    "fenced",
    "fingerprint",
    "fingerprints",
    "forget_request",
    "handle_of",
    "import_chats",
    "json_too_deep",
    "kind_counts",
    "list_runs",
    "master_key",
    "model_cache_root",
    "parse_command",
    "parse_jsonl",
    "plan_cache",
    "register_jobs",
    "render_boot",
    "render_correction_note",
    "render_forget_note",
    "render_recall",
    "rotate_master_key",
    "run_job",
    "scope_for",
    "shard_mover",
    "store_entries",
    "strip_patch",
    "thread_caches_off",
    "user_hash",
    "vector_health",
    "words_turn_id",
]
