"""ONNX's LSTM, declared the "Adding an ONNX op" way (docs/design.md): its StableHLO
meaning is a `stablehlo.while` over the time steps, which the interpreter runs too.

Per direction (gates in ONNX's order i, o, f, c; `XW = X @ W^T` for all steps first,
as onnxruntime's `UniDirectionalLstm` computes it):

    g = XW[t] + H @ R^T                               (4H wide)
    i = f(clip(g_i + P_i * C + Wb_i + Rb_i))
    f = f(clip(g_f + P_f * C + Wb_f + Rb_f))           (input_forget: 1 - i)
    c = g(clip(g_c + Wb_c + Rb_c))
    C' = f * C + i * c
    o = f(clip(g_o + P_o * C' + Wb_o + Rb_o))
    H' = o * h(C')

with `f, g, h` the direction's `activations` (Sigmoid, Tanh, Tanh by default), `clip`
the attribute (none: no clipping). With `sequence_lens`, a batch row past its length
keeps its state and writes zeros to Y, and its Y_h / Y_c are zeros when its length is
0 (onnxruntime); the reverse direction reads each row's first `len` steps backwards
(ReverseSequence), and writes them back in place. `layout = 1`: X, Y, Y_h and Y_c batch
first. Absent outputs are `none`-typed results (onnx-mlir's importer).

The step's matrix product is a hook (`Gemm`): the float op's `dot_general`, or
com.microsoft DynamicQuantizeLSTM's dynamically quantized integer product
(`qcomp.dialects.onnx.sequence_contrib`).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from xdsl.builder import InsertPoint
from xdsl.dialects.builtin import ArrayAttr, FloatAttr, IntegerAttr, IntegerType, StringAttr, TensorType
from xdsl.ir import Block, Region, SSAValue
from xdsl.irdl import irdl_op_definition, operand_def, opt_prop_def, result_def, traits_def
from xdsl.traits import NoMemoryEffect

from qcomp.dialects import stablehlo as sh
from qcomp.dialects.facts import NO_QUANTIZATION
from qcomp.dialects.onnx import to_stablehlo as ts
from qcomp.dialects.onnx.core import (
    Lowering,
    OnnxFacts,
    QuantizerForms,
    attr,
    elements_in,
    fail,
    is_none,
    static_shape,
)
from qcomp.dialects.onnx.float_common import FLOAT_T, OnnxOp, _same_element
from qcomp.dialects.stablehlo.attrs import DotDimensionNumbersAttr, GatherDimensionNumbersAttr
from qcomp.dialects.stablehlo.format import i64_array

I64 = IntegerType(64)
ACTIVATIONS = ("Sigmoid Tanh Relu HardSigmoid LeakyRelu Affine ThresholdedRelu ScaledTanh Elu "
               "Softsign Softplus").split()
_ALPHA_BETA = dict(zip("Affine LeakyRelu ThresholdedRelu ScaledTanh HardSigmoid Elu".split(),
                       ((1.0, 0.0), (0.01, None), (1.0, None), (1.0, 1.0), (0.2, 0.5),
                        (1.0, None))))
"""Activations that read alpha (and beta) from `activation_alpha` / `activation_beta`,
each taking the next value in order (onnxruntime's `ActivationFuncs`), else this default."""


class E:
    """Elementwise steps of one element type and shape through the pass's builder."""

    def __init__(self, b, e, shape):
        self.b, self.e, self.shape = b, e, tuple(shape)

    def op(self, cls, *xs):
        return self.b.op(cls, list(xs), self.e, self.shape)

    def c(self, v):
        return self.b.splat(v, self.e, self.shape)

    def add(self, x, y):
        return self.op(sh.AddOp, x, y)

    def mul(self, x, y):
        return self.op(sh.MultiplyOp, x, y)

    def select(self, p, x, y):
        return self.op(sh.SelectOp, p, x, y)

    def lt(self, x, y):
        return self.b.emit(sh.CompareOp(x, y, "LT"))


def activation(x: E, name: str, v: SSAValue, alpha, beta) -> SSAValue:
    """ONNX's RNN activation `name` of `v` (alpha, beta as `_ALPHA_BETA` resolves them)."""
    if name == "Sigmoid":
        return x.op(sh.LogisticOp, v)
    if name == "Tanh":
        return x.op(sh.TanhOp, v)
    if name == "Relu":
        return x.op(sh.MaximumOp, v, x.c(0))
    if name == "Affine":
        return x.add(x.mul(v, x.c(alpha)), x.c(beta))
    if name == "HardSigmoid":
        return x.op(sh.ClampOp, x.b.constant(np.array(0.0), x.e),
                    x.add(x.mul(v, x.c(alpha)), x.c(beta)), x.b.constant(np.array(1.0), x.e))
    if name == "LeakyRelu":
        return x.select(x.lt(v, x.c(0)), x.mul(v, x.c(alpha)), v)
    if name == "ThresholdedRelu":
        return x.select(x.lt(x.c(alpha), v), v, x.c(0))
    if name == "ScaledTanh":
        return x.mul(x.c(alpha), x.op(sh.TanhOp, x.mul(v, x.c(beta))))
    if name == "Elu":
        em1 = x.op(sh.ExponentialMinusOneOp, v)
        return x.select(x.lt(v, x.c(0)), x.mul(em1, x.c(alpha)), v)
    if name == "Softsign":
        return x.op(sh.DivideOp, v, x.add(x.op(sh.AbsOp, v), x.c(1)))
    assert name == "Softplus"
    return x.op(sh.LogPlusOneOp, x.op(sh.ExponentialOp, v))


def activations(op) -> list[tuple[str, float | None, float | None]]:
    """The (name, alpha, beta) of each of the op's f, g, h per direction."""
    dirs = 2 if lstm_attr(op, "direction") == "bidirectional" else 1
    names = attr(op, "activations") or "Sigmoid Tanh Tanh".split() * dirs
    alphas = list(attr(op, "activation_alpha") or [])
    betas = list(attr(op, "activation_beta") or [])
    if not all(isinstance(n, str) for n in names) or not all(
            isinstance(v, float) for v in (*alphas, *betas)):
        fail(f"'{op.name}' op activations must be strings, activation_alpha and "
             "activation_beta floats")
    out = []
    for n in names:
        canon = next((a for a in ACTIVATIONS if a.lower() == n.lower()), None)
        if canon is None:
            fail(f"'{op.name}' op activation '{n}' is not one of {', '.join(ACTIVATIONS)}")
        da, db = _ALPHA_BETA.get(canon, (None, None))
        a = (alphas.pop(0) if alphas else da) if da is not None else None
        b_ = (betas.pop(0) if betas else db) if db is not None else None
        out.append((canon, a, b_))
    return out


# -- the lowering -------------------------------------------------------------------------

LSTM_DEFAULTS = {"direction": "forward", "input_forget": 0, "layout": 0}


def lstm_attr(op, name: str):
    """An LSTM attribute of `op` (LSTM or DynamicQuantizeLSTM), or its default."""
    v = attr(op, name)
    return LSTM_DEFAULTS.get(name) if v is None else v

Gemm = Callable[..., Callable[..., SSAValue]]
"""`gemm_of(op, b, d, which)` prepares direction `d`'s weight `which` ("W" or "R") with the
builder `b` (before the loop) and returns `mul(b, a, rows, keep=None)`: `a` [rows, K] @
that weight -> [rows, 4H]; `keep`: the rows that count ([rows] i1, None: all), the
others' results are not read (DynamicQuantizeLSTM leaves them out of its range)."""


def float_gemm(op, b, d, which):
    """`a @ W[d]^T` (or R) with `dot_general` on the op's float weights."""
    w = op.W if which == "W" else op.R
    _, h4, k = ts.shape_of(w)
    wd = b.reshape(_slice(b, w, [d, 0, 0], [d + 1, h4, k]), (h4, k))
    dn = DotDimensionNumbersAttr.get([], [], [1], [1])

    def mul(b, a, rows, keep=None):
        return b.op(sh.DotGeneralOp, [a, wd], ts.element_of(w), (rows, h4),
                    dot_dimension_numbers=dn)
    return mul


def _slice(b, v, starts, limits):
    """`v[starts:limits]` (`v` itself when that is all of it)."""
    e = ts.element_of(v)
    if list(starts) == [0] * len(starts) and tuple(limits) == ts.shape_of(v):
        return v
    return b.op(sh.SliceOp, [v], e, tuple(hi - lo for lo, hi in zip(starts, limits)),
                start_indices=i64_array(starts), limit_indices=i64_array(limits),
                strides=i64_array([1] * len(starts)))


def _row(b, v, d, n):
    """`v[d]` of a [D, n] (or [D, B, n]) value, flattened past its first dimension."""
    s = ts.shape_of(v)
    return b.reshape(_slice(b, v, [d, *[0] * (len(s) - 1)], [d + 1, *s[1:]]), s[1:])


def reverse_sequence(b, v, lens):
    """Each batch row's first `lens[b]` steps of `v` [S, B, F] reversed, the rest kept
    (ONNX's ReverseSequence, time axis 0, batch axis 1): a gather with batch dimension 1
    at index `t < len ? len - 1 - t : t`."""
    s, n, f = ts.shape_of(v)
    t = b.emit(sh.IotaOp(0, TensorType(I64, (s, n))))
    ln = b.broadcast_in_dim(b.convert(lens, I64), (s, n), [1])
    rev = b.op(sh.SubtractOp, [b.op(sh.SubtractOp, [ln, b.splat(1, I64, (s, n))], I64), t], I64)
    idx = b.op(sh.SelectOp, [b.emit(sh.CompareOp(t, ln, "LT")), rev, t], I64, (s, n))
    dn = GatherDimensionNumbersAttr.get(offset_dims=[2], collapsed_slice_dims=[0],
                                        operand_batching_dims=[1], start_indices_batching_dims=[1],
                                        start_index_map=[0], index_vector_dim=2)
    return b.op(sh.GatherOp, [v, b.reshape(idx, (s, n, 1))], ts.element_of(v), (s, n, f),
                dimension_numbers=dn, slice_sizes=i64_array([1, 1, f]))


def _reverse(b, v):
    return b.op(sh.ReverseOp, [v], ts.element_of(v), ts.shape_of(v), dimensions=i64_array([0]))


def lstm_lowering(gemm_of: Gemm, operands: Callable[[object], dict]):
    """The `Lowering.build` of an LSTM-like op: `operands(op)` names its X, B,
    sequence_lens, initial_h, initial_c, P (None when absent), `gemm_of` its
    products (`Gemm`)."""

    def build(b, op, out):
        v = operands(op)
        x = v["X"]
        e = ts.element_of(x)
        if lstm_attr(op, "layout"):
            bs, s, k = ts.shape_of(x)
            x = b.op(sh.TransposeOp, [x], e, (s, bs, k), permutation=i64_array([1, 0, 2]))
            for name in ("initial_h", "initial_c"):  # [B, D, H] -> [D, B, H]
                if v[name] is not None:
                    bs, dd, hs = ts.shape_of(v[name])
                    v[name] = b.op(sh.TransposeOp, [v[name]], e, (dd, bs, hs),
                                   permutation=i64_array([1, 0, 2]))
        s, n, k = ts.shape_of(x)
        hh = attr(op, "hidden_size")
        direction = lstm_attr(op, "direction")
        dirs = 2 if direction == "bidirectional" else 1
        acts = activations(op)
        gemm = gemm_of
        lens = v["sequence_lens"]
        ys, hs, cs = [], [], []
        for d in range(dirs):
            reverse = direction == "reverse" or d == 1
            y, h, c = _direction(b, op, v, gemm, x, d, reverse, acts[3 * d:3 * d + 3], e,
                                 (s, n, k, hh))
            ys.append(b.reshape(y, (s, 1, n, hh)))
            if lens is not None:  # a row of length 0: zeros (onnxruntime)
                zero = b.broadcast_in_dim(b.emit(sh.CompareOp(
                    lens, b.splat(0, ts.element_of(lens), (n,)), "EQ")), (n, hh), [0])
                h = b.op(sh.SelectOp, [zero, b.splat(0, e, (n, hh)), h], e, (n, hh))
                c = b.op(sh.SelectOp, [zero, b.splat(0, e, (n, hh)), c], e, (n, hh))
            hs.append(b.reshape(h, (1, n, hh)) if not is_none(op.results[1]) else None)
            cs.append(b.reshape(c, (1, n, hh)) if not is_none(op.results[2]) else None)

        def join(parts, dim):
            if parts[0] is None:
                return None
            return parts[0] if len(parts) == 1 else b.emit(sh.ConcatenateOp(parts, dim))

        y = join(ys, 1)
        yh, yc = join(hs, 0), join(cs, 0)
        if lstm_attr(op, "layout"):
            y = b.op(sh.TransposeOp, [y], e, (n, s, dirs, hh), permutation=i64_array([2, 0, 1, 3]))
            yh, yc = (t if t is None else b.op(sh.TransposeOp, [t], e, (n, dirs, hh),
                                                 permutation=i64_array([1, 0, 2]))
                      for t in (yh, yc))
        return [None if is_none(r) else val for r, val in zip(op.results, (y, yh, yc))]
    return build


def _direction(b, op, v, gemm, x, d, reverse, acts, e, dims):
    """One direction's Y [S, B, H], final H and C [B, H]."""
    s, n, k, hh = dims
    lens = v["sequence_lens"]
    if reverse:
        x = _reverse(b, x) if lens is None else reverse_sequence(b, x, lens)
    keep = None
    if lens is not None:  # the steps any row takes (onnxruntime's max_sequence_length)
        longest = b.reduce(b.convert(lens, I64), [0], sh.MaximumOp, 0)
        keep = b.reshape(b.emit(sh.CompareOp(b.emit(sh.IotaOp(0, TensorType(I64, (s, n)))),
                                             b.broadcast_in_dim(longest, (s, n), []), "LT")),
                         (s * n,))
    wmul, rmul = gemm(op, b, d, "W"), gemm(op, b, d, "R")
    xw = b.reshape(wmul(b, b.reshape(x, (s * n, k)), s * n, keep), (s, n, 4 * hh))
    bias = None
    if v["B"] is not None:
        wb = _row(b, v["B"], d, 8 * hh)
        bias = b.op(sh.AddOp, [_slice(b, wb, [0], [4 * hh]), _slice(b, wb, [4 * hh], [8 * hh])],
                    e, (4 * hh,))
    p = None if v["P"] is None else _row(b, v["P"], d, 3 * hh)
    h0 = b.splat(0, e, (n, hh)) if v["initial_h"] is None else _row(b, v["initial_h"], d, hh)
    c0 = b.splat(0, e, (n, hh)) if v["initial_c"] is None else _row(b, v["initial_c"], d, hh)
    y0 = b.splat(0, e, (s, n, hh))
    carried = [b.constant(np.array(0), I64), h0, c0, y0, h0]  # and the last Y row
    types = [t.type for t in carried]

    cond = Block(arg_types=types)
    cb = type(b)(b.rewriter, point=InsertPoint.at_end(cond))
    cb.insert(sh.ReturnOp(cb.emit(sh.CompareOp(cond.args[0], cb.constant(np.array(s), I64),
                                               "LT"))))
    body = Block(arg_types=types)
    bb = type(b)(b.rewriter, point=InsertPoint.at_end(body))
    bb.folded = getattr(b, "folded", [])
    t, h, c, y, last = body.args
    zero = bb.constant(np.array(0), I64)
    xt = bb.reshape(bb.op(sh.DynamicSliceOp, [xw, t, zero, zero], e, (1, n, 4 * hh),
                          slice_sizes=i64_array([1, n, 4 * hh])), (n, 4 * hh))
    # onnxruntime multiplies the last Y row (zeros for a finished row), not the held H
    g = bb.op(sh.AddOp, [xt, rmul(bb, last, n)], e, (n, 4 * hh))
    hn, cn = _cell(bb, op, g, c, bias, p, acts, e, (n, hh))
    if lens is not None:
        valid = bb.broadcast_in_dim(bb.emit(sh.CompareOp(
            bb.broadcast_in_dim(t, (n,), []), bb.convert(lens, I64), "LT")), (n, hh), [0])
        hn = bb.op(sh.SelectOp, [valid, hn, h], e, (n, hh))
        cn = bb.op(sh.SelectOp, [valid, cn, c], e, (n, hh))
        yt = bb.op(sh.SelectOp, [valid, hn, bb.splat(0, e, (n, hh))], e, (n, hh))
    else:
        yt = hn
    y = bb.op(sh.DynamicUpdateSliceOp, [y, bb.reshape(yt, (1, n, hh)), t, zero, zero], e,
              (s, n, hh))
    bb.insert(sh.ReturnOp(bb.op(sh.AddOp, [t, bb.constant(np.array(1), I64)], I64, ()),
                          hn, cn, y, yt))
    loop = b.insert(sh.WhileOp.create(operands=carried, result_types=types,
                                      regions=[Region(cond), Region(body)]))
    _, h, c, y, _ = loop.results
    if reverse:
        y = _reverse(b, y) if lens is None else reverse_sequence(b, y, lens)
    return y, h, c


def _cell(b, op, g, c, bias, p, acts, e, shape):
    """One step's H', C' from the gates' products `g` [B, 4H] (the module docstring)."""
    n, hh = shape
    x = E(b, e, shape)
    clip = attr(op, "clip")

    def gate(j, peep=None, cell=None):
        v = _slice(b, g, [0, j * hh], [n, (j + 1) * hh])
        if peep is not None:
            v = x.add(v, x.mul(b.broadcast_in_dim(_slice(b, p, [peep * hh], [(peep + 1) * hh]),
                                                  shape, [1]), cell))
        if bias is not None:
            v = x.add(v, b.broadcast_in_dim(_slice(b, bias, [j * hh], [(j + 1) * hh]), shape, [1]))
        if clip is not None:
            v = x.op(sh.ClampOp, b.constant(np.array(-clip), e), v, b.constant(np.array(clip), e))
        return v

    (fn, fa, fb), (gn, ga, gb), (hn, ha, hb) = acts
    peep = p is not None
    i = activation(x, fn, gate(0, 0 if peep else None, c), fa, fb)
    if lstm_attr(op, "input_forget"):
        f = x.op(sh.SubtractOp, x.c(1), i)
    else:
        f = activation(x, fn, gate(2, 2 if peep else None, c), fa, fb)
    cc = activation(x, gn, gate(3), ga, gb)
    cn = x.add(x.mul(f, c), x.mul(i, cc))
    o = activation(x, fn, gate(1, 1 if peep else None, cn), fa, fb)
    return x.mul(o, activation(x, hn, cn, ha, hb)), cn


def lens_in_range(op, *args) -> None:
    """onnxruntime's run-time check: every sequence length is in [0, seq_length]."""
    x, lens = args[0], args[4] if len(args) > 4 else None
    if lens is None:
        return
    steps = np.shape(x)[1 if lstm_attr(op, "layout") else 0]
    if np.any(np.asarray(lens) < 0) or np.any(np.asarray(lens) > steps):
        raise ValueError(f"sequence_lens must be in [0, {steps}], got "
                         f"{np.asarray(lens).tolist()}")


def _lstm_operands(op) -> dict:
    return {k: (None if is_none(getattr(op, k)) else getattr(op, k))
            for k in ("X", "B", "sequence_lens", "initial_h", "initial_c", "P")}


# -- the op -------------------------------------------------------------------------------

def lstm_shapes(op, x, hidden: int, dirs: int) -> list[tuple[int, ...]]:
    """Y, Y_h, Y_c's shapes for X's shape `x`."""
    if lstm_attr(op, "layout"):
        n, s = x[0], x[1]
        return [(n, s, dirs, hidden), (n, dirs, hidden), (n, dirs, hidden)]
    s, n = x[0], x[1]
    return [(s, dirs, n, hidden), (dirs, n, hidden), (dirs, n, hidden)]


def expect_shape(op, v, label: str, want) -> None:
    """`v` (when present and ranked) has the shape `want` (None: any size there)."""
    have = None if v is None or is_none(v) else static_shape(v)
    if have is None:
        return
    if len(have) != len(want) or any(w is not None and h >= 0 and h != w
                                     for h, w in zip(have, want)):
        fail(f"'{op.name}' op {label} must have shape [" + ", ".join(
            "?" if w is None else str(w) for w in want) + f"], got {have}")


def check_lstm(op, v: dict, gates_last: bool = False) -> None:
    """The attribute and shape rules of LSTM (and DynamicQuantizeLSTM, whose W and R are
    [D, K, 4H]: `gates_last`); `v`: the operands by ONNX name (None when absent)."""
    if lstm_attr(op, "direction") not in ("forward", "reverse", "bidirectional"):
        fail(f"'{op.name}' op direction must be forward, reverse or bidirectional, "
             f"got \"{lstm_attr(op, 'direction')}\"")
    if lstm_attr(op, "layout") not in (0, 1):
        fail(f"'{op.name}' op layout must be 0 or 1, got {lstm_attr(op, 'layout')}")
    hs = attr(op, "hidden_size")
    if not isinstance(hs, int) or hs <= 0:
        fail(f"'{op.name}' op requires a positive INT attribute 'hidden_size'")
    dirs = 2 if lstm_attr(op, "direction") == "bidirectional" else 1
    acts = activations(op)
    if len(acts) != 3 * dirs:
        fail(f"'{op.name}' op takes {3 * dirs} activations, got {len(acts)}")
    x = static_shape(v["X"])
    if x is not None and len(x) != 3:
        fail(f"'{op.name}' op X must have rank 3, got {x}")
    s, n, k = [None if x is None or d < 0 else d for d in (x or [-1] * 3)]
    if lstm_attr(op, "layout"):
        s, n = n, s
    for name, rows in (("W", k), ("R", hs)):
        expect_shape(op, v[name], name, (dirs, rows, 4 * hs) if gates_last else
                     (dirs, 4 * hs, rows))
    state = (n, dirs, hs) if lstm_attr(op, "layout") else (dirs, n, hs)
    for name, want in (("B", (dirs, 8 * hs)), ("sequence_lens", (n,)), ("initial_h", state),
                       ("initial_c", state), ("P", (dirs, 3 * hs))):
        expect_shape(op, v[name], name, want)


@irdl_op_definition
class LSTMOp(OnnxOp):
    """ONNX LSTM (the module docstring): Y, Y_h, Y_c (each may be `none`)."""

    name = "onnx.LSTM"
    X = operand_def()
    W = operand_def()
    R = operand_def()
    B = operand_def()
    sequence_lens = operand_def()
    initial_h = operand_def()
    initial_c = operand_def()
    P = operand_def()
    activation_alpha = opt_prop_def(ArrayAttr)
    activation_beta = opt_prop_def(ArrayAttr)
    activations = opt_prop_def(ArrayAttr)
    clip = opt_prop_def(FloatAttr)
    direction = opt_prop_def(StringAttr)
    hidden_size = opt_prop_def(IntegerAttr)
    input_forget = opt_prop_def(IntegerAttr)
    layout = opt_prop_def(IntegerAttr)
    Y = result_def()
    Y_h = result_def()
    Y_c = result_def()
    traits = traits_def(NoMemoryEffect(), NO_QUANTIZATION, OnnxFacts(
        "LSTM", (1, 7, 14, 22), ("X", "W", "R", "B?", "sequence_lens?", "initial_h?",
                                 "initial_c?", "P?"), ("Y", "Y_h", "Y_c"),
        {"direction": "forward", "input_forget": 0, "layout": 0}),
        Lowering(lstm_lowering(float_gemm, _lstm_operands), check=lens_in_range,
                 shaped_by_operands=True),
        QuantizerForms(dynamic="DynamicQuantizeLSTM"))

    def check(self) -> None:
        for i, v in enumerate((self.X, self.W, self.R)):
            elements_in(self, v, f"operand #{i}", FLOAT_T)
        _same_element(self, [v for v in (self.X, self.W, self.R, self.B, self.initial_h,
                                         self.initial_c, self.P, *self.results)
                             if not is_none(v)])
        elements_in(self, self.sequence_lens, "operand #4", ("int32",), optional=True)
        check_lstm(self, {**_lstm_operands(self), "W": self.W, "R": self.R})

    def infer(self):
        x = static_shape(self.X)
        if x is None or len(x) != 3:
            return None
        dirs = 2 if lstm_attr(self, "direction") == "bidirectional" else 1
        want = lstm_shapes(self, x, attr(self, "hidden_size"), dirs)
        for r, w in zip(self.results, want):
            have = static_shape(r) if not is_none(r) else None
            if have is not None and (len(have) != 3 + (r is self.Y) or any(
                    a != c and a >= 0 and c >= 0 for a, c in zip(have, w))):
                fail(f"'{self.name}' op result shape {have} is not {list(w)}")
        return None  # each result checked above (Y may be none)


SEQUENCE_OPS = [LSTMOp]
