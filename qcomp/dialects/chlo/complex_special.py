"""`chlo.asin/acos/asinh/acosh/atan/atanh` on complex operands, as upstream's
chlo-legalize-to-stablehlo decomposes them (ChloDecompositionPatternsMath.td, generated
by functional_algorithms): one NumPy step per StableHLO op on the real and imaginary
parts, in their float type (`special.Steps`).

With `w = asin_acos_kernel(z)` (Hull et al, modified; `z = x + iy`):
  asin(z)  = (atan2(x, w.re),  sign(y) w.im)      acos(z)  = (atan2(w.re, x), -sign(y) w.im)
  acosh(z) = (w.im, sign(y) atan2(w.re, x))       asinh(z) = -i asin(iz)
  atanh(z) = (sign(x) log1p(4 t) / 4, atan2(2y, (1-|x|)(1+|x|) - y^2) / 2)
  atan(z)  = -i atanh(iz)
"""

from __future__ import annotations

import ml_dtypes
import numpy as np

from qcomp.dialects.chlo.special import Steps


def _parts(z: np.ndarray) -> tuple[Steps, np.ndarray, np.ndarray]:
    dt = np.float32 if z.dtype == np.complex64 else np.float64
    return Steps(np.dtype(dt)), z.real.astype(dt), z.imag.astype(dt)


def _complex(re: np.ndarray, im: np.ndarray) -> np.ndarray:
    """`stablehlo.complex` of two arrays of the same float type."""
    out = np.empty(np.broadcast_shapes(re.shape, im.shape),
                   np.complex64 if re.dtype == np.float32 else np.complex128)
    out.real, out.imag = re, im
    return out


def _hypot_half(s: Steps, p: np.ndarray, y: np.ndarray, sqrt_two: np.ndarray, one: np.ndarray,
                zero: np.ndarray, two: np.ndarray) -> np.ndarray:
    """The kernel's `hypot(p, y)`: `mx sqrt(1 + (mn/mx)^2)`, `sqrt2 mx` when mn == mx,
    `mx + mx r / 2` when the sqrt rounds to 1 while r > 0."""
    mx, mn = np.maximum(p, y), np.minimum(p, y)
    mn_over_mx = mn / mx
    r = mn_over_mx * mn_over_mx
    sqa = s.sqrt(one + r)
    return np.where(mx == mn, sqrt_two * mx,
                    np.where((sqa == one) & (r > zero), mx + (mx * r) / two, mx * sqa))


def asin_acos_kernel(s: Steps, signed_x: np.ndarray,
                     signed_y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """`(sqrt(a^2 - x^2), log(a + sqrt(a^2 - 1)))` with `a = (hypot(x+1, y) + hypot(x-1, y))/2`,
    on `x = |re z|`, `y = |im z|`, by the regions of the generated pattern."""
    c = s.c
    finfo = ml_dtypes.finfo(s.dt)
    one, half, two, zero = c(1.0), c(0.5), c(2.0), c(0.0)
    sqrt_two = c(1.4142135623730951)
    x, y = np.abs(signed_x), np.abs(signed_y)
    safe_max = s.sqrt(np.asarray(finfo.max, s.dt)) / c(8.0)
    xp1, xm1 = x + one, x - one
    r = _hypot_half(s, np.abs(xp1), y, sqrt_two, one, zero, two)
    h = _hypot_half(s, np.abs(xm1), y, sqrt_two, one, zero, two)
    a = half * (r + h)
    half_apx = half * (a + x)
    yy = y * y
    rpxp1 = r + xp1
    smxm1 = h - xm1
    spxm1 = h + xm1
    real = np.where(
        np.maximum(x, y) >= safe_max, y,
        np.where(x <= one, s.sqrt(half_apx * (yy / rpxp1 + smxm1)),
                 y * s.sqrt(half_apx / rpxp1 + half_apx / spxm1)))

    safe_max_opt = np.where(x < safe_max * c(1e12), safe_max * c(1e-6), safe_max * c(100.0))
    y_gt = y >= safe_max_opt
    mx1 = np.where(y_gt, y, x)
    xoy = np.where(y_gt & ~(y == c(np.inf)), x / y, zero)
    large = (s.log(np.broadcast_to(two, x.shape)) + s.log(mx1)) + half * s.log1p(xoy * xoy)
    tiny = (y < s.sqrt(np.asarray(finfo.smallest_normal, s.dt)) * c(4.0)) & (x < one)
    ap1 = a + one
    half_yy = half * yy
    divide_half_yy_rpxp1 = half_yy / rpxp1
    am1 = np.where(tiny, -((xp1 * xm1) / ap1),
                   np.where(x >= one, divide_half_yy_rpxp1 + half * spxm1,
                            np.where(a <= c(1.5), divide_half_yy_rpxp1 + half_yy / smxm1,
                                     a - one)))
    sq = s.sqrt(am1 * ap1)
    imag = np.where(mx1 >= np.where(y_gt, safe_max_opt, safe_max), large,
                    np.where(tiny, y / sq, s.log1p(am1 + sq)))
    return real, imag


def asin(z: np.ndarray) -> np.ndarray:
    s, x, y = _parts(z)
    w_re, w_im = asin_acos_kernel(s, x, y)
    return _complex(s.atan2(x, w_re), np.where(y < s.c(0.0), -w_im, w_im))


def acos(z: np.ndarray) -> np.ndarray:
    s, x, y = _parts(z)
    w_re, w_im = asin_acos_kernel(s, x, y)
    return _complex(s.atan2(w_re, x), np.where(y < s.c(0.0), w_im, -w_im))


def acosh(z: np.ndarray) -> np.ndarray:
    s, x, y = _parts(z)
    w_re, w_im = asin_acos_kernel(s, x, y)
    t = s.atan2(w_re, x)
    return _complex(w_im, np.where(y < s.c(0.0), -t, t))


def asinh(z: np.ndarray) -> np.ndarray:
    s, x, y = _parts(z)
    w_re, w_im = asin_acos_kernel(s, -y, x)
    return _complex(np.where(x < s.c(0.0), -w_im, w_im), s.atan2(y, w_re))


def _atanh(s: Steps, x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    c = s.c
    zero, one, neg1 = c(0.0), c(1.0), c(-1.0)
    largest = np.asarray(ml_dtypes.finfo(s.dt).max, s.dt)
    inv_negeps = np.where(largest > c(1e308), c(9007199254740994.0),
                          np.where(largest > c(1e38), c(16777218.0), c(2050.0)))
    safe_max = inv_negeps * inv_negeps
    ax, ay = np.abs(x), np.abs(y)
    in_safe = (ax < safe_max) & (ay < safe_max)
    naxm1 = one - ax
    y2 = y * y
    posinf, neginf = c(np.inf), c(-np.inf)
    infinite = ((x == posinf) | (x == neginf)) | ((y == posinf) | (y == neginf))
    t = np.where(in_safe, ax / (naxm1 * naxm1 + y2),
                 np.where(ay * inv_negeps < ax, one / ax,
                          np.where(infinite, zero, (one / (ax / y + y / ax)) / y)))
    re = (np.where(x >= zero, one, neg1) * s.log1p(c(4.0) * t)) * c(0.25)
    im = np.where(in_safe, s.atan2(y + y, naxm1 * (one + ax) - y2),
                  np.where(y >= zero, one, neg1) * c(np.pi)) * c(0.5)
    return re, im


def atanh(z: np.ndarray) -> np.ndarray:
    s, x, y = _parts(z)
    return _complex(*_atanh(s, x, y))


def atan(z: np.ndarray) -> np.ndarray:
    s, x, y = _parts(z)
    w_re, w_im = _atanh(s, -y, x)
    return _complex(w_im, -w_re)
