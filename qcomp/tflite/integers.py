"""TFLite's operators on plain (unquantized) integer, boolean and float tensors that
the converter leaves around quantized graphs: LOGICAL_AND / LOGICAL_OR / LOGICAL_NOT
(`stablehlo.and` / `or` / `not` on i1), FLOOR_DIV and FLOOR_MOD (integer division
rounded toward -inf: the truncating `divide` / `remainder` corrected where the
remainder is nonzero and its sign differs from the divisor's), CAST
(`stablehlo.convert`: C++'s static_cast, narrowing integers wrap, floats truncate
toward zero, nonzero -> true), FILL (the scalar broadcast to the constant `dims`),
ONE_HOT (`select(iota == indices, on, off)` along `axis`) and ADD_N (a chain of adds in
input order). None computes on quantized values: FILL and ONE_HOT copy theirs (the
output keeps their (scale, zero point)); the others refuse a quantized operand."""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import TensorType
from xdsl.ir import SSAValue

from qcomp.dialects import stablehlo as sh
from qcomp.dialects.stablehlo.format import i64_array
from qcomp.tflite.common import broadcast, check_output_shape, need_constant, op, same_params
from qcomp.tflite.context import OpContext, Tensor
from qcomp.tflite.elementwise import binary
from qcomp.tflite.operator import Operand, Operator, Options, any_value, declare
from qcomp.tflite.shapes import INDICES

_INTS = ("INT8", "INT16", "INT32", "INT64")


def _plain(ctx: OpContext, *ts: Tensor) -> None:
    for t in ts:
        if t.quantized:
            raise ctx.fail(f"{t.label} is quantized; {ctx.name} takes plain values")


def _bools(ctx: OpContext) -> None:
    for t in (*ctx.inputs, *ctx.outputs):
        if t.dtype != "BOOL":
            raise ctx.fail(f"{t.label} is {t.dtype}; {ctx.name} takes BOOL")


def logical(cls):
    inner = binary(cls)

    def build(ctx: OpContext) -> list[SSAValue]:
        _bools(ctx)
        return inner(ctx)
    return build


def logical_not(ctx: OpContext) -> list[SSAValue]:
    _bools(ctx)
    x, out = ctx.inputs[0], ctx.outputs[0]
    check_output_shape(ctx, out, x.shape)
    return [op(ctx, sh.NotOp, [ctx.value(x)], out.type())]


def _same_integers(ctx: OpContext) -> tuple[SSAValue, SSAValue, TensorType]:
    """The two integer operands broadcast to the output (one element type)."""
    a, b = ctx.inputs
    out = ctx.outputs[0]
    _plain(ctx, a, b, out)
    if not a.dtype == b.dtype == out.dtype or a.dtype not in _INTS:
        raise ctx.fail(f"{ctx.name} takes one integer type for inputs and output, got "
                       f"{a.dtype}, {b.dtype} -> {out.dtype}")
    try:
        shape = np.broadcast_shapes(a.shape, b.shape)
    except ValueError:
        raise ctx.fail(f"shapes {list(a.shape)} and {list(b.shape)} do not broadcast") \
            from None
    check_output_shape(ctx, out, list(shape))
    return broadcast(ctx, a, out.shape), broadcast(ctx, b, out.shape), out.type()


def _wrong_sign(ctx: OpContext, r: SSAValue, y: SSAValue, t: TensorType) -> SSAValue:
    """r != 0 and (r < 0) != (y < 0)."""
    zero = ctx.b.full(np.int64(0), t.element_type, tuple(t.get_shape()))
    nonzero = ctx.b.emit(sh.CompareOp(r, zero, "NE", "SIGNED"))
    differ = ctx.b.emit(sh.CompareOp(ctx.b.emit(sh.CompareOp(r, zero, "LT", "SIGNED")),
                                     ctx.b.emit(sh.CompareOp(y, zero, "LT", "SIGNED")), "NE"))
    return ctx.b.binary(sh.AndOp, nonzero, differ)


def floor_div(ctx: OpContext) -> list[SSAValue]:
    """FLOOR_DIV: q = x / y (toward zero), q - 1 where x - q y is nonzero with the sign
    opposite to y's (TFLite's floor of the f64 quotient)."""
    x, y, t = _same_integers(ctx)
    q = op(ctx, sh.DivideOp, [x, y], t)
    r = op(ctx, sh.RemainderOp, [x, y], t)
    one = ctx.b.full(np.int64(1), t.element_type, tuple(t.get_shape()))
    return [ctx.b.emit(sh.SelectOp(_wrong_sign(ctx, r, y, t),
                                   op(ctx, sh.SubtractOp, [q, one], t), q))]


def floor_mod(ctx: OpContext) -> list[SSAValue]:
    """FLOOR_MOD: r = remainder(x, y) (the sign of x), r + y where r is nonzero with the
    sign opposite to y's."""
    x, y, t = _same_integers(ctx)
    r = op(ctx, sh.RemainderOp, [x, y], t)
    return [ctx.b.emit(sh.SelectOp(_wrong_sign(ctx, r, y, t), op(ctx, sh.AddOp, [r, y], t),
                                   r))]


def cast(ctx: OpContext) -> list[SSAValue]:
    x, out = ctx.inputs[0], ctx.outputs[0]
    _plain(ctx, x, out)
    check_output_shape(ctx, out, x.shape)
    if x.dtype == out.dtype:
        return [ctx.value(x)]
    return [op(ctx, sh.ConvertOp, [ctx.value(x)], out.type())]


def fill(ctx: OpContext) -> list[SSAValue]:
    """FILL: the scalar `value` broadcast to the constant `dims` (the output keeps the
    value's type and (scale, zero point))."""
    dims_t, value = ctx.inputs
    out = ctx.outputs[0]
    empty = tuple(dims_t.shape) == (0,)  # a scalar: no data to hold
    dims = [] if empty else [int(d) for d in need_constant(ctx, dims_t, "dims").reshape(-1)]
    if any(d < 0 for d in dims):
        raise ctx.fail(f"dims {dims} must be non-negative")
    if value.shape != ():
        raise ctx.fail(f"{value.label} must be a scalar, has shape {list(value.shape)}")
    if value.dtype != out.dtype:
        raise ctx.fail(f"{out.label} is {out.dtype}, the value {value.dtype}")
    if value.quantized:
        same_params(ctx, value, out)
    check_output_shape(ctx, out, dims)
    return [op(ctx, sh.BroadcastInDimOp, [ctx.value(value)], out.type(),
               broadcast_dimensions=i64_array([]))]


def one_hot(ctx: OpContext) -> list[SSAValue]:
    """ONE_HOT: out[..., j (at axis), ...] = indices[...] == j ? on : off, j in
    [0, depth) (indices outside give `off` throughout)."""
    indices, depth_t, on, off = ctx.inputs
    out = ctx.outputs[0]
    d = need_constant(ctx, depth_t, "depth").reshape(-1)
    if d.size != 1 or d[0] < 0:
        raise ctx.fail(f"depth {d.tolist()} must be one non-negative value")
    depth = int(d[0])
    r = len(indices.shape)
    axis = int(ctx.option("axis", -1))
    if not -1 <= axis <= r:
        raise ctx.fail(f"axis {axis} must be in [-1, {r}]")
    axis = r if axis == -1 else axis
    for v in (on, off):
        if v.shape != () or v.dtype != out.dtype:
            raise ctx.fail(f"{v.label} must be a {out.dtype} scalar (the output's type)")
        if v.quantized or out.quantized:
            same_params(ctx, v, out)
    shape = [*indices.shape[:axis], depth, *indices.shape[axis:]]
    check_output_shape(ctx, out, shape)
    b, el = ctx.b, indices.element()
    iota = b.constant(np.broadcast_to(np.arange(depth).reshape(
        [depth if i == axis else 1 for i in range(r + 1)]), shape).astype(np.int64), el)
    idx = op(ctx, sh.BroadcastInDimOp, [ctx.value(indices)], TensorType(el, shape),
             broadcast_dimensions=i64_array([i if i < axis else i + 1 for i in range(r)]))
    hit = b.emit(sh.CompareOp(iota, idx, "EQ", "SIGNED"))
    ov, fv = (op(ctx, sh.BroadcastInDimOp, [ctx.value(v)], out.type(),
                 broadcast_dimensions=i64_array([])) for v in (on, off))
    return [b.emit(sh.SelectOp(hit, ov, fv))]


def add_n(ctx: OpContext) -> list[SSAValue]:
    """ADD_N: ((x_0 + x_1) + x_2) + ... of one shape and type."""
    out = ctx.outputs[0]
    _plain(ctx, *ctx.inputs, out)
    for t in ctx.inputs:
        if t.dtype != out.dtype or tuple(t.shape) != tuple(out.shape):
            raise ctx.fail(f"{t.label} is {t.dtype} {list(t.shape)}; ADD_N takes inputs of "
                           f"the output's type and shape ({out.dtype} {list(out.shape)})")
    v = ctx.value(ctx.inputs[0])
    for t in ctx.inputs[1:]:
        v = op(ctx, sh.AddOp, [v, ctx.value(t)], out.type())
    return [v]


_NONE = {"output": "none"}
_BOOL = (Operand("input", ("BOOL",)), Operand("input2", ("BOOL",)))
declare(Operator("LOGICAL_AND", (), (), **_NONE, how="and on i1 (no quantized operand)",
                 options=Options("LogicalAndOptions", required=False), inputs=_BOOL,
                 build=logical(sh.AndOp)))
declare(Operator("LOGICAL_OR", (), (), **_NONE, how="or on i1 (no quantized operand)",
                 options=Options("LogicalOrOptions", required=False), inputs=_BOOL,
                 build=logical(sh.OrOp)))
declare(Operator("LOGICAL_NOT", (), (), **_NONE, how="not on i1 (no quantized operand)",
                 options=Options("LogicalNotOptions", required=False),
                 inputs=(Operand("input", ("BOOL",)),), build=logical_not))
_TWO_INTS = (Operand("input", _INTS), Operand("input2", _INTS))
declare(Operator("FLOOR_DIV", (), (), **_NONE, how="integer divide, remainder, select",
                 options=Options("FloorDivOptions", required=False), inputs=_TWO_INTS,
                 build=floor_div))
declare(Operator("FLOOR_MOD", (), (), **_NONE, how="integer remainder, add, select",
                 options=Options("FloorModOptions", required=False), inputs=_TWO_INTS,
                 build=floor_mod))
declare(Operator("CAST", (), (), **_NONE, how="convert (no quantized operand)",
                 options=Options("CastOptions", {"inDataType": any_value,
                                                 "outDataType": any_value}, required=False),
                 inputs=(Operand("input"),), build=cast))
declare(Operator("FILL", (), (), output="same", int16=True,
                 how="broadcast_in_dim of the value: checked as BROADCAST, the same rule",
                 options=Options("FillOptions", required=False),
                 inputs=(Operand("dims", INDICES, rank=(1,)), Operand("value")),
                 build=fill))
declare(Operator("ONE_HOT", (), (), output="same", int16=True,
                 how="compare, select of the on / off values broadcast",
                 options=Options("OneHotOptions", {"axis": any_value}, required=False),
                 inputs=(Operand("indices", INDICES), Operand("depth", ("INT32",), constant=True),
                         Operand("on_value"), Operand("off_value")), build=one_hot))
declare(Operator("ADD_N", (), (), **_NONE, how="a chain of add (no quantized operand)",
                 options=Options("AddNOptions", required=False),
                 inputs=(Operand("input"),), variadic=True, build=add_n))


__all__ = ["add_n", "cast", "fill", "floor_div", "floor_mod", "logical", "logical_not",
           "one_hot"]
