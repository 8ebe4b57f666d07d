"""TFLite's reducers beyond MEAN: SUM, REDUCE_MAX, REDUCE_MIN (`stablehlo.composite
"tfl.sum"` / `"tfl.reduce_max"` / `"tfl.reduce_min"`, composite_attributes axes and
keep_dims, a float decomposition: dequantize, reduce, quantize), and ARG_MAX / ARG_MIN
(the first index of the largest / smallest value along an axis: `m` = reduce max / min,
then reduce min of select(x == m, iota, n); a quantized input is `"tfl.arg_max"` /
`"tfl.arg_min"` of the dequantized values, whose kernel compares the stored integers,
which order as the values do).

Under `rescale=fixed-point` (int8, LiteRT's reduce.cc, reference kernels):

- REDUCE_MAX / REDUCE_MIN: the max / min of the stored integers (the kernel requires
  one (scale, zero point) for input and output, as the importer does);
- SUM (QuantizedMeanOrSum, compute_sum, also with the input's parameters): LiteRT
  2.3's reference kernel runs
  its uint8 instance on the int8 tensors: int8(clamp(MBQM(Σ (q mod 256) - z_in n,
  QuantizeMultiplier(s_in / s_out)) + z_out, 0, 255)), n the count of values summed
  (the last cast wraps). qcomp follows it bit for bit; LiteRT's optimised kernels sum
  the int8 values, so they differ from it by up to the whole int8 range.
"""

from __future__ import annotations

import math

import numpy as np
from xdsl.dialects.builtin import IntegerAttr, IntegerType, f32, i32, i64
from xdsl.ir import Attribute, Operation, SSAValue

from qcomp.dialects import stablehlo as sh
from qcomp.dialects.stablehlo.format import i64_array
from qcomp.passes.utils.builder import Builder, element_of, shape_of
from qcomp.quant.tflite import quantize_multiplier
from qcomp.tflite.common import need_constant, op_in, same_params
from qcomp.tflite.context import ELEMENT, OpContext, f32_tensor, tensor_of
from qcomp.tflite.kernels import composite_props, int8, ints, quantized_type, reduce
from qcomp.tflite.operator import Operand, Operator, Options, any_value, boolean, declare
from qcomp.tflite.reductions import reduction_axes

_KINDS = {"SUM": (sh.AddOp, "tfl.sum"), "REDUCE_MAX": (sh.MaximumOp, "tfl.reduce_max"),
          "REDUCE_MIN": (sh.MinimumOp, "tfl.reduce_min")}


def _identity(kind: type[Operation], element) -> object:
    """The init value of a reduce with the body `kind` in `element`."""
    if kind is sh.AddOp:
        return 0
    big = kind is sh.MinimumOp
    if element == f32:
        return np.float32(np.inf if big else -np.inf)
    info = np.iinfo(np.dtype(element.format))  # type: ignore[attr-defined]
    return info.max if big else info.min


def _reduced(b: Builder, v: SSAValue, axes: list[int], kind, out_shape) -> SSAValue:
    """`v` reduced by `kind` over `axes`, reshaped to `out_shape` (keep_dims)."""
    el = element_of(v)
    r = reduce(b, v, axes, kind, _identity(kind, el)) if axes else v
    if shape_of(r) != tuple(out_shape):
        r = b.op(sh.ReshapeOp, [r], el, tuple(out_shape))
    return r


def reducer(name: str):
    """SUM / REDUCE_MAX / REDUCE_MIN: a composite of the quantized input (see the module
    docstring), the plain reduce of a float or integer one."""
    kind, composite = _KINDS[name]

    def build(ctx: OpContext) -> list[SSAValue]:
        x, out = ctx.inputs[0], ctx.outputs[0]
        axes, _, keep_dims = reduction_axes(ctx, name.lower())
        if x.quantized != out.quantized:
            raise ctx.fail(f"{x.label} and {out.label} must both be quantized or neither")
        if kind is not sh.AddOp:
            same_params(ctx, x, out)
        if not x.quantized:
            return [_reduced(ctx.b, ctx.value(x), axes, kind, out.shape)]

        def body(b: Builder, args: list[SSAValue]) -> SSAValue:
            f = op_in(b, sh.UniformDequantizeOp, [args[0]], f32_tensor(x.shape))
            return op_in(b, sh.UniformQuantizeOp, [_reduced(b, f, axes, kind, out.shape)],
                         out.type())
        attrs: dict[str, Attribute] = {
            "axes": i64_array(axes), "keep_dims": IntegerAttr(int(keep_dims), IntegerType(1))}
        return [ctx.composite(composite, attrs, [ctx.value(x)], out.type(), body)]
    return build


def _lower_min_max(kind):
    def lower(op_: Operation, b: Builder, st) -> SSAValue | None:
        x, qi, qo = op_.operands[0], quantized_type(op_.operands[0]), \
            quantized_type(op_.results[0])
        if not int8(qi, qo) or qi != qo:
            return None
        axes = ints(composite_props(op_)["axes"])
        return _reduced(b, st(x), axes, kind, shape_of(op_.results[0]))
    return lower


def _wrap_int8(b: Builder, v: SSAValue) -> SSAValue:
    """((v + 128) & 255) - 128 (an i64 tensor): v as an int8 two's complement byte."""
    shape = shape_of(v)
    c = b.full(np.int64(128), i64, shape)
    return b.binary(sh.SubtractOp, b.binary(sh.AndOp, b.binary(sh.AddOp, v, c),
                                            b.full(np.int64(255), i64, shape)), c)


def lower_sum(op_: Operation, b: Builder, st) -> SSAValue | None:
    """TFLite's int8 SUM (see the module docstring)."""
    x, qi, qo = op_.operands[0], quantized_type(op_.operands[0]), quantized_type(op_.results[0])
    if not int8(qi, qo):
        return None
    from qcomp.passes.quant_to_math.emit import fixed_point_rescale

    axes = ints(composite_props(op_)["axes"])
    out_shape = shape_of(op_.results[0])
    q = b.convert(st(x), i64)
    if not axes:
        return b.convert(_reduced(b, q, axes, sh.AddOp, out_shape), qo.storage)  # a copy
    m = np.float64(qi.scale) / np.float64(qo.scale)
    if quantize_multiplier(float(m))[1] > 30:
        return None
    # the reference kernel's uint8 reading and writing
    q = b.binary(sh.AndOp, q, b.full(np.int64(255), i64, shape_of(x)))
    total = _reduced(b, q, axes, sh.AddOp, out_shape)
    n = math.prod(shape_of(x)[a] for a in axes)
    if qi.zero_point:
        total = b.binary(sh.SubtractOp, total,
                         b.full(np.int64(qi.zero_point * n), i64, out_shape))
    v = fixed_point_rescale(b, total, m, None, np.int64(qo.zero_point), 0, 255, i64, op_)
    return b.convert(_wrap_int8(b, v), qo.storage)


# -- ARG_MAX / ARG_MIN ---------------------------------------------------------------------
def arg_extreme(b: Builder, v: SSAValue, axis: int, largest: bool, index_el) -> SSAValue:
    """The first index of the largest (smallest) value of `v` along `axis`, in
    `index_el`: min over the axis of select(v == m, iota, n), m the max (min)."""
    shape = shape_of(v)
    kind = sh.MaximumOp if largest else sh.MinimumOp
    m = reduce(b, v, [axis], kind, _identity(kind, element_of(v)))
    kept = [i for i in range(len(shape)) if i != axis]
    mb = b.broadcast_in_dim(m, shape, kept)
    hit = b.emit(sh.CompareOp(v, mb, "EQ"))
    iota = np.broadcast_to(np.arange(shape[axis], dtype=np.int32).reshape(
        [shape[axis] if i == axis else 1 for i in range(len(shape))]), shape)
    idx = b.emit(sh.SelectOp(hit, b.constant(np.ascontiguousarray(iota), i32),
                             b.full(np.int32(shape[axis]), i32, shape)))
    first = reduce(b, idx, [axis], sh.MinimumOp, np.iinfo(np.int32).max)
    return first if index_el == i32 else b.convert(first, index_el)


def arg(largest: bool):
    name = "tfl.arg_max" if largest else "tfl.arg_min"

    def build(ctx: OpContext) -> list[SSAValue]:
        x, axis_t, out = ctx.inputs[0], ctx.inputs[1], ctx.outputs[0]
        r = len(x.shape)
        a = need_constant(ctx, axis_t, "axis").reshape(-1)
        if a.size != 1 or not -r <= int(a[0]) < r:
            raise ctx.fail(f"axis {a.tolist()} must be one value inside the input's rank {r}")
        axis = int(a[0]) % r
        if out.dtype not in ("INT32", "INT64"):
            raise ctx.fail(f"{out.label} must be INT32 or INT64, not {out.dtype}")
        if list(out.shape) != [d for i, d in enumerate(x.shape) if i != axis]:
            raise ctx.fail(f"output shape {list(out.shape)} is not the input's without "
                           f"axis {axis}")
        el = ELEMENT[out.dtype]
        if not x.quantized:
            return [arg_extreme(ctx.b, ctx.value(x), axis, largest, el)]

        def body(b: Builder, args: list[SSAValue]) -> SSAValue:
            f = op_in(b, sh.UniformDequantizeOp, [args[0]], f32_tensor(x.shape))
            return arg_extreme(b, f, axis, largest, el)
        attrs: dict[str, Attribute] = {"axis": IntegerAttr(axis, i64)}
        return [ctx.composite(name, attrs, [ctx.value(x)], tensor_of(out.shape, el), body)]
    return build


def lower_arg(largest: bool):
    """The quantized ARG_MAX / ARG_MIN on the stored integers (any per-tensor type)."""
    def lower(op_: Operation, b: Builder, st) -> SSAValue | None:
        q = quantized_type(op_.operands[0])
        if q is None or not q.is_per_tensor:
            return None
        axis = int(composite_props(op_)["axis"].value.data)
        return arg_extreme(b, st(op_.operands[0]), axis, largest,
                           element_of(op_.results[0]))
    return lower


_REDUCER_INPUTS = (Operand("input", min_rank=1),
                   Operand("axis", ("INT32", "INT64"), constant=True))
_REDUCER_OPTIONS = Options("ReducerOptions", {"keepDims": boolean}, required=False)
declare(Operator("SUM", (sh.ReduceOp,), ("ReduceSum",), int16=True,
                 how='composite "tfl.sum"; in StableHLO, reduce with an add body',
                 options=_REDUCER_OPTIONS, inputs=_REDUCER_INPUTS, build=reducer("SUM"),
                 kernels={"tfl.sum": lower_sum}))
declare(Operator("REDUCE_MAX", (), ("ReduceMax",), output="same", int16=True,
                 how='composite "tfl.reduce_max"', options=_REDUCER_OPTIONS,
                 inputs=_REDUCER_INPUTS, build=reducer("REDUCE_MAX"),
                 kernels={"tfl.reduce_max": _lower_min_max(sh.MaximumOp)}))
declare(Operator("REDUCE_MIN", (), ("ReduceMin",), output="same", int16=True,
                 how='composite "tfl.reduce_min"', options=_REDUCER_OPTIONS,
                 inputs=_REDUCER_INPUTS, build=reducer("REDUCE_MIN"),
                 kernels={"tfl.reduce_min": _lower_min_max(sh.MinimumOp)}))
_ARG_INPUTS = (Operand("input", min_rank=1), Operand("axis", ("INT32", "INT64"),
                                                     constant=True))
declare(Operator("ARG_MAX", (), ("ArgMax",), output="none",
                 how='composite "tfl.arg_max" only',
                 options=Options("ArgMaxOptions", {"outputType": any_value}, required=False),
                 inputs=_ARG_INPUTS, build=arg(True), kernels={"tfl.arg_max": lower_arg(True)}))
declare(Operator("ARG_MIN", (), ("ArgMin",), output="none",
                 how='composite "tfl.arg_min" only',
                 options=Options("ArgMinOptions", {"outputType": any_value}, required=False),
                 inputs=_ARG_INPUTS, build=arg(False),
                 kernels={"tfl.arg_min": lower_arg(False)}))


__all__ = ["arg", "arg_extreme", "lower_arg", "lower_sum", "reducer"]
