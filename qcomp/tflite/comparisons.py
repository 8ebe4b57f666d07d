"""TFLite's comparisons (EQUAL, NOT_EQUAL, LESS, LESS_EQUAL, GREATER, GREATER_EQUAL) and
SELECT / SELECT_V2.

A comparison of quantized inputs is `stablehlo.composite "tfl.<name>"` of the inputs
broadcast to the output (its decomposition compares the dequantized values); of float
or integer inputs, `stablehlo.compare`. Under `rescale=fixed-point` (int8,
comparisons.cc's ComparisonQuantized, reference_ops::ComparisonWithScaling) each input
is v_i = MBQM((q_i - z_i) * 2^8, QuantizeMultiplierSmallerThanOneExp(s_i)) and the
comparison is of v_1 and v_2 (the kernel takes scales below 1; others keep the
decomposition).

SELECT (the condition the inputs' shape, or rank 1 along their first dimension) and
SELECT_V2 (all three broadcast) are `stablehlo.select`: values move, so both inputs and
the output keep one (scale, zero point), and the stored integers are selected.
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import i1, i64
from xdsl.ir import Operation, SSAValue

from qcomp.dialects import stablehlo as sh
from qcomp.dialects.stablehlo.format import i64_array
from qcomp.passes.utils.builder import Builder, shape_of
from qcomp.quant.tflite import quantize_multiplier
from qcomp.tflite.common import broadcast, op, op_in, same_params
from qcomp.tflite.context import OpContext, f32_tensor, tensor_of
from qcomp.tflite.kernels import centred, int8, quantized_type
from qcomp.tflite.operator import ACTIVATION, Operand, Operator, Options, declare

DIRECTIONS = {"EQUAL": "EQ", "NOT_EQUAL": "NE", "LESS": "LT", "LESS_EQUAL": "LE",
              "GREATER": "GT", "GREATER_EQUAL": "GE"}
_OPTIONS = {"EQUAL": "EqualOptions", "NOT_EQUAL": "NotEqualOptions", "LESS": "LessOptions",
            "LESS_EQUAL": "LessEqualOptions", "GREATER": "GreaterOptions",
            "GREATER_EQUAL": "GreaterEqualOptions"}
_ONNX = {"EQUAL": ("Equal",), "LESS": ("Less",), "LESS_EQUAL": ("LessOrEqual",),
         "GREATER": ("Greater",), "GREATER_EQUAL": ("GreaterOrEqual",)}


def _broadcast_shape(ctx: OpContext, *shapes) -> tuple[int, ...]:
    try:
        shape = tuple(int(d) for d in np.broadcast_shapes(*shapes))
    except ValueError:
        raise ctx.fail(f"shapes {[list(s) for s in shapes]} do not broadcast") from None
    if shape != tuple(ctx.outputs[0].shape):
        raise ctx.fail(f"output shape {list(ctx.outputs[0].shape)} is not the inputs' "
                       f"broadcast shape {list(shape)}")
    return shape


def comparison(name: str):
    direction = DIRECTIONS[name]

    def build(ctx: OpContext) -> list[SSAValue]:
        a, b_ = ctx.inputs
        out = ctx.outputs[0]
        if out.dtype != "BOOL":
            raise ctx.fail(f"{out.label} must be BOOL, not {out.dtype}")
        if a.quantized != b_.quantized or a.dtype != b_.dtype:
            raise ctx.fail(f"{a.label} and {b_.label} must have one type")
        shape = _broadcast_shape(ctx, a.shape, b_.shape)
        av, bv = broadcast(ctx, a, shape), broadcast(ctx, b_, shape)
        result = tensor_of(shape, i1)
        if not a.quantized:
            return [ctx.b.emit(sh.CompareOp(av, bv, direction, result_type=result))]

        def body(b: Builder, args: list[SSAValue]) -> SSAValue:
            fa = op_in(b, sh.UniformDequantizeOp, [args[0]], f32_tensor(shape))
            fb = op_in(b, sh.UniformDequantizeOp, [args[1]], f32_tensor(shape))
            return b.emit(sh.CompareOp(fa, fb, direction, result_type=result))
        return [ctx.composite(f"tfl.{name.lower()}", {}, [av, bv], result, body)]
    return build


def lower_comparison(name: str):
    direction = DIRECTIONS[name]

    def lower(op_: Operation, b: Builder, st) -> SSAValue | None:
        """TFLite's int8 ComparisonWithScaling (see the module docstring)."""
        qs = [quantized_type(v) for v in op_.operands]
        if not int8(*qs) or any(q.scale >= 1.0 for q in qs):
            return None
        from qcomp.passes.quant_to_math.emit import mbqm_ir

        scaled = []
        for v, q in zip(op_.operands, qs):
            x = b.binary(sh.ShiftLeftOp, centred(b, st(v), q),
                         b.full(np.int64(8), i64, shape_of(v)))
            m, s = quantize_multiplier(q.scale)
            scaled.append(mbqm_ir(b, x, np.int64(m), np.int64(s), None))
        return b.emit(sh.CompareOp(scaled[0], scaled[1], direction))
    return lower


def select(v2: bool):
    def build(ctx: OpContext) -> list[SSAValue]:
        cond, x, y = ctx.inputs
        out = ctx.outputs[0]
        if cond.dtype != "BOOL":
            raise ctx.fail(f"the condition {cond.label} must be BOOL, not {cond.dtype}")
        same_params(ctx, x, out)
        same_params(ctx, y, out)
        if v2:
            shape = _broadcast_shape(ctx, cond.shape, x.shape, y.shape)
            c = broadcast(ctx, cond, shape)
        else:
            shape = tuple(x.shape)
            if tuple(y.shape) != shape or tuple(out.shape) != shape:
                raise ctx.fail(f"the inputs' shapes {list(x.shape)}, {list(y.shape)} and the "
                               f"output's {list(out.shape)} must be one")
            if tuple(cond.shape) == shape:
                c = ctx.value(cond)
            elif len(cond.shape) == 1 and len(shape) > 1 and cond.shape[0] == shape[0]:
                c = op(ctx, sh.BroadcastInDimOp, [ctx.value(cond)], cond.type(shape),
                       broadcast_dimensions=i64_array([0]))
            else:
                raise ctx.fail(f"the condition's shape {list(cond.shape)} is neither the "
                               f"inputs' {list(shape)} nor their first dimension")
        xv, yv = broadcast(ctx, x, shape), broadcast(ctx, y, shape)
        return [ctx.b.emit(sh.SelectOp(c, xv, yv, out.type()))]
    return build


_TWO = (ACTIVATION, Operand("input2"))
for _name in DIRECTIONS:
    declare(Operator(
        _name, (sh.CompareOp,), _ONNX.get(_name, ()), output="none", int16=True,
        how=f'composite "tfl.{_name.lower()}"; in StableHLO, compare {DIRECTIONS[_name]}',
        options=Options(_OPTIONS[_name], required=False), inputs=_TWO,
        build=comparison(_name),
        kernels={f"tfl.{_name.lower()}": lower_comparison(_name)}))
_SELECT_INPUTS = (Operand("condition", ("BOOL",)), Operand("input"), Operand("input2"))
declare(Operator("SELECT", (sh.SelectOp,), ("Where",), output="same", int16=True,
                 options=Options("SelectOptions", required=False), inputs=_SELECT_INPUTS, build=select(False)))
declare(Operator("SELECT_V2", (), (), output="same", int16=True,
                 how="select: checked as SELECT, the same rule",
                 options=Options("SelectV2Options", required=False), inputs=_SELECT_INPUTS, build=select(True)))


__all__ = ["DIRECTIONS", "comparison", "lower_comparison", "select"]
