"""Interpreter implementations of MLIR's `math` dialect (NumPy, scalars and tensors).

Float ops are computed in float64 and rounded once to the element type. Rounding
(`roundeven`: half to even, `round`: half away from zero, `floor`, `ceil`, `trunc`),
`absf`, `copysign` and `sqrt` are exact that way; the transcendental functions are as
accurate as NumPy's float64 ones, rounded to the element type. `fma` computes a*b+c
with one rounding for f32/f16/bf16 (the float64 product is exact; see `_fma`).
Integer ops (`absi`, `ctlz`, `cttz`, `ctpop`, `ipowi`) read signless bits and wrap.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from xdsl.dialects import math
from xdsl.interpreter import Interpreter, impl, register_impls

from qcomp.interpreter.arith_functions import signed_view, unsigned_view
from qcomp.interpreter.errors import RunError
from qcomp.interpreter.float_rounding import to_float
from qcomp.interpreter.generated import generated_functions
from qcomp.interpreter.values import element_type, int_info, is_bool, numpy_dtype, to_type
from qcomp.quant.rounding import round_half_away_from_zero

_FLOAT_UNARY: dict[type, Callable] = {
    math.AbsFOp: np.abs, math.CeilOp: np.ceil, math.FloorOp: np.floor, math.TruncOp: np.trunc,
    math.RoundEvenOp: np.rint, math.RoundOp: round_half_away_from_zero,
    math.SqrtOp: np.sqrt, math.RsqrtOp: lambda x: 1.0 / np.sqrt(x), math.CbrtOp: np.cbrt,
    math.ExpOp: np.exp, math.Exp2Op: np.exp2, math.ExpM1Op: np.expm1, math.LogOp: np.log,
    math.Log2Op: np.log2, math.Log10Op: np.log10, math.Log1pOp: np.log1p,
    math.SinOp: np.sin, math.CosOp: np.cos, math.TanOp: np.tan, math.SinhOp: np.sinh,
    math.CoshOp: np.cosh, math.TanhOp: np.tanh, math.AsinOp: np.arcsin, math.AcosOp: np.arccos,
    math.AtanOp: np.arctan, math.AsinhOp: np.arcsinh, math.AcoshOp: np.arccosh,
    math.AtanhOp: np.arctanh,
}
_FLOAT_BINARY: dict[type, Callable] = {
    math.Atan2Op: np.arctan2, math.CopySignOp: np.copysign, math.PowFOp: np.power,
}


def _float_unary(fn):
    def run(args, op):
        x = np.asarray(args[0])
        with np.errstate(all="ignore"):
            return to_float(np.asarray(fn(x.astype(np.float64)), np.float64), x.dtype)
    return run


def _float_binary(fn):
    def run(args, op):
        a = np.asarray(args[0])
        with np.errstate(all="ignore"):
            return to_float(np.asarray(fn(a.astype(np.float64), np.asarray(args[1]).astype(np.float64)),
                                       np.float64), a.dtype)
    return run


def _fma(args, op):
    """a*b+c rounded once: for types of at most 24 significand bits the float64 product
    is exact, and the float64 sum is rounded to odd before the final rounding, so the
    result is correctly rounded. float64 operands use NumPy's a*b+c (two roundings)."""
    a, b, c = (np.asarray(v) for v in args)
    dt = a.dtype
    if dt == np.float64:
        with np.errstate(all="ignore"):
            return a * b + c
    with np.errstate(all="ignore"):
        p = a.astype(np.float64) * b.astype(np.float64)
        s = p + c.astype(np.float64)
        # round to odd: if s is inexact, force its last bit to 1 (error-free TwoSum residual)
        bb = s - p
        err = (p - (s - bb)) + (c.astype(np.float64) - bb)
        bits = s.view(np.int64)
        inexact = (err != 0) & np.isfinite(s)
        towards = np.where(np.sign(err) == np.sign(s), 0, -1)  # truncate toward zero first
        bits = np.where(inexact, (bits + towards) | 1, bits)
        return to_float(bits.view(np.float64), dt)


def _wrap_like(r: np.ndarray, op) -> np.ndarray:
    e = element_type(op.results[0].type)
    if is_bool(e):
        return (r & 1).astype(np.bool_)
    return to_type(r, e)


def _width(op) -> int:
    e = element_type(op.operands[0].type)
    return 1 if is_bool(e) else int_info(e)[0]


def _absi(args, op):
    return _wrap_like(np.abs(signed_view(args[0], _width(op))), op)


def _ctpop(args, op):
    w = _width(op)
    u = unsigned_view(args[0], w)
    r = np.zeros(u.shape, np.int64)
    for i in range(w):
        r += ((u >> np.uint64(i)) & np.uint64(1)).astype(np.int64)
    return _wrap_like(r, op)


def _ctlz(args, op):
    w = _width(op)
    u = unsigned_view(args[0], w)
    r = np.full(u.shape, w, np.int64)
    for i in range(w):
        r = np.where(((u >> np.uint64(i)) & np.uint64(1)) == 1, w - 1 - i, r)
    return _wrap_like(r, op)


def _cttz(args, op):
    w = _width(op)
    u = unsigned_view(args[0], w)
    r = np.full(u.shape, w, np.int64)
    for i in reversed(range(w)):
        r = np.where(((u >> np.uint64(i)) & np.uint64(1)) == 1, i, r)
    return _wrap_like(r, op)


def _ipowi(args, op):
    """Integer power with wrap; negative exponents: 1 -> 1, -1 -> +-1, 0 -> error, else 0."""
    w = _width(op)
    base, e = signed_view(args[0], w), signed_view(args[1], w)
    if np.any((base == 0) & (e < 0)):
        raise RunError("math.ipowi: zero to a negative power (division by zero)")
    result = np.ones_like(base)
    b, k = base.copy(), np.where(e < 0, 0, e).astype(np.uint64)
    with np.errstate(all="ignore"):
        while np.any(k):
            result = np.where((k & np.uint64(1)) == 1, result * b, result)
            b = b * b
            k = k >> np.uint64(1)
    neg = np.where(base == 1, 1, np.where(base == -1, np.where(e % 2 == 0, 1, -1), 0))
    return _wrap_like(np.where(e < 0, neg, result), op)


def _fpowi(args, op):
    x = np.asarray(args[0])
    n = signed_view(args[1], int_info(element_type(op.operands[1].type))[0])
    with np.errstate(all="ignore"):
        return to_float(np.power(x.astype(np.float64), n.astype(np.float64)), x.dtype)


_OTHER: dict[type, Callable] = {
    math.FmaOp: _fma, math.AbsIOp: _absi, math.CtPopOp: _ctpop,
    math.CountLeadingZerosOp: _ctlz, math.CountTrailingZerosOp: _cttz,
    math.IPowIOp: _ipowi, math.FPowIOp: _fpowi,
}


def _make(op_type, fn):
    def run(self, interpreter: Interpreter, op, args):
        r = np.asarray(fn(args, op))
        return (r.astype(numpy_dtype(element_type(op.results[0].type)), copy=False),)
    run.__name__ = f"run_{op_type.name[5:]}"
    return impl(op_type)(run)


_Generated = generated_functions(
    [(t, _make(t, _float_unary(f))) for t, f in _FLOAT_UNARY.items()]
    + [(t, _make(t, _float_binary(f))) for t, f in _FLOAT_BINARY.items()]
    + [(t, _make(t, f)) for t, f in _OTHER.items()])


@register_impls
class MathFunctions(_Generated):
    """`math` ops on NumPy values (module docstring)."""
