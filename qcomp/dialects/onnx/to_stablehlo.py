"""The StableHLO meaning of onnx-mlir's float ops: each op declares
`Lowering(build)` (`qcomp.dialects.onnx.core`) with a builder function of this module,
the IR onnx-mlir's `--convert-onnx-to-stablehlo` emits (`src/Conversion/ONNXToStablehlo/`)
for static shapes. `onnx-legalize-to-stablehlo` rewrites the op with it and the
interpreter runs the op as what it builds (`qcomp.interpreter.onnx_float_functions`).

A builder is `build(b, op, out) -> SSAValue`: `b` is the pass's builder (qcomp's pass
`Builder`: `b.op(cls, operands, element, shape, **props)`, `b.emit(op)`,
`b.constant(array, element)`, `b.broadcast_in_dim(x, shape, dims)`, and the steps
`b.numpy_broadcast(x, shape)`, `b.reduce(x, dims, kind, init)`,
`b.reduce_window(x, init, kind, window, shape)`, `b.splat(value, element, shape)`,
`b.reshape(x, shape)`, `b.quantized_constant(q, dead)`), `op` the ONNX op, `out` its
result's static shape. `Unsupported(message)`: the op stays, the message is the remark.

Shorthands: `unary(sh.TanhOp)` (the StableHLO op on the operand), `binary(sh.AddOp)`
(NumPy broadcasting, then the StableHLO op).
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import IntegerAttr, IntegerType, TensorType, i64
from xdsl.ir import Operation, SSAValue

from qcomp.dialects import stablehlo as sh
from qcomp.dialects.onnx import core
from qcomp.dialects.onnx import float_shapes as fs
from qcomp.dialects.onnx.float_common import ints_attr, window_of
from qcomp.dialects.quant import UniformQuantizedType, quantized_element
from qcomp.dialects.stablehlo.attrs import (
    ConvDimensionNumbersAttr,
    DotDimensionNumbersAttr,
    GatherDimensionNumbersAttr,
)
from qcomp.dialects.stablehlo.format import i64_array, padding_attr

PASS = "onnx-legalize-to-stablehlo"


class Unsupported(Exception):
    """The op stays; the message is the remark."""


def static(v: SSAValue, op: Operation | None = None) -> tuple[int, ...]:
    """The static shape of `v`, else Unsupported naming `op`."""
    t = v.type
    if not isinstance(t, TensorType) or any(d < 0 for d in t.get_shape()):
        raise Unsupported(f"{PASS}: '{op.name if op else '?'}' needs static shapes, got "
                          f"'{core.type_str(t)}'")
    return tuple(t.get_shape())


def shape_of(v: SSAValue) -> tuple[int, ...]:
    return tuple(v.type.get_shape())  # type: ignore[attr-defined]


def element_of(v: SSAValue):
    return v.type.element_type  # type: ignore[attr-defined]


def lowest_highest(e) -> tuple[float, float]:
    """The element type's ends: an integer type's range, else -inf, +inf."""
    if isinstance(e, IntegerType):
        w = e.width.data
        if e.signedness.data.name == "UNSIGNED":
            return 0, 2**w - 1
        return -(2 ** (w - 1)), 2 ** (w - 1) - 1
    return -np.inf, np.inf


def _i64(v: int) -> IntegerAttr:
    return IntegerAttr(v, i64)


# -- shorthands -------------------------------------------------------------------------

def binary(cls):
    """`cls(A, B)`, both broadcast NumPy-style to the result's shape."""
    def lower(b, op, out):
        e = element_of(op.results[0])
        return b.op(cls, [b.numpy_broadcast(op.A, out), b.numpy_broadcast(op.B, out)], e, out)
    return lower


def unary(cls):
    """`cls(x)` on the op's one operand."""
    return lambda b, op, out: b.op(cls, [op.operands[0]], element_of(op.results[0]), out)


def identity(b, op, out):
    return op.operands[0]


def reshape(b, op, out):
    """Any op that only reshapes its first operand (Reshape, Flatten, Squeeze, ...)."""
    return b.reshape(op.operands[0], out)


# -- elementwise ------------------------------------------------------------------------

def relu(b, op, out):
    e = element_of(op.Y)
    return b.op(sh.MaximumOp, [op.X, b.splat(0, e, out)], e, out)


def clip(b, op, out):
    """clamp(min, x, max); an absent bound is the type's lowest / highest value."""
    e = element_of(op.output)
    lo, hi = lowest_highest(e)
    bounds = []
    for v, default in ((op.min, lo), (op.max, hi)):
        bounds.append(b.constant(np.array(default), e) if core.is_none(v) else b.reshape(v, ()))
    return b.op(sh.ClampOp, [bounds[0], op.input, bounds[1]], e, out)


def softmax(b, op, out):
    """onnx-mlir's decomposed form: reduce max, subtract, exponential, reduce add, divide."""
    e = element_of(op.output)
    axis = fs.axis_in(core.attr(op, "axis"), len(out))
    kept = [d for d in range(len(out)) if d != axis]
    m = b.broadcast_in_dim(b.reduce(op.input, [axis], sh.MaximumOp, -np.inf), out, kept)
    ex = b.op(sh.ExponentialOp, [b.op(sh.SubtractOp, [op.input, m], e, out)], e, out)
    s = b.broadcast_in_dim(b.reduce(ex, [axis], sh.AddOp, 0), out, kept)
    return b.op(sh.DivideOp, [ex, s], e, out)


# -- contractions -----------------------------------------------------------------------

def _blockwise_weight(op) -> tuple[SSAValue, list[Operation]] | None:
    """MatMul's B when it is `uniform_dequantize` of a 2-D sub-channel (blockwise)
    value: (the quantized value, the ops that may go dead), else None."""
    dq = op.B.owner
    if not isinstance(dq, sh.UniformDequantizeOp):
        return None
    q = dq.operand
    qt = quantized_element(q.type)
    if not isinstance(qt, UniformQuantizedType) or not qt.is_blockwise:
        return None
    if len(shape_of(q)) != 2 or qt.expressed_type != element_of(op.A):
        return None
    return q, [dq]


def matmul(b, op, out):
    """dot (2-D), else dot_general with the batch broadcast; a blockwise B: the hybrid
    dot_general on the quantized weight (docs/blockwise.md)."""
    e = element_of(op.Y)
    a, c = op.A, op.B
    w = _blockwise_weight(op)
    if w is not None:
        # a blockwise weight: the hybrid dot_general (float A, W on its sub-channel
        # type; docs/blockwise.md) contracting A's last dimension with W's first
        q, dead = w
        c = b.quantized_constant(q, dead)
        b.folded += dead
        dn = DotDimensionNumbersAttr.get([], [], [len(shape_of(a)) - 1], [0])
        return b.op(sh.DotGeneralOp, [a, c], e, out, dot_dimension_numbers=dn)
    return contract(b, a, c, e, out)


def contract(b, a: SSAValue, c: SSAValue, e, out: tuple[int, ...]) -> SSAValue:
    """NumPy's matmul of `a` and `c` in element type `e`: dot (2-D), else dot_general
    with the batch broadcast (a 1-D operand a row / column, reshaped away after)."""
    sa, sc = shape_of(a), shape_of(c)
    if len(sa) == 2 and len(sc) == 2:
        return b.op(sh.DotOp, [a, c], e, out)
    if len(sa) == 1:
        a = b.reshape(a, (1, sa[0]))
    if len(sc) == 1:
        c = b.reshape(c, (sc[0], 1))
    sa, sc = shape_of(a), shape_of(c)
    batch = fs.broadcast(sa[:-2], sc[:-2])
    nb = len(batch)
    a = b.numpy_broadcast(a, (*batch, *sa[-2:]))
    c = b.numpy_broadcast(c, (*batch, *sc[-2:]))
    full = (*batch, sa[-2], sc[-1])
    dn = DotDimensionNumbersAttr.get(range(nb), range(nb), [nb + 1], [nb])
    r = b.op(sh.DotGeneralOp, [a, c], e, full, dot_dimension_numbers=dn)
    return b.reshape(r, out)


def gemm(b, op, out):
    """transpose, dot, multiply by alpha, broadcast C, multiply by beta, add."""
    e = element_of(op.Y)
    a, c = op.A, op.B
    if core.attr(op, "transA"):
        a = b.op(sh.TransposeOp, [a], e, shape_of(a)[::-1], permutation=i64_array([1, 0]))
    if core.attr(op, "transB"):
        c = b.op(sh.TransposeOp, [c], e, shape_of(c)[::-1], permutation=i64_array([1, 0]))
    y = b.op(sh.DotOp, [a, c], e, out)
    alpha, beta = core.attr(op, "alpha"), core.attr(op, "beta")
    if alpha != 1.0:
        y = b.op(sh.MultiplyOp, [y, b.splat(alpha, e, out)], e, out)
    if core.is_none(op.C):
        return y
    bias = b.numpy_broadcast(op.C, out)
    if beta != 1.0:
        bias = b.op(sh.MultiplyOp, [bias, b.splat(beta, e, out)], e, out)
    return b.op(sh.AddOp, [y, bias], e, out)


def conv(b, op, out):
    """convolution `[b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1]` (+ broadcast bias, add)."""
    y = convolution(b, op, op.X, op.W, element_of(op.Y), out)
    if core.is_none(op.B):
        return y
    return b.op(sh.AddOp, [y, b.broadcast_in_dim(op.B, out, [1])], element_of(op.Y), out)


def convolution(b, op, xv: SSAValue, wv: SSAValue, e, out: tuple[int, ...]) -> SSAValue:
    """`xv` (N, C, ...) convolved with `wv` (M, C / group, ...) in element type `e`, the
    window (pads, strides, dilations, auto_pad) and `group` of the conv op `op`."""
    x, w = static(xv), static(wv)
    win = window_of(op, x, w[2:])
    n = len(x) - 2
    sp = list(range(2, 2 + n))
    dn = ConvDimensionNumbersAttr.get(0, 1, sp, 1, 0, sp, 0, 1, sp)
    return b.op(sh.ConvolutionOp, [xv, wv], e, out, dimension_numbers=dn,
                window_strides=i64_array(win.strides), padding=padding_attr(win.pads),
                rhs_dilation=i64_array(win.dilations),
                feature_group_count=_i64(core.attr(op, "group")), batch_group_count=_i64(1))


# -- pooling ----------------------------------------------------------------------------

def max_pool(b, op, out):
    """reduce_window maximum from -inf (an integer type's lowest value)."""
    if core.attr(op, "storage_order"):
        raise Unsupported(f"{PASS}: storage_order = 1 (column-major Indices) is not lowered")
    win = window_of(op, static(op.X))
    lowest = lowest_highest(element_of(op.X))[0]  # integers: MaxPool on stored values
    return b.reduce_window(op.X, lowest, sh.MaximumOp, win, out)


def average_pool(b, op, out):
    """reduce_window add / the window's element count (reduce_window add over ones; a
    constant with count_include_pad)."""
    e = element_of(op.Y)
    x = static(op.X)
    win = window_of(op, x)
    total = b.reduce_window(op.X, 0, sh.AddOp, win, out)
    if core.attr(op, "count_include_pad"):
        if any(win.ceil_extra):  # the explicit pads count, ceil_mode's extra room does not
            ones = np.pad(np.ones(x[2:]), win.pads, constant_values=1)
            ones = np.pad(ones, [(0, c) for c in win.ceil_extra])
            view = np.lib.stride_tricks.sliding_window_view(
                ones, [(k - 1) * d + 1 for k, d in zip(win.kernel, win.dilations)])
            sel = (*(slice(None, None, s) for s in win.strides),
                   *(slice(None, None, d) for d in win.dilations))
            count = view[sel].sum(axis=tuple(range(n := len(win.kernel), 2 * n)))
            count = b.broadcast_in_dim(b.constant(count, e), out, list(range(2, len(out))))
        else:
            count = b.splat(float(np.prod(win.kernel)), e, out)
    else:
        ones = b.splat(1, e, x)
        count = b.reduce_window(ones, 0, sh.AddOp, win, out)
    return b.op(sh.DivideOp, [total, count], e, out)


def global_average_pool(b, op, out):
    """reduce add, reshape, divide by the count."""
    e = element_of(op.Y)
    x = static(op.X)
    s = b.reshape(b.reduce(op.X, list(range(2, len(x))), sh.AddOp, 0), out)
    count = b.splat(float(np.prod(x[2:])), e, out)
    return b.op(sh.DivideOp, [s, count], e, out)


# -- data movement ----------------------------------------------------------------------

def transpose(b, op, out):
    perm = ints_attr(op, "perm") or tuple(reversed(range(len(out))))
    return b.op(sh.TransposeOp, [op.data], element_of(op.data), out, permutation=i64_array(perm))


def concat(b, op, out):
    axis = fs.axis_in(core.attr(op, "axis"), len(out))
    return b.emit(sh.ConcatenateOp.create(
        operands=list(op.inputs), result_types=[TensorType(element_of(op.concat_result), out)],
        properties={"dimension": _i64(axis)}))


def gather(b, op, out):
    """negative indices + dim (compare, add, select), gather."""
    data = static(op.data)
    idx_shape = static(op.indices)
    axis = fs.axis_in(core.attr(op, "axis"), len(data))
    ie = element_of(op.indices)
    idx = op.indices
    zero = b.splat(0, ie, idx_shape)
    neg = b.emit(sh.CompareOp(idx, zero, "LT"))
    wrapped = b.op(sh.AddOp, [idx, b.splat(data[axis], ie, idx_shape)], ie)
    idx = b.op(sh.SelectOp, [neg, wrapped, idx], ie, idx_shape)
    q = len(idx_shape)
    idx = b.reshape(idx, (*idx_shape, 1))
    offset = [*range(axis), *range(axis + q, len(data) - 1 + q)]
    dn = GatherDimensionNumbersAttr.get(offset_dims=offset, collapsed_slice_dims=[axis],
                                        start_index_map=[axis], index_vector_dim=q)
    sizes = [1 if d == axis else n for d, n in enumerate(data)]
    return b.op(sh.GatherOp, [op.data, idx], element_of(op.data), out,
                dimension_numbers=dn, slice_sizes=i64_array(sizes))


# -- run-time checks (`Lowering(check=...)`) -------------------------------------------

def integer_division_by_zero(op, a, b) -> None:
    if np.asarray(b).dtype.kind in "iu" and np.any(np.asarray(b) == 0):
        raise ValueError("integer division by zero")


def reshape_target(op, x, target) -> None:
    fs.reshape(np.shape(x), [int(v) for v in np.ravel(target)], core.attr(op, "allowzero"))


def squeeze_axes(op, x, axes) -> None:
    fs.squeeze(np.shape(x), None if core.is_none(op.axes) else [int(a) for a in axes])


def gather_bounds(op, data, indices) -> None:
    n = np.shape(data)[fs.axis_in(core.attr(op, "axis"), np.ndim(data))]
    i = np.asarray(indices).astype(np.int64)
    if np.any((i < -n) | (i >= n)):
        raise ValueError(f"an index is out of bounds [-{n}, {n - 1}]")
