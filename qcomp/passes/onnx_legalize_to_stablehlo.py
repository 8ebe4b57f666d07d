"""The `onnx-legalize-to-stablehlo` pass: onnx-mlir's float ops as StableHLO, the IR
onnx-mlir's `--convert-onnx-to-stablehlo` emits (`src/Conversion/ONNXToStablehlo/`,
its tests in `test/mlir/conversion/onnx_to_stablehlo/`), for static shapes, each op as
its declared `Lowering` builds it (`qcomp.dialects.onnx.to_stablehlo`):

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
| Slice | slice (a negative step: reverse that dimension first) |
| LayerNormalization | reduce add / count, subtract, multiply, sqrt, divide (Mean, InvStdDev: the reduced mean, 1 / sqrt(var + epsilon), reshaped) |
| DynamicQuantizeLinear | float32 math: reduce minimum / maximum from 0, divide by 255, round_nearest_even, clamp, convert to ui8 (`qcomp.dialects.onnx.integer_lowering`) |
| MatMulInteger, ConvInteger | convert to i32, subtract the zero points (per row / column / output channel when 1-D), i32 dot / dot_general / convolution |
| Cast, CastLike | convert (into float8 with saturate: clamp to ±max first) |

Where onnx-mlir builds a run-time shape (`shape.const_shape` + `dynamic_broadcast_in_dim`
/ `dynamic_reshape`) the shapes here are static, so the ops are the static ones its
canonicalizer makes of them; Gather uses `stablehlo.gather` in place of the deprecated
`torch_index_select`. An op this pass cannot lower (a dynamic or unranked result, an
attribute it does not handle) stays, with a remark saying why: as in onnx-mlir, the
conversion is partial. So does every other onnx op (no declared lowering: the QDQ ops,
which onnx-legalize-qdq-to-quant lowers, QLinearMatMul / QLinearConv and the contrib
ops), with the remark `'onnx.X' has no StableHLO lowering`; an unused `onnx.NoValue` goes.

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
    IntegerType,
    ModuleOp,
    TensorType,
)
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, PatternRewriteWalker, RewritePattern

from qcomp.dialects import stablehlo as sh
from qcomp.dialects.onnx import core
from qcomp.dialects.onnx import float_shapes as fs
from qcomp.dialects.onnx.to_stablehlo import PASS, Unsupported, static
from qcomp.dialects.quant import StorageCastOp, UniformQuantizedType, quantized_element
from qcomp.dialects.stablehlo.format import i64_array, padding_attr
from qcomp.ir.splat import splat_attr
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


class OnnxBuilder(Builder):
    """qcomp's `Builder` with the steps the ONNX ops' declared lowerings use
    (`qcomp.dialects.onnx.to_stablehlo`); `folded` collects ops a lowering bypassed
    (erased after the walk when left without uses)."""

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
        return self.emit(sh.ConstantOp(splat_attr(tensor_type(e, tuple(shape)), v)))

    def reshape(self, x: SSAValue, out: tuple[int, ...]) -> SSAValue:
        if shape_of(x) == out:
            return x
        return self.op(sh.ReshapeOp, [x], element_of(x), out)

    def quantized_constant(self, q: SSAValue, dead: list[Operation]) -> SSAValue:
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
            return self.emit(sh.ConstantOp(v, TensorType(t, shape)))
        return self.emit(sh.ConstantOp(v, q.type))


def lower_op(op: Operation, rewriter: PatternRewriter, folded: list[Operation],
             any_results: bool = False) -> str | None:
    """Rewrites the ONNX op `op` as the StableHLO its declared `Lowering` builds; the
    reason it cannot (the remark) when it stays. `any_results`: the results' types may
    be less static than what replaces them (the interpreter's steps of an op
    `shaped_by_operands`)."""
    if isinstance(op, core.ConstantOp):
        v = op.properties.get("value")
        if not isinstance(v, DenseIntOrFPElementsAttr) or v.type != op.output.type:
            return f"{PASS}: '{op.name}' is not a dense tensor of its result type"
        rewriter.replace(op, sh.ConstantOp(v))
        return None
    declared = core.lowering(op)
    if declared is None:
        return f"{PASS}: '{op.name}' has no StableHLO lowering"
    try:
        out = ()
        if declared.static_shapes:  # `out`: the first present result's shape
            if not any_results:
                out = static(next(r for r in op.results if not core.is_none(r)), op)
            for v in op.operands:
                if not core.is_none(v):
                    static(v, op)
        b = OnnxBuilder(rewriter, op)
        b.folded = folded
        result = declared.build(b, op, out)
    except Unsupported as e:
        return str(e)
    results = list(result) if isinstance(result, list | tuple) else [result]
    for r, want in zip(results, op.results, strict=True):  # None: an absent (none) result
        if declared.static_shapes and r is not None and r.type != want.type \
                and not any_results:
            return (f"{PASS}: the lowering gives '{core.type_str(r.type)}', the op "
                    f"'{core.type_str(want.type)}'")
    rewriter.replace(op, [], results)
    return None


class LegalizeOnnxOps(RewritePattern):
    def __init__(self) -> None:
        self.folded: list[Operation] = []

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if op.dialect_name() != "onnx" or isinstance(op, core.NoValueOp):
            return  # an unused NoValue goes after the walk
        why = lower_op(op, rewriter, self.folded)
        if why is not None:
            remark(op, why)


class EraseUnusedNoValue(RewritePattern):
    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if isinstance(op, core.NoValueOp) and not op.none_val.uses:
            rewriter.erase(op)


@dataclass(frozen=True)
class OnnxLegalizeToStablehloPass(ModulePass):
    """onnx-mlir's float ops (Conv, MatMul, Gemm, Add, ..., Gather) and onnx.Constant as
    StableHLO, each as its declared `Lowering` builds it: the IR onnx-mlir's conversion
    emits for static shapes; a MatMul of a dequantized sub-channel (blockwise) weight as
    the hybrid dot_general on that weight (qcomp's extension); every other onnx op stays,
    with a remark."""

    name = "onnx-legalize-to-stablehlo"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        legalize = LegalizeOnnxOps()
        PatternRewriteWalker(legalize, apply_recursively=False).rewrite_module(op)
        for dead in legalize.folded:  # a folded dequantize, then its scast and constant
            if dead.parent is not None and not any(r.uses for r in dead.results):
                dead.detach()
                dead.erase()
        PatternRewriteWalker(EraseUnusedNoValue(), apply_recursively=False,
                             walk_reverse=True).rewrite_module(op)
