#!/usr/bin/env python3
"""Amber's Claude Code hooks: memory at the start of a session and before each prompt, capture after
each answer. One stdlib-only program, run by Claude Code as `python3 amber_hook.py <moment>`:

    session-start  the boot pack (digest, pinned facts, glossary) as additional context
    prompt         recall for the prompt, fenced in <memory_context>, as additional context
    stop           capture the prompt and the answer (ids per prompt, so a repeat is a no-op)
    session-end    send what an earlier capture could not, then forget the session's state

It talks HTTP to the Amber host's REST API with the user's key (AMBER_KEY, AMBER_URL). It runs on
every prompt, so it starts fast (stdlib only) and it fails open: any error, timeout or refusal
means exit 0, nothing on stdout and one line in the log, never a blocked prompt.

Per project: `.amber.json` in the project ({"project": "<name>", "memory": "on|read|write|off"});
the environment (AMBER_PROJECT, AMBER_MEMORY) wins over the file.

Codex CLI's hooks send the same events (with `turn_id` for `prompt_id`); its hooks.json runs
`amber_hook.py <moment> codex`, so turns are labelled as Codex's and its state lives apart.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import signal
import sys
import time
import unicodedata
import urllib.error
import urllib.parse
import urllib.request
from datetime import datetime, timezone
from pathlib import Path

CLIENTS = ("claude-code", "codex")  # the second argument; it labels captured turns
CLIENT = CLIENTS[0]
DEFAULT_URL = "http://127.0.0.1:4000/memory"
# Whole-call deadlines in seconds. Recall runs before every prompt, so it gets the least; Claude
# Code's own hook timeout (hooks.json) is a wider outer guard.
DEADLINE = {"session-start": 2.5, "prompt": 2.5, "stop": 3.0, "session-end": 3.0}
MODES = ("on", "read", "write", "off")  # the same words as the proxy's x-amber-memory header
PROJECT_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._\-]{0,63}\Z")
SETTINGS_FILE = ".amber.json"
QUERY_MAX_CHARS = 4000
MESSAGE_MAX_CHARS = 100_000
FINGERPRINT_CHARS = 1000
ECHO_MAX = 400  # fingerprints of this session's turns sent with a recall (the host takes up to 1 000)
OUTBOX_MAX = 200  # turns kept for a later try while Amber is unreachable
BATCH_MAX_BYTES = 256_000  # per request: well under the host's 2 MB body limit, and each call quick enough for its deadline (the host redacts and embeds it)
RETRYABLE = (401, 403, 408, 429)  # refusals that a fixed key or a quieter host can turn around
STALE_S = 7 * 24 * 3600
QUIET_S = 60  # after Amber missed a deadline, hooks do not ask it again for this long
LEFTOVERS_PER_START = 3  # ended sessions whose turns are sent again when a new session starts
LOG_MAX_BYTES = 256 * 1024
OPEN, CLOSE = "<memory_context>", "</memory_context>"


class Skip(Exception):
    """A reason to do nothing this time; logged as one line."""

    def __init__(self, message: str, status: int | None = None):
        super().__init__(message)
        self.status = status  # the HTTP status when Amber answered with a refusal


# ---- where things live --------------------------------------------------------------------------


def data_dir() -> Path:
    # Claude Code gives each plugin a data directory; outside it (a test, a manual run) use ~/.amber
    base = os.environ.get("CLAUDE_PLUGIN_DATA")
    path = Path(base) if base else Path.home() / ".amber" / CLIENT
    path.mkdir(parents=True, exist_ok=True)
    return path


def log(moment: str, message: str) -> None:
    """One line per problem; never the key, the prompt or a memory."""
    try:
        path = data_dir() / "hook.log"
        if path.exists() and path.stat().st_size > LOG_MAX_BYTES:
            path.replace(path.with_suffix(".log.1"))
        stamp = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
        with path.open("a", encoding="utf-8") as f:
            f.write(f"{stamp} {moment}: {' '.join(message.split())[:500]}\n")
    except OSError:
        pass  # a log that cannot be written must not turn into a blocked prompt either


# ---- settings -----------------------------------------------------------------------------------


def project_settings(start: str | None) -> dict:
    """The nearest `.amber.json` from the project directory up. Only `project` and `memory` are read
    from it: a file that comes with a cloned repository must not be able to send the user's key to
    another host, so the URL and the key come from the environment only."""
    if not start:
        return {}
    here = Path(start).resolve()
    for folder in (here, *here.parents):
        candidate = folder / SETTINGS_FILE
        if candidate.is_file():
            try:
                found = json.loads(candidate.read_text(encoding="utf-8"))
            except (OSError, ValueError) as e:
                raise Skip(f"{candidate} is not readable JSON ({type(e).__name__}); memory is off here until it is fixed")
            return found if isinstance(found, dict) else {}
    return {}


def settings(event: dict) -> dict:
    start = os.environ.get("CLAUDE_PROJECT_DIR") or event.get("cwd")
    file = project_settings(start)
    mode = str(os.environ.get("AMBER_MEMORY") or file.get("memory") or "on").strip().lower()
    if mode not in MODES:
        mode = "off"  # as everywhere in Amber: a value we do not know means no memory, not full memory
    project = str(os.environ.get("AMBER_PROJECT") or file.get("project") or "").strip() or None
    if project and not PROJECT_RE.match(project):
        log("config", f"project {project!r} is not a valid name (letters, digits, . _ -, up to 64); recalling without it")
        project = None
    url = (os.environ.get("AMBER_URL") or DEFAULT_URL).rstrip("/")
    return {"mode": mode, "project": project, "url": url, "key": os.environ.get("AMBER_KEY") or ""}


# ---- HTTP ---------------------------------------------------------------------------------------


class _Deadline(Exception):
    pass


def _on_alarm(signum, frame):  # noqa: ARG001
    raise _Deadline()


def call(cfg: dict, method: str, path: str, body: dict | None, deadline: float) -> dict:
    """One REST call, within `deadline` seconds overall (a socket timeout alone restarts on every
    byte a slow server sends)."""
    host = urllib.parse.urlsplit(cfg["url"]).hostname or ""
    headers = {"Accept": "application/json", "X-Amber-Client": CLIENT}
    if cfg["key"]:
        headers["Authorization"] = f"Bearer {cfg['key']}"
    elif host not in ("127.0.0.1", "localhost", "::1"):
        # a host that is not this machine always needs a key; one on this machine may have none configured
        raise Skip("AMBER_KEY is not set")
    quiet = data_dir() / "unresponsive"
    try:
        since = time.time() - quiet.stat().st_mtime
    except OSError:
        since = None
    if since is not None and since < QUIET_S:
        # a hung host would otherwise cost every prompt its full deadline
        raise Skip(f"{method} {path}: skipped, Amber did not answer {since:.0f} s ago")
    data = None
    if body is not None:
        data = json.dumps(body, ensure_ascii=False).encode("utf-8")
        headers["Content-Type"] = "application/json"
    request = urllib.request.Request(cfg["url"] + path, data=data, headers=headers, method=method)
    # a proxy from the environment has no business between Claude Code and an Amber on this machine
    handlers = [urllib.request.ProxyHandler({})] if host in ("127.0.0.1", "localhost", "::1") else []
    opener = urllib.request.build_opener(*handlers)
    timer = hasattr(signal, "setitimer")
    if timer:
        signal.signal(signal.SIGALRM, _on_alarm)
        signal.setitimer(signal.ITIMER_REAL, deadline)
    try:
        with opener.open(request, timeout=deadline) as response:
            return json.loads(response.read().decode("utf-8") or "{}")
    except urllib.error.HTTPError as e:
        detail = ""
        try:
            detail = json.loads(e.read().decode("utf-8")).get("error", "")
        except Exception:  # noqa: BLE001  (the body is only a hint for the log line)
            pass
        hint = " (check AMBER_KEY)" if e.code in (401, 403) else ""
        raise Skip(f"{method} {path}: HTTP {e.code} {detail}{hint}".rstrip(), e.code)
    except _Deadline:
        quiet.touch()
        raise Skip(f"{method} {path}: no answer within {deadline:g} s; not asked again for {QUIET_S} s")
    finally:
        if timer:
            signal.setitimer(signal.ITIMER_REAL, 0)


# ---- rendering ----------------------------------------------------------------------------------


def boot_text(boot: object) -> str:
    """The host renders the boot pack (digest, pinned facts, glossary) as one fenced block, with the
    same escaping as recall; anything else is not injected."""
    text = boot.get("text") if isinstance(boot, dict) else None
    if not isinstance(text, str) or not (text.startswith(OPEN + "\n") and text.endswith("\n" + CLOSE)):
        return ""
    return text


def context(moment: str, text: str) -> None:
    print(json.dumps({"hookSpecificOutput": {"hookEventName": moment, "additionalContext": text}}, ensure_ascii=False))


def fingerprint(text: str) -> str:
    """A turn's digest as Amber computes it (core.fingerprint; a test keeps them equal)."""
    head = " ".join(text[: 64 * FINGERPRINT_CHARS].split())[: 4 * FINGERPRINT_CHARS]  # NFKC on a bounded head only
    norm = " ".join(unicodedata.normalize("NFKC", head).casefold().split())[:FINGERPRINT_CHARS]
    return hashlib.sha256(norm.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def clip(text: str, limit: int = MESSAGE_MAX_CHARS) -> str:
    """A long paste keeps its head and tail and says how much was cut (as Amber's other captures do)."""
    if len(text) <= limit:
        return text
    keep = limit - 64
    return text[: keep // 2] + f"\n[… {len(text) - keep} characters not kept …]\n" + text[len(text) - (keep - keep // 2) :]


# ---- per-session state: the prompt waiting for its answer, and turns not yet sent -------------


def _state_path(session: str) -> Path:
    safe = re.sub(r"[^A-Za-z0-9_.-]", "_", session)[:120] or "unknown"
    folder = data_dir() / "sessions"
    folder.mkdir(exist_ok=True)
    return folder / f"{safe}.json"


def load_state(session: str) -> dict:
    try:
        state = json.loads(_state_path(session).read_text(encoding="utf-8"))
        return state if isinstance(state, dict) else {}
    except (OSError, ValueError):
        return {}


def save_state(session: str, state: dict) -> None:
    path = _state_path(session)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(state, ensure_ascii=False), encoding="utf-8")
    tmp.replace(path)  # atomic: a hook killed mid-write leaves the old state, not half a file


def prune_sessions(now: float) -> None:
    """Sessions that never ended cleanly (a crash, a closed terminal) leave a file; drop old ones."""
    for path in (data_dir() / "sessions").glob("*.json") if (data_dir() / "sessions").is_dir() else ():
        try:
            if now - path.stat().st_mtime > STALE_S:
                path.unlink()
        except OSError:
            pass


def now_iso() -> str:
    return datetime.now(timezone.utc).isoformat()


def turn(session: str, prompt_id: str, role: str, content: str, at: str) -> dict:
    return {"id": f"{'cc' if CLIENT == 'claude-code' else CLIENT}-{session}-{prompt_id}-{role}"[:200], "role": role, "content": clip(content), "client": CLIENT,
            "session": session, "created_at": at}


def send_outbox(cfg: dict, session: str, state: dict, deadline: float) -> None:
    # one entry per id, the latest kept: a request that repeats an id is refused as a whole
    outbox = list({m["id"]: m for m in state.get("outbox") or [] if isinstance(m, dict) and m.get("id")}.values())
    one_by_one = False
    while outbox:
        batch, size = [], 0
        for m in outbox[:1] if one_by_one else outbox:
            size += len(json.dumps(m, ensure_ascii=False).encode("utf-8"))
            if batch and size > BATCH_MAX_BYTES:
                break
            batch.append(m)
        try:
            call(cfg, "POST", "/v1/messages", {"messages": batch, "commands": True}, deadline)
        except Skip as e:
            if e.status is not None and 400 <= e.status < 500 and e.status not in RETRYABLE:
                # refused for what it holds: find the turn it is about, drop only that one, so it
                # does not block every later turn behind it
                if len(batch) > 1:
                    one_by_one = True
                    continue
                outbox = outbox[1:]
                log("capture", f"a turn was refused and dropped ({e})")
                continue
            _keep(session, state, outbox)
            raise
        except BaseException:
            _keep(session, state, outbox)
            raise
        outbox = outbox[len(batch):]
    state["outbox"] = []
    save_state(session, state)


def _keep(session: str, state: dict, outbox: list) -> None:
    # for the next answer or the next session start; ids make a resend harmless
    state["outbox"] = outbox[-OUTBOX_MAX:]
    save_state(session, state)


# ---- the moments --------------------------------------------------------------------------------


def session_start(event: dict, cfg: dict) -> None:
    prune_sessions(time.time())
    if cfg["mode"] in ("on", "read"):
        # the destination is named by the client (claude-code, codex): the host's policy decides what it may receive
        text = boot_text(call(cfg, "GET", f"/v1/boot?model={CLIENT}", None, DEADLINE["session-start"]))
        if text:
            context("SessionStart", text)
    resend_ended(cfg, str(event.get("session_id") or ""))


def resend_ended(cfg: dict, current: str) -> None:
    """Turns of sessions that ended while Amber was unreachable get another try; ids make a repeat harmless."""
    folder = data_dir() / "sessions"
    done = 0
    for path in sorted(folder.glob("*.json")) if folder.is_dir() else ():
        session = path.stem
        state = load_state(session)
        if session == current or not state.get("ended"):
            continue
        if done >= LEFTOVERS_PER_START:
            break
        done += 1
        send_outbox(cfg, session, state, DEADLINE["session-end"])
        path.unlink(missing_ok=True)


def prompt(event: dict, cfg: dict) -> None:
    text = str(event.get("prompt") or "")
    session = str(event.get("session_id") or "")
    if not text.strip():
        return
    if cfg["mode"] in ("on", "write") and session:
        # kept locally first, so the turn is captured even when recall below fails
        state = load_state(session)
        pid = event.get("prompt_id") or event.get("turn_id") or f"t{int(time.time() * 1000)}"  # turn_id: Codex
        state["pending"] = {"prompt_id": str(pid), "prompt": text, "at": now_iso()}
        save_state(session, state)
    if cfg["mode"] not in ("on", "read"):
        return
    # the session's own turns are already in Claude Code's request: Amber must not inject them back
    state = load_state(session) if session else {}
    seen = state.get("seen", [])
    body = {"query": text[-QUERY_MAX_CHARS:], "echo": sorted({fingerprint(text), *seen})[:ECHO_MAX], "model": CLIENT}
    pending = state.get("pending") or {}
    if cfg["mode"] == "on" and session and pending.get("prompt") == text:
        # named: the host keeps what it recalled and why (/amber:why), and first carries out a
        # correction of what it showed last ("that's wrong, ...", "forget #48213"); read mode names nothing
        body.update(why=f"{CLIENT}:{session}:{pending.get('prompt_id')}"[:200], correct=True)
    if cfg["project"]:
        body["project"] = cfg["project"]
    found = call(cfg, "POST", "/v1/recall", body, DEADLINE["prompt"])
    if found.get("text"):
        context("UserPromptSubmit", found["text"])  # already fenced by Amber, as in every other client


def stop(event: dict, cfg: dict) -> None:
    session = str(event.get("session_id") or "")
    if cfg["mode"] not in ("on", "write") or not session:
        return
    state = load_state(session)
    pending = state.pop("pending", None)
    outbox = state.setdefault("outbox", [])
    if pending and pending.get("prompt"):
        pid = pending.get("prompt_id") or "t0"
        outbox.append(turn(session, pid, "user", pending["prompt"], pending.get("at") or now_iso()))
        answer = str(event.get("last_assistant_message") or "")
        if answer.strip():
            outbox.append(turn(session, pid, "assistant", answer, now_iso()))
        said = [fingerprint(pending["prompt"]), *([fingerprint(answer)] if answer.strip() else [])]
        state["seen"] = (state.get("seen", []) + said)[-ECHO_MAX:]
    save_state(session, state)
    send_outbox(cfg, session, state, DEADLINE["stop"])


def session_end(event: dict, cfg: dict) -> None:
    session = str(event.get("session_id") or "")
    if not session:
        return
    state = load_state(session)
    pending = state.pop("pending", None)
    if cfg["mode"] in ("on", "write"):
        if pending and pending.get("prompt"):  # a prompt whose answer never came (interrupted): keep the question
            state.setdefault("outbox", []).append(
                turn(session, pending.get("prompt_id") or "t0", "user", pending["prompt"], pending.get("at") or now_iso()))
        state["ended"] = True  # if this send fails, the next session start sends these turns
        send_outbox(cfg, session, state, DEADLINE["session-end"])
    _state_path(session).unlink(missing_ok=True)


MOMENTS = {"session-start": session_start, "prompt": prompt, "stop": stop, "session-end": session_end}


def main(argv: list[str]) -> int:
    global CLIENT
    moment = argv[1] if len(argv) > 1 else ""
    try:
        if len(argv) > 2 and argv[2] in CLIENTS:
            CLIENT = argv[2]
        if moment not in MOMENTS:
            raise Skip(f"unknown moment {moment!r}; expected one of {', '.join(MOMENTS)}")
        raw = sys.stdin.read()
        event = json.loads(raw) if raw.strip() else {}
        if not isinstance(event, dict):
            raise Skip("the event on stdin is not a JSON object")
        cfg = settings(event)
        if cfg["mode"] == "off" and moment != "session-end":
            return 0
        MOMENTS[moment](event, cfg)
    except Skip as e:
        log(moment, str(e))
    except BaseException as e:  # noqa: BLE001  (fail open: nothing may reach Claude Code but a clean exit)
        if isinstance(e, KeyboardInterrupt):
            log(moment, "interrupted")
        else:
            log(moment, f"{type(e).__name__}: {e}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
