"""The `onnx-legalize-to-stablehlo` pass: onnx-mlir's float ops as StableHLO, the IR
onnx-mlir's `--convert-onnx-to-stablehlo` emits (`src/Conversion/ONNXToStablehlo/`,
its tests in `test/mlir/conversion/onnx_to_stablehlo/`), for static shapes:

| onnx | stablehlo |
|---|---|
| Constant | constant |
| Add, Sub, Mul, Div | broadcast_in_dim (NumPy broadcasting) + add / subtract / multiply / divide |
| Relu | maximum(x, 0) |
| Sigmoid, Tanh | logistic, tanh |
| Clip | clamp(min, x, max); an absent bound is -inf / +inf (the integer type's ends) |
| Softmax | reduce max, subtract, exponential, reduce add, divide (onnx-mlir's decomposed form, `--decompose-onnx=target=stablehlo`: the max subtracted first) |
| MatMul | dot (2-D), else dot_general with the batch broadcast; B = uniform_dequantize of a 2-D sub-channel (blockwise) weight: the hybrid dot_general on that weight (below) |
| Gemm | transpose, dot, multiply by alpha, broadcast C, multiply by beta, add |
| Conv | convolution `[b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1]` (+ broadcast bias, add) |
| MaxPoolSingleOut | reduce_window maximum from -inf (an integer type's lowest value) |
| AveragePool | reduce_window add / the window's element count (reduce_window add over ones; a constant with count_include_pad) |
| GlobalAveragePool | reduce add, reshape, divide by the count |
| Reshape, Flatten, Squeeze, Unsqueeze | reshape |
| Transpose, Concat | transpose, concatenate |
| Gather | negative indices + dim (compare, add, select), gather |
| Identity | its operand |

Where onnx-mlir builds a run-time shape (`shape.const_shape` + `dynamic_broadcast_in_dim`
/ `dynamic_reshape`) the shapes here are static, so the ops are the static ones its
canonicalizer makes of them; Gather uses `stablehlo.gather` in place of the deprecated
`torch_index_select`. An op this pass cannot lower (a dynamic or unranked result, an
attribute it does not handle) stays, with a remark saying why: as in onnx-mlir, the
conversion is partial.

Blockwise weights (not in onnx-mlir): a MatMul whose B is `stablehlo.uniform_dequantize`
of a 2-D value of a sub-channel `!quant.uniform` type (what onnx-legalize-qdq-to-quant
makes of a blocked DequantizeLinear and of MatMulNBits) becomes
`dot_general(A, W) contracting A's last dimension with W's first`, the hybrid form of
qcomp's blockwise extension (float A, result `A @ dequantize(W)`; docs/blockwise.md). A
constant W becomes one quantized `stablehlo.constant`; unsigned storage is re-biased to
signless (`q - 2^(w-1)`, zero points likewise: the same reals, and what StableHLO's
signless lowerings read right). The dequantize and the constants it leaves unused go.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    TensorType,
    i64,
)
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, PatternRewriteWalker, RewritePattern

from qcomp.dialects import stablehlo as sh
from qcomp.dialects.onnx import core
from qcomp.dialects.onnx import float_ops as fo
from qcomp.dialects.onnx import float_shapes as fs
from qcomp.dialects.quant import StorageCastOp, UniformQuantizedType, quantized_element
from qcomp.dialects.stablehlo.attrs import (
    ConvDimensionNumbersAttr,
    DotDimensionNumbersAttr,
    GatherDimensionNumbersAttr,
)
from qcomp.dialects.stablehlo.format import i64_array, padding_attr
from qcomp.passes.utils.builder import (
    Builder,
    dense_ints,
    dense_values,
    element_of,
    in_element_type,
    shape_of,
    tensor_type,
)
from qcomp.passes.utils.diagnostics import remark

PASS = "onnx-legalize-to-stablehlo"


class Unsupported(Exception):
    """The op stays; the message is the remark."""


def _static(v: SSAValue, op: Operation | None = None) -> tuple[int, ...]:
    """The static shape of `v`, else Unsupported naming `op`."""
    t = v.type
    if not isinstance(t, TensorType) or any(d < 0 for d in t.get_shape()):
        raise Unsupported(f"{PASS}: '{op.name if op else '?'}' needs static shapes, got "
                          f"'{core.type_str(t)}'")
    return tuple(t.get_shape())


def _lowest_highest(e) -> tuple[float, float]:
    if isinstance(e, IntegerType):
        w = e.width.data
        if e.signedness.data.name == "UNSIGNED":
            return 0, 2**w - 1
        return -(2 ** (w - 1)), 2 ** (w - 1) - 1
    return -np.inf, np.inf


class _Emit(Builder):
    """qcomp's `Builder` with the few StableHLO pieces this pass needs; `folded`
    collects ops a lowering bypassed (erased after the walk when left without uses)."""

    folded: list[Operation]

    def numpy_broadcast(self, x: SSAValue, out: tuple[int, ...]) -> SSAValue:
        """`x` broadcast NumPy-style to `out` (trailing dimensions aligned)."""
        r = len(shape_of(x))
        return self.broadcast(x, out, list(range(len(out) - r, len(out))))

    def reduce(self, x: SSAValue, dims: list[int], kind: type, init: float) -> SSAValue:
        e = element_of(x)
        out = tuple(n for d, n in enumerate(shape_of(x)) if d not in dims)
        scalar = tensor_type(e, ())
        block = Block(arg_types=[scalar, scalar])
        body = kind.create(operands=[block.args[0], block.args[1]], result_types=[scalar])
        block.add_ops([body, sh.ReturnOp(body.results[0])])
        return self.emit(sh.ReduceOp.create(
            operands=[x, self.constant(np.array(init), e)], result_types=[tensor_type(e, out)],
            properties={"dimensions": i64_array(sorted(dims))}, regions=[Region(block)]))

    def reduce_window(self, x: SSAValue, init: float, kind: type, win: fs.Window,
                      out: tuple[int, ...]) -> SSAValue:
        e = element_of(x)
        scalar = tensor_type(e, ())
        block = Block(arg_types=[scalar, scalar])
        body = kind.create(operands=[block.args[0], block.args[1]], result_types=[scalar])
        block.add_ops([body, sh.ReturnOp(body.results[0])])
        pads = [(0, 0), (0, 0), *((p, q + c) for (p, q), c in zip(win.pads, win.ceil_extra))]
        return self.emit(sh.ReduceWindowOp.create(
            operands=[x, self.constant(np.array(init), e)], result_types=[tensor_type(e, out)],
            properties={"window_dimensions": i64_array([1, 1, *win.kernel]),
                        "window_strides": i64_array([1, 1, *win.strides]),
                        "window_dilations": i64_array([1, 1, *win.dilations]),
                        "padding": padding_attr(pads)},
            regions=[Region(block)]))

    def splat(self, value: float, e, shape: tuple[int, ...]) -> SSAValue:
        """`stablehlo.constant dense<value> : tensor<shape x e>` (one value, any shape)."""
        v = int(value) if isinstance(e, IntegerType) else float(in_element_type(value, e))
        return self.emit(sh.ConstantOp(DenseIntOrFPElementsAttr.from_list(
            tensor_type(e, tuple(shape)), [v])))

    def reshape(self, x: SSAValue, out: tuple[int, ...]) -> SSAValue:
        if shape_of(x) == out:
            return x
        return self.op(sh.ReshapeOp, [x], element_of(x), out)


def _binary(cls):
    def lower(b: _Emit, op, out):
        e = element_of(op.results[0])
        return b.op(cls, [b.numpy_broadcast(op.A, out), b.numpy_broadcast(op.B, out)], e, out)
    return lower


def _relu(b: _Emit, op, out):
    e = element_of(op.Y)
    return b.op(sh.MaximumOp, [op.X, b.splat(0, e, out)], e, out)


def _unary(cls):
    return lambda b, op, out: b.op(cls, [op.operands[0]], element_of(op.results[0]), out)


def _clip(b: _Emit, op, out):
    e = element_of(op.output)
    lo, hi = _lowest_highest(e)
    bounds = []
    for v, default in ((op.min, lo), (op.max, hi)):
        bounds.append(b.constant(np.array(default), e) if core.is_none(v) else b.reshape(v, ()))
    return b.op(sh.ClampOp, [bounds[0], op.input, bounds[1]], e, out)


def _softmax(b: _Emit, op, out):
    e = element_of(op.output)
    axis = fs.axis_in(core.attr(op, "axis"), len(out))
    kept = [d for d in range(len(out)) if d != axis]
    m = b.broadcast_in_dim(b.reduce(op.input, [axis], sh.MaximumOp, -np.inf), out, kept)
    ex = b.op(sh.ExponentialOp, [b.op(sh.SubtractOp, [op.input, m], e, out)], e, out)
    s = b.broadcast_in_dim(b.reduce(ex, [axis], sh.AddOp, 0), out, kept)
    return b.op(sh.DivideOp, [ex, s], e, out)


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


def _quantized_constant(b: _Emit, q: SSAValue, dead: list[Operation]) -> SSAValue:
    """`quant.scast` of a constant as one quantized `stablehlo.constant` (its storage
    values, the quantized type), as StableHLO prints a quantized constant. Unsigned
    storage uW is re-biased to signless iW: q - 2^(W-1) with zero points z - 2^(W-1),
    the same reals (q - z) * s, and the storage StableHLO's lowerings read as signless
    (`rescale=stablehlo` reads u4 9 as i4 -7, as upstream does)."""
    cast = q.owner
    if not isinstance(cast, StorageCastOp):
        return q
    c = cast.arg.owner
    v = c.properties.get("value") if isinstance(c, sh.ConstantOp | core.ConstantOp) else None
    if not isinstance(v, DenseIntOrFPElementsAttr):
        return q
    dead += [cast, c]
    qt = quantized_element(q.type)
    assert isinstance(qt, UniformQuantizedType)
    if isinstance(qt.storage_type, IntegerType) and not qt.is_signed:
        w = qt.storage_bitwidth
        off = 1 << (w - 1)
        signed = IntegerType(w)
        shape = shape_of(q)
        t = UniformQuantizedType.build(
            signed, qt.expressed_type, [float(x) for x in qt.scales.reshape(-1)],
            [int(z) - off for z in qt.zero_points.reshape(-1)],
            quantized_dimensions=qt.quantized_dimensions, block_sizes=qt.block_sizes,
            params_shape=qt.params_shape, storage_min=qt.storage_min - off,
            storage_max=qt.storage_max - off)
        v = dense_ints(TensorType(signed, shape), dense_values(v) - off)
        return b.emit(sh.ConstantOp(v, TensorType(t, shape)))
    return b.emit(sh.ConstantOp(v, q.type))


def _matmul(b: _Emit, op, out):
    e = element_of(op.Y)
    a, c = op.A, op.B
    w = _blockwise_weight(op)
    if w is not None:
        # a blockwise weight: the hybrid dot_general (float A, W on its sub-channel
        # type; docs/blockwise.md) contracting A's last dimension with W's first
        q, dead = w
        c = _quantized_constant(b, q, dead)
        b.folded += dead
        dn = DotDimensionNumbersAttr.get([], [], [len(shape_of(a)) - 1], [0])
        return b.op(sh.DotGeneralOp, [a, c], e, out, dot_dimension_numbers=dn)
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


def _gemm(b: _Emit, op, out):
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


def _conv(b: _Emit, op, out):
    e = element_of(op.Y)
    x, w = _static(op.X), _static(op.W)
    win = fo.window_of(op, x, w[2:])
    n = len(x) - 2
    sp = list(range(2, 2 + n))
    dn = ConvDimensionNumbersAttr.get(0, 1, sp, 1, 0, sp, 0, 1, sp)
    y = b.op(sh.ConvolutionOp, [op.X, op.W], e, out, dimension_numbers=dn,
             window_strides=i64_array(win.strides), padding=padding_attr(win.pads),
             rhs_dilation=i64_array(win.dilations),
             feature_group_count=_i64(core.attr(op, "group")), batch_group_count=_i64(1))
    if core.is_none(op.B):
        return y
    return b.op(sh.AddOp, [y, b.broadcast_in_dim(op.B, out, [1])], e, out)


def _i64(v: int) -> IntegerAttr:
    return IntegerAttr(v, i64)


def _max_pool(b: _Emit, op, out):
    if core.attr(op, "storage_order"):
        raise Unsupported(f"{PASS}: storage_order = 1 (column-major Indices) is not lowered")
    win = fo.window_of(op, _static(op.X))
    lowest = _lowest_highest(element_of(op.X))[0]  # integers: MaxPool on stored values
    return b.reduce_window(op.X, lowest, sh.MaximumOp, win, out)


def _average_pool(b: _Emit, op, out):
    e = element_of(op.Y)
    x = _static(op.X)
    win = fo.window_of(op, x)
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


def _global_average_pool(b: _Emit, op, out):
    e = element_of(op.Y)
    x = _static(op.X)
    s = b.reshape(b.reduce(op.X, list(range(2, len(x))), sh.AddOp, 0), out)
    count = b.splat(float(np.prod(x[2:])), e, out)
    return b.op(sh.DivideOp, [s, count], e, out)


def _reshape(b: _Emit, op, out):
    return b.reshape(op.operands[0], out)


def _transpose(b: _Emit, op, out):
    perm = fo.ints_attr(op, "perm") or tuple(reversed(range(len(out))))
    return b.op(sh.TransposeOp, [op.data], element_of(op.data), out, permutation=i64_array(perm))


def _concat(b: _Emit, op, out):
    axis = fs.axis_in(core.attr(op, "axis"), len(out))
    return b.emit(sh.ConcatenateOp.create(
        operands=list(op.inputs), result_types=[tensor_type(element_of(op.concat_result), out)],
        properties={"dimension": _i64(axis)}))


def _gather(b: _Emit, op, out):
    data = _static(op.data)
    idx_shape = _static(op.indices)
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


LOWERINGS = {
    fo.AddOp: _binary(sh.AddOp), fo.SubOp: _binary(sh.SubtractOp),
    fo.MulOp: _binary(sh.MultiplyOp), fo.DivOp: _binary(sh.DivideOp),
    fo.ReluOp: _relu, fo.SigmoidOp: _unary(sh.LogisticOp), fo.TanhOp: _unary(sh.TanhOp),
    fo.ClipOp: _clip, fo.SoftmaxOp: _softmax, fo.MatMulOp: _matmul, fo.GemmOp: _gemm,
    fo.ConvOp: _conv, fo.MaxPoolSingleOutOp: _max_pool, fo.AveragePoolOp: _average_pool,
    fo.GlobalAveragePoolOp: _global_average_pool, fo.ReshapeOp: _reshape,
    fo.FlattenOp: _reshape, fo.SqueezeOp: _reshape, fo.UnsqueezeOp: _reshape,
    fo.TransposeOp: _transpose, fo.ConcatOp: _concat, fo.GatherOp: _gather,
}
"""Each float op's lowering: (builder, op, static result shape) -> the replacement."""


class LegalizeOnnxFloatOps(RewritePattern):
    def __init__(self) -> None:
        self.folded: list[Operation] = []

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if isinstance(op, fo.IdentityOp):
            rewriter.replace(op, [], [op.input])
            return
        if isinstance(op, core.ConstantOp):
            v = op.properties.get("value")
            if isinstance(v, DenseIntOrFPElementsAttr) and v.type == op.output.type:
                rewriter.replace(op, sh.ConstantOp(v))
            return
        lower = LOWERINGS.get(type(op))
        if lower is None:
            return
        try:
            out = _static(op.results[0], op)
            for v in op.operands:
                if not core.is_none(v):
                    _static(v, op)
            b = _Emit(rewriter, op)
            b.folded = self.folded
            result = lower(b, op, out)
        except Unsupported as e:
            remark(op, str(e))
            return
        if result.type != op.results[0].type:
            remark(op, f"{PASS}: the lowering gives '{core.type_str(result.type)}', the op "
                       f"'{core.type_str(op.results[0].type)}'")
            return
        rewriter.replace(op, [], [result])


class EraseUnusedNoValue(RewritePattern):
    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if isinstance(op, core.NoValueOp) and not op.none_val.uses:
            rewriter.erase(op)


@dataclass(frozen=True)
class OnnxLegalizeToStablehloPass(ModulePass):
    """onnx-mlir's float ops (Conv, MatMul, Gemm, Add, ..., Gather) and onnx.Constant as
    StableHLO, the IR onnx-mlir's conversion emits for static shapes; a MatMul of a
    dequantized sub-channel (blockwise) weight as the hybrid dot_general on that weight
    (qcomp's extension); ops it cannot lower stay, with a remark."""

    name = "onnx-legalize-to-stablehlo"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        legalize = LegalizeOnnxFloatOps()
        PatternRewriteWalker(legalize, apply_recursively=False).rewrite_module(op)
        for dead in legalize.folded:  # a folded dequantize, then its scast and constant
            if dead.parent is not None and not any(r.uses for r in dead.results):
                dead.detach()
                dead.erase()
        PatternRewriteWalker(EraseUnusedNoValue(), apply_recursively=False,
                             walk_reverse=True).rewrite_module(op)

