"""TFLite's int8 operators whose kernel is a 256-entry table LiteRT fills at Prepare
from a float function (LUTPopulate: round_half_away(f32(fn(f32(s_in (q - z_in)))) *
f32(1 / s_out)) + z_out, clamped; `qcomp.quant.tflite.lut_int8`): EXP. (ELU, the same
kind of table, is not in LiteRT 2.3's reference resolver: no oracle, not imported.) It
imports as `stablehlo.composite "tfl.exp"` with an f32 decomposition (dequantize, exp,
quantize); under `rescale=fixed-point` the table is made at compile time and gathered
at q + 128 (int16: LUTPopulate<int16_t> of expf, `qcomp.quant.tflite_math.exp_int16`,
made into a table of the 65536 results). On FLOAT32 EXP is `stablehlo.exponential`."""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import f32
from xdsl.ir import SSAValue

from qcomp.dialects import stablehlo as sh
from qcomp.passes.utils.builder import Builder
from qcomp.quant.tflite import lut_int8
from qcomp.quant.tflite_math import exp_int16
from qcomp.tflite.activations import int8_table, unary_composite
from qcomp.tflite.context import OpContext
from qcomp.tflite.float_math import or_float
from qcomp.tflite.kernels import quantized_type
from qcomp.tflite.kernels16 import int16_table, with_int16
from qcomp.tflite.operator import ACTIVATION, Operator, declare


def _exp(b: Builder, x: SSAValue, ctx: OpContext) -> SSAValue:
    return b.op(sh.ExponentialOp, [x], f32)


def _exp16(op_, b, st):
    """int16 EXP while expf of the largest input is finite (qcomp's LUTPopulate<int16_t>
    takes finite values; LiteRT's turns an infinity into NaN steps)."""
    q = quantized_type(op_.operands[0])
    with np.errstate(over="ignore"):
        if q is None or not np.isfinite(np.exp(np.float32(32767 * q.scale))):
            return None
    return int16_table(lambda v, qi, qo, _: exp_int16(v, qi.scale, qo.scale))(op_, b, st)


def _table(fn):
    def values(q, qi, qo, op_):
        return lut_int8(fn, qi.scale, qi.zero_point, qo.scale, qo.zero_point)
    return values


declare(Operator("EXP", how='composite "tfl.exp"', inputs=(ACTIVATION,), int16=True,
                 build=or_float(sh.ExponentialOp, unary_composite("tfl.exp", _exp)),
                 kernels={"tfl.exp": with_int16(int8_table(_table(np.exp)), _exp16)}))


__all__: list[str] = []
