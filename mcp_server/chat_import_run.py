"""One chat import as Amber's faces run it: `amber import-chats` on the store, and
`POST /v1/import/chats` on a host (the admin page's Maintenance view included). Both store the turns
with the settings' size cap and identity map, then either run the extraction of what came in at once
with the configured model (`extract`) or leave the import's windows queued for the host's scheduled
extraction, and both report the same figures.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from core import LiteLLMClient, Scope, Settings, arun_job, import_chats

from .llm_check import proxy_router

Progress = Callable[[dict[str, Any]], None]
# what a report says of an extraction run now: the run record's figures (core/jobs/runner.py RunRecord)
FIGURES = ("status", "reason", "windows", "facts", "llm_calls", "prompt_tokens", "completion_tokens", "errors")


def import_turns(service: Any, settings: Settings, scope: Scope, path: str | Path, *, source: str = "auto",
                 dry_run: bool = False, openwebui_user: str | None = None, extract: bool = False,
                 progress: Progress = lambda e: None, display_name: str | None = None) -> dict[str, Any]:
    """The import's report (core ImportReport), with `extraction.run`: "now" when `extract` asks for
    the extraction at once (`extract_now`), else "scheduled" (the windows wait for the extraction job)."""
    report = import_chats(service, scope, path, source=source, dry_run=dry_run, openwebui_user=openwebui_user,
                          progress=progress, display_name=display_name, max_turns=settings.import_max_turns,
                          person=settings.person).as_dict()
    report["extraction"]["run"] = "now" if extract else "scheduled"
    return report


def job_llm(settings: Settings) -> Any:
    """The model the extraction job uses; inside the LiteLLM proxy through its router, as the
    scheduled runs and the admin's "run now" call it."""
    return LiteLLMClient(settings.llm_model, router_getter=proxy_router, timeout=settings.llm_timeout_s)


async def extract_now(service: Any, settings: Settings, user: str, report: dict[str, Any], *, llm: Any = None,
                      progress: Progress = lambda e: None) -> dict[str, Any]:
    """The extraction job for this person now: every pending window, the import's among them, under
    the job's lease (held elsewhere, the run is `skipped` and the windows stay queued). Adds what it
    did to `report` as `extracted` and returns it. Progress: `{"stage": "extract", "windows": done,
    "of": the import's windows, "facts": added}` after each window."""
    planned = int(report["extraction"]["windows"])
    done = added = 0

    def on(e: dict[str, Any]) -> None:
        nonlocal done, added
        if e.get("stage") == "fact" and e.get("action") == "added":
            added += 1
        elif e.get("stage") in ("window_done", "model_error"):
            done += 1
            progress({"stage": "extract", "windows": done, "of": planned, "facts": added})

    progress({"stage": "extract", "windows": 0, "of": planned, "facts": 0})
    rec = await arun_job("extract", service, settings, llm=llm if llm is not None else job_llm(settings), user=user, progress=on)
    report["extracted"] = x = {k: rec.get(k) for k in FIGURES}
    if x["status"] not in ("ok", "partial") or (x.get("windows") or {}).get("left_pending"):
        report["extraction"]["run"] = "scheduled"  # what did not run now waits for the scheduled extraction
    return x
