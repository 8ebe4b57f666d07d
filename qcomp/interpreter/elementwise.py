"""Elementwise StableHLO arithmetic on NumPy arrays of one element type.

Floats are computed in float64 (complex128) and rounded once to the element type,
which is how the StableHLO reference interpreter evaluates f16/bf16/f32 math (and
exact for + - * / by the double-rounding theorem). Integers are computed in int64
(uint64 for ui64) and wrapped to their width. Integer division by zero gives -1
(all ones) and remainder by zero gives the dividend; INT_MIN / -1 = INT_MIN,
INT_MIN % -1 = 0 (XLA's definitions). Shifts by >= width give 0 (arithmetic right:
the sign fill).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from xdsl.ir import Attribute

from qcomp.interpreter.errors import RunError
from qcomp.interpreter.float_rounding import to_float
from qcomp.interpreter.values import int_info, is_bool, is_complex, is_float, is_int, numpy_dtype, to_type
from qcomp.quant.ranges import signed_view, storage_range
from qcomp.quant.rounding import round_half_away_from_zero
from qcomp.quant.uniform import float_to_int


def _wide(x: np.ndarray) -> np.ndarray:
    return x.astype(np.complex128 if x.dtype.kind == "c" else np.float64)


def _sign(x):
    return np.where(np.isnan(x), x, np.sign(x)) if x.dtype.kind == "f" else np.sign(x)


def _complex_sign(x):
    mag = np.abs(x)
    return np.where(mag == 0, 0, x / np.where(mag == 0, 1, mag))


_FLOAT_UNARY: dict[str, Callable] = {
    "abs": np.abs, "cbrt": np.cbrt, "ceil": np.ceil, "floor": np.floor, "cosine": np.cos,
    "sine": np.sin, "tan": np.tan, "tanh": np.tanh, "exponential": np.exp,
    "exponential_minus_one": np.expm1, "log": np.log, "log_plus_one": np.log1p,
    "logistic": lambda x: 1.0 / (1.0 + np.exp(-x)), "negate": np.negative,
    "round_nearest_afz": round_half_away_from_zero, "round_nearest_even": np.rint,
    "rsqrt": lambda x: 1.0 / np.sqrt(x), "sqrt": np.sqrt, "sign": _sign,
}
_COMPLEX_UNARY: dict[str, Callable] = {
    "abs": np.abs, "cosine": np.cos, "sine": np.sin, "tan": np.tan, "tanh": np.tanh,
    "exponential": np.exp, "exponential_minus_one": np.expm1, "log": np.log,
    "log_plus_one": np.log1p, "logistic": lambda x: 1.0 / (1.0 + np.exp(-x)),
    "negate": np.negative, "rsqrt": lambda x: 1.0 / np.sqrt(x), "sqrt": np.sqrt,
    "sign": _complex_sign, "cbrt": lambda x: x ** (1.0 / 3.0),
}
_FLOAT_BINARY: dict[str, Callable] = {
    "add": np.add, "subtract": np.subtract, "multiply": np.multiply, "divide": np.divide,
    "maximum": np.maximum, "minimum": np.minimum, "power": np.power, "remainder": np.fmod,
    "atan2": np.arctan2,
}
_COMPLEX_BINARY: dict[str, Callable] = {
    "add": np.add, "subtract": np.subtract, "multiply": np.multiply, "divide": np.divide,
    "power": np.power,
}


def _int64(x: np.ndarray) -> np.ndarray:
    return x.astype(np.uint64 if x.dtype == np.uint64 else np.int64)


def _int_divide(a, b, lo):
    zero = b == 0
    safe = np.where(zero, 1, b)
    q = np.abs(a) // np.abs(safe) if a.dtype != np.uint64 else a // safe
    if a.dtype != np.uint64:
        q = np.where((a < 0) != (safe < 0), -q, q)
        q = np.where((a == lo) & (safe == -1), a, q)  # overflow: INT_MIN / -1
    return np.where(zero, np.array(-1).astype(a.dtype) if a.dtype != np.uint64 else np.uint64(2**64 - 1), q)


def _int_remainder(a, b, lo):
    zero = b == 0
    safe = np.where(zero, 1, b)
    if a.dtype == np.uint64:
        r = a % safe
    else:
        r = np.fmod(a, safe)
        r = np.where((a == lo) & (safe == -1), 0, r)
    return np.where(zero, a, r)


def _int_power(a, b, signed):
    """Exponentiation by squaring with wrap; negative exponents: 1 for 1, +-1 for -1, else 0."""
    result = np.ones_like(a)
    base = a.copy()
    e = b.copy()
    neg = (e < 0) if signed else np.zeros(e.shape, bool)
    e = np.where(neg, 0, e).astype(np.uint64)
    while np.any(e):
        odd = (e & np.uint64(1)) == 1
        result = np.where(odd, result * base, result)
        base = base * base
        e = e >> np.uint64(1)
    if signed:
        neg_val = np.where(a == 1, 1, np.where(a == -1, np.where((b % 2) == 0, 1, -1), 0))
        result = np.where(neg, neg_val, result)
    return result


def _shift(kind: str, a, b, width: int, signed: bool):
    bu = b.astype(np.int64)
    if b.dtype != np.uint64 and signed:
        bu = np.where(bu < 0, width, bu)  # negative counts are huge when unsigned
    big = (bu >= width) | (bu < 0)
    s = np.where(big, 0, bu).astype(np.int64)
    if kind == "shift_left":
        if a.dtype == np.uint64:
            return np.where(big, np.uint64(0), a << s.astype(np.uint64))
        return np.where(big, 0, a << s)
    if kind == "shift_right_logical":
        mask = (1 << width) - 1
        if a.dtype == np.uint64 or width == 64:
            u = a.astype(np.uint64) if width == 64 else (a & mask).astype(np.uint64)
            return np.where(big, np.uint64(0), u >> s.astype(np.uint64))
        return np.where(big, 0, (a & mask) >> s)
    # arithmetic: interpret in the signed view of the width
    if a.dtype == np.uint64:
        sa = a.view(np.int64)
        r = np.where(big, np.where(sa < 0, -1, 0), sa >> s)
        return r.view(np.uint64) if isinstance(r, np.ndarray) else r
    if not signed:
        sa = signed_view(a, width)
    else:
        sa = a
    return np.where(big, np.where(sa < 0, -1, 0), sa >> s)


def unary(name: str, x: np.ndarray, e: Attribute, result_e: Attribute) -> np.ndarray:
    """`stablehlo.<name>` on an array of element type `e`; result of element type `result_e`."""
    if is_float(e):
        fn = _FLOAT_UNARY.get(name)
        if fn is None:
            raise RunError(f"'{name}' is not defined on {e}")
        with np.errstate(all="ignore"):
            return to_float(fn(_wide(x)), numpy_dtype(result_e))
    if is_complex(e):
        fn = _COMPLEX_UNARY.get(name)
        if fn is None:
            raise RunError(f"'{name}' is not defined on {e}")
        with np.errstate(all="ignore"):
            return np.asarray(fn(_wide(x))).astype(numpy_dtype(result_e))
    if is_bool(e):
        if name == "not":
            return ~x
        if name in ("popcnt",):
            return x.copy()
        if name == "count_leading_zeros":
            return ~x
        raise RunError(f"'{name}' is not defined on i1")
    if is_int(e):
        w, s = int_info(e)
        a = _int64(x)
        with np.errstate(all="ignore"):
            if name == "abs":
                r = np.abs(a) if s else a
            elif name == "negate":
                r = np.negative(a) if a.dtype != np.uint64 else (np.uint64(0) - a)
            elif name == "not":
                r = ~a
            elif name == "sign":
                r = np.sign(a)
            elif name == "popcnt":
                u = a.astype(np.uint64) & np.uint64((1 << w) - 1 if w < 64 else 2**64 - 1)
                r = np.zeros(a.shape, np.int64)
                for i in range(w):
                    r += ((u >> np.uint64(i)) & np.uint64(1)).astype(np.int64)
            elif name == "count_leading_zeros":
                u = a.astype(np.uint64) & np.uint64((1 << w) - 1 if w < 64 else 2**64 - 1)
                r = np.full(a.shape, w, np.int64)
                for i in range(w):
                    r = np.where(((u >> np.uint64(i)) & np.uint64(1)) == 1, w - 1 - i, r)
            else:
                raise RunError(f"'{name}' is not defined on {e}")
        return to_type(r, result_e)
    raise RunError(f"unsupported element type {e} for '{name}'")


def binary(name: str, a: np.ndarray, b: np.ndarray, e: Attribute, result_e: Attribute) -> np.ndarray:
    """`stablehlo.<name>` on two arrays of element type `e`."""
    if is_float(e):
        fn = _FLOAT_BINARY.get(name)
        if fn is None:
            raise RunError(f"'{name}' is not defined on {e}")
        with np.errstate(all="ignore"):
            return to_float(fn(_wide(a), _wide(b)), numpy_dtype(result_e))
    if is_complex(e):
        fn = _COMPLEX_BINARY.get(name)
        if fn is None:
            raise RunError(f"'{name}' is not defined on {e}")
        with np.errstate(all="ignore"):
            return fn(_wide(a), _wide(b)).astype(numpy_dtype(result_e))
    if is_bool(e):
        table = {"add": np.logical_or, "or": np.logical_or, "multiply": np.logical_and,
                 "and": np.logical_and, "xor": np.logical_xor, "maximum": np.logical_or,
                 "minimum": np.logical_and, "subtract": np.logical_xor}
        if name not in table:
            raise RunError(f"'{name}' is not defined on i1")
        return table[name](a, b)
    if is_int(e):
        w, s = int_info(e)
        x, y = _int64(a), _int64(b)
        lo = storage_range(w, s)[0]
        with np.errstate(all="ignore"):
            if name == "add":
                r = x + y
            elif name == "subtract":
                r = x - y
            elif name == "multiply":
                r = x * y
            elif name == "divide":
                r = _int_divide(x, y, lo)
            elif name == "remainder":
                r = _int_remainder(x, y, lo)
            elif name == "maximum":
                r = np.maximum(x, y)
            elif name == "minimum":
                r = np.minimum(x, y)
            elif name == "and":
                r = x & y
            elif name == "or":
                r = x | y
            elif name == "xor":
                r = x ^ y
            elif name == "power":
                r = _int_power(x, y, s)
            elif name in ("shift_left", "shift_right_logical", "shift_right_arithmetic"):
                r = _shift(name, x, y, w, s)
            else:
                raise RunError(f"'{name}' is not defined on {e}")
        return to_type(np.asarray(r), result_e)
    raise RunError(f"unsupported element type {e} for '{name}'")


def _total_order_key(x: np.ndarray) -> np.ndarray:
    """Integer keys ordering floats as IEEE totalOrder (-NaN < -inf < ... < -0 < +0 < ... < NaN)."""
    f = x.astype(np.float64)
    bits = f.view(np.int64)
    return np.where(bits < 0, np.int64(-(2**63)) - bits - 1, bits)


def compare(direction: str, a: np.ndarray, b: np.ndarray, e: Attribute,
            compare_type: str | None = None) -> np.ndarray:
    """`stablehlo.compare` -> bool array. TOTALORDER floats compare by IEEE total order."""
    ops = {"EQ": np.equal, "NE": np.not_equal, "GE": np.greater_equal, "GT": np.greater,
           "LE": np.less_equal, "LT": np.less}
    if direction not in ops:
        raise RunError(f"unknown comparison direction {direction}")
    if is_float(e):
        if compare_type == "TOTALORDER":
            return ops[direction](_total_order_key(a), _total_order_key(b))
        return ops[direction](_wide(a), _wide(b))
    if is_complex(e):
        if direction not in ("EQ", "NE"):
            raise RunError(f"complex compare supports EQ and NE, got {direction}")
        return ops[direction](a, b)
    if is_bool(e):
        return ops[direction](a.astype(np.int8), b.astype(np.int8))
    if is_int(e):
        if compare_type == "UNSIGNED" and a.dtype.kind == "i":
            w, _ = int_info(e)
            ua = a.astype(np.int64).astype(np.uint64) & np.uint64((1 << w) - 1 if w < 64 else 2**64 - 1)
            ub = b.astype(np.int64).astype(np.uint64) & np.uint64((1 << w) - 1 if w < 64 else 2**64 - 1)
            return ops[direction](ua, ub)
        return ops[direction](a, b)
    raise RunError(f"unsupported element type {e} for compare")


def convert(x: np.ndarray, from_e: Attribute, to_e: Attribute) -> np.ndarray:
    """`stablehlo.convert`: ints wrap, float -> int truncates (saturating, NaN -> 0), to i1 is != 0."""
    dt = numpy_dtype(to_e)
    if is_bool(to_e):
        return x != 0
    if is_int(to_e):
        w, s = int_info(to_e)
        if is_float(from_e):
            lo, hi = storage_range(w, s)
            return float_to_int(x, lo, hi, dt)
        if is_complex(from_e):
            raise RunError("convert from complex to integer is not supported")
        return to_type(_int64(x.astype(np.int64) if x.dtype == np.bool_ else x), to_e)
    if is_float(to_e):
        if is_complex(from_e):
            return np.real(x).astype(dt)
        if x.dtype.kind in "iub":
            return x.astype(dt)  # one rounding (NumPy casts integers directly)
        return to_float(_wide(x), dt)
    if is_complex(to_e):
        return x.astype(np.complex128).astype(dt)
    raise RunError(f"unsupported convert from {from_e} to {to_e}")


_FLOAT_LAYOUT = {2: (np.uint16, None), 4: (np.uint32, (8, 23)), 8: (np.uint64, (11, 52))}


def reduce_precision(x: np.ndarray, exponent_bits: int, mantissa_bits: int) -> np.ndarray:
    """`stablehlo.reduce_precision` (XLA's bit algorithm): round the mantissa to
    `mantissa_bits` (half to even), then overflow to ±inf / underflow to ±0 outside
    the exponent range of `exponent_bits`; NaN stays NaN while mantissa_bits > 0,
    else becomes ±inf (checked against jaxlib's reference interpreter)."""
    dt = x.dtype
    if dt.kind != "f" and dt.name != "bfloat16":
        raise RunError(f"reduce_precision needs floats, got {dt}")
    nbits = dt.itemsize * 8
    if dt.name == "bfloat16":
        src_e, src_m = 8, 7
    elif dt == np.float16:
        src_e, src_m = 5, 10
    else:
        src_e, src_m = _FLOAT_LAYOUT[dt.itemsize][1]
    ut = {2: np.uint16, 4: np.uint32, 8: np.uint64}[dt.itemsize]
    bits = np.ascontiguousarray(x).view(ut).astype(np.uint64)
    one = np.uint64(1)
    if mantissa_bits < src_m:
        shift = np.uint64(src_m - mantissa_bits)
        last = one << shift
        bias = (last >> one) - one
        bias = ((bits & last) >> shift) + bias
        bits = (bits + bias) & ~(last - one)
        bits &= np.uint64((1 << nbits) - 1)
    if exponent_bits < src_e:
        sign = np.uint64(1 << (nbits - 1))
        exp_mask = np.uint64(((1 << src_e) - 1) << src_m)
        bias_src = (1 << (src_e - 1)) - 1
        bias_red = (1 << (exponent_bits - 1)) - 1
        max_e, min_e = bias_src + bias_red, bias_src - bias_red
        e = bits & exp_mask
        over = e > np.uint64(max_e << src_m)
        under = e <= np.uint64(min_e << src_m)
        zero = bits & sign
        bits = np.where(over, zero | exp_mask, np.where(under, zero, bits))
    out = bits.astype(ut).view(dt)
    nan = np.isnan(x.astype(np.float64))
    if mantissa_bits > 0:
        out = np.where(nan, x, out).astype(dt)
    elif np.any(nan):  # no mantissa left for a NaN: it becomes the infinity of its sign
        src = np.ascontiguousarray(x).view(ut).astype(np.uint64)
        inf = (src & np.uint64(1 << (nbits - 1))) | np.uint64(((1 << src_e) - 1) << src_m)
        out = np.where(nan, inf.astype(ut).view(dt), out).astype(dt)
    return out.reshape(x.shape)
