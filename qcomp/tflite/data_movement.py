"""TFLite's operators that move data or change the quantization only: RESHAPE,
TRANSPOSE, CONCATENATION, PAD (stablehlo.reshape / transpose / concatenate / pad, the
pad value the zero point), QUANTIZE, DEQUANTIZE (uniform_quantize / uniform_dequantize)."""

from __future__ import annotations

import math

import numpy as np
from xdsl.dialects.builtin import IntegerAttr, i64
from xdsl.ir import SSAValue

from qcomp.dialects import stablehlo as sh
from qcomp.dialects.quant import DequantizeCastOp, QuantizeCastOp
from qcomp.dialects.stablehlo.format import i64_array
from qcomp.tflite.common import (
    activation,
    fused,
    need_constant,
    need_paddings,
    need_quantized,
    op,
    reshape,
    same_elements,
    same_params,
)
from qcomp.tflite.context import ELEMENT, OpContext, constant
from qcomp.tflite.operator import Operand, Operator, Options, any_value, declare

INDICES = ("INT32", "INT64")


def _new_shape(ctx: OpContext) -> list[int] | None:
    """RESHAPE's new shape as LiteRT reads it: the shape input's data, else the
    options' `newShape` (None: neither gives one)."""
    shape_t = ctx.inputs[1] if len(ctx.inputs) > 1 else None
    if shape_t is not None and shape_t.data is not None:
        return [int(d) for d in shape_t.data.reshape(-1)]
    given = ctx.option("newShape")
    return None if given is None or len(given) == 0 else [int(d) for d in given]


def reshape_(ctx: OpContext) -> list[SSAValue]:
    x, out = ctx.inputs[0], ctx.outputs[0]
    same_params(ctx, x, out)
    same_elements(ctx, x, out)
    new = _new_shape(ctx)
    if new is not None:
        known = math.prod(d for d in new if d != -1)
        if new.count(-1) == 1 and known:
            new = [math.prod(x.shape) // known if d == -1 else d for d in new]
        if new != list(out.shape):
            raise ctx.fail(f"new shape {new} is not the output's {list(out.shape)}")
    return [reshape(ctx, ctx.value(x), x, x.shape, out.shape)]


def transpose(ctx: OpContext) -> list[SSAValue]:
    x, perm, out = ctx.inputs[0], ctx.inputs[1], ctx.outputs[0]
    same_params(ctx, x, out)
    p = [int(v) for v in need_constant(ctx, perm, "permutation").reshape(-1)]
    if sorted(p) != list(range(len(x.shape))):
        raise ctx.fail(f"permutation {p} is not one of the input's {len(x.shape)} "
                       "dimensions")
    if tuple(out.shape) != tuple(x.shape[i] for i in p):
        raise ctx.fail(f"output shape {list(out.shape)} is not the input's permuted by {p}")
    return [op(ctx, sh.TransposeOp, [ctx.value(x)], out.type(), permutation=i64_array(p))]


def concatenation(ctx: OpContext) -> list[SSAValue]:
    out = ctx.outputs[0]
    for t in ctx.inputs:
        same_params(ctx, t, out)
    r = len(out.shape)
    axis = ctx.option("axis", 0)
    if not -r <= axis < r:
        raise ctx.fail(f"axis {axis} is outside the output's rank {r}")
    axis %= r
    if any(len(t.shape) != r or any(d != e for i, (d, e) in enumerate(zip(t.shape, out.shape))
                                    if i != axis) for t in ctx.inputs) \
            or sum(t.shape[axis] for t in ctx.inputs) != out.shape[axis]:
        raise ctx.fail(f"the inputs' shapes do not concatenate to {list(out.shape)} along "
                       f"axis {axis}")
    v = op(ctx, sh.ConcatenateOp, [ctx.value(t) for t in ctx.inputs], out.type(),
           dimension=IntegerAttr(axis, i64))
    return [fused(ctx, v, out)]


def pad(ctx: OpContext, value: SSAValue | None = None) -> list[SSAValue]:
    """PAD (with the output's zero point) or PADV2 (with `value`)."""
    x, pads, out = ctx.inputs[0], ctx.inputs[1], ctx.outputs[0]
    same_params(ctx, x, out)
    p = need_paddings(ctx, x, pads)
    if tuple(out.shape) != tuple(int(d + lo + hi) for d, (lo, hi) in zip(x.shape, p)):
        raise ctx.fail(f"output shape {list(out.shape)} is not the input's padded")
    el = out.element()
    pv = value if value is not None else constant(
        ctx.b, out.zero_point if out.quantized else np.float32(0), (), el, ELEMENT[out.dtype])
    return [op(ctx, sh.PadOp, [ctx.value(x), pv], out.type(),
               edge_padding_low=i64_array(p[:, 0].tolist()),
               edge_padding_high=i64_array(p[:, 1].tolist()),
               interior_padding=i64_array([0] * len(x.shape)))]


def quantize(ctx: OpContext) -> list[SSAValue]:
    x, out = ctx.inputs[0], ctx.outputs[0]
    need_quantized(ctx, out)
    same_elements(ctx, x, out)
    return [op(ctx, sh.UniformQuantizeOp, [ctx.value(x)], out.type())]


def dequantize(ctx: OpContext) -> list[SSAValue]:
    x, out = ctx.inputs[0], ctx.outputs[0]
    need_quantized(ctx, x)
    same_elements(ctx, x, out)
    if out.dtype != "FLOAT32":
        raise ctx.fail(f"{out.label} must be FLOAT32")
    return [op(ctx, sh.UniformDequantizeOp, [ctx.value(x)], out.type())]


declare(Operator(
    "CONCATENATION", (sh.ConcatenateOp,), ("Concat", "QLinearConcat"), output="same",
    int16=True, options=Options("ConcatenationOptions", {
        "axis": any_value, "fusedActivationFunction": activation}, required=False),
    inputs=(Operand("input", min_rank=1),), variadic=True, build=concatenation))
declare(Operator(
    "RESHAPE", (sh.ReshapeOp,), ("Reshape", "Flatten"), output="same", int16=True,
    how="reshape that does more than drop size-1 dimensions",
    options=Options("ReshapeOptions", {"newShape": any_value}, required=False),
    inputs=(Operand("input"), Operand("shape", INDICES, optional=True)), build=reshape_))
declare(Operator(
    "PAD", (sh.PadOp,), ("Pad",), output="same", int16=True,
    how="pad (the padding value operand too: PADV2)",
    options=Options("PadOptions", required=False),
    inputs=(Operand("input"), Operand("paddings", INDICES, rank=(2,), constant=True)),
    build=pad))
declare(Operator(
    "TRANSPOSE", (sh.TransposeOp,), ("Transpose",), output="same", int16=True,
    options=Options("TransposeOptions", required=False),
    inputs=(Operand("input"), Operand("perm", INDICES, rank=(1,), constant=True)),
    build=transpose))
declare(Operator(
    "QUANTIZE", (sh.UniformQuantizeOp, QuantizeCastOp), ("QuantizeLinear",), int16=True,
    how="uniform_quantize (or quant.qcast): from float, or a requantization",
    inputs=(Operand("input", ("FLOAT32", "INT8", "INT16", "UINT8")),), build=quantize))
# not in the spec's table: the StableHLO form of what a TFLite graph does implicitly
declare(Operator(
    "DEQUANTIZE", (sh.UniformDequantizeOp, DequantizeCastOp), ("DequantizeLinear",),
    output="none", int16=True, spec=False,
    how="uniform_dequantize (or quant.dcast; TFLite's DEQUANTIZE: input only)",
    inputs=(Operand("input", ("INT8", "INT16", "UINT8")),), build=dequantize))


__all__ = ["concatenation", "dequantize", "pad", "quantize", "reshape_", "transpose"]
