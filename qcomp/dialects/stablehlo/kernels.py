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


def complex_abs(x):
    """`hypot(re, im)` (what upstream's std::abs computes)."""
    return np.hypot(x.real, x.imag)


def _in_double(fn, x):
    """`fn` on `x` widened to complex128, rounded back to `x`'s precision (upstream's
    mapWithUpcastToDouble)."""
    return fn(x.astype(np.complex128)).astype(x.dtype)


def complex_sign(x):
    """Upstream: NaN + NaN i when a part is NaN, 0 at 0, else `x / |x|` (the magnitude
    rounded to the element type, the division upstream's)."""
    mag = complex_abs(x).astype(x.real.dtype)
    with np.errstate(all="ignore"):
        q = complex_divide(x, mag.astype(x.dtype)).astype(x.dtype)
    nan = np.isnan(x.real) | np.isnan(x.imag)
    q = np.where(nan, np.array(complex(np.nan, np.nan), x.dtype), q)
    return np.where((x.real == 0) & (x.imag == 0), np.zeros((), x.dtype), q)


complex_sign.native_complex = True  # type: ignore[attr-defined]


def complex_cbrt(x):
    """Upstream: `(re^2 + im^2)^(1/6) * (cos t + i sin t)` with `t = atan2(im, re) / 3`,
    in double."""
    z = x.astype(np.complex128)
    t = np.arctan2(z.imag, z.real) / 3.0
    r = np.power(z.real * z.real + z.imag * z.imag, 1.0 / 6.0)
    return _complex(r * np.cos(t), r * np.sin(t)).astype(x.dtype)


complex_cbrt.native_complex = True  # type: ignore[attr-defined]


def complex_expm1(x):
    """Upstream: `exp(x) - 1`, in double."""
    return _in_double(lambda z: np.exp(z) - 1.0, x)


def complex_log1p(x):
    """Upstream: `log(x + 1)`, in double."""
    return _in_double(lambda z: np.log(z + 1.0), x)


def complex_rsqrt(x):
    """Upstream: `1 / sqrt(x)` in double, the division its complex one."""
    return _in_double(lambda z: complex_divide(np.ones_like(z), np.sqrt(z)), x)


def complex_logistic(x):
    """Upstream: `1 / (1 + exp(-x))`, each step rounded to the element type."""
    e = _in_double(np.exp, -x)
    d = (np.ones((), x.dtype) + e).astype(x.dtype)
    return complex_divide(np.ones_like(d), d).astype(x.dtype)


def complex_atan2(y, x):
    """Upstream: `-i log((x + i y) / sqrt(x x + y y))`, each step rounded to the
    element type (transcendental steps computed in double)."""
    dt = x.dtype
    i = np.array(1j, dt)

    def r(v):
        return np.asarray(v).astype(dt)

    s = _in_double(np.sqrt, r(complex_multiply(x, x) + complex_multiply(y, y)))
    q = r(complex_divide(r(x + complex_multiply(np.broadcast_to(i, y.shape), y)), s))
    return r(complex_multiply(np.broadcast_to(r(-i), q.shape), _in_double(np.log, q)))


for _fn in (complex_expm1, complex_log1p, complex_rsqrt, complex_logistic, complex_atan2):
    _fn.native_complex = True  # type: ignore[attr-defined]


def complex_multiply(a, b):
    """`(ar br - ai bi) + i (ar bi + ai br)`, each operation rounded to the element type
    (upstream's formula; run on the operands' own precision, `native_complex`)."""
    re = a.real * b.real - a.imag * b.imag
    im = a.real * b.imag + a.imag * b.real
    return _complex(re, im)


complex_multiply.native_complex = True  # type: ignore[attr-defined]


def complex_divide(a, b):
    """Upstream's complex division (std::complex<double>, as its build compiles it):
    Smith's algorithm in double, then C99 Annex G's recovery of a NaN + NaN i result
    (zero divisor, infinite dividend, infinite divisor)."""
    a, b = np.asarray(a, np.complex128), np.asarray(b, np.complex128)
    x, y, c, d = a.real, a.imag, b.real, b.imag
    with np.errstate(all="ignore"):
        by_c = np.abs(c) >= np.abs(d)
        r = np.where(by_c, d / c, c / d)
        den = np.where(by_c, c + d * r, c * r + d)
        re = np.where(by_c, x + y * r, x * r + y) / den
        im = np.where(by_c, y - x * r, y * r - x) / den
        lost = np.isnan(re) & np.isnan(im)
        if lost.any():
            zero = (c == 0) & (d == 0) & (~np.isnan(x) | ~np.isnan(y))
            inf_num = (np.isinf(x) | np.isinf(y)) & np.isfinite(c) & np.isfinite(d)
            inf_den = np.isinf(np.fmax(np.abs(c), np.abs(d))) & np.isfinite(x) & np.isfinite(y)

            def unit(v):  # copysign(isinf(v) ? 1 : 0, v)
                return np.copysign(np.where(np.isinf(v), 1.0, 0.0), v)

            cs = np.copysign(np.inf, c)
            xu, yu, cu, du = unit(x), unit(y), unit(c), unit(d)
            cases = ((zero, cs * x, cs * y),
                     (~zero & inf_num, np.inf * (xu * c + yu * d), np.inf * (yu * c - xu * d)),
                     (~zero & ~inf_num & inf_den, 0.0 * (x * cu + y * du), 0.0 * (y * cu - x * du)))
            for cond, rr, ii in cases:
                re, im = np.where(lost & cond, rr, re), np.where(lost & cond, ii, im)
    return _complex(re, im)


def annex_g_multiply(p, q):
    """C99 Annex G's complex product (compiler-rt `__muldc3`): the plain formula, and
    for a NaN + NaN i result the infinities recovered."""
    a, b, c, d = p.real, p.imag, q.real, q.imag
    with np.errstate(all="ignore"):
        ac, bd, ad, bc = a * c, b * d, a * d, b * c
        re, im = ac - bd, ad + bc
        lost = np.isnan(re) & np.isnan(im)
        if not lost.any():
            return _complex(re, im)

        def unit(v):
            return np.copysign(np.where(np.isinf(v), 1.0, 0.0), v)

        def zero_nan(v):
            return np.where(np.isnan(v), np.copysign(0.0, v), v)

        inf_p = np.isinf(a) | np.isinf(b)
        inf_q = np.isinf(c) | np.isinf(d)
        a2, b2 = np.where(inf_p, unit(a), a), np.where(inf_p, unit(b), b)
        c2, d2 = np.where(inf_p, zero_nan(c), c), np.where(inf_p, zero_nan(d), d)
        c2, d2 = np.where(inf_q, unit(c2), c2), np.where(inf_q, unit(d2), d2)
        a2, b2 = np.where(inf_q, zero_nan(a2), a2), np.where(inf_q, zero_nan(b2), b2)
        over = ~inf_p & ~inf_q & (np.isinf(ac) | np.isinf(bd) | np.isinf(ad) | np.isinf(bc))
        a2, b2, c2, d2 = (np.where(over, zero_nan(v), v) for v in (a2, b2, c2, d2))
        again = lost & (inf_p | inf_q | over)
        re = np.where(again, np.inf * (a2 * c2 - b2 * d2), re)
        im = np.where(again, np.inf * (a2 * d2 + b2 * c2), im)
    return _complex(re, im)


def complex_power(x, y):
    """Upstream: `exp(y * log(x))` in double (std::pow of std::complex), the product
    Annex G's."""
    z, w = x.astype(np.complex128), y.astype(np.complex128)
    with np.errstate(all="ignore"):
        return np.exp(annex_g_multiply(w, np.log(z))).astype(x.dtype)


complex_power.native_complex = True  # type: ignore[attr-defined]


def _complex(re, im):
    out = np.empty(np.broadcast(re, im).shape, np.result_type(re, im, np.complex64))
    out.real, out.imag = re, im
    return out


def complex_pick(a, b, better):
    """max/min of complex numbers in upstream's lexicographic order: `a` when its real
    part is better, or equal and its imaginary part better; else `b`."""
    pick_a = np.where(a.real == b.real, better(a.imag, b.imag), better(a.real, b.real))
    return np.where(pick_a, a, b)



def logistic(x):
    """`1 / (1 + e ** -x)`."""
    return 1.0 / (1.0 + np.exp(-x))


def rsqrt(x):
    """`1 / sqrt(x)`."""
    return 1.0 / np.sqrt(x)



def _low(width: int, signed: bool) -> int:
    return storage_range(width, signed)[0]


def _divide(a, b, lo):
    zero = b == 0
    safe = np.where(zero, 1, b)
    q = a // safe  # floor; rounded toward zero below (|INT64_MIN| has no int64)
    if a.dtype != np.uint64:
        q = q + ((a - q * safe != 0) & ((a < 0) != (safe < 0)))
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
ABS = Elementwise(float=np.abs, complex=complex_abs, int=int_abs)
CBRT = Elementwise(float=np.cbrt, complex=complex_cbrt)
CEIL = _float_only(np.ceil)
FLOOR = _float_only(np.floor)
COSINE = _transcendental(np.cos)
SINE = _transcendental(np.sin)
TAN = _transcendental(np.tan)
TANH = _transcendental(np.tanh)
EXPONENTIAL = _transcendental(np.exp)
EXPONENTIAL_MINUS_ONE = _transcendental(np.expm1, complex_expm1)
LOG = Elementwise(float=np.log, complex=np.log, positive_nan=True)
LOG_PLUS_ONE = _transcendental(np.log1p, complex_log1p)
LOGISTIC = _transcendental(logistic, complex_logistic)
RSQRT = _transcendental(rsqrt, complex_rsqrt)
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
MULTIPLY = Elementwise(float=np.multiply, complex=complex_multiply, int=_int(np.multiply),
                       bool=np.logical_and)
DIVIDE = Elementwise(float=np.divide, complex=complex_divide, int=int_divide, positive_nan=True)
REMAINDER = Elementwise(float=np.fmod, int=int_remainder, positive_nan=True)
POWER = Elementwise(float=np.power, complex=complex_power, int=int_power)
MAXIMUM = Elementwise(float=np.maximum, complex=lambda a, b: complex_pick(a, b, np.greater),
                      int=_int(np.maximum), bool=np.logical_or)
MINIMUM = Elementwise(float=np.minimum, complex=lambda a, b: complex_pick(a, b, np.less),
                      int=_int(np.minimum), bool=np.logical_and)
ATAN2 = Elementwise(float=np.arctan2, complex=complex_atan2)
AND = Elementwise(int=_int(np.bitwise_and), bool=np.logical_and)
OR = Elementwise(int=_int(np.bitwise_or), bool=np.logical_or)
XOR = Elementwise(int=_int(np.bitwise_xor), bool=np.logical_xor)
SHIFT_LEFT = Elementwise(int=shift_left)
SHIFT_RIGHT_LOGICAL = Elementwise(int=shift_right_logical)
SHIFT_RIGHT_ARITHMETIC = Elementwise(int=shift_right_arithmetic)
