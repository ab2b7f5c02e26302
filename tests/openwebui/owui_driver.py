"""Runs inside Open WebUI's venv (.venv-owui): loads the Amber filter through Open WebUI's own loader
and calls it the way Open WebUI does, for tests running in Amber's venv.

    .venv-owui/bin/python tests/openwebui/owui_driver.py openwebui_functions/amber_memory_filter.py

Protocol: one JSON request per line on stdin, one JSON answer per line on the original stdout
(Open WebUI's logging is moved to stderr so it cannot corrupt the answers). The first line out is
{"ready": true, "kind": ..., "frontmatter": {...}}. Requests:

    {"op": "calls", "valves": {...}, "concurrent": false,
     "calls": [{"handler": "inlet"|"outlet", "body": {...}, "user": {"id": ..., "name": ...},
                "user_valves": {...} | null, "metadata": {...}, "model": {...}, "emitter": true}]}
      -> {"results": [{"body": ..., "events": [...], "error": null | "...", "raised": bool}],
          "instance_attrs": [...]}
    {"op": "drain"}  -> waits for the filter's background captures; {"drained": n}
"""

from __future__ import annotations

import asyncio
import json
import os
import sys

# Keep the real stdout for answers; everything else printed (Open WebUI's logs) goes to stderr.
_OUT = os.fdopen(os.dup(1), "w", buffering=1)
os.dup2(2, 1)


def answer(obj) -> None:
    _OUT.write(json.dumps(obj, default=str) + "\n")
    _OUT.flush()


async def run_call(instance, call: dict) -> dict:
    events: list[dict] = []

    async def emitter(event: dict) -> None:
        events.append(event)

    kwargs = {"body": call["body"]}
    if call.get("user") is not None:
        user = dict(call["user"])
        # Open WebUI puts the user's valves object on __user__ before calling the handler.
        user["valves"] = instance.UserValves(**(call.get("user_valves") or {}))
        kwargs["__user__"] = user
    if call.get("emitter", True) and call["handler"] == "inlet":
        kwargs["__event_emitter__"] = emitter
    if call.get("metadata") is not None:
        kwargs["__metadata__"] = call["metadata"]
    if call.get("model") is not None:
        kwargs["__model__"] = call["model"]
    handler = getattr(instance, call["handler"])
    try:
        body = await handler(**kwargs)
        return {"body": body, "events": events, "error": None, "raised": False}
    except Exception as e:  # the filter must never get here; the test says so
        return {"body": None, "events": events, "error": f"{type(e).__name__}: {e}", "raised": True}


async def main() -> None:
    from open_webui.utils.plugin import load_function_module_by_id

    src = open(sys.argv[1], encoding="utf-8").read()
    instance, kind, frontmatter, module = await load_function_module_by_id("amber_memory", content=src)
    answer({"ready": True, "kind": kind, "frontmatter": frontmatter, "instance_attrs": sorted(vars(instance))})

    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    while line := await reader.readline():
        req = json.loads(line)
        try:
            if req["op"] == "calls":
                # Open WebUI assigns the stored valves to the shared instance before each call.
                instance.valves = instance.Valves(**(req.get("valves") or {}))
                calls = req["calls"]
                if req.get("concurrent"):
                    results = await asyncio.gather(*(run_call(instance, c) for c in calls))
                else:
                    results = [await run_call(instance, c) for c in calls]
                answer({"results": list(results), "instance_attrs": sorted(vars(instance))})
            elif req["op"] == "drain":
                pending = list(module._PENDING)
                await asyncio.gather(*pending, return_exceptions=True)
                answer({"drained": len(pending)})
            else:
                answer({"driver_error": f"unknown op {req['op']!r}"})
        except Exception as e:
            answer({"driver_error": f"{type(e).__name__}: {e}"})


if __name__ == "__main__":
    asyncio.run(main())
