"""Settings, from four sources in this order of precedence:

    init arguments  >  environment `AMBER_*`  >  `amber:` section of config.yaml  >  defaults

config.yaml is the LiteLLM proxy's own config file; Amber reads only its `amber:` section.
Its path is the one a face names (`with config_file(path)`: the proxy's own config, `amber
--config`), else `AMBER_CONFIG`, else `./config.yaml`; missing is fine. Secrets such as API keys
are written in the YAML as `os.environ/NAME` and resolved from the environment at load time.

The section is read by a small source of Amber's own rather than pydantic-settings' YAML source,
whose `yaml_config_section` refuses a file without that section (a proxy config without `amber:`
is normal) and a missing file.
"""

from __future__ import annotations

import os
import re
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import Any, Iterator, Literal

import yaml
from pydantic import BaseModel, Field, field_validator, model_validator
from pydantic.fields import FieldInfo
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict


class ApiKeyConfig(BaseModel):
    """An API key for the memory server: its secret (usually `os.environ/NAME`), whom it acts for, what it may do."""

    name: str
    secret: str
    user: str | None = None  # None: all users (admin keys) or trusted clients naming the user per request
    scopes: list[Literal["memory:read", "memory:write", "memory:admin"]] = ["memory:read", "memory:write"]
    trusted_client: bool = False  # may act for the user named in the X-Amber-User header


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="AMBER_", env_nested_delimiter="__", extra="ignore")

    # store
    data_dir: Path = Path("./data")
    # encryption at rest: a master key (32 bytes, hex or base64) that wraps every record's key; from
    # the environment (`os.environ/NAME` in config.yaml) or a file outside data_dir. Unset: off.
    master_key: str | None = None
    master_key_file: Path | None = None
    chroma_url: str | None = None  # client/server Chroma, e.g. http://127.0.0.1:8000
    # with chroma_url: where in that server Amber keeps its collections, and a token for a server
    # that asks for one (sent as `x-chroma-token`; `os.environ/NAME` in config.yaml)
    chroma_tenant: str = "default_tenant"
    chroma_database: str = "default_database"
    chroma_token: str | None = None
    # how long a call to a Chroma server may wait for its answer before memory counts as away
    # (a bulk write of thousands of records takes seconds; a stopped server took every request with it)
    chroma_timeout_s: float = Field(60.0, gt=0)
    # users spread over several Chroma servers (core/store/shards.py): name -> URL, each a plain
    # `chroma run`; the first is the home shard (Amber's registry) and chroma_url defaults to it.
    # Each user's shard is kept in Redis (redis_url is required); `amber shards move` moves one.
    # The same tenant, database and token are used on every shard.
    chroma_shards: dict[str, str] = Field(default_factory=dict)
    # the Chroma server's persist directory as this host can reach it (its volume mounted here too):
    # with it, people's vector indexes are kept on disk after every write, and one a Chroma crash
    # cut short is mended (core/store/index_repair.py); without it they keep Chroma's defaults.
    # With shards, one per shard name (`chroma_shard_data_paths`).
    chroma_data_path: Path | None = None
    chroma_shard_data_paths: dict[str, Path] = Field(default_factory=dict)
    # remote mode: use Amber hosts instead of opening a store; several, comma-separated, are spread
    # over by user and failed over when one is down (core/client.py)
    server_url: str | None = None
    server_key: str | None = None  # remote mode: a trusted-client key for that host (`os.environ/NAME`)

    # several hosts on one Chroma server: per-user write locks, job leases and the shared capture
    # queue live in this Redis (core/coordination.py); unset, one host coordinates in process
    redis_url: str | None = None  # e.g. redis://127.0.0.1:6379/0 (`os.environ/NAME` for a password)

    # embedder: "local" (offline multilingual-e5-small), "hash" (tests only) or any LiteLLM embedding model
    embedding_model: str = "local"
    embedding_api_base: str | None = None  # e.g. http://127.0.0.1:11434 for Ollama
    embedding_api_key: str | None = None  # write `os.environ/NAME` in config.yaml
    # the local embedder runs in a worker process: queries in their own lane, writes in a lower-priority one
    embed_query_workers: int = Field(1, ge=1, le=8)
    embed_query_timeout_s: float = Field(5.0, gt=0)
    embed_document_timeout_s: float = Field(30.0, gt=0)  # per batch, plus 0.5 s per text

    # LLM used by jobs and optional recall stages (a LiteLLM model name or a proxy model group)
    llm_model: str = "gpt-4o-mini"
    llm_timeout_s: float = Field(60.0, gt=0)

    # vision relay (off unless set): images sent to a model without vision are described by this
    # model (a proxy model group or LiteLLM model) and go on as text; past the timeout, as sent
    vision_model: str | None = None
    vision_timeout_s: float = Field(20.0, gt=0)

    # identity
    default_user: str | None = None  # for requests that carry no identity; None: skip memory
    identity_order: list[str] = ["end_user", "user", "team", "key_alias"]
    # one person, one memory: each person's id and the other names their clients know them by (an
    # Open WebUI email or id, a proxy end-user id, a key's user); every face maps an alias to its id
    users: dict[str, list[str]] = Field(default_factory=dict)

    # recall
    recall_preset: Literal["fast", "balanced", "thorough"] = "balanced"
    # a chat's recall waits at most this; the proxy's whole pre-call (a correction, recall, the boot
    # pack) at most twice this, then the chat goes on without memory, with a log line saying why
    recall_timeout_s: float = Field(1.5, gt=0)
    # how long a recall waits for a person's turn index to be built before answering without the
    # turns (the build goes on; core/recall/pipeline.py). Recall-quality benchmarks wait it out.
    recall_index_wait_s: float = Field(2.0, ge=0)
    # how long a recall waits for the sentence model: its loading, and its reading of a cold memory
    # index (the fourth memory arm) or turn index (the turn ranker's ninth feature), counted from when
    # each began. None by default: meanwhile recall answers without them, as good as before them (a
    # wait of up to recall_index_wait_s cost people with a few hundred memories their whole memory at
    # the proxy's 1.5 s deadline: bench/README.md). Recall-quality benchmarks wait it out.
    recall_reading_wait_s: float = Field(0.0, ge=0)
    # turns a host keeps indexed for recall, everybody's together (~3 KB each: 196 000 turns held
    # ~600 MB; ~1 KB more with the sentence model's vectors for the turn ranker); past it, the
    # indexes used least recently are dropped and rebuilt when next needed
    recall_index_max_turns: int = Field(500_000, ge=1)
    # people whose indexes a host keeps (~27 KB for a person with 5 memories and 10 turns; their
    # turns count against the limit above too); past it, those used least recently are dropped
    recall_index_max_people: int = Field(10_000, ge=1)
    # an embedded store: on stopping, note whose recall indexes the host held (hashed ids, in the
    # data directory); on starting, build them again while serving, so those people's first turns
    # are not cold (core/recall/warm_start.py)
    recall_warm_start: bool = True
    recall_warm_save_s: float = Field(60.0, gt=0)  # how often that note is brought up to date
    # embedded Chroma: the vector indexes it keeps in memory (~2.6 MB each, two per person active);
    # past it, those used least recently are read back or rebuilt from Chroma's log when next
    # needed; never more than a tenth of the process's open-file limit (core/store/index_pool.py)
    chroma_index_pool: int = Field(1_000, ge=1)
    # Chroma calls this host makes at once (per Chroma server); the rest wait their turn here, a
    # person's write ahead of reads, background work last (core/store/gate.py); 0: no limit. Unset:
    # 4 for the embedded store (remember under a full mix ~0.75x, recall unchanged) and 0 for a
    # Chroma server, where 4 halves remember and capture latency but costs recall as much
    # (bench/README.md, "Writes ahead of reads")
    chroma_call_slots: int | None = Field(None, ge=0)
    ready_timeout_s: float = Field(3.0, gt=0)  # /health?ready=true: how long the test embedding may take
    recall_budget_tokens: int = Field(600, ge=1)
    # optional recall stages (used when the preset turns them on, e.g. "thorough"); off when unset
    rerank_model: str | None = None  # a LiteLLM rerank model, e.g. cohere/rerank-v3.5
    compress_model: str | None = None  # a cheap LiteLLM chat model that shortens recalled items
    # destination policy (core/destinations.py): model groups or deployments, shell-style patterns
    memory_models_allow: list[str] = Field(default_factory=list)  # only these receive memory ([]: every model)
    memory_models_deny: list[str] = Field(default_factory=list)  # never these (deny wins)
    host_models: list[str] = Field(default_factory=list)  # models on this host: they may receive host-only items
    host_only_kinds: list[str] = Field(default_factory=lambda: ["precious"])  # never sent to other models
    host_only_tags: list[str] = Field(default_factory=lambda: ["private", "health"])  # never sent to other models

    # prompt cache
    cache_ttl: Literal["5m", "1h"] = "5m"
    boot_pack_in_system: bool = False

    # capture: turns are written to the local journal first, then embedded and stored in the
    # background, in batches; an outage (unreachable, 5xx, timeouts) is waited out however long it
    # lasts; a turn memory refuses by name is set aside at once, one failing for another reason (a
    # key refused, an unknown error) after capture_retry_hours (litellm_hooks/spool.py)
    capture_batch_max: int = Field(64, ge=1, le=1000)  # turns per background batch
    capture_max_attempts: int = Field(5, ge=1)  # no longer used: turns are retried by time (capture_retry_hours); kept so old configs load
    capture_retry_hours: float = Field(72.0, gt=0)
    spool_max_mb: float = Field(256.0, gt=0)  # the journal's disk budget; past it new turns are not kept (logged)
    # with redis_url: a captured turn a host took but did not store within this time (the host
    # died) is taken over by another host
    capture_claim_idle_s: float = Field(30.0, gt=0)

    # secrets: found and replaced by `[redacted: <kind>]` before anything is stored (core/redact.py);
    # redact_patterns adds the operator's own regexes (named group `secret`, else group 1, else all)
    redact_secrets: bool = True
    redact_patterns: list[str] = []
    redact_phone_numbers: bool = False  # phone numbers are personal, not secret: redacted only when asked

    # memory server
    host: str = "127.0.0.1"
    port: int = 4100
    allowed_hosts: list[str] = ["127.0.0.1:*", "localhost:*", "[::1]:*"]
    api_keys: list[ApiKeyConfig] = Field(default_factory=list)

    # jobs
    timezone: str = "UTC"
    extract_cron: str = "0 */4 * * *"
    consolidate_cron: str = "30 3 * * *"
    retention_cron: str = "15 4 * * *"
    jobs_enabled: bool = True
    jobs_window_size: int = Field(40, ge=1, le=200)  # messages per extraction window
    jobs_max_retries: int = Field(3, ge=1)  # a window fails after this many model errors
    jobs_stuck_minutes: float = Field(30, gt=0)  # a window left "processing" this long is recovered
    jobs_seen_cosine: float = Field(0.9, gt=0, le=1)  # same key and at least this similar: "seen", not a new value
    jobs_candidate_below: float = Field(0.76, ge=0, le=1)  # confidence under this goes to the review queue
    jobs_importance_floor: float = Field(0.3, ge=0, le=1)  # facts less important than this are dropped
    jobs_consolidate_max_llm_calls: int = Field(2, ge=0)  # per user per night
    jobs_lease_minutes: float = Field(15, gt=0)
    jobs_messages_days: int = Field(14, ge=1)  # retention of raw messages
    jobs_imported_days: int | None = Field(None, ge=1)  # retention of turns imported from chat exports (None: kept)
    import_max_turns: int = Field(1_000_000, ge=1)  # a chat import stops before one person's message log passes this
    jobs_events_days: int = Field(30, ge=1)  # retention of audit events and run records
    jobs_unused_days: int = Field(180, ge=1)  # unpinned memories unused this long expire
    jobs_purge_after_days: int = Field(30, ge=0)  # deleted, superseded and expired records are purged after this

    @field_validator("timezone")
    @classmethod
    def _a_known_time_zone(cls, tz: str) -> str:
        from zoneinfo import ZoneInfo

        try:
            ZoneInfo(tz)
        except Exception:
            raise ValueError(f"timezone: {tz!r} is not a time zone this machine knows (e.g. 'UTC', 'Asia/Shanghai')") from None
        return tz

    @field_validator("extract_cron", "consolidate_cron", "retention_cron")
    @classmethod
    def _a_crontab(cls, cron: str) -> str:
        from apscheduler.triggers.cron import CronTrigger

        try:
            # checked in UTC: the jobs run in `timezone`, so the process's TZ (which tzlocal cannot read
            # when it is a POSIX rule such as "CST-8") has no say in whether the line is good
            CronTrigger.from_crontab(cron, timezone="UTC")
        except Exception as e:
            raise ValueError(f"{cron!r} is not a five-field crontab line (minute hour day month weekday): {e}") from None
        return cron

    @field_validator("users")
    @classmethod
    def _aliases_are_unambiguous(cls, users: dict[str, list[str]]) -> dict[str, list[str]]:
        owner: dict[str, str] = {}
        for person, aliases in users.items():
            for alias in aliases:
                if alias in users and alias != person:
                    raise ValueError(f"users: {alias!r} is a person of its own and cannot be an alias of {person!r}")
                if owner.get(alias, person) != person:
                    raise ValueError(f"users: {alias!r} is an alias of both {owner[alias]!r} and {person!r}")
                owner[alias] = person
        return users

    @model_validator(mode="after")
    def _aliases_take_over_no_key(self) -> "Settings":
        """An alias names the same person as its owner, so a key bound to an alias would read,
        export and delete the owner's memory, and the alias's own memory would be orphaned. Refused,
        naming the alias, the person and the key; bind the key to the person instead."""
        for person, aliases in self.users.items():
            for alias in aliases:
                if not alias.strip():
                    raise ValueError(f"users: {person!r} has an empty alias")
                for key in self.api_keys:
                    if key.user is not None and key.user == alias and alias != person:
                        raise ValueError(
                            f"users: {alias!r} is an alias of {person!r} and also the user of API key {key.name!r}: "
                            f"that key would act for {person!r}. Bind the key to `user: {person}` if it is theirs, "
                            f"or remove {alias!r} from {person!r}'s aliases"
                        )
        return self

    @model_validator(mode="after")
    def _home_shard_is_the_chroma_url(self) -> "Settings":
        """With shards, `chroma_url` names the home shard, so every check for a Chroma server holds."""
        if self.chroma_shards:
            home = next(iter(self.chroma_shards.values()))
            if self.chroma_url and self.chroma_url.rstrip("/") != home.rstrip("/"):
                raise ValueError(f"chroma_url ({self.chroma_url}) must be the first of chroma_shards ({home}) or unset")
            self.chroma_url = home
        return self

    @model_validator(mode="after")
    def _master_key_outside_the_data(self) -> "Settings":
        """A key kept next to what it protects protects nothing against a copy of the directory."""
        if self.master_key_file is not None:
            key, data = Path(self.master_key_file).resolve(), Path(self.data_dir).resolve()
            if key == data or data in key.parents:
                raise ValueError(f"master_key_file {self.master_key_file} is inside data_dir {self.data_dir}: keep it elsewhere (and back it up)")
        return self

    def encryption(self) -> str:
        """Where the master key comes from, or "off"."""
        if self.master_key:
            return "on (master key from the master_key setting / AMBER_MASTER_KEY)"
        if self.master_key_file:
            return f"on (master key from {self.master_key_file})"
        return "off"

    def person(self, name: str) -> str:
        """The person a client's name for a user stands for (the name itself when it is nobody's alias)."""
        for person, aliases in self.users.items():
            if name in aliases:
                return person
        return name

    @field_validator("redact_patterns")
    @classmethod
    def _patterns_compile(cls, patterns: list[str]) -> list[str]:
        for p in patterns:
            try:
                re.compile(p)
            except re.error as e:
                raise ValueError(f"redact_patterns: {p!r} is not a valid regular expression ({e})") from None
        return patterns

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        return (init_settings, env_settings, YamlSection(settings_cls))


def resolve_env_refs(value: Any) -> Any:
    """Replace `os.environ/NAME` strings (LiteLLM's convention) with the variable's value."""
    if isinstance(value, str) and value.startswith("os.environ/"):
        return os.environ.get(value.removeprefix("os.environ/"), "")
    if isinstance(value, list):
        return [resolve_env_refs(v) for v in value]
    if isinstance(value, dict):
        return {k: resolve_env_refs(v) for k, v in value.items()}
    return value


_config_file: ContextVar[Path | None] = ContextVar("amber_config_file", default=None)


@contextmanager
def config_file(path: str | Path | None) -> Iterator[None]:
    """Settings built inside read `path` (None: the default below), without touching the environment."""
    token = _config_file.set(Path(path)) if path else None
    try:
        yield
    finally:
        if token is not None:
            _config_file.reset(token)


def config_path() -> Path:
    """The config.yaml Settings read: the one named by `config_file`, else `AMBER_CONFIG`, else ./config.yaml."""
    return _config_file.get() or Path(os.environ.get("AMBER_CONFIG", "config.yaml"))


class YamlSection(PydanticBaseSettingsSource):
    """The `amber:` section of the proxy's config.yaml."""

    def __init__(self, settings_cls: type[BaseSettings]):
        super().__init__(settings_cls)
        path = config_path()
        data: dict[str, Any] = {}
        if path.is_file():
            loaded = yaml.safe_load(path.read_text()) or {}
            data = loaded.get("amber") or {}
        self._data = resolve_env_refs(data)

    def get_field_value(self, field: FieldInfo, field_name: str) -> tuple[Any, str, bool]:
        return self._data.get(field_name), field_name, False

    def __call__(self) -> dict[str, Any]:
        return {k: v for k, v in self._data.items() if k in self.settings_cls.model_fields}
