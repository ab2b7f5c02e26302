"""`amber`: run the memory server, bridge MCP over stdio, move data in and out, check the setup.

    amber serve                      REST + MCP + jobs on 127.0.0.1:4100
    amber mcp [--url URL --key KEY]  stdio MCP (a bridge to a running host, or the store itself)
    amber export / import / reindex  with progress bars
    amber import-chats PATH          history from ChatGPT, Claude.ai, Open WebUI, Claude Code
    amber doctor [--url URL]         the running proxy or amber serve: what is wrong, how to fix it
    amber keys create ... [--write config.yaml]   a new API key, shown once
    amber jobs run extract|consolidate|retention
    amber spool status|replay [--data-dir D]     the proxy's capture journal: what waits, what was set aside
    amber shards list|show USER|move USER TO     users spread over several Chroma servers
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import logging
import os
import sys
from typing import Any, Callable, Iterator

from core import AmberError, InvalidInput, StoreLocked, config_file

SCOPES = ["memory:read", "memory:write", "memory:admin"]
NOISY = ("httpx", "chromadb", "mcp", "uvicorn.access", "LiteLLM")


def lazy(module: str, name: str) -> Callable[[argparse.Namespace], Any]:
    """Each command imports only what it runs: `amber doctor` and `amber keys` answer in a moment
    instead of loading the MCP server first."""
    def run(args: argparse.Namespace) -> Any:
        return getattr(importlib.import_module(f"{__package__}.{module}"), name)(args)

    return run


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="amber", description="Amber: one long-term memory for all your AI chats.")
    p.add_argument("--config", help="config.yaml with an `amber:` section (default: $AMBER_CONFIG or ./config.yaml)")
    p.add_argument("-v", "--verbose", action="store_true", help="debug logging")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    s = sub.add_parser("serve", help="run the memory server (REST, MCP, jobs)")
    s.add_argument("--host", help="bind address (default: settings.host, 127.0.0.1)")
    s.add_argument("--port", type=int, help="port (default: settings.port, 4100)")
    s.add_argument("--no-jobs", action="store_true", help="do not schedule extraction/consolidation/retention")
    s.set_defaults(run=lazy("cli_run", "serve"))

    m = sub.add_parser("mcp", help="MCP over stdio, for Claude Desktop, Codex and other stdio clients")
    m.add_argument("--url", default=os.environ.get("AMBER_SERVER_URL"),
                   help="a running Amber host (e.g. http://127.0.0.1:4000/memory; default: $AMBER_SERVER_URL); without it the store is opened here")
    m.add_argument("--key", default=os.environ.get("AMBER_KEY"), help="API key for --url (default: $AMBER_KEY)")
    m.add_argument("--user", help="user to act for (admin or trusted-client keys; or the local user without --url)")
    m.set_defaults(run=lazy("cli_run", "mcp_stdio"))

    def remote_opts(x: argparse.ArgumentParser) -> None:
        x.add_argument("--user", help="whose data (default: settings.default_user or 'local')")
        x.add_argument("--url", default=os.environ.get("AMBER_SERVER_URL"),
                       help="go through a running host instead of opening the store (default: $AMBER_SERVER_URL)")
        x.add_argument("--key", default=os.environ.get("AMBER_KEY"), help="API key for --url (default: $AMBER_KEY)")

    e = sub.add_parser("export", help="write a user's memories and messages as JSON lines")
    remote_opts(e)
    e.add_argument("-o", "--output", help="file to write (default: stdout)")
    e.set_defaults(run=lazy("cli_maintenance", "export"))

    i = sub.add_parser("import", help="load an export (JSON lines)")
    i.add_argument("file", help="the export file ('-' for stdin)")
    remote_opts(i)
    i.set_defaults(run=lazy("cli_maintenance", "import_"))

    importlib.import_module(f"{__package__}.cli_import").register(sub)  # amber import-chats

    r = sub.add_parser("reindex", help="re-embed with the configured embedder (one user, or all)")
    remote_opts(r)
    r.set_defaults(run=lazy("cli_maintenance", "reindex"))

    d = sub.add_parser("doctor", help="check the running Amber (proxy or amber serve): memory server, key, store, embedder, LLM")
    d.add_argument("--url", help="the LiteLLM proxy (http://127.0.0.1:4000) or memory host to check "
                   "(default: the proxy's /memory on :4000, then amber serve on :4100)")
    d.add_argument("--key", help="the API key to check (default: $AMBER_KEY)")
    d.add_argument("--store", action="store_true", help="when no host answers, open the store here and check it")
    d.add_argument("--no-llm", action="store_true", help="skip the (tiny, billed) LLM call")
    d.set_defaults(run=lazy("cli_doctor", "doctor"))

    k = sub.add_parser("keys", help="API keys")
    ksub = k.add_subparsers(dest="keys_command", required=True, metavar="ACTION")
    kc = ksub.add_parser("create", help="generate a key; it is printed once")
    kc.add_argument("--name", required=True, help="a label, e.g. claude-code")
    kc.add_argument("--user", help="the user this key acts for (omit for admin or trusted-client keys)")
    kc.add_argument("--scopes", nargs="+", choices=SCOPES, default=["memory:read", "memory:write"])
    kc.add_argument("--trusted-client", action="store_true", help="may act for the user named in X-Amber-User")
    kc.add_argument("--write", metavar="CONFIG", help="add the key to `amber: api_keys:` in this config.yaml (keeps CONFIG.bak)")
    kc.set_defaults(run=lazy("cli_keys", "keys_create"))

    kr = ksub.add_parser("rotate-master", help="wrap the store's record keys under a new master key (the store must be stopped)")
    kr.add_argument("--new-key-env", default="AMBER_NEW_MASTER_KEY", help="environment variable holding the new key (default: AMBER_NEW_MASTER_KEY)")
    kr.add_argument("--off", action="store_true", help="store the record keys without a master key (encryption at rest off)")
    kr.set_defaults(run=lazy("cli_keys", "keys_rotate_master"))

    fu = sub.add_parser("forget-user", help="erase one person from the store: every memory, turn and record of them (the store must be stopped)")
    fu.add_argument("user", help="the person's user id (an alias is mapped to its person)")
    fu.add_argument("--yes", action="store_true", help="really erase; without it nothing is done")
    fu.set_defaults(run=lazy("cli_maintenance", "forget_user"))

    j = sub.add_parser("jobs", help="background jobs")
    jsub = j.add_subparsers(dest="jobs_command", required=True, metavar="ACTION")
    jr = jsub.add_parser("run", help="run one job now")
    jr.add_argument("job", choices=["extract", "consolidate", "retention"])
    jr.add_argument("--user", help="only this user (default: every user; not with --url)")
    jr.add_argument("--url", default=os.environ.get("AMBER_SERVER_URL"),
                    help="start it on a running host instead of opening the store (default: $AMBER_SERVER_URL)")
    jr.add_argument("--key", default=os.environ.get("AMBER_KEY"), help="an admin key for --url (default: $AMBER_KEY)")
    jr.set_defaults(run=lazy("cli_maintenance", "jobs_run"))

    importlib.import_module(f"{__package__}.cli_shards").register(sub)  # amber shards list|show|move

    sp = sub.add_parser("spool", help="the proxy's capture journal: turns waiting to be stored, turns set aside")
    spsub = sp.add_subparsers(dest="spool_command", required=True, metavar="ACTION")
    ss = spsub.add_parser("status", help="what waits, what was set aside and why")
    ss.add_argument("--json", action="store_true", help="print the status as JSON")
    sr = spsub.add_parser("replay", help="move the set-aside turns back into the journal (the proxy stores them)")
    sr.add_argument("--user", help="only this user's turns")
    for x, name in ((ss, "status"), (sr, "replay")):
        x.add_argument("--data-dir", help="the proxy's data_dir (default: settings.data_dir); the journal is its spool/")
        x.set_defaults(run=lazy("cli_spool", name))
    return p


def main(argv: list[str] | None = None) -> int:
    if argv is None:
        _restart_with_malloc_settings()
    args = parser().parse_args(argv)
    with _logging_to_stderr(args.verbose):
        try:
            with config_file(args.config):  # every Settings the command builds reads this file
                return int(args.run(args) or 0)
        except (StoreLocked, InvalidInput) as e:  # the caller must change something: say what, in one line
            print(f"amber: {e}", file=sys.stderr)
            return 2
        except AmberError as e:
            print(f"amber: {type(e).__name__}: {e}", file=sys.stderr)
            return 1
        except KeyboardInterrupt:
            return 130


def _restart_with_malloc_settings() -> None:
    """Start `amber` again, once, with glibc's per-thread malloc caches off, so that blocks freed by
    this process are scrubbed before Chroma's native code reuses them for its index files
    (core/store/sealing.py, thread_caches_off), and with a fixed mmap threshold, so that the vector
    indexes Chroma evicts go back to the kernel (core/store/index_pool.py, MMAP_FIXED; an operator's
    own threshold is kept). Only glibc reads the settings; elsewhere they are inert. The restart also
    has LiteLLM read its price list from its package, as `make run` does (`amber doctor` fetched it
    from the network, retrying, on a machine without one)."""
    from core import MMAP_FIXED, TCACHE_OFF, thread_caches_off

    missing = [] if thread_caches_off() else [TCACHE_OFF]
    if "glibc.malloc.mmap_threshold=" not in os.environ.get("GLIBC_TUNABLES", ""):
        missing.append(MMAP_FIXED)
    local_prices = "LITELLM_LOCAL_MODEL_COST_MAP" in os.environ
    if not sys.platform.startswith("linux") or (not missing and local_prices) or os.environ.get("AMBER_RESTARTED"):
        return
    env = dict(os.environ, AMBER_RESTARTED="1")
    env.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    env["GLIBC_TUNABLES"] = ":".join(filter(None, (env.get("GLIBC_TUNABLES"), *missing)))
    try:
        os.execve(sys.executable, [sys.executable, "-m", "mcp_server.cli", *sys.argv[1:]], env)
    except OSError:  # cannot restart: carry on; the store warns about it when it opens
        return


@contextlib.contextmanager
def _logging_to_stderr(verbose: bool) -> Iterator[None]:
    """Log lines to this call's stderr, undone on return: main() may run again in the same process
    (tests call it in-process), where a once-per-process `logging.basicConfig` would keep the first
    call's stream, or do nothing at all under a logger that already has handlers."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    levels = {name: logging.getLogger(name).level for name in ("", *NOISY)}
    root.addHandler(handler)
    root.setLevel(logging.DEBUG if verbose else logging.INFO)
    for noisy in NOISY:
        logging.getLogger(noisy).setLevel(logging.DEBUG if verbose else logging.WARNING)
    try:
        yield
    finally:
        root.removeHandler(handler)
        for name, level in levels.items():
            logging.getLogger(name).setLevel(level)


if __name__ == "__main__":
    sys.exit(main())
