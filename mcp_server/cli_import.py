"""`amber import-chats PATH`: a person's history from ChatGPT, Claude.ai, Open WebUI or Claude Code.

Opens the store itself (taking its lock), or with `--url` uploads the export to a running host
(`POST /v1/import/chats`) and follows the progress it streams. Either way bars on stderr count the
upload, the conversations read and turns stored, then any extraction windows. A dry run reads the
whole export and says what would come in.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import zipfile
from pathlib import Path
from typing import Any

from tqdm import tqdm

from core import Actor, InvalidInput, Settings, build_service, scope_for

from .chat_import_run import extract_now, import_turns

SOURCES = ["auto", "chatgpt", "claude", "openwebui", "claude-code"]


def register(sub: Any) -> None:
    c = sub.add_parser("import-chats", help="bring in chat history: a ChatGPT, Claude.ai or Open WebUI export, or Claude Code sessions")
    c.add_argument("path", help="the export: a ZIP, a folder (e.g. ~/.claude/projects), a JSON/JSONL file or Open WebUI's webui.db")
    c.add_argument("--user", help="whose memory (default: settings.default_user or 'local')")
    c.add_argument("--source", choices=SOURCES, default="auto", help="what the export is (default: told from its structure)")
    c.add_argument("--dry-run", action="store_true", help="read everything, write nothing: what would come in")
    c.add_argument("--openwebui-user", help="an Open WebUI export or database of several people: import this Open WebUI user id's "
                   "chats (default: the accounts the identity map, settings `users:`, joins with --user)")
    c.add_argument("--url", default=os.environ.get("AMBER_SERVER_URL"),
                   help="upload to a running host instead of opening the store (default: $AMBER_SERVER_URL)")
    c.add_argument("--key", default=os.environ.get("AMBER_KEY"), help="API key for --url (default: $AMBER_KEY)")
    c.add_argument("--extract", action="store_true", help="turn what came in into memories now, with the configured LLM "
                   "(settings llm_model; with --url the host's), instead of at the next extraction job")
    c.add_argument("--json", action="store_true", help="print the report as JSON")
    c.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    path = Path(args.path).expanduser()
    if not path.exists():
        raise InvalidInput("path", f"{path} does not exist")
    report = _remote(args, path) if args.url else _local(args, path)
    if args.json:
        print(json.dumps(report, ensure_ascii=False, indent=2))
    else:
        print(summary(report))
    return 0


def _local(args: argparse.Namespace, path: Path) -> dict[str, Any]:
    settings = Settings()
    service = build_service(settings)
    try:
        scope = scope_for(Actor(args.user or settings.default_user or "local", client="import", via="cli"))
        with Bars(args.dry_run) as bars:
            report = import_turns(service, settings, scope, path, source=args.source, dry_run=args.dry_run,
                                  openwebui_user=args.openwebui_user, extract=args.extract, progress=bars)
            if args.extract and not args.dry_run:
                asyncio.run(extract_now(service, settings, scope.user_id, report, progress=bars))
        return report
    finally:
        service.close()


def _remote(args: argparse.Namespace, path: Path) -> dict[str, Any]:
    import httpx

    with tempfile.TemporaryDirectory() as tmp:
        upload = path
        if path.is_dir():  # a folder goes up as one ZIP
            upload = Path(tmp) / "export.zip"
            with zipfile.ZipFile(upload, "w", zipfile.ZIP_DEFLATED) as z:
                for f in sorted(path.rglob("*")):
                    if f.is_file() and f.suffix.lower() in (".json", ".jsonl", ".zip", ".db", ".sqlite", ".sqlite3"):
                        z.write(f, str(f.relative_to(path)))
        size = upload.stat().st_size
        params = {"source": args.source, "dry_run": str(bool(args.dry_run)).lower(), "extract": str(bool(args.extract)).lower()}
        if args.openwebui_user:
            params["openwebui_user"] = args.openwebui_user
        headers = {"Content-Type": "application/octet-stream"}
        if args.key:
            headers["Authorization"] = f"Bearer {args.key}"
        if args.user:
            headers["X-Amber-User"] = args.user

        def body():
            with open(upload, "rb") as f, tqdm(file=sys.stderr, total=size, unit="B", unit_scale=True, desc="uploading") as bar:
                while chunk := f.read(1 << 20):
                    bar.update(len(chunk))
                    yield chunk

        headers["Accept"] = "application/x-ndjson"  # the host's progress as it imports and extracts, then the report
        with httpx.stream("POST", args.url.rstrip("/") + "/v1/import/chats", params=params, content=body(), headers=headers,
                          timeout=httpx.Timeout(30.0, read=None)) as r:
            if r.status_code >= 400:
                r.read()
                _refused(r.status_code, _detail(r))
            with Bars(args.dry_run) as bars:
                for line in r.iter_lines():
                    item = json.loads(line) if line.strip() else {}
                    if "progress" in item:
                        bars(item["progress"])
                    elif "error" in item:
                        _refused(item["error"].get("status", 500), item["error"].get("detail"))
                    elif "report" in item:
                        return item["report"]
        raise InvalidInput("url", "the host stopped answering before its report: run the same import again to go on")


def _detail(r: Any) -> str:
    try:
        return r.json().get("detail") or r.text
    except ValueError:
        return r.text


def _refused(status: int, detail: Any) -> None:
    raise InvalidInput("url", f"the host refused the import ({status}): {str(detail)[:500]}")


class Bars:
    """Progress on stderr, from the import's own events (core/chat_import) or the same events
    streamed by a host: conversations read and turns stored, then extraction windows."""

    def __init__(self, dry_run: bool):
        self.dry_run, self.turns, self.windows = dry_run, None, None

    def __enter__(self) -> "Bars":
        return self

    def __exit__(self, *exc: Any) -> None:
        for bar in (self.turns, self.windows):
            if bar is not None:
                bar.close()

    def __call__(self, e: dict[str, Any]) -> None:
        if e.get("stage") == "extract":
            if self.windows is None:
                self.windows = tqdm(file=sys.stderr, dynamic_ncols=True, unit=" window", desc="extracting")
            self.windows.total = max(e["of"], e["windows"])
            self.windows.update(e["windows"] - self.windows.n)
            self.windows.set_postfix(facts=e["facts"], refresh=False)
        elif "conversations" in e:
            if self.turns is None:
                self.turns = tqdm(file=sys.stderr, dynamic_ncols=True, unit=" conv", desc="reading" if self.dry_run else "importing")
            self.turns.update(e["conversations"] - self.turns.n)
            self.turns.set_postfix(messages=e["messages"], stored=e["stored"], refresh=False)


def summary(r: dict[str, Any]) -> str:
    skipped = ", ".join(f"{k} {v}" for k, v in r["skipped"].items()) or "none"
    whole = ", ".join(f"{k} {v}" for k, v in r["conversations_skipped"].items())
    lines = [
        f"{'dry run: ' if r['dry_run'] else ''}{r['conversations']} conversations ({', '.join(r['sources'])})"
        + (f", {whole} left out whole" if whole else ""),
        f"{r['messages']} messages on the active threads; skipped: {skipped}",
        (f"{r['new']} new turns would be stored" if r["dry_run"] else f"{r['stored']} turns stored")
        + f" ({r['duplicates']} already there, {r['forgotten']} forgotten and kept out)",
        f"extraction afterwards: about {r['extraction']['windows']} windows, ~{r['extraction']['tokens_estimate']:,} tokens"
        + ("" if r["dry_run"] or "extracted" in r or not r["extraction"]["windows"] else ", queued for the next extraction job"),
    ]
    if "extracted" in r:
        x = r["extracted"]
        facts = x.get("facts") or {}
        if x.get("status") == "skipped":
            lines.append(f"extraction did not run now ({x.get('reason') or 'skipped'}): the windows wait for the next extraction job")
        else:
            lines.append(f"extracted now: {facts.get('added', 0)} facts added, {facts.get('superseded', 0)} superseded, "
                         f"{facts.get('candidates', 0)} for review, from {(x.get('windows') or {}).get('processed', 0)} windows "
                         f"({x.get('llm_calls', 0)} LLM calls)" + (f"; errors: {'; '.join(x['errors'])[:300]}" if x.get("errors") else ""))
    return "\n".join(lines)
