"""`amber keys create`: a new API key, printed once, with the config.yaml entry that accepts it.

The entry is one list item for the existing `amber: api_keys:` list: printing a whole `api_keys:`
block invites pasting a second list under `amber:`, and YAML keeps only the last one (the other
keys vanish without a word). `--write FILE` adds the item to that file itself, after a backup.
"""

from __future__ import annotations

import argparse
import json
import re
import secrets
import shutil
import sys
from pathlib import Path
from typing import Any

import yaml

from .identity import hash_secret


def _entry(args: argparse.Namespace, env: str) -> dict[str, Any]:
    entry: dict[str, Any] = {"name": args.name, "secret": f"os.environ/{env}"}
    if args.user:
        entry["user"] = args.user
    entry["scopes"] = list(args.scopes)
    if args.trusted_client:
        entry["trusted_client"] = True
    return entry


def _item_lines(entry: dict[str, Any], indent: str) -> list[str]:
    """The entry as a YAML list item, flow-style lists as in the shipped config."""
    lines = []
    for i, (k, v) in enumerate(entry.items()):
        text = "[" + ", ".join(v) + "]" if isinstance(v, list) else ("true" if v is True else _scalar(v))
        lines.append(f"{indent}{'- ' if i == 0 else '  '}{k}: {text}")
    return lines


def _scalar(value: str) -> str:
    # plain when YAML reads it back unchanged, else a JSON string (also valid YAML)
    plain = re.fullmatch(r"[A-Za-z0-9_./ -]+", value) and not value.startswith(("-", " ")) and yaml.safe_load(value) == value
    return value if plain else json.dumps(value, ensure_ascii=False)


def keys_create(args: argparse.Namespace) -> int:
    if not args.user and not args.trusted_client and "memory:admin" not in args.scopes:
        print("amber: a key needs --user, or --trusted-client, or the memory:admin scope", file=sys.stderr)
        return 1
    secret = "amb_" + secrets.token_urlsafe(32)
    env = "AMBER_KEY_" + (re.sub(r"[^A-Za-z0-9]+", "_", args.name).upper().strip("_") or "NEW")
    entry = _entry(args, env)
    if args.write:
        try:
            backup = merge_into(Path(args.write), entry)
        except (OSError, ValueError) as e:
            print(f"amber: {args.write}: {e}", file=sys.stderr)
            return 2
    print(f"New API key {args.name!r} (shown only this once; Amber keeps only its hash):\n\n    {secret}\n")
    print(f"1. Give the key to the memory host's environment:\n\n    export {env}={secret}\n")
    if args.write:
        print(f"2. Added to `amber: api_keys:` in {args.write} (the previous file is {backup}). Restart the host.\n")
    else:
        print("2. Add this item to the `api_keys:` list in the `amber:` section of config.yaml, below the keys already\n"
              "   there (do not add a second `api_keys:` line: YAML would keep only one of the lists), and restart the host;\n"
              "   or let Amber do it: `amber keys create ... --write config.yaml`.\n")
        print("\n".join(_item_lines(entry, "    ")) + "\n")
    print(f"   To keep no secret anywhere on the host, use its hash as the secret:\n\n      secret: sha256:{hash_secret(secret)}\n")
    print('3. Clients send it as "Authorization: Bearer <key>" (or ?token=<key> where headers are impossible).')
    return 0


def merge_into(path: Path, entry: dict[str, Any]) -> Path:
    """Add `entry` to `amber: api_keys:` in the YAML file, editing its text so every comment and the
    rest of the layout stay as they were; the previous file is kept as `<file>.bak`. Returns the backup."""
    text = path.read_text(encoding="utf-8")
    data = yaml.safe_load(text) or {}
    if not isinstance(data, dict):
        raise ValueError("is not a YAML mapping")
    amber = data.get("amber")
    if amber is not None and not isinstance(amber, dict):
        raise ValueError("its `amber:` is not a section")
    keys = (amber or {}).get("api_keys")
    if isinstance(keys, str) or (keys is not None and not isinstance(keys, list)):
        raise ValueError("its `amber: api_keys:` is not a list; add the key by hand")
    if any(isinstance(k, dict) and k.get("name") == entry["name"] for k in keys or []):
        raise ValueError(f"a key named {entry['name']!r} is already there; choose another --name")
    lines = text.splitlines()
    new = _insert(lines, entry, has_amber="amber" in data, has_keys="api_keys" in (amber or {}))
    merged = "\n".join(new) + "\n"
    check = yaml.safe_load(merged)["amber"]["api_keys"]  # the edit must read back as the old list plus one
    if [k for k in check if k not in (keys or [])] != [entry] or len(check) != len(keys or []) + 1:
        raise ValueError("could not add the key without changing others; add it by hand")
    backup = path.with_name(path.name + ".bak")
    shutil.copy2(path, backup)
    path.write_text(merged, encoding="utf-8")
    return backup


def _insert(lines: list[str], entry: dict[str, Any], *, has_amber: bool, has_keys: bool) -> list[str]:
    if not has_amber:
        return [*lines, "", "amber:", "  api_keys:", *_item_lines(entry, "    ")]
    start = next(i for i, ln in enumerate(lines) if re.match(r"amber:\s*(#.*)?$", ln))
    end = next((i for i in range(start + 1, len(lines)) if lines[i] and not lines[i][0].isspace() and not lines[i].startswith("#")), len(lines))
    section = range(start + 1, end)
    if not has_keys:
        indent = next((re.match(r"\s*", lines[i]).group() for i in section if lines[i].strip() and not lines[i].lstrip().startswith("#")), "  ")
        return [*lines[:end], f"{indent}api_keys:", *_item_lines(entry, indent + "  "), *lines[end:]]
    at = next(i for i in section if re.match(r"\s+api_keys:", lines[i]))
    key_indent = len(lines[at]) - len(lines[at].lstrip())
    if not re.match(r"\s+api_keys:\s*(#.*)?$", lines[at]):  # `api_keys: []` or a flow list on one line
        if yaml.safe_load(lines[at].strip())["api_keys"]:
            raise ValueError("its `amber: api_keys:` is written on one line; add the key by hand")
        return [*lines[:at], " " * key_indent + "api_keys:", *_item_lines(entry, " " * (key_indent + 2)), *lines[at + 1:]]
    last = at
    for i in range(at + 1, end):
        ln = lines[i]
        if not ln.strip() or ln.lstrip().startswith("#"):
            continue
        if len(ln) - len(ln.lstrip()) <= key_indent and not ln.lstrip().startswith("- "):
            break
        if len(ln) - len(ln.lstrip()) < key_indent:
            break
        last = i
    item_indent = next((re.match(r"\s*", lines[i]).group() for i in range(at + 1, last + 1) if lines[i].lstrip().startswith("- ")),
                       " " * (key_indent + 2))
    return [*lines[: last + 1], *_item_lines(entry, item_indent), *lines[last + 1:]]


def keys_rotate_master(args: argparse.Namespace) -> int:
    """Rewrap every record key: the current master key comes from the settings, the new one from
    the environment variable named by --new-key-env (never from the command line, where `ps` and
    the shell history would show it)."""
    import os

    from core import Settings, rotate_master_key

    new = None if args.off else os.environ.get(args.new_key_env)
    if not args.off and not new:
        print(f"amber: set {args.new_key_env} to the new master key (`openssl rand -hex 32`), or pass --off", file=sys.stderr)
        return 2
    count = rotate_master_key(Settings(), new)
    where = "without a master key" if args.off else f"under the key in {args.new_key_env}"
    print(f"{count} record keys now stored {where}. Set AMBER_MASTER_KEY to it before starting Amber, and back it up.")
    return 0
