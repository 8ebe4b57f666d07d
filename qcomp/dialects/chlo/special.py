"""The `chlo` special functions as upstream's chlo-legalize-to-stablehlo decomposes them
(ChloLegalizeToStablehlo.cpp), so that running them equals running the decomposition
in StableHLO's reference interpreter.

Every step is one StableHLO op in the element type: `+ - * /` and sqrt are correctly
rounded in it; transcendental steps (log, exp, pow, atan2, sin, ...) are computed in
float64 and rounded once, as the reference interpreter does for f16/bf16/f32. Functions
that upstream upcasts (erf, erfc, erf_inv, lgamma, digamma, polygamma, zeta, bessel_i1e,
sinh, cosh) run in f32 for narrower types and round the result back.
Gamma-family functions are in `gamma.py`, the complex ones in `complex_special.py`;
the ops declare them as their `Elementwise` kernels (`ops.py`).
"""

from __future__ import annotations

import ml_dtypes
import numpy as np

from qcomp.dialects.facts import UndefinedOperands
from qcomp.quant.float_storage import to_float

F32 = np.dtype(np.float32)
F64 = np.dtype(np.float64)


class Steps:
    """StableHLO ops on arrays of one float dtype (see the module docstring)."""

    def __init__(self, dtype: np.dtype):
        self.dt = np.dtype(dtype)

    def c(self, value: float) -> np.ndarray:
        """`getConstantLike(value)`: the double `value` rounded to the element type."""
        return to_float(np.asarray(value, np.float64), self.dt)

    def _t(self, fn, *xs) -> np.ndarray:
        if self.dt == F64:
            return fn(*xs)
        return to_float(fn(*(np.asarray(x, np.float64) for x in xs)), self.dt)

    def log(self, x): return self._t(np.log, x)
    def log1p(self, x): return self._t(np.log1p, x)
    def exp(self, x): return self._t(np.exp, x)
    def expm1(self, x): return self._t(np.expm1, x)
    def sqrt(self, x): return self._t(np.sqrt, x)
    def atan2(self, y, x): return self._t(np.arctan2, y, x)
    def sin(self, x): return self._t(np.sin, x)
    def cos(self, x): return self._t(np.cos, x)
    def tan(self, x): return self._t(np.tan, x)
    def pow(self, x, y): return self._t(np.power, x, y)

    def poly(self, x, coefficients) -> np.ndarray:
        """`materializePolynomialApproximation`: Horner, `p = p * x + c` per coefficient."""
        p = np.broadcast_to(self.c(coefficients[0]), np.shape(x)).astype(self.dt)
        for c in coefficients[1:]:
            p = p * x + self.c(c)
        return p

    def chebyshev(self, x, coefficients) -> np.ndarray:
        """`materializeChebyshevPolynomialApproximation`: Clenshaw's recurrence."""
        zero = np.zeros(np.shape(x), self.dt)
        b0, b1, b2 = zero, zero, zero
        for c in coefficients:
            b2, b1 = b1, b0
            b0 = x * b1 - b2 + self.c(c)
        return (b0 - b2) * self.c(0.5)


def sign(x):
    """`stablehlo.sign`: -1, +-0 (kept), 1, NaN kept."""
    return np.where(np.isnan(x) | (x == 0), x, np.copysign(np.ones_like(x), x))


def upcast(fn, x: np.ndarray, *rest: np.ndarray) -> np.ndarray:
    """`materializeWithUpcast(f32)`: `fn` in f32 for types narrower than 32 bits."""
    dt = x.dtype
    if dt.itemsize >= 4:
        return fn(Steps(dt), x, *rest)
    r = fn(Steps(F32), *(a.astype(F32) for a in (x, *rest)))
    return to_float(r, dt)


def only_ieee_widths(x: np.ndarray) -> None:
    """erf / erfc / bessel_i1e: upstream legalizes f16, bf16, f32 and f64 only."""
    if x.dtype.name not in ("float16", "bfloat16", "float32", "float64"):
        raise UndefinedOperands(f"on {x.dtype.name}: chlo-legalize-to-stablehlo supports "
                                "f16, bf16, f32 and f64 only")


# -- trigonometric and hyperbolic (computed in the element type) ------------------------
def acos(s: Steps, x):
    one = s.c(1.0)
    return s.atan2(s.sqrt((one - x) * (one + x)), x)


def asin(s: Steps, x):
    one = s.c(1.0)
    r = s.atan2(x, one + s.sqrt((one - x) * (one + x)))
    return r + r


def atan(s: Steps, x):
    return s.atan2(x, np.broadcast_to(s.c(1.0), x.shape))


def acosh(s: Steps, x):
    """`log 2 + log x` from max/2 on, else `log1p(sqrt(x-1) (sqrt(x+1) + sqrt(x-1)))`."""
    two, one = s.c(2.0), s.c(1.0)
    big = x >= ml_dtypes.finfo(s.dt).max / two
    large = s.log(np.broadcast_to(two, x.shape)) + s.log(x)
    am1 = s.sqrt(x - one)
    small = s.log1p(am1 * (s.sqrt(x + one) + am1))
    return np.where(big, large, small)


def asinh(s: Steps, x):
    one = s.c(1.0)
    a = np.abs(x)
    big = a >= s.sqrt(np.asarray(ml_dtypes.finfo(s.dt).max, s.dt))
    large = s.log(np.broadcast_to(s.c(2.0), x.shape)) + s.log(a)
    a2 = a * a
    small = s.log1p(a + a2 / (one + s.sqrt(one + a2)))
    return sign(x) * np.where(big, large, small)


def atanh(s: Steps, x):
    r = (s.log1p(x) - s.log1p(-x)) * s.c(0.5)
    return np.where(np.abs(x) > s.c(1.0), s.c(np.nan), r)


def _exp_halves(s: Steps, x):
    log_half = s.log(np.broadcast_to(s.c(0.5), x.shape))
    return s.exp(x + log_half), s.exp(log_half - x)


def cosh(s: Steps, x):
    a, b = _exp_halves(s, x)
    return a + b


def sinh(s: Steps, x):
    a, b = _exp_halves(s, x)
    e = s.expm1(x)
    small = s.c(0.5) * (e + e / (e + s.c(1.0)))
    return np.where(np.abs(x) < s.c(1.0), small, a - b)


def tan(s: Steps, x):
    return s.tan(x)


# -- erf, erf_inv ------------------------------------------------------------------------
_ERF_ALPHA = (-2.72614225801306e-10, 2.77068142495902e-08, -2.10102402082508e-06,
              -5.69250639462346e-05, -7.34990630326855e-04, -2.95459980854025e-03,
              -1.60960333262415e-02)
_ERF_BETA = (-1.45660718464996e-05, -2.13374055278905e-04, -1.68282697438203e-03,
             -7.37332916720468e-03, -1.42647390514189e-02)
_ERF_T64 = (9.60497373987051638749E0, 9.00260197203842689217E1, 2.23200534594684319226E3,
            7.00332514112805075473E3, 5.55923013010394962768E4)
_ERF_U64 = (1.00000000000000000000E0, 3.35617141647503099647E1, 5.21357949780152679795E2,
            4.59432382970980127987E3, 2.26290000613890934246E4, 4.92673942608635921086E4)
_ERFC_P64 = (2.46196981473530512524E-10, 5.64189564831068821977E-1, 7.46321056442269912687E0,
             4.86371970985681366614E1, 1.96520832956077098242E2, 5.26445194995477358631E2,
             9.34528527171957607540E2, 1.02755188689515710272E3, 5.57535335369399327526E2)
_ERFC_Q64 = (1.00000000000000000000E0, 1.32281951154744992508E1, 8.67072140885989742329E1,
             3.54937778887819891062E2, 9.75708501743205489753E2, 1.82390916687909736289E3,
             2.24633760818710981792E3, 1.65666309194161350182E3, 5.57535340817727675546E2)
_ERFC_R64 = (5.64189583547755073984E-1, 1.27536670759978104416E0, 5.01905042251180477414E0,
             6.16021097993053585195E0, 7.40974269950448939160E0, 2.97886665372100240670E0)
_ERFC_S64 = (1.00000000000000000000E0, 2.26052863220117276590E0, 9.39603524938001434673E0,
             1.20489539808096656605E1, 1.70814450747565897222E1, 9.60896809063285878198E0,
             3.36907645100081516050E0)
_MAXLOG64 = 7.09782712893383996843E2


def _f32(values) -> tuple[float, ...]:
    """C++ `float` literals: each coefficient rounded to f32 first."""
    return tuple(float(np.float32(v)) for v in values)


def _erf_f32(s: Steps, x):
    """Eigen's rational approximation on x clamped to [-4, 4], clamped to [-1, 1]."""
    x = np.clip(x, s.c(-4.0), s.c(4.0))
    x2 = x * x
    r = (x * s.poly(x2, _f32(_ERF_ALPHA))) / s.poly(x2, _f32(_ERF_BETA))
    return np.clip(r, s.c(-1.0), s.c(1.0))


_ERF_T32 = (+7.853861353153693E-5, -8.010193625184903E-4, +5.188327685732524E-3,
            -2.685381193529856E-2, +1.128358514861418E-1, -3.761262582423300E-1,
            +1.128379165726710E+0)
_ERFC_P32 = (+2.326819970068386E-2, -1.387039388740657E-1, +3.687424674597105E-1,
             -5.824733027278666E-1, +6.210004621745983E-1, -4.944515323274145E-1,
             +3.404879937665872E-1, -2.741127028184656E-1, +5.638259427386472E-1)
_ERFC_R32 = (-1.047766399936249E+1, +1.297719955372516E+1, -7.495518717768503E+0,
             +2.921019019210786E+0, -1.015265279202700E+0, +4.218463358204948E-1,
             -2.820767439740514E-1, +5.641895067754075E-1)
_MAXLOG32 = 88.72283905206835


def _erf_f64_le_one(s: Steps, x):
    """Cephes, |x| < 1: `x T(x^2) / U(x^2)`."""
    x2 = x * x
    return (x * s.poly(x2, _ERF_T64)) / s.poly(x2, _ERF_U64)


def _erfc_f64_ge_one(s: Steps, x):
    """Cephes, |x| >= 1: `exp(-x^2) P(|x|)/Q(|x|)` below 8, `R/S` from 8 on; 0 once
    `-x^2 < -maxlog`; `2 - erfc(|x|)` for negative x."""
    z = -(x * x)
    ez = s.exp(z)
    a = np.abs(x)
    e18 = (ez * s.poly(a, _ERFC_P64)) / s.poly(a, _ERFC_Q64)
    e8 = (ez * s.poly(a, _ERFC_R64)) / s.poly(a, _ERFC_S64)
    erfc = np.where(z < s.c(-_MAXLOG64), s.c(0.0), np.where(a < s.c(8.0), e18, e8))
    return np.where(x < s.c(0.0), s.c(2.0) - erfc, erfc)


def _erf_f64(s: Steps, x):
    """`x T(x^2) / U(x^2)` below 1, `1 - erfc(x)` from 1 on."""
    one = s.c(1.0)
    return np.where(np.abs(x) < one, _erf_f64_le_one(s, x), one - _erfc_f64_ge_one(s, x))


def _erfc_f64(s: Steps, x):
    """`1 - erf(x)` below 1, the erfc approximation from 1 on."""
    one = s.c(1.0)
    return np.where(np.abs(x) < one, one - _erf_f64_le_one(s, x), _erfc_f64_ge_one(s, x))


def _erfc_f32(s: Steps, x):
    """Cephes (f32): `1 - x T(x^2)` below 1; from 1 on `exp(-x^2)/|x| P(1/x^2)` below 2,
    `R(1/x^2)` from 2, 0 once `-x^2 < -maxlog`, `2 - erfc(|x|)` for negative x."""
    one, two, zero = s.c(1.0), s.c(2.0), s.c(0.0)
    x2 = x * x
    z = -x2
    a = np.abs(x)
    inv_x2 = one / x2
    scaled = s.exp(z) * (one / a)
    poly = np.where(a < two, s.poly(inv_x2, _f32(_ERFC_P32)), s.poly(inv_x2, _f32(_ERFC_R32)))
    ge_one = np.where(z < s.c(-_MAXLOG32), zero, scaled * poly)
    ge_one = np.where(x < zero, two - ge_one, ge_one)
    le_one = one - x * s.poly(x2, _f32(_ERF_T32))
    return np.where(a < one, le_one, ge_one)


def erf(x: np.ndarray) -> np.ndarray:
    only_ieee_widths(x)
    if x.dtype == F64:
        return _erf_f64(Steps(F64), x)
    return upcast(_erf_f32, x)


def erfc(x: np.ndarray) -> np.ndarray:
    only_ieee_widths(x)
    if x.dtype == F64:
        return _erfc_f64(Steps(F64), x)
    return upcast(_erfc_f32, x)


_ERFINV_LT5 = (2.81022636e-08, 3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087,
               -0.00125372503, -0.00417768164, 0.246640727, 1.50140941)
_ERFINV_GE5 = (-0.000200214257, 0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773,
               -0.0076224613, 0.00943887047, 1.00167406, 2.83297682)
_ERFINV_LT625 = (
    -3.6444120640178196996e-21, -1.685059138182016589e-19, 1.2858480715256400167e-18,
    1.115787767802518096e-17, -1.333171662854620906e-16, 2.0972767875968561637e-17,
    6.6376381343583238325e-15, -4.0545662729752068639e-14, -8.1519341976054721522e-14,
    2.6335093153082322977e-12, -1.2975133253453532498e-11, -5.4154120542946279317e-11,
    1.051212273321532285e-09, -4.1126339803469836976e-09, -2.9070369957882005086e-08,
    4.2347877827932403518e-07, -1.3654692000834678645e-06, -1.3882523362786468719e-05,
    0.0001867342080340571352, -0.00074070253416626697512, -0.0060336708714301490533,
    0.24015818242558961693, 1.6536545626831027356)
_ERFINV_LT16 = (
    2.2137376921775787049e-09, 9.0756561938885390979e-08, -2.7517406297064545428e-07,
    1.8239629214389227755e-08, 1.5027403968909827627e-06, -4.013867526981545969e-06,
    2.9234449089955446044e-06, 1.2475304481671778723e-05, -4.7318229009055733981e-05,
    6.8284851459573175448e-05, 2.4031110387097893999e-05, -0.0003550375203628474796,
    0.00095328937973738049703, -0.0016882755560235047313, 0.0024914420961078508066,
    -0.0037512085075692412107, 0.005370914553590063617, 1.0052589676941592334,
    3.0838856104922207635)
_ERFINV_GE16 = (
    -2.7109920616438573243e-11, -2.5556418169965252055e-10, 1.5076572693500548083e-09,
    -3.7894654401267369937e-09, 7.6157012080783393804e-09, -1.4960026627149240478e-08,
    2.9147953450901080826e-08, -6.7711997758452339498e-08, 2.2900482228026654717e-07,
    -9.9298272942317002539e-07, 4.5260625972231537039e-06, -1.9681778105531670567e-05,
    7.5995277030017761139e-05, -0.00021503011930044477347, -0.00013871931833623122026,
    1.0103004648645343977, 4.8499064014085844221)


def _erf_inv_edges(s: Steps, x, p):
    return np.where(np.abs(x) == s.c(1.0), x * s.c(np.inf), p * x)


def _erf_inv_f32(s: Steps, x):
    """Giles' single-precision polynomials in `w = -log1p(-x^2)`."""
    w = -s.log1p(x * -x)
    lt = w < s.c(5.0)
    w = np.where(lt, w - s.c(2.5), s.sqrt(w) - s.c(3.0))
    lo, hi = _f32(_ERFINV_LT5), _f32(_ERFINV_GE5)
    p = np.where(lt, s.c(lo[0]), s.c(hi[0]))
    for a, b in zip(lo[1:], hi[1:]):
        p = np.where(lt, s.c(a), s.c(b)) + p * w
    return _erf_inv_edges(s, x, p)


def _erf_inv_f64(s: Steps, x):
    """Giles' double-precision polynomials (w < 6.25, < 16, >= 16)."""
    w = -s.log1p(x * -x)
    lt625, lt16 = w < s.c(6.25), w < s.c(16.0)

    def coefficient(i):
        c = np.broadcast_to(s.c(_ERFINV_LT625[i]), x.shape)
        if i < 19:
            c = np.where(lt625, c, s.c(_ERFINV_LT16[i]))
        if i < 17:
            c = np.where(lt16, c, s.c(_ERFINV_GE16[i]))
        return c

    w = np.where(lt625, w - s.c(3.125), s.sqrt(w) - np.where(lt16, s.c(3.25), s.c(5.0)))
    p = coefficient(0)
    for i in range(1, 17):
        p = coefficient(i) + p * w
    for i in range(17, 19):
        p = np.where(lt16, coefficient(i) + p * w, p)
    for i in range(19, 23):
        p = np.where(lt625, coefficient(i) + p * w, p)
    return _erf_inv_edges(s, x, p)


def erf_inv(x: np.ndarray) -> np.ndarray:
    if x.dtype == F64:
        return _erf_inv_f64(Steps(F64), x)
    return upcast(_erf_inv_f32, x)


# -- bessel_i1e --------------------------------------------------------------------------
_I1E_A64 = (
    2.77791411276104639959E-18, -2.11142121435816608115E-17, 1.55363195773620046921E-16,
    -1.10559694773538630805E-15, 7.60068429473540693410E-15, -5.04218550472791168711E-14,
    3.22379336594557470981E-13, -1.98397439776494371520E-12, 1.17361862988909016308E-11,
    -6.66348972350202774223E-11, 3.62559028155211703701E-10, -1.88724975172282928790E-9,
    9.38153738649577178388E-9, -4.44505912879632808065E-8, 2.00329475355213526229E-7,
    -8.56872026469545474066E-7, 3.47025130813767847674E-6, -1.32731636560394358279E-5,
    4.78156510755005422638E-5, -1.61760815825896745588E-4, 5.12285956168575772895E-4,
    -1.51357245063125314899E-3, 4.15642294431288815669E-3, -1.05640848946261981558E-2,
    2.47264490306265168283E-2, -5.29459812080949914269E-2, 1.02643658689847095384E-1,
    -1.76416518357834055153E-1, 2.52587186443633654823E-1)
_I1E_B64 = (
    7.51729631084210481353E-18, 4.41434832307170791151E-18, -4.65030536848935832153E-17,
    -3.20952592199342395980E-17, 2.96262899764595013876E-16, 3.30820231092092828324E-16,
    -1.88035477551078244854E-15, -3.81440307243700780478E-15, 1.04202769841288027642E-14,
    4.27244001671195135429E-14, -2.10154184277266431302E-14, -4.08355111109219731823E-13,
    -7.19855177624590851209E-13, 2.03562854414708950722E-12, 1.41258074366137813316E-11,
    3.25260358301548823856E-11, -1.89749581235054123450E-11, -5.58974346219658380687E-10,
    -3.83538038596423702205E-9, -2.63146884688951950684E-8, -2.51223623787020892529E-7,
    -3.88256480887769039346E-6, -1.10588938762623716291E-4, -9.76109749136146840777E-3,
    7.78576235018280120474E-1)


def _i1e(s: Steps, x, a_coefficients, b_coefficients):
    z = np.abs(x)
    two = s.c(2.0)
    le8 = z * s.chebyshev(s.c(0.5) * z - two, a_coefficients)
    gt8 = s.chebyshev(s.c(32.0) / z - two, b_coefficients) / s.sqrt(z)
    return sign(x) * np.where(z <= s.c(8.0), le8, gt8)


def bessel_i1e(x: np.ndarray) -> np.ndarray:
    only_ieee_widths(x)
    if x.dtype == F64:
        return _i1e(Steps(F64), x, _I1E_A64, _I1E_B64)
    return upcast(lambda s, v: _i1e(s, v, _f32(_I1E_A64[12:]), _f32(_I1E_B64[18:])), x)


# -- next_after, is_inf ------------------------------------------------------------------
def next_after(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """The float after `x` towards `y`, by stepping the bit pattern (NaN if either is)."""
    bits = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[x.dtype.itemsize]
    width = x.dtype.itemsize * 8
    xi = np.ascontiguousarray(x).view(bits).astype(np.uint64)
    yi = np.ascontiguousarray(y).view(bits).astype(np.uint64)
    sign = np.uint64(1 << (width - 1))
    xa, ya = xi & ~sign & np.uint64((1 << width) - 1), yi & ~sign & np.uint64((1 << width) - 1)
    smaller = (xa > ya) | ((xi & sign) != (yi & sign))
    stepped = np.where(smaller, xi - np.uint64(1), xi + np.uint64(1))
    r = np.where(xa == 0, np.where(ya == 0, yi, (yi & sign) | np.uint64(1)), stepped)
    r = np.where(x == y, yi, r)
    nan = np.asarray(np.nan, np.float64).astype(x.dtype).view(bits).astype(np.uint64)
    r = np.where(np.isnan(x.astype(np.float64)) | np.isnan(y.astype(np.float64)), nan, r)
    return (r & np.uint64((1 << width) - 1)).astype(bits).view(x.dtype)
