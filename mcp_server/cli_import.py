"""`amber import-chats PATH`: a person's history from ChatGPT, Claude.ai, Open WebUI or Claude Code.

Opens the store itself (taking its lock), or with `--url` uploads the export to a running host
(`POST /v1/import/chats`). A dry run reads the whole export and says what would come in.
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
    c.add_argument("--url", help="upload to a running host instead of opening the store")
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
        with tqdm(file=sys.stderr, dynamic_ncols=True, unit=" conv", desc="reading" if args.dry_run else "importing") as bar:
            def progress(e: dict[str, Any]) -> None:
                bar.update(e["conversations"] - bar.n)
                bar.set_postfix(messages=e["messages"], stored=e["stored"], refresh=False)

            report = import_turns(service, settings, scope, path, source=args.source, dry_run=args.dry_run,
                                  openwebui_user=args.openwebui_user, extract=args.extract, progress=progress)
        if args.extract and not args.dry_run:
            with tqdm(file=sys.stderr, dynamic_ncols=True, unit=" window", desc="extracting") as bar:
                def windows(e: dict[str, Any]) -> None:
                    bar.total = max(e["of"], e["windows"])
                    bar.update(e["windows"] - bar.n)
                    bar.set_postfix(facts=e["facts"], refresh=False)

                asyncio.run(extract_now(service, settings, scope.user_id, report, progress=windows))
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

        r = httpx.post(args.url.rstrip("/") + "/v1/import/chats", params=params, content=body(), headers=headers,
                       timeout=httpx.Timeout(30.0, read=None))
        if r.status_code >= 400:
            try:
                detail = r.json().get("detail") or r.text
            except ValueError:
                detail = r.text
            raise InvalidInput("url", f"the host refused the import ({r.status_code}): {str(detail)[:500]}")
        return r.json()


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
