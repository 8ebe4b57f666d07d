"""The NumPy kernels StableHLO's (and chlo's) elementwise ops declare as their
`Elementwise` implementation (`qcomp.dialects.facts`). NumPy only, no IR.

Integer kernels take int64 (uint64 for ui64) arrays, the element `width` and whether
it is `signed`; they may overflow and the interpreter wraps the result to the width.
XLA's definitions: integer division by zero gives -1 (all ones), remainder by zero the
dividend, INT_MIN / -1 = INT_MIN, INT_MIN % -1 = 0; shifts by >= width give 0 (an
arithmetic right shift: the sign fill).
"""

from __future__ import annotations

import numpy as np

from qcomp.dialects.facts import Elementwise
from qcomp.quant.ranges import signed_view, storage_range
from qcomp.quant.rounding import round_half_away_from_zero


def float_sign(x):
    """`sign` keeping NaN and the sign of zero (-0 -> -0, as upstream)."""
    if x.dtype.kind != "f":
        return np.sign(x)
    return np.where(np.isnan(x) | (x == 0), x, np.sign(x))


def complex_sign(x):
    """`x / |x|`, 0 at 0."""
    mag = np.abs(x)
    return np.where(mag == 0, 0, x / np.where(mag == 0, 1, mag))


def logistic(x):
    """`1 / (1 + e ** -x)`."""
    return 1.0 / (1.0 + np.exp(-x))


def rsqrt(x):
    """`1 / sqrt(x)`."""
    return 1.0 / np.sqrt(x)


def complex_cbrt(x):
    return x ** (1.0 / 3.0)


def _low(width: int, signed: bool) -> int:
    return storage_range(width, signed)[0]


def _divide(a, b, lo):
    zero = b == 0
    safe = np.where(zero, 1, b)
    q = np.abs(a) // np.abs(safe) if a.dtype != np.uint64 else a // safe
    if a.dtype != np.uint64:
        q = np.where((a < 0) != (safe < 0), -q, q)
        q = np.where((a == lo) & (safe == -1), a, q)  # overflow: INT_MIN / -1
    return np.where(zero, np.array(-1).astype(a.dtype) if a.dtype != np.uint64 else np.uint64(2**64 - 1), q)


def _remainder(a, b, lo):
    zero = b == 0
    safe = np.where(zero, 1, b)
    if a.dtype == np.uint64:
        r = a % safe
    else:
        r = np.fmod(a, safe)
        r = np.where((a == lo) & (safe == -1), 0, r)
    return np.where(zero, a, r)


def _power(a, b, signed):
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


def _mask(width: int):
    return np.uint64((1 << width) - 1 if width < 64 else 2**64 - 1)


def int_abs(a, width, signed):
    return np.abs(a) if signed else a


def int_negate(a, width, signed):
    return np.negative(a) if a.dtype != np.uint64 else (np.uint64(0) - a)


def popcnt(a, width, signed):
    """The number of one bits of the `width`-bit pattern."""
    u = a.astype(np.uint64) & _mask(width)
    r = np.zeros(a.shape, np.int64)
    for i in range(width):
        r += ((u >> np.uint64(i)) & np.uint64(1)).astype(np.int64)
    return r


def count_leading_zeros(a, width, signed):
    """Leading zero bits of the `width`-bit pattern."""
    u = a.astype(np.uint64) & _mask(width)
    r = np.full(a.shape, width, np.int64)
    for i in range(width):
        r = np.where(((u >> np.uint64(i)) & np.uint64(1)) == 1, width - 1 - i, r)
    return r


def int_divide(a, b, width, signed):
    return _divide(a, b, _low(width, signed))


def int_remainder(a, b, width, signed):
    return _remainder(a, b, _low(width, signed))


def int_power(a, b, width, signed):
    return _power(a, b, signed)


def shift_left(a, b, width, signed):
    return _shift("shift_left", a, b, width, signed)


def shift_right_logical(a, b, width, signed):
    return _shift("shift_right_logical", a, b, width, signed)


def shift_right_arithmetic(a, b, width, signed):
    return _shift("shift_right_arithmetic", a, b, width, signed)


def _int(fn):
    """An integer kernel from a NumPy binary function (no width needed)."""
    return lambda a, b, width, signed: fn(a, b)


def _float_only(fn) -> Elementwise:
    return Elementwise(float=fn)


def _transcendental(fn, complex_fn=None) -> Elementwise:
    return Elementwise(float=fn, complex=complex_fn or fn)


# -- the implementations the ops declare ------------------------------------------------
ABS = Elementwise(float=np.abs, complex=np.abs, int=int_abs)
CBRT = Elementwise(float=np.cbrt, complex=complex_cbrt)
CEIL = _float_only(np.ceil)
FLOOR = _float_only(np.floor)
COSINE = _transcendental(np.cos)
SINE = _transcendental(np.sin)
TAN = _transcendental(np.tan)
TANH = _transcendental(np.tanh)
EXPONENTIAL = _transcendental(np.exp)
EXPONENTIAL_MINUS_ONE = _transcendental(np.expm1)
LOG = _transcendental(np.log)
LOG_PLUS_ONE = _transcendental(np.log1p)
LOGISTIC = _transcendental(logistic)
RSQRT = _transcendental(rsqrt)
SQRT = _transcendental(np.sqrt)
NEGATE = Elementwise(float=np.negative, complex=np.negative, int=int_negate)
ROUND_NEAREST_AFZ = _float_only(round_half_away_from_zero)
ROUND_NEAREST_EVEN = _float_only(np.rint)
SIGN = Elementwise(float=float_sign, complex=complex_sign,
                   int=lambda a, width, signed: np.sign(a))
NOT = Elementwise(int=lambda a, width, signed: ~a, bool=np.invert)
POPCNT = Elementwise(int=popcnt, bool=np.copy)
COUNT_LEADING_ZEROS = Elementwise(int=count_leading_zeros, bool=np.invert)

ADD = Elementwise(float=np.add, complex=np.add, int=_int(np.add), bool=np.logical_or)
SUBTRACT = Elementwise(float=np.subtract, complex=np.subtract, int=_int(np.subtract),
                       bool=np.logical_xor)
MULTIPLY = Elementwise(float=np.multiply, complex=np.multiply, int=_int(np.multiply),
                       bool=np.logical_and)
DIVIDE = Elementwise(float=np.divide, complex=np.divide, int=int_divide)
REMAINDER = Elementwise(float=np.fmod, int=int_remainder)
POWER = Elementwise(float=np.power, complex=np.power, int=int_power)
MAXIMUM = Elementwise(float=np.maximum, int=_int(np.maximum), bool=np.logical_or)
MINIMUM = Elementwise(float=np.minimum, int=_int(np.minimum), bool=np.logical_and)
ATAN2 = Elementwise(float=np.arctan2)
AND = Elementwise(int=_int(np.bitwise_and), bool=np.logical_and)
OR = Elementwise(int=_int(np.bitwise_or), bool=np.logical_or)
XOR = Elementwise(int=_int(np.bitwise_xor), bool=np.logical_xor)
SHIFT_LEFT = Elementwise(int=shift_left)
SHIFT_RIGHT_LOGICAL = Elementwise(int=shift_right_logical)
SHIFT_RIGHT_ARITHMETIC = Elementwise(int=shift_right_arithmetic)
