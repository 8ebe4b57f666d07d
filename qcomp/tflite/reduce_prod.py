"""TFLite's REDUCE_PROD: `stablehlo.composite "tfl.reduce_prod"` (composite_attributes:
axes, keep_dims) with a float decomposition (dequantize, reduce with a multiply body,
quantize); a float or integer input is a plain reduce.

Under `rescale=fixed-point` the int8 / int16 kernel is reference_ops::QuantizedReduceProd
(`qcomp.quant.tflite_reduce.reduce_prod_int`): the reduced axes moved last, the n values
of each output multiplied in row-major order, each step rescaled by MBQM64 with
QuantizeMultiplier(s_in / s_out^(1/n)) and wrapped to int32, once more at the end, plus
z_out, clamped. The steps are unrolled (n at most `MOST_FACTORS`)."""

from __future__ import annotations

import math

import numpy as np
from xdsl.dialects.builtin import IntegerAttr, IntegerType, f32, i64
from xdsl.ir import Attribute, Operation, SSAValue

from qcomp.dialects import stablehlo as sh
from qcomp.dialects.stablehlo.format import i64_array
from qcomp.passes.utils.builder import Builder, element_of, shape_of
from qcomp.quant.tflite_reduce import reduce_prod_multiplier
from qcomp.tflite.common import op_in
from qcomp.tflite.context import OpContext, f32_tensor
from qcomp.tflite.contractions16 import mbqm64_ir
from qcomp.tflite.fixed_ir import FixedIR
from qcomp.tflite.kernels import composite_props, int8, ints, quantized_type, reduce
from qcomp.tflite.kernels16 import int16
from qcomp.tflite.operator import Operand, Operator, Options, boolean, declare
from qcomp.tflite.reductions import reduction_axes

MOST_FACTORS = 1024
"""The most values one output of a quantized REDUCE_PROD multiplies (the unrolled steps)."""


def _product(b: Builder, v: SSAValue, axes: list[int], out_shape) -> SSAValue:
    el = element_of(v)
    one = np.float32(1) if el == f32 else 1
    r = reduce(b, v, axes, sh.MultiplyOp, one) if axes else v
    return b.op(sh.ReshapeOp, [r], el, tuple(out_shape)) if shape_of(r) != tuple(out_shape) \
        else r


def reduce_prod(ctx: OpContext) -> list[SSAValue]:
    x, out = ctx.inputs[0], ctx.outputs[0]
    axes, _, keep_dims = reduction_axes(ctx, "product")
    if x.quantized != out.quantized:
        raise ctx.fail(f"{x.label} and {out.label} must both be quantized or neither")
    if not x.quantized:
        return [_product(ctx.b, ctx.value(x), axes, out.shape)]
    n = math.prod(x.shape[a] for a in axes)
    if n > MOST_FACTORS:
        raise ctx.fail(f"the product of {n} values per output is not supported (at most "
                       f"{MOST_FACTORS})")

    def body(b: Builder, args: list[SSAValue]) -> SSAValue:
        f = op_in(b, sh.UniformDequantizeOp, [args[0]], f32_tensor(x.shape))
        r = reduce(b, f, axes, sh.MultiplyOp, np.float32(1)) if axes else f
        r = b.op(sh.ReshapeOp, [r], f32, tuple(out.shape))
        return op_in(b, sh.UniformQuantizeOp, [r], out.type())
    attrs: dict[str, Attribute] = {
        "axes": i64_array(axes), "keep_dims": IntegerAttr(int(keep_dims), IntegerType(1))}
    return [ctx.composite("tfl.reduce_prod", attrs, [ctx.value(x)], out.type(), body)]


def lower_reduce_prod(op_: Operation, b: Builder, st) -> SSAValue | None:
    """TFLite's quantized REDUCE_PROD (see the module docstring)."""
    x, qi, qo = op_.operands[0], quantized_type(op_.operands[0]), quantized_type(op_.results[0])
    if not (int8(qi, qo) or int16(qi, qo)):
        return None
    shape = shape_of(x)
    axes = ints(composite_props(op_)["axes"])
    kept = [a for a in range(len(shape)) if a not in axes]
    rows = tuple(shape[a] for a in kept)
    n = math.prod(shape[a] for a in axes)
    m, e = reduce_prod_multiplier(qi.scale, qo.scale, n)
    q = b.convert(st(x), i64)
    if qi.zero_point:
        q = b.binary(sh.SubtractOp, q, b.full(np.int64(qi.zero_point), i64, shape))
    if kept + axes != list(range(len(shape))):
        q = b.op(sh.TransposeOp, [q], i64, tuple(shape[a] for a in kept + axes),
                 permutation=i64_array(kept + axes))
    q = b.op(sh.ReshapeOp, [q], i64, (*rows, n))
    r = len(rows)

    def column(j: int) -> SSAValue:
        c = b.op(sh.SliceOp, [q], i64, (*rows, 1), start_indices=i64_array([0] * r + [j]),
                 limit_indices=i64_array([*rows, j + 1]), strides=i64_array([1] * (r + 1)))
        return b.op(sh.ReshapeOp, [c], i64, rows)
    f = FixedIR(b, rows)
    c = column(0)
    for j in range(1, n):
        c = f.wrap(mbqm64_ir(b, b.binary(sh.MultiplyOp, c, column(j)), np.array(m),
                             np.array(e), None))
    v = f.add(f.wrap(mbqm64_ir(b, c, np.array(m), np.array(e), None)), qo.zero_point)
    v = b.clamp(v, qo.storage_min, qo.storage_max)
    return b.convert(b.op(sh.ReshapeOp, [v], i64, shape_of(op_.results[0])), qo.storage)


declare(Operator(
    "REDUCE_PROD", (), ("ReduceProd",), int16=True, how='composite "tfl.reduce_prod"',
    options=Options("ReducerOptions", {"keepDims": boolean}, required=False),
    inputs=(Operand("input", min_rank=1), Operand("axis", ("INT32", "INT64"), constant=True)),
    build=reduce_prod, kernels={"tfl.reduce_prod": lower_reduce_prod}))


__all__ = ["MOST_FACTORS", "lower_reduce_prod", "reduce_prod"]
