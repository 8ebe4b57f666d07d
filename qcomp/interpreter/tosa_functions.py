"""Interpreter implementations of qcomp's `tosa` ops (TOSA 1.0 integer semantics).

`tosa.rescale` is `qcomp.quant.fixed_point.tosa_rescale`; integer add/sub/mul wrap
to the element width (mul with a shift rounds: (a*b + 2^(shift-1)) >> shift);
`cast` float -> int rounds half to even and saturates, int -> int wraps.
"""

from __future__ import annotations

import numpy as np
from xdsl.interpreter import Interpreter, InterpreterFunctions, impl, register_impls

from qcomp.dialects import tosa
from qcomp.interpreter import elementwise
from qcomp.interpreter.errors import RunError
from qcomp.interpreter.values import (
    budget,
    dense_to_array,
    element_type,
    int_info,
    is_float,
    is_int,
    numpy_dtype,
    quant_of,
    to_type,
)
from qcomp.quant.fixed_point import RescaleError, tosa_rescale
from qcomp.quant.ranges import storage_range, wrap
from qcomp.quant.uniform import float_to_int


def _elem(v):
    return quant_of(v.type) or element_type(v.type)


def _scalar(x) -> int:
    a = np.asarray(x).reshape(-1)
    if a.size != 1:
        raise RunError("expected a single-element zero point")
    return int(a[0])


@register_impls
class TosaFunctions(InterpreterFunctions):
    """`tosa` ops over NumPy arrays (quantized element types use their storage)."""

    @impl(tosa.ConstOp)
    def run_const(self, interpreter: Interpreter, op, args):
        return (dense_to_array(op.values, op.results[0].type, budget(interpreter)),)

    @impl(tosa.RescaleOp)
    def run_rescale(self, interpreter: Interpreter, op, args):
        x, m, s, izp, ozp = args
        in_e, out_e = _elem(op.input), _elem(op.output)
        in_w, _ = int_info(in_e)
        out_w, out_signed = int_info(out_e)
        xv = np.asarray(x)
        if op.is_input_unsigned:
            xv = wrap(xv, in_w, False)
        izp_v, ozp_v = _scalar(izp), _scalar(ozp)
        if op.is_input_unsigned:
            izp_v &= (1 << in_w) - 1
        if op.is_output_unsigned:
            ozp_v &= (1 << out_w) - 1
        mode = op.rounding_mode.data.value if op.rounding_mode is not None else "SINGLE_ROUND"
        try:
            r = tosa_rescale(xv, m, s, izp_v, ozp_v, rounding_mode=str(mode),
                             scale32=op.is_scale32, per_channel=op.is_per_channel,
                             input_unsigned=False, output_unsigned=op.is_output_unsigned,
                             out_bitwidth=out_w, out_signed=out_signed)
        except RescaleError as e:
            raise RunError(f"{op.name}: {e}") from None
        return (to_type(r, out_e),)

    def _binary(self, op, args):
        a, b = np.broadcast_arrays(*args)
        e = _elem(op.operands[0])
        return (elementwise.apply(op, [a, b], e, _elem(op.results[0])),)

    @impl(tosa.AddOp)
    def run_add(self, interpreter: Interpreter, op, args):
        return self._binary(op, args)

    @impl(tosa.SubOp)
    def run_sub(self, interpreter: Interpreter, op, args):
        return self._binary(op, args)

    @impl(tosa.MaximumOp)
    def run_maximum(self, interpreter: Interpreter, op, args):
        return self._binary(op, args)

    @impl(tosa.MinimumOp)
    def run_minimum(self, interpreter: Interpreter, op, args):
        return self._binary(op, args)

    @impl(tosa.MulOp)
    def run_mul(self, interpreter: Interpreter, op, args):
        a, b, shift = args
        e, out_e = _elem(op.operands[0]), _elem(op.results[0])
        sh = _scalar(shift)
        a, b = np.broadcast_arrays(a, b)
        if is_int(e) and sh > 0:
            p = a.astype(np.int64) * b.astype(np.int64)
            p = (p + (1 << (sh - 1))) >> sh
            lo, hi = storage_range(32, True)
            if np.any((p < lo) | (p > hi)):
                raise RunError(f"{op.name}: shifted product out of i32 range")
            return (to_type(p, out_e),)
        if is_int(e):
            return (to_type(a.astype(np.int64) * b.astype(np.int64), out_e),)
        return (elementwise.apply(op, [a, b], e, out_e),)

    def _compare(self, op, args, direction):
        a, b = np.broadcast_arrays(*args)
        return (elementwise.compare(direction, a, b, _elem(op.operands[0])),)

    @impl(tosa.GreaterOp)
    def run_greater(self, interpreter: Interpreter, op, args):
        return self._compare(op, args, "GT")

    @impl(tosa.GreaterEqualOp)
    def run_greater_equal(self, interpreter: Interpreter, op, args):
        return self._compare(op, args, "GE")

    @impl(tosa.EqualOp)
    def run_equal(self, interpreter: Interpreter, op, args):
        return self._compare(op, args, "EQ")

    @impl(tosa.AbsOp)
    def run_abs(self, interpreter: Interpreter, op, args):
        return (elementwise.apply(op, [args[0]], _elem(op.operands[0]), _elem(op.results[0])),)

    @impl(tosa.CastOp)
    def run_cast(self, interpreter: Interpreter, op, args):
        (x,) = args
        in_e, out_e = _elem(op.operands[0]), _elem(op.results[0])
        if is_float(in_e) and is_int(out_e):
            w, sgn = int_info(out_e)
            lo, hi = storage_range(w, sgn) if w > 1 else (0, 1)
            r = np.rint(np.asarray(x, np.float64))
            return (float_to_int(r, lo, hi, numpy_dtype(out_e)),)
        return (elementwise.convert(np.asarray(x), in_e, out_e),)

    @impl(tosa.ClampOp)
    def run_clamp(self, interpreter: Interpreter, op, args):
        (x,) = args
        lo = op.properties["min_val"].value.data
        hi = op.properties["max_val"].value.data
        return (np.clip(x, lo, hi).astype(x.dtype),)
