"""`amber export`, `import`, `reindex` (with progress bars) and `jobs run`.

Each opens the store itself (taking its lock), or with `--url` goes through a running host.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from contextlib import nullcontext
from typing import Any, Iterator

from tqdm import tqdm

from core import Actor, InvalidInput, RemoteMemory, Settings, build_service, parse_jsonl, run_job, scope_for
from core import ImportCounts, ReindexReport


def _user(args: argparse.Namespace, settings: Settings) -> str:
    return args.user or settings.default_user or "local"


def _whose(args: argparse.Namespace, used: str | None) -> str:
    """Whose memory a command read or wrote, said after it: without --user the store's default
    person ('local' unless `default_user` is set), which no chat client may use. `used`: the person a
    command that opened the store acted for (None: it went through a host)."""
    if args.user:
        return f"user {args.user!r}"
    if used is None:
        return "the user the key acts for"
    return f"user {used!r} (the default; name another with --user)"


def _bar(**kw: Any) -> tqdm:
    return tqdm(file=sys.stderr, dynamic_ncols=True, disable=kw.pop("quiet", False), **kw)


def _read_lines(path: str) -> Iterator[dict[str, Any]]:
    """Lines as bytes: each is decoded on its own, so bad UTF-8 is an error naming its line."""
    try:
        f = nullcontext(sys.stdin.buffer) if path == "-" else open(path, "rb")
    except OSError as e:
        raise InvalidInput("file", f"cannot read {path}: {e.strerror or e}") from None
    with f as stream:
        yield from parse_jsonl(_bar(iterable=stream, desc="reading", unit=" lines"))


def export(args: argparse.Namespace) -> int:
    out = open(args.output, "w", encoding="utf-8") if args.output else sys.stdout
    used = None
    try:
        if args.url:
            async def remote() -> int:
                async with RemoteMemory(args.url, api_key=args.key, user=args.user) as r:
                    n = 0
                    with _bar(desc="exporting", unit=" lines") as bar:
                        async for line in r.export():
                            out.write(json.dumps(line, ensure_ascii=False) + "\n")
                            n += 1
                            bar.update()
                    return n

            n = asyncio.run(remote())
        else:
            settings = Settings()
            service = build_service(settings)
            try:
                scope = scope_for(Actor(used := _user(args, settings), via="cli"))
                n = 0
                for line in _bar(iterable=service.export(scope), desc="exporting", unit=" lines"):
                    out.write(json.dumps(line, ensure_ascii=False) + "\n")
                    n += 1
            finally:
                service.close()
    finally:
        if out is not sys.stdout:
            out.close()
    print(f"exported {n} lines of {_whose(args, used)}" + (f" to {args.output}" if args.output else ""), file=sys.stderr)
    return 0


def import_(args: argparse.Namespace) -> int:
    lines = list(_read_lines(args.file))  # all lines are validated before anything is written
    used = None
    if args.url:
        async def remote() -> ImportCounts:
            async with RemoteMemory(args.url, api_key=args.key, user=args.user, timeout=600.0) as r:
                return await r.import_(lines)

        result = asyncio.run(remote())
    else:
        settings = Settings()
        service = build_service(settings)
        try:
            scope = scope_for(Actor(used := _user(args, settings), via="cli"))
            with _bar(total=1, desc="importing (embedding)", unit=" batch"):
                result = service.import_(scope, lines)
        finally:
            service.close()
    print(f"imported {result.memories} memories, {result.messages} messages and {result.events} audit events into {_whose(args, used)}", file=sys.stderr)
    return 0


def reindex(args: argparse.Namespace) -> int:
    if args.url:
        async def remote() -> ReindexReport:
            async with RemoteMemory(args.url, api_key=args.key, timeout=3600.0) as r:
                return await r.reindex(args.user)

        done = asyncio.run(remote()).users
    else:
        settings = Settings()
        service = build_service(settings)
        try:
            users = [args.user] if args.user else service.users()
            done = {}
            for user in _bar(iterable=users, desc="reindexing", unit=" users"):
                done.update(service.reindex(scope_for(Actor(user, via="cli")), user).users)
        finally:
            service.close()
    for user, counts in done.items():
        print(f"{user}: {counts.memories} memories, {counts.messages} messages re-embedded", file=sys.stderr)
    if not done:
        print("no users in this store yet", file=sys.stderr)
    return 0


def jobs_run(args: argparse.Namespace) -> int:
    if args.url:
        return _jobs_run_remote(args)
    settings = Settings()
    service = build_service(settings)

    def progress(event: dict[str, Any]) -> None:
        print("  " + ", ".join(f"{k}={v}" for k, v in event.items()), file=sys.stderr)

    try:
        result = run_job(args.job, service, settings, user=args.user, progress=progress)
    finally:
        service.close()
    print(json.dumps(result, ensure_ascii=False, default=str, indent=2))
    return 0


def _jobs_run_remote(args: argparse.Namespace) -> int:
    """`amber jobs run JOB --url`: the running host starts the job for everyone, in the background
    (its admin page and `GET /v1/jobs/runs` show the run); needs an admin key."""
    import httpx

    if args.user:
        print("amber: --user cannot go with --url: the host runs a job for everyone", file=sys.stderr)
        return 2
    url = args.url.split(",")[0].rstrip("/") + f"/v1/jobs/{args.job}/run"
    headers = {"Authorization": f"Bearer {args.key}"} if args.key else {}
    try:
        r = httpx.post(url, headers=headers, timeout=30.0)
    except httpx.HTTPError as e:
        print(f"amber: {url} did not answer: {type(e).__name__}: {e}", file=sys.stderr)
        return 1
    if r.status_code == 409:
        print(f"amber: {args.job} is already running on that host", file=sys.stderr)
        return 1
    if r.status_code != 202:
        print(f"amber: {url} answered {r.status_code}: {r.text[:500]}", file=sys.stderr)
        return 1
    print(f"{args.job} started on the host, in the background: its admin page (Jobs) or GET /v1/jobs/runs shows the run", file=sys.stderr)
    return 0


def forget_user(args: argparse.Namespace) -> int:
    """`amber forget-user USER --yes`: a person's whole memory erased, for good."""
    from core import Settings, erase_person

    if not args.yes:
        print(f"amber: this erases everything Amber holds of {args.user!r}, for good; add --yes to do it", file=sys.stderr)
        return 2
    gone = erase_person(Settings(), args.user)
    print(f"erased {args.user!r}: {gone['memories']} memories, {gone['turns']} turns, {gone['tombstones']} tombstones")
    return 0
