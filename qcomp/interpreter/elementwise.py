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

import numpy as np
from xdsl.ir import Attribute, Operation

from qcomp.dialects.facts import Elementwise, UndefinedOperands
from qcomp.interpreter.errors import RunError
from qcomp.interpreter.float_rounding import NO_INF_NAN, to_float, widen
from qcomp.interpreter.values import int_info, is_bool, is_complex, is_float, is_int, numpy_dtype, to_type
from qcomp.quant.ranges import storage_range
from qcomp.quant.uniform import float_to_int


def _wide(x: np.ndarray) -> np.ndarray:
    return x.astype(np.complex128 if x.dtype.kind == "c" else np.float64, copy=False)


def _nan_sign(impl: Elementwise, r: np.ndarray, result_e: Attribute) -> np.ndarray:
    """NaN results with a clear sign bit where the kernel declares so (`positive_nan`)."""
    if impl.positive_nan and numpy_dtype(result_e).name in NO_INF_NAN:
        return np.where(np.isnan(r), np.nan, r)
    return r


_ROUNDED_ONCE = (np.add, np.subtract, np.multiply, np.divide, np.sqrt)
"""Kernels whose float32 result computed in float32 is the float64 result rounded once
to float32 (+ - * / and sqrt are correctly rounded, and 53 >= 2 * 24 + 2 makes the
double rounding innocuous): computed in the element type, without float64 temporaries."""
_NATIVE = (np.dtype(np.float32), np.dtype(np.float64))


def _native(fn, arrays: tuple[np.ndarray, ...], result_e: Attribute) -> bool:
    dt = arrays[0].dtype
    return fn in _ROUNDED_ONCE and dt in _NATIVE and all(a.dtype == dt for a in arrays) \
        and numpy_dtype(result_e) == dt


def _float32_through_float64(fn, x: np.ndarray, result_e: Attribute) -> bool:
    """`fn` a one-operand NumPy ufunc on float32 giving float32: its float64 loop reads
    the widened operand and its result is rounded to float32 chunk by chunk (the values
    of `to_float(fn(_wide(x)), float32)` without the float64 arrays)."""
    return isinstance(fn, np.ufunc) and fn.nin == 1 and fn.nout == 1 \
        and x.dtype == np.float32 and numpy_dtype(result_e) == np.float32


def _int64(x: np.ndarray) -> np.ndarray:
    return x.astype(np.uint64 if x.dtype == np.uint64 else np.int64)


def _undefined(name: str, e: Attribute) -> RunError:
    return RunError(f"'{name}' is not defined on {'i1' if is_bool(e) else e}")


def unary(impl: Elementwise, name: str, x: np.ndarray, e: Attribute,
          result_e: Attribute) -> np.ndarray:
    """The op `name` implemented by `impl` on an array of element type `e`; result of
    element type `result_e`."""
    if is_float(e) or is_complex(e):
        fn = impl.float if is_float(e) else impl.complex
        if fn is None:
            raise _undefined(name, e)
        with np.errstate(all="ignore"):
            if impl.in_element_type:
                return np.asarray(fn(x))
            if is_float(e) and _native(fn, (x,), result_e):
                return fn(x)
            if getattr(fn, "native_complex", False):  # rounds each step in the element type
                return np.asarray(fn(x)).astype(numpy_dtype(result_e))
            if _float32_through_float64(fn, x, result_e):
                out = np.empty(x.shape, np.float32)  # fn in float64, rounded once to float32
                return fn(x, out=out, dtype=np.float64, casting="same_kind")
            r = fn(_wide(x))
        if is_float(e):
            return to_float(_nan_sign(impl, r, result_e), numpy_dtype(result_e))
        return np.asarray(r).astype(numpy_dtype(result_e))
    if is_bool(e):
        if impl.bool is None:
            raise _undefined(name, e)
        return impl.bool(x)
    if is_int(e):
        if impl.int is None:
            raise _undefined(name, e)
        w, s = int_info(e)
        with np.errstate(all="ignore"):
            r = impl.int(_int64(x), w, s)
        return to_type(r, result_e)
    raise RunError(f"unsupported element type {e} for '{name}'")


def binary(impl: Elementwise, name: str, a: np.ndarray, b: np.ndarray, e: Attribute,
           result_e: Attribute) -> np.ndarray:
    """The op `name` implemented by `impl` on two arrays of element type `e`."""
    if is_float(e) or is_complex(e):
        fn = impl.float if is_float(e) else impl.complex
        if fn is None:
            raise _undefined(name, e)
        with np.errstate(all="ignore"):
            if impl.in_element_type:
                return np.asarray(fn(a, b))
            if is_float(e) and _native(fn, (a, b), result_e):
                return fn(a, b)
            if getattr(fn, "native_complex", False):  # rounds each step in the element type
                return fn(a, b).astype(numpy_dtype(result_e))
            r = fn(_wide(a), _wide(b))
            if not is_float(e):  # complex: one rounding, overflow to inf
                return r.astype(numpy_dtype(result_e))
        return to_float(_nan_sign(impl, r, result_e), numpy_dtype(result_e))
    if is_bool(e):
        if impl.bool is None:
            raise _undefined(name, e)
        return impl.bool(a, b)
    if is_int(e):
        if impl.int is None:
            raise _undefined(name, e)
        w, s = int_info(e)
        with np.errstate(all="ignore"):
            r = impl.int(_int64(a), _int64(b), w, s)
        return to_type(np.asarray(r), result_e)
    raise RunError(f"unsupported element type {e} for '{name}'")


_DECLARED: dict[type, tuple[Elementwise | None, str]] = {}
"""Each op class's `Elementwise` trait and short name."""


def apply(op: Operation | type[Operation], arrays: list[np.ndarray], e: Attribute,
          result_e: Attribute) -> np.ndarray:
    """`op`'s declared `Elementwise` implementation on one or two arrays of element
    type `e`, the result of element type `result_e`."""
    cls = op if isinstance(op, type) else type(op)
    found = _DECLARED.get(cls)
    if found is None:
        found = _DECLARED[cls] = (cls.get_trait(Elementwise), cls.name.split(".", 1)[-1])
    impl, name = found
    if impl is None:
        raise RunError(f"'{op.name}' declares no elementwise implementation")
    try:
        if len(arrays) == 1:
            return unary(impl, name, arrays[0], e, result_e)
        return binary(impl, name, arrays[0], arrays[1], e, result_e)
    except UndefinedOperands as err:
        raise RunError(f"'{op.name}' {err}") from None


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
        with np.errstate(invalid="ignore"):  # NaN parts compare unequal
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
    """`stablehlo.convert`: ints wrap, float -> int truncates (saturating, NaN -> 0), to i1 is != 0;
    complex -> real types converts the real part (upstream's interpreter)."""
    dt = numpy_dtype(to_e)
    if is_complex(from_e) and not is_complex(to_e):
        x, from_e = np.real(x), from_e.element_type
    if is_bool(to_e):
        return x != 0
    if is_int(to_e):
        w, s = int_info(to_e)
        if is_float(from_e):
            lo, hi = storage_range(w, s)
            return float_to_int(x, lo, hi, dt)
        return to_type(_int64(x.astype(np.int64) if x.dtype == np.bool_ else x), to_e)
    if is_float(to_e):
        if x.dtype.kind in "iub":
            return x.astype(dt)  # one rounding (NumPy casts integers directly)
        return to_float(widen(x), dt)
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
