"""Interpreter implementations of MLIR's `arith` dialect (NumPy, scalars and tensors).

Values are NumPy arrays as everywhere in the interpreter (scalars are 0-d arrays).
`arith` integers are signless: an `iN` value is held in its signed container and
each op reads the bits as signed or unsigned as the op says (`divui`, `extui`,
`uitofp`, `cmpi ult`, ... read them unsigned).

- Integer `addi`/`subi`/`muli`/`shli` wrap modulo 2^N; `divsi`/`remsi` truncate toward
  zero, `floordivsi`/`ceildivsi` round as named.
- Float `addf`/`subf`/`mulf`/`divf`/`remf` are computed in float64 and rounded once to
  the element type: for f32/f16/bf16 this is the correctly rounded result in that type
  (double rounding is harmless for + - * / since float64 has more than 2p+2 bits).
- `maximumf`/`minimumf` propagate NaN and order -0 < +0; `maxnumf`/`minnumf` return
  the other operand when one is NaN.
- `fptosi`/`fptoui` truncate toward zero. Where MLIR gives poison (out of range, NaN)
  qcomp saturates to the integer range and maps NaN to 0, as `stablehlo.convert`
  does (APFloat::convertToInteger).
- Undefined behaviour (integer division by zero, signed `INT_MIN / -1`, shift counts
  >= N) stops the run with a `RunError` rather than inventing a value.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from xdsl.dialects import arith
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, FloatAttr, IntegerAttr
from xdsl.interpreter import Interpreter, impl, register_impls

from qcomp.interpreter.errors import RunError
from qcomp.interpreter.float_rounding import round_float64
from qcomp.interpreter.generated import generated_functions
from qcomp.interpreter.values import (
    budget,
    dense_to_array,
    element_type,
    int_info,
    is_bool,
    is_float,
    numpy_dtype,
    to_type,
)
from qcomp.quant.float_storage import narrow_float
from qcomp.quant.ranges import storage_range, wrap
from qcomp.quant.uniform import float_to_int


def _out(x, t) -> np.ndarray:
    """`x` as an array of the NumPy dtype of type `t`'s elements (floats rounded once)."""
    dt = numpy_dtype(element_type(t))
    a = np.asarray(x)
    with np.errstate(all="ignore"):
        if a.dtype.kind == "f" and dt.kind == "V":  # ml_dtypes bf16 / f8 / f6 / f4
            return narrow_float(a, dt)
        return a.astype(dt, copy=False)


def signed_view(x: np.ndarray, width: int) -> np.ndarray:
    """The bits of `x` (low `width` of them) as signed int64."""
    a = np.asarray(x)
    if a.dtype == np.bool_:
        return np.where(a, -1, 0).astype(np.int64) if width == 1 else a.astype(np.int64)
    return wrap(a if a.dtype.kind in "iu" else a.astype(np.int64), width, True).astype(np.int64)


def unsigned_view(x: np.ndarray, width: int) -> np.ndarray:
    """The bits of `x` (low `width` of them) as unsigned (uint64)."""
    a = np.asarray(x)
    if a.dtype == np.bool_:
        return a.astype(np.uint64)
    u = a.astype(np.int64).astype(np.uint64) if a.dtype.kind == "i" else a.astype(np.uint64)
    return u & np.uint64((1 << width) - 1) if width < 64 else u


def _width(t) -> int:
    e = element_type(t)
    if is_bool(e):
        return 1
    return int_info(e)[0]


def _wrap(x: np.ndarray, t) -> np.ndarray:
    """Integer result `x` (int64/uint64 bits) wrapped into the element type of `t`."""
    e = element_type(t)
    if is_bool(e):
        return (np.asarray(x) & 1).astype(np.bool_)
    return to_type(np.asarray(x), e)


def _wide(x: np.ndarray) -> np.ndarray:
    return np.asarray(x).astype(np.float64)


# -- integer ----------------------------------------------------------------------------------

def _int_binary(fn: Callable[[np.ndarray, np.ndarray, int], np.ndarray], unsigned: bool = False):
    def run(args, op):
        w = _width(op.results[0].type)
        view = unsigned_view if unsigned else signed_view
        a, b = view(args[0], w), view(args[1], w)
        with np.errstate(all="ignore"):
            r = fn(a, b, w)
        return _wrap(np.asarray(r).astype(np.uint64 if unsigned else np.int64), op.results[0].type)
    return run


def _nonzero(b: np.ndarray, what: str) -> np.ndarray:
    if np.any(b == 0):
        raise RunError(f"{what} by zero (undefined behaviour)")
    return b


def _check_signed_overflow(a, b, w):
    if np.any((a == storage_range(w, True)[0]) & (b == -1)):
        raise RunError("signed division overflow INT_MIN / -1 (undefined behaviour)")


def _divsi(a, b, w):
    _nonzero(b, "division")
    _check_signed_overflow(a, b, w)
    return (a - np.fmod(a, b)) // b  # exact: truncation toward zero without abs(INT_MIN)


def _remsi(a, b, w):
    _nonzero(b, "remainder")
    return np.fmod(a, b)


def _floordivsi(a, b, w):
    _nonzero(b, "division")
    _check_signed_overflow(a, b, w)
    return np.floor_divide(a, b)


def _ceildivsi(a, b, w):
    _nonzero(b, "division")
    _check_signed_overflow(a, b, w)
    return np.floor_divide(a, b) + (np.remainder(a, b) != 0)


def _divui(a, b, w):
    return a // _nonzero(b, "division")


def _ceildivui(a, b, w):
    _nonzero(b, "division")
    q = a // b
    return q + (a % b != 0).astype(np.uint64)


def _remui(a, b, w):
    return a % _nonzero(b, "remainder")


def _count(b, w):
    if np.any((b < 0) | (b >= w)):
        raise RunError(f"shift by {w} or more bits (poison)")
    return b


_INT_BINARY = {
    arith.AddiOp: _int_binary(lambda a, b, w: a + b),
    arith.SubiOp: _int_binary(lambda a, b, w: a - b),
    arith.MuliOp: _int_binary(lambda a, b, w: a * b),
    arith.DivSIOp: _int_binary(_divsi),
    arith.RemSIOp: _int_binary(_remsi),
    arith.FloorDivSIOp: _int_binary(_floordivsi),
    arith.CeilDivSIOp: _int_binary(_ceildivsi),
    arith.DivUIOp: _int_binary(_divui, unsigned=True),
    arith.CeilDivUIOp: _int_binary(_ceildivui, unsigned=True),
    arith.RemUIOp: _int_binary(_remui, unsigned=True),
    arith.MaxSIOp: _int_binary(lambda a, b, w: np.maximum(a, b)),
    arith.MinSIOp: _int_binary(lambda a, b, w: np.minimum(a, b)),
    arith.MaxUIOp: _int_binary(lambda a, b, w: np.maximum(a, b), unsigned=True),
    arith.MinUIOp: _int_binary(lambda a, b, w: np.minimum(a, b), unsigned=True),
    arith.AndIOp: _int_binary(lambda a, b, w: a & b, unsigned=True),
    arith.OrIOp: _int_binary(lambda a, b, w: a | b, unsigned=True),
    arith.XOrIOp: _int_binary(lambda a, b, w: a ^ b, unsigned=True),
    arith.ShLIOp: _int_binary(lambda a, b, w: a << _count(b, w).astype(np.uint64), unsigned=True),
    arith.ShRUIOp: _int_binary(lambda a, b, w: a >> _count(b, w).astype(np.uint64), unsigned=True),
    arith.ShRSIOp: _int_binary(lambda a, b, w: a >> _count(unsigned_view(b, w).astype(np.int64), w)),
}

# -- float ------------------------------------------------------------------------------------


def _max_zero_aware(a, b, want_max: bool):
    """max/min with -0 < +0 (NaN handled by the caller)."""
    both_zero = (a == 0) & (b == 0)
    pick = np.maximum(a, b) if want_max else np.minimum(a, b)
    neg_a, neg_b = np.signbit(a), np.signbit(b)
    zero = np.where((neg_a & neg_b) if want_max else (neg_a | neg_b), -0.0, 0.0)
    return np.where(both_zero, zero, pick)


def _maximumf(a, b):
    return np.where(np.isnan(a) | np.isnan(b), np.nan, _max_zero_aware(a, b, True))


def _minimumf(a, b):
    return np.where(np.isnan(a) | np.isnan(b), np.nan, _max_zero_aware(a, b, False))


def _maxnumf(a, b):
    r = _max_zero_aware(a, b, True)
    return np.where(np.isnan(a), b, np.where(np.isnan(b), a, r))


def _minnumf(a, b):
    r = _max_zero_aware(a, b, False)
    return np.where(np.isnan(a), b, np.where(np.isnan(b), a, r))


_FLOAT_BINARY: dict[type, Callable] = {
    arith.AddfOp: np.add, arith.SubfOp: np.subtract, arith.MulfOp: np.multiply,
    arith.DivfOp: np.divide, arith.MaximumfOp: _maximumf, arith.MinimumfOp: _minimumf,
    arith.MaxnumfOp: _maxnumf, arith.MinnumfOp: _minnumf,
}
if hasattr(arith, "RemFOp"):
    _FLOAT_BINARY[arith.RemFOp] = np.fmod


def _float_binary(fn):
    def run(args, op):
        with np.errstate(all="ignore"):
            return _out(fn(_wide(args[0]), _wide(args[1])), op.results[0].type)
    return run


# -- comparisons --------------------------------------------------------------------------

_CMPI = ("eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge")
_RELATION = {"eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal,
             "gt": np.greater, "ge": np.greater_equal}
# arith.cmpf predicates 0..15: false, oeq, ogt, oge, olt, ole, one, ord, ueq, ugt, uge,
# ult, ule, une, uno, true
_CMPF = ("false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord",
         "ueq", "ugt", "uge", "ult", "ule", "une", "uno", "true")


def cmpi(predicate: str, a: np.ndarray, b: np.ndarray, width: int) -> np.ndarray:
    view = unsigned_view if predicate[0] == "u" else signed_view
    rel = predicate if predicate in ("eq", "ne") else predicate[1:]
    return _RELATION[rel](view(a, width), view(b, width))


def cmpf(predicate: str, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    x, y = _wide(a), _wide(b)
    unordered = np.isnan(x) | np.isnan(y)
    if predicate == "false":
        return np.zeros(np.broadcast(x, y).shape, bool)
    if predicate == "true":
        return np.ones(np.broadcast(x, y).shape, bool)
    if predicate == "ord":
        return ~unordered
    if predicate == "uno":
        return unordered
    rel = _RELATION[predicate[1:]]
    with np.errstate(invalid="ignore"):
        r = rel(x, y)
    # NaN compares false in NumPy for every relation but "ne", which is true
    return (r & ~unordered) if predicate[0] == "o" else (r | unordered)


# -- casts ----------------------------------------------------------------------------------

def _int_to_float(args, op, unsigned: bool):
    w = _width(op.operands[0].type)
    v = unsigned_view(args[0], w) if unsigned else signed_view(args[0], w)
    # NumPy converts int64/uint64 to a float type with one rounding (to nearest even)
    dt = numpy_dtype(element_type(op.results[0].type))
    if dt.itemsize >= 4 and dt.kind == "f":
        return np.asarray(v.astype(dt))
    # f16/bf16/f8: through float64, exact below 2^53; above, rounded to odd first so
    # the second rounding is the only one that counts
    f = v.astype(np.float64)
    big = np.abs(f) >= 2.0 ** 53
    if np.any(big):
        mag = np.abs(f)
        m = v.astype(np.uint64) if v.dtype == np.uint64 else np.abs(v).astype(np.uint64)
        back = np.where(mag >= 2.0 ** 64, np.uint64(2 ** 64 - 1),
                        np.where(mag >= 2.0 ** 64, 0.0, mag).astype(np.uint64))
        over = (mag >= 2.0 ** 64) | (back > m)
        trunc = np.where(over, np.nextafter(mag, 0.0), mag)
        odd = np.where(back != m, (trunc.view(np.int64) | 1).view(np.float64), mag)
        f = np.where(big, np.copysign(odd, f), f)
    return round_float64(f, dt) if dt.kind == "V" else np.asarray(f.astype(dt))


def _float_to_int(args, op, unsigned: bool):
    rt = op.results[0].type
    w = _width(rt)
    lo, hi = storage_range(w, not unsigned)
    r = float_to_int(np.asarray(args[0]), lo, hi, np.uint64 if unsigned else np.int64)
    return _wrap(r, rt)


def _ext_or_trunc(args, op, kind: str):
    w_in = _width(op.operands[0].type)
    x = args[0]
    if kind == "extsi":
        v = signed_view(x, w_in)
    else:  # extui, trunci keep the low bits
        v = unsigned_view(x, w_in)
    return _wrap(v, op.results[0].type)


def _float_cast(args, op):
    return _out(_wide(args[0]), op.results[0].type)


def _bitcast(args, op):
    """Same bits, other type (containers of equal size; narrow integers by their bits)."""
    src, dst = element_type(op.operands[0].type), element_type(op.results[0].type)
    dt = numpy_dtype(dst)
    x = np.ascontiguousarray(args[0])
    if is_float(src):
        bits = x.view({1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[x.dtype.itemsize])
    else:
        bits = unsigned_view(x, _width(op.operands[0].type))
    if is_float(dst):
        if bits.dtype.itemsize != dt.itemsize:
            bits = bits.astype({1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[dt.itemsize])
        return bits.view(dt)
    return _wrap(bits.astype(np.uint64), op.results[0].type)


def _index_cast(args, op, unsigned: bool):
    w_in = _width(op.operands[0].type)
    v = unsigned_view(args[0], w_in) if unsigned else signed_view(args[0], w_in)
    return _wrap(v, op.results[0].type)


_CASTS: dict[type, Callable] = {
    arith.SIToFPOp: lambda args, op: _int_to_float(args, op, False),
    arith.UIToFPOp: lambda args, op: _int_to_float(args, op, True),
    arith.FPToSIOp: lambda args, op: _float_to_int(args, op, False),
    arith.FPToUIOp: lambda args, op: _float_to_int(args, op, True),
    arith.ExtSIOp: lambda args, op: _ext_or_trunc(args, op, "extsi"),
    arith.ExtUIOp: lambda args, op: _ext_or_trunc(args, op, "extui"),
    arith.TruncIOp: lambda args, op: _ext_or_trunc(args, op, "trunci"),
    arith.ExtFOp: _float_cast,
    arith.TruncFOp: _float_cast,
    arith.BitcastOp: _bitcast,
    arith.IndexCastOp: lambda args, op: _index_cast(args, op, False),
}
if hasattr(arith, "IndexCastUIOp"):
    _CASTS[arith.IndexCastUIOp] = lambda args, op: _index_cast(args, op, True)


def _make(op_type, fn):
    def run(self, interpreter: Interpreter, op, args):
        return (np.asarray(fn(args, op)),)
    run.__name__ = f"run_{op_type.name.replace('.', '_')}"
    return impl(op_type)(run)


_Generated = generated_functions(
    [(t, _make(t, f)) for t, f in _INT_BINARY.items()]
    + [(t, _make(t, _float_binary(f))) for t, f in _FLOAT_BINARY.items()]
    + [(t, _make(t, f)) for t, f in _CASTS.items()])


@register_impls
class ArithFunctions(_Generated):
    """`arith` ops on NumPy values (module docstring)."""

    @impl(arith.ConstantOp)
    def run_constant(self, interpreter: Interpreter, op: arith.ConstantOp, args):
        v = op.value
        t = op.result.type
        if isinstance(v, DenseIntOrFPElementsAttr):
            return (dense_to_array(v, t, budget(interpreter)),)
        if isinstance(v, IntegerAttr):
            return (_wrap(np.asarray(int(v.value.data)).astype(np.int64), t)
                    if not is_float(element_type(t)) else _out(v.value.data, t),)
        if isinstance(v, FloatAttr):
            return (_out(np.float64(v.value.data), t),)
        raise RunError(f"arith.constant of {v} is not supported")

    @impl(arith.NegfOp)
    def run_negf(self, interpreter: Interpreter, op, args):
        return (np.asarray(np.negative(np.asarray(args[0]))),)

    @impl(arith.CmpiOp)
    def run_cmpi(self, interpreter: Interpreter, op: arith.CmpiOp, args):
        pred = _CMPI[op.predicate.value.data]
        return (np.asarray(cmpi(pred, args[0], args[1], _width(op.lhs.type))),)

    @impl(arith.CmpfOp)
    def run_cmpf(self, interpreter: Interpreter, op: arith.CmpfOp, args):
        pred = _CMPF[op.predicate.value.data]
        return (np.asarray(cmpf(pred, args[0], args[1])),)

    @impl(arith.SelectOp)
    def run_select(self, interpreter: Interpreter, op: arith.SelectOp, args):
        cond, a, b = (np.asarray(x) for x in args)
        return (np.asarray(np.where(cond, a, b)).astype(a.dtype, copy=False),)
