"""Pieces several TFLite operators' builds share: fused activations, operand checks,
reshapes and broadcasts, SAME / VALID windows, and the options checks every table
with those fields has."""

from __future__ import annotations

import math

import numpy as np
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, TensorType, i64
from xdsl.ir import Attribute, SSAValue

from qcomp.dialects import stablehlo as sh
from qcomp.dialects.stablehlo.format import i64_array
from qcomp.passes.utils.builder import Builder
from qcomp.tflite.context import (
    ELEMENT,
    STORAGE_RANGE,
    OpContext,
    Tensor,
    constant,
)
from qcomp.tflite.operator import positive

ACTIVATIONS = {0: None, 1: (0.0, None), 2: (-1.0, 1.0), 3: (0.0, 6.0)}
"""TFLite's fused activation -> its (low, high) bounds (NONE, RELU, RELU_N1_TO_1, RELU6)."""
_UNSUPPORTED_ACTIVATIONS = {4: "TANH", 5: "SIGN_BIT"}


def activation(v) -> str | None:
    """The options check of `fusedActivationFunction`."""
    if v in ACTIVATIONS:
        return None
    if v in _UNSUPPORTED_ACTIVATIONS:
        return f"({_UNSUPPORTED_ACTIVATIONS[v]}) is not supported"
    return "is not an ActivationFunctionType (NONE, RELU, RELU_N1_TO_1, RELU6)"


def PADDING(v) -> str | None:
    """The options check of `padding`: SAME (0) or VALID (1), all LiteRT takes."""
    return None if v in (0, 1) else "is neither SAME (0) nor VALID (1)"

WINDOW_OPTIONS = {"padding": PADDING, "strideW": positive, "strideH": positive,
                  "fusedActivationFunction": activation}


def _round_away(x: np.float32) -> int:
    return math.floor(abs(float(x)) + 0.5) * (1 if x >= 0 else -1)


def activation_range(out: Tensor, lo: float | None, hi: float | None) -> tuple[int, int]:
    """TFLite's CalculateActivationRangeQuantized for `out`'s storage range:
    max(qmin, zp + round(lo / s)), min(qmax, zp + round(hi / s)) (f32 division, round
    half away from zero)."""
    qmin, qmax = STORAGE_RANGE[out.dtype]

    def q(f: float) -> int:
        return out.zero_point + _round_away(np.float32(f) / np.float32(out.scale))
    return (max(qmin, q(lo)) if lo is not None else qmin,
            min(qmax, q(hi)) if hi is not None else qmax)


def fused(ctx: OpContext, v: SSAValue, out: Tensor) -> SSAValue:
    """`v` clamped by the operator's fused activation (a `stablehlo.clamp` in `out`'s
    quantized domain with TFLite's bounds)."""
    bounds = ACTIVATIONS[ctx.option("fusedActivationFunction", 0)]
    if bounds is None:
        return v
    el = out.element()
    if not out.quantized:
        if out.dtype != "FLOAT32":
            raise ctx.fail(f"a fused activation needs a quantized or FLOAT32 output, "
                           f"{out.label} is {out.dtype}")
        lo, hi = bounds
        lo_v = constant(ctx.b, np.float32(lo), (), el, el)
        hi_v = constant(ctx.b, np.float32(hi) if hi is not None
                        else np.finfo(np.float32).max, (), el, el)
    else:
        lo_q, hi_q = activation_range(out, *bounds)
        lo_v = constant(ctx.b, lo_q, (), el, ELEMENT[out.dtype])
        hi_v = constant(ctx.b, hi_q, (), el, ELEMENT[out.dtype])
    return ctx.b.emit(sh.ClampOp(lo_v, v, hi_v, out.type()))


def need_quantized(ctx: OpContext, *ts: Tensor | None) -> None:
    for t in ts:
        if t is not None and not t.quantized:
            raise ctx.fail(f"{t.label} must be quantized")


def refuse_int16(ctx: OpContext) -> None:
    """A one-line diagnostic for an int16 (16x8 mode) input of an operator LiteRT has no
    int16 kernel for."""
    if ctx.inputs[0].dtype == "INT16":
        raise ctx.fail(f"{ctx.name} has no 16x8 kernel in LiteRT (int8 only): "
                       f"{ctx.inputs[0].label} is INT16")


def same_params(ctx: OpContext, a: Tensor, b: Tensor) -> None:
    if a.quantized != b.quantized or (a.quantized and (
            a.scales.tolist() != b.scales.tolist()
            or a.zero_points.tolist() != b.zero_points.tolist())):
        raise ctx.fail(f"input and output must have the same scale and zero point "
                       f"(tensors {a.index} and {b.index})")


def same_elements(ctx: OpContext, a: Tensor, b: Tensor) -> None:
    if math.prod(a.shape) != math.prod(b.shape):
        raise ctx.fail(f"{b.label} of shape {list(b.shape)} does not hold the "
                       f"{math.prod(a.shape)} values of {a.label}")


def need_constant(ctx: OpContext, t: Tensor, what: str) -> np.ndarray:
    if t.data is None:
        raise ctx.fail(f"the {what} must be a constant")
    return t.data


def op_in(b: Builder, cls, operands: list[SSAValue], result: Attribute, **props
          ) -> SSAValue:
    """`cls` on `operands` with the result type `result` and properties `props`,
    inserted by `b` (a decomposition's builder)."""
    return b.emit(cls.create(operands=operands, result_types=[result], properties=props))


def op(ctx: OpContext, cls, operands: list[SSAValue], result: Attribute, **props
       ) -> SSAValue:
    """`cls` on `operands` with the result type `result` and properties `props`."""
    return op_in(ctx.b, cls, operands, result, **props)


def reshape(ctx: OpContext, v: SSAValue, t: Tensor, src, dst) -> SSAValue:
    if tuple(src) == tuple(dst):
        return v
    return op(ctx, sh.ReshapeOp, [v], t.type(dst))


def broadcast(ctx: OpContext, t: Tensor, shape) -> SSAValue:
    """Tensor `t` broadcast to `shape` (TFLite's implicit broadcasting: trailing
    dimensions aligned, size 1 stretched)."""
    v = ctx.value(t)
    if tuple(t.shape) == tuple(shape):
        return v
    r = len(shape) - len(t.shape)
    if r < 0 or any(d not in (1, shape[r + i]) for i, d in enumerate(t.shape)):
        raise ctx.fail(f"shape {list(t.shape)} does not broadcast to {list(shape)}")
    return op(ctx, sh.BroadcastInDimOp, [v], t.type(shape),
              broadcast_dimensions=i64_array([r + i for i in range(len(t.shape))]))


def padding_attr(pads) -> DenseIntOrFPElementsAttr:
    """`dense<[[lo, hi], ...]> : tensor<Nx2xi64>`."""
    flat = [int(p) for pair in pads for p in pair]
    return DenseIntOrFPElementsAttr.from_list(TensorType(i64, [len(pads), 2]), flat)


def same_padding(size: int, k: int, stride: int, dilation: int, same: bool):
    """(output size, pad low, pad high) of one spatial dimension, TFLite's SAME / VALID."""
    eff = (k - 1) * dilation + 1
    if same:
        o = (size + stride - 1) // stride
        total = max((o - 1) * stride + eff - size, 0)
        return o, total // 2, total - total // 2
    return (size - eff + stride) // stride, 0, 0


def window(ctx: OpContext, x: Tensor, kh: int, kw: int, dh: int = 1, dw: int = 1):
    """((out h, out w), ((pad top, bottom), (left, right))) of an NHWC window."""
    o = ctx.options
    same = o.padding == 0
    oh, pt, pb = same_padding(x.shape[1], kh, o.strideH, dh, same)
    ow, pl, pr = same_padding(x.shape[2], kw, o.strideW, dw, same)
    if oh <= 0 or ow <= 0:
        raise ctx.fail(f"the {kh}x{kw} window (dilation {dh}, {dw}) does not fit the "
                       f"{x.shape[1]}x{x.shape[2]} input")
    return (oh, ow), ((pt, pb), (pl, pr))


def same_shape(ctx: OpContext, x: Tensor, out: Tensor) -> None:
    """An element-wise operator's output has its input's shape."""
    if tuple(x.shape) != tuple(out.shape):
        raise ctx.fail(f"output shape {list(out.shape)} is not the input's {list(x.shape)}")


def need_paddings(ctx: OpContext, x: Tensor, pads: Tensor) -> np.ndarray:
    """PAD / PADV2 / MIRROR_PAD's constant paddings: rank(x) x 2 non-negative values,
    as (before, after) rows."""
    data = need_constant(ctx, pads, "paddings")
    r = len(x.shape)
    if data.size != 2 * r or np.any(data < 0):
        raise ctx.fail(f"the paddings {pads.label} must be {r}x2 non-negative values")
    return data.reshape(-1, 2).astype(np.int64)


def check_output_shape(ctx: OpContext, out: Tensor, shape) -> None:
    if tuple(out.shape) != tuple(shape):
        raise ctx.fail(f"output shape {list(out.shape)} does not match {list(shape)}")


__all__ = ["ACTIVATIONS", "PADDING", "WINDOW_OPTIONS", "activation", "activation_range",
           "broadcast", "check_output_shape", "fused", "need_constant", "need_paddings", "need_quantized",
           "op", "op_in", "padding_attr", "refuse_int16", "reshape", "same_elements", "same_padding",
           "same_params", "same_shape",
           "window"]
