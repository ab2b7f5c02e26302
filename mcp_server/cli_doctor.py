"""`amber doctor`: is the deployment it is pointed at wired up? In plain words, with the fix.

It finds the memory host (the LiteLLM proxy's /memory mount first, then `amber serve`), asks it
over HTTP, and checks the LLM the way the jobs call it (through the proxy's model group when the
proxy hosts Amber). It opens no store and creates nothing unless `--store` asks it to.
"""

from __future__ import annotations

import argparse
import asyncio
import os
from pathlib import Path
from typing import Any

import httpx

from core import AmberError, Journal, Settings, StoreLocked, config_path, disk_space, earlier_models, master_key, model_cache_root

from .cli_probe import Found, Probe, find_host, proxy_models

OK, BAD, NOTE = "ok  ", "FAIL", "note"
PROXY_URL = "http://127.0.0.1:4000"


class Report:
    def __init__(self) -> None:
        self.failures = 0

    def ok(self, text: str) -> None:
        print(f"[{OK}] {text}", flush=True)

    def note(self, text: str) -> None:
        print(f"[{NOTE}] {text}", flush=True)

    def bad(self, text: str, fix: str | None = None) -> None:
        self.failures += 1
        print(f"[{BAD}] {text}" + (f"\n       fix: {fix}" if fix else ""), flush=True)


def doctor(args: argparse.Namespace) -> int:
    r = Report()
    config = config_path()
    r.note(f"config file {config}: {'found' if config.is_file() else 'not found (defaults and AMBER_* environment apply)'}")
    settings: Settings | None
    try:
        settings = Settings()
    except Exception as e:  # pydantic explains which setting is wrong
        settings = None
        r.bad(f"settings do not load: {e}", f"correct the `amber:` section of {config} or the AMBER_* variable named above")
    if settings is not None:
        _check_keys(r, settings)
        _check_spool(r, settings)
        _check_disk(r, settings)
        _check_encryption(r, settings)
    _check_model_cache(r)

    key = args.key or os.environ.get("AMBER_KEY") or (settings.server_key if settings else None)
    if args.url:
        candidates = _candidates(args.url, r)
    elif settings is not None and settings.server_url:
        hosts = [u.strip().rstrip("/") for u in settings.server_url.split(",") if u.strip()]
        r.note(f"remote mode: this configuration uses the memory host{'s' if len(hosts) > 1 else ''} at {', '.join(hosts)}")
        candidates = hosts
    else:
        serve = f"http://{settings.host if settings else '127.0.0.1'}:{settings.port if settings else 4100}"
        candidates = [f"{PROXY_URL}/memory", serve]

    # several hosts listed: each must answer (any of them may serve any user); otherwise the first that does
    groups = [[c] for c in candidates] if args.url is None and settings is not None and settings.server_url else [candidates]
    with httpx.Client(timeout=httpx.Timeout(3.0, read=8.0)) as http:
        probe = Probe(http, key)
        for group in groups:
            found = find_host(probe, group)
            if found.host is None:
                _no_host(r, found, group, args, settings)
            else:
                _check_host(r, probe, found, args, settings)
    print("all good" if not r.failures else f"{r.failures} problem(s) found")
    return 0 if not r.failures else 1


def _candidates(url: str, r: Report) -> list[str]:
    url = url.rstrip("/")
    if url.endswith("/mcp"):
        r.note(f"{url} is the MCP endpoint; the memory host's base URL is {url[:-4]} (checking that)")
        url = url[:-4]
    if url.endswith("/memory"):
        return [url]
    # a proxy's address or a memory host's: the proxy's mount first
    return [f"{url}/memory", url]


def _check_encryption(r: Report, settings: Settings) -> None:
    """Whether memory is encrypted at rest in this configuration, and where the key comes from."""
    state = settings.encryption()
    if settings.chroma_url:
        r.note(f"encryption at rest: records in a Chroma server are not sealed (README, \"What forget erases on disk\"); master key: {state}")
    elif state == "off":
        r.note("encryption at rest: off (records sealed under per-record keys kept in the data directory; "
               "set AMBER_MASTER_KEY or master_key_file to encrypt those keys)")
    else:
        r.ok(f"encryption at rest: {state}; back the key up: without it the memory cannot be read")


def _check_keys(r: Report, settings: Settings) -> None:
    empty = [k.name for k in settings.api_keys if not k.secret]
    if not settings.api_keys:
        r.note("no API keys in this configuration: a host using it answers only this machine (loopback), as user "
               f"{settings.default_user or 'local'!r}. `amber keys create` makes keys for other machines.")
    elif empty:
        r.bad(f"API keys with an empty secret in this configuration: {', '.join(empty)}",
              "set the environment variable each one's `secret: os.environ/NAME` names, where the host runs")
    else:
        r.ok(f"{len(settings.api_keys)} API key(s) configured")


def _mb(n: float) -> str:
    return f"{n / (1 << 20):.0f} MB" if n >= 10 << 20 else f"{n / (1 << 20):.1f} MB"


def _check_disk(r: Report, settings: Settings) -> None:
    """Free space on this machine, against the reserve Amber keeps free: the data directory's disk
    (an embedded store refuses writes below it) and the proxy's capture journal's (new turns are
    refused when it fills)."""
    data = Path(settings.data_dir)
    if settings.chroma_url:
        r.note(f"the store is the Chroma server at {settings.chroma_url}: its disk is that server's to watch")
    elif data.is_dir():
        try:
            free, reserve = disk_space(data)
        except OSError as e:
            r.bad(f"the free space of the data directory {data} cannot be read: {e}")
        else:
            if free < reserve:
                r.bad(f"the disk holding the data directory {data} has {_mb(free)} free, below the {_mb(reserve)} Amber keeps free: "
                      "memory writes are refused (503) and recall serves what is stored",
                      "free space on that filesystem (or move data_dir): writes resume by themselves")
            else:
                r.ok(f"disk of the data directory {data}: {_mb(free)} free (Amber keeps {_mb(reserve)} free)")
    spool = data / "spool"
    if not spool.is_dir():
        return
    try:
        free, reserve = disk_space(spool)
    except OSError as e:
        r.bad(f"the free space of the capture journal {spool} cannot be read: {e}")
        return
    used = sum(p.stat().st_size for p in spool.iterdir() if p.is_file())
    budget = int(settings.spool_max_mb * 1_000_000)
    if free < reserve:
        r.bad(f"the disk holding the capture journal {spool} has {_mb(free)} free, below the {_mb(reserve)} Amber keeps free: "
              "during an outage new chat turns may find no room and be refused",
              "free space on that filesystem (or move data_dir)")
    elif free - reserve < budget - used:
        r.note(f"capture journal {spool}: {_mb(free)} free (Amber keeps {_mb(reserve)}), less than the journal may still "
               f"take ({_mb(budget - used)} of its spool_max_mb): the disk would fill before the journal's budget")
    else:
        r.ok(f"disk of the capture journal {spool}: {_mb(free)} free (Amber keeps {_mb(reserve)}; the journal holds "
             f"{_mb(used)} of its {settings.spool_max_mb:g} MB budget)")


def _check_model_cache(r: Report) -> None:
    """Earlier conversions of the local embedding model this version no longer reads (an upgrade
    converts again and leaves the old one for hosts still running the old version)."""
    old = earlier_models()
    if old:
        r.note(f"the model cache {model_cache_root()} holds {len(old)} earlier conversion(s) of the embedding model this version "
               f"does not use ({_mb(sum(n for _, n in old))}): {', '.join(p.name for p, _ in old)}; "
               "delete them once every Amber process on this install has been restarted")


def _check_spool(r: Report, settings: Settings) -> None:
    """The proxy's capture journal, when this machine holds it: turns set aside, turns waiting, a full budget."""
    try:
        key = master_key(settings)
    except AmberError:  # a malformed key: the master key's own check says so
        key = None
    journal = Journal(Path(settings.data_dir) / "spool", max_bytes=int(settings.spool_max_mb * 1_000_000), master_key=key)
    if not journal.dir.is_dir():
        return
    try:
        s = journal.status()
    except (OSError, RuntimeError) as e:  # RuntimeError: sealed under a master key this configuration lacks
        r.note(f"the capture journal at {journal.dir} cannot be read: {e}")
        return
    if s["quarantined"]:
        error, at = s["last_quarantined"]
        r.bad(f"{s['quarantined']} captured exchange(s) set aside in {journal.dir} (the last at {at}: {error})",
              "see `amber spool status`; once the cause is fixed, `amber spool replay` stores them")
    if s["full"]:
        r.bad(f"the capture journal at {journal.dir} is full ({s['full']}): new turns are not kept",
              "bring the memory host back (the journal drains by itself) or raise `spool_max_mb`")
    if s["pending"]:
        r.note(f"{s['pending']} captured exchange(s) wait in {journal.dir} (oldest {s['oldest_pending_age_s'] or 0:.0f}s)"
               + (f"; last error: {s['last_error']}" if s["last_error"] else ""))


def _no_host(r: Report, found: Found, candidates: list[str], args: argparse.Namespace, settings: Settings | None) -> None:
    for line in found.notes:
        r.note(line)
    if found.problem:
        r.bad(*found.problem)
    elif args.store:  # asked to check the store without a host: none answering is what was expected
        r.note(f"no Amber host answers at {' or '.join(candidates)}: checking the store here")
    else:
        r.bad(f"no Amber host answers at {' or '.join(candidates)}",
              "start one: `make run` (the LiteLLM proxy, memory at :4000/memory) or `amber serve` (:4100); "
              "if yours runs elsewhere, `amber doctor --url <its address>`")
    if not args.store:
        r.note("to check a store without a running host: `amber doctor --store`")
        return
    if settings is not None:
        _check_store(r, settings)
        if not args.no_llm:
            _check_llm_here(r, settings, why="no host to ask")


def _check_host(r: Report, probe: Probe, found: Found, args: argparse.Namespace, settings: Settings | None) -> None:
    h, base = found.health, found.host
    where = f"the LiteLLM proxy at {found.proxy}" if found.proxy else f"the memory host at {base}"
    for line in found.notes:
        r.note(line)
    if h.get("ok"):
        r.ok(f"{where} answers; memory server at {base} is healthy (embedder {h.get('embedder', {}).get('id')})")
    else:
        store, emb = h.get("store") or {}, h.get("embedder") or {}
        if not store.get("ok"):
            r.bad(f"{where}: the store does not answer: {store.get('error')}", "see the host's log; restart it once the store is reachable")
        if not emb.get("ok"):
            r.bad(f"{where}: the embedder fails: {emb.get('error')}", "see the host's log; `embedding_model` in config.yaml names the embedder")
    disk = h.get("disk")
    if disk is not None:  # an embedded store on the host: its disk against the reserve
        if disk.get("ok"):
            r.ok(f"{where}: its data directory's disk has {disk.get('free_mb')} MB free (Amber keeps {disk.get('reserve_mb')} MB)")
        else:
            why = disk.get("error") or f"{disk.get('free_mb')} MB free, below the {disk.get('reserve_mb')} MB Amber keeps"
            r.bad(f"{where}: its data directory's disk: {why}",
                  "free space on the host's data directory: writes resume by themselves (a store that broke on a full disk needs a restart)")
    queue = (h.get("coordination") or {}).get("capture_queue") or {}
    if queue and "quarantined" not in queue and probe.key:  # its counts are shown to an admin key only
        queue = ((probe.json(probe.get(base, "/health")) or {}).get("coordination") or {}).get("capture_queue") or queue
    if queue.get("quarantined"):  # several hosts: the shared capture queue's set-aside entries
        r.bad(f"{where}: {queue['quarantined']} captured entr{'y' if queue['quarantined'] == 1 else 'ies'} set aside in the shared capture queue",
              "see them in the admin page (Maintenance, Turns set aside); once the cause is fixed, put them back there (POST /v1/capture/replay)")
    is_admin = _check_auth(r, probe, base, h)
    if is_admin:
        _check_vectors(r, probe, base)
    llm_model = (h.get("llm") or {}).get("model") or (settings.llm_model if settings else None)
    if found.proxy:
        _check_proxy_models(r, probe, found.proxy, llm_model, args.no_llm)
    elif args.no_llm:
        r.note("LLM check skipped (--no-llm)")
    elif is_admin:
        _check_llm_on_host(r, probe, base)
    elif settings is not None:
        _check_llm_here(r, settings, why="the host checks its LLM only for an admin key")
    if args.store:
        r.note(f"--store: not opening the store here, {where} holds it")


def _check_auth(r: Report, probe: Probe, base: str, h: dict[str, Any]) -> bool:
    """Is the key known, and may it administer? Returns whether it is an admin key (local mode: yes)."""
    if h.get("auth") == "local":
        r.ok("no keys on the host: it serves this machine only (local mode)")
    elif not probe.key:
        r.note("the host requires keys: set AMBER_KEY (or --key) to check yours")
        return False
    resp = probe.get(base, "/v1/vectors/health")
    if resp is None:
        r.bad(f"{base} stopped answering during the check")
        return False
    if resp.status_code == 200:
        if h.get("auth") != "local":
            r.ok("the key is accepted (admin)")
        return True
    detail = probe.detail(resp)
    if resp.status_code == 401:
        r.bad(f"the host does not know this key ({detail})",
              "use a key from the `amber: api_keys` of the host's config.yaml (its secret's environment variable must be set "
              "where the host runs), or make one with `amber keys create`")
    elif resp.status_code == 403 and "memory:admin" in detail:
        r.ok("the key is accepted (not an admin key: vector health and the host's LLM check are skipped)")
    elif resp.status_code == 403:
        r.bad(f"the host refuses this key: {detail}", "check the key's `user` and `scopes` in the host's config.yaml")
    else:
        r.bad(f"authenticated call answered {resp.status_code}: {detail}")
    return False


def _check_vectors(r: Report, probe: Probe, base: str) -> None:
    resp = probe.get(base, "/v1/vectors/health")
    vh = resp.json() if resp is not None and resp.status_code == 200 else None
    if vh is None:
        return
    stale = [u["user_id"] for u in vh.get("users", []) if not u.get("ok")]
    if stale:
        r.bad(f"collections built by another embedder for {len(stale)} user(s) (recall cannot use them)",
              "run `amber reindex` (or POST /v1/reindex with an admin key)")
    else:
        r.ok(f"every collection was built by the configured embedder ({len(vh.get('users', []))} user(s))")


def _check_proxy_models(r: Report, probe: Probe, proxy: str, llm_model: str | None, no_llm: bool) -> None:
    master = os.environ.get("LITELLM_MASTER_KEY")
    if not master:
        r.note("set LITELLM_MASTER_KEY to check the proxy's model groups and the jobs' model through it")
        return
    status, groups, detail = proxy_models(probe, proxy, master)
    if status in (400, 401, 403):  # without a database LiteLLM answers a key that is not the master key with 400
        r.bad(f"the proxy refuses LITELLM_MASTER_KEY ({detail})", "set LITELLM_MASTER_KEY to the proxy's `general_settings: master_key`")
        return
    if groups is None:
        r.bad(f"the proxy's model list does not answer ({status}: {detail})")
        return
    r.ok(f"the proxy serves model groups: {', '.join(groups) or '(none)'}")
    if not llm_model:
        return
    if llm_model not in groups and not any("*" in g for g in groups):
        if "/" in llm_model:
            r.note(f"the jobs' model {llm_model!r} is not a model group: the proxy calls it directly, with the keys in its environment")
        else:
            r.bad(f"the jobs' model {llm_model!r} is not a model group of the proxy",
                  f"set `amber: llm_model` in config.yaml to one of: {', '.join(groups)}; or add {llm_model!r} to `model_list`")
            return
    if no_llm:
        r.note("LLM call skipped (--no-llm)")
        return
    ok, detail = probe.chat(proxy, master, llm_model)
    if ok:
        r.ok(f"model group {llm_model!r} answers through the proxy (extraction and consolidation can run)")
    else:
        r.bad(f"model group {llm_model!r} fails through the proxy (extraction and consolidation will wait): {detail}",
              "check that group's `api_key` (its environment variable) and `api_base` in the proxy's config.yaml `model_list`")


def _check_llm_on_host(r: Report, probe: Probe, base: str) -> None:
    resp = probe.get(base, "/health", params={"check_llm": "true"}, timeout=20.0)
    llm = (resp.json().get("llm") if resp is not None and resp.headers.get("content-type", "").startswith("application/json") else None) or {}
    if not llm.get("checked"):
        r.note(f"the host did not check its LLM: {llm.get('error') or 'no answer'}")
    elif llm.get("ok"):
        r.ok(f"LLM {llm.get('model')!r} answers the host (extraction and consolidation can run)")
    else:
        r.bad(f"LLM {llm.get('model')!r} fails on the host (extraction and consolidation will wait): {llm.get('error')}",
              "set the provider's key (e.g. OPENAI_API_KEY) where the host runs, or `llm_model` in config.yaml")


def _check_llm_here(r: Report, settings: Settings, why: str) -> None:
    from .llm_check import llm_status, quiet_litellm

    quiet_litellm()
    r.note(f"checking the LLM from this shell's environment ({why})")
    status = asyncio.run(llm_status(settings))
    if not status["checked"]:
        r.note(f"LLM not checked: {status.get('error')}")
    elif not status["ok"]:
        r.bad(f"LLM {settings.llm_model!r} is not reachable (extraction and consolidation will wait): {status['error']}",
              "set the provider's key (e.g. OPENAI_API_KEY) or `llm_model` in config.yaml")
    else:
        r.ok(f"LLM {settings.llm_model!r} answers")


def _check_store(r: Report, settings: Settings) -> None:
    """Only with --store: open the store here, never creating one that is not there."""
    import core
    from core import build_service

    where = settings.chroma_url or str(Path(settings.data_dir).resolve())
    if not settings.chroma_url and not (Path(settings.data_dir) / "chroma").exists():
        r.bad(f"no store at {where} (nothing was created)",
              "run Amber from the directory that holds its data, or set AMBER_DATA_DIR / `amber: data_dir` to it")
        return
    try:
        service = build_service(settings)
    except StoreLocked as e:
        r.note(f"the store is held by a running Amber host, which did not answer: {e}")
        return
    except AmberError as e:
        r.bad(f"store at {where} cannot be opened: {e}")
        return
    try:
        h = service.health()
        if h["store"]["ok"]:
            r.ok(f"store at {where} opens and answers ({len(service.users())} user(s))")
        else:
            r.bad(f"store at {where}: {h['store'].get('error')}")
        if h["embedder"]["ok"]:
            r.ok(f"embedder {h['embedder']['id']} works")
        else:
            r.bad(f"embedder {h['embedder']['id']} fails: {h['embedder'].get('error')}")
        vh = core.vector_health(service)
        if vh["ok"]:
            r.ok("every collection was built by the configured embedder")
        else:
            stale = [u["user_id"] for u in vh["users"] if not u["ok"]]
            r.bad(f"collections built by another embedder for {len(stale)} user(s)", "run `amber reindex`")
    finally:
        service.close()
