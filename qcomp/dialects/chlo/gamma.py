"""`chlo.lgamma`, `digamma`, `zeta` and `polygamma` as chlo-legalize-to-stablehlo
decomposes them (one StableHLO op per step: `special.Steps`), in f32 for narrower
types.

- lgamma, digamma: Lanczos (g = 7, 8 terms) on `z = x - 1`, reflected below 1/2
  (`lgamma(x) = log pi - log sin(pi |frac x|) - lgamma(1 - x)`,
  `digamma(x) = digamma(1 - x) - pi cos(pi x) / sin(pi x)`).
- zeta(x, q): `sum_{k<10} (q + k)^-x` plus the Euler-Maclaurin tail with 12 Bernoulli terms.
- polygamma(n, x) = `(-1)^(n+1) n! zeta(n + 1, x)`, digamma for n = 0, NaN unless n is natural.
"""

from __future__ import annotations

import math

import ml_dtypes
import numpy as np

from qcomp.dialects.chlo.special import Steps, upcast

_G = 7.0
_BASE = 0.99999999999980993227684700473478
_LANCZOS = (676.520368121885098567009190444019, -1259.13921672240287047156078755283,
            771.3234287776530788486528258894, -176.61502916214059906584551354,
            12.507343278686904814458936853, -0.13857109526572011689554707,
            9.984369578019570859563e-6, 1.50563273514931155834e-7)


def _z(s: Steps, x):
    reflect = x < s.c(0.5)
    return reflect, np.where(reflect, -x, x - s.c(1.0))


def _log_t(s: Steps, z):
    half_g = s.c(_G + 0.5)
    return half_g + z, s.c(math.log(_G + 0.5)) + s.log1p(z / half_g)


def lgamma_steps(s: Steps, x):
    half, one = s.c(0.5), s.c(1.0)
    reflect, z = _z(s, x)
    a = np.broadcast_to(s.c(_BASE), x.shape)
    for i, coefficient in enumerate(_LANCZOS):
        a = a + s.c(coefficient) / (z + s.c(i + 1))
    t, log_t = _log_t(s, z)
    r = ((z + half) - t / log_t) * log_t
    lgamma = (s.c((math.log(2) + math.log(math.pi)) / 2) + r) + s.log(a)
    ax = np.abs(x)
    frac = ax - np.floor(ax)
    frac = np.where(half < frac, one - frac, frac)
    denom = s.log(s.sin(s.c(math.pi) * frac))
    reflection = (s.c(math.log(math.pi)) - denom) - lgamma
    reflection = np.where(np.isfinite(denom.astype(np.float64)), reflection, -denom)
    lgamma = np.where(reflect, reflection, lgamma)
    return np.where(np.isinf(x.astype(np.float64)), s.c(np.inf), lgamma)


def digamma_steps(s: Steps, x):
    reflect, z = _z(s, x)
    zero = s.c(0.0)
    a = np.broadcast_to(s.c(_BASE), x.shape)
    a_prime = np.broadcast_to(zero, x.shape)
    for i, coefficient in enumerate(_LANCZOS):
        term = z + s.c(i + 1)
        a_prime = a_prime - s.c(coefficient) / (term * term)
        a = a + s.c(coefficient) / term
    t, log_t = _log_t(s, z)
    digamma = (log_t + a_prime / a) - s.c(_G) / t
    reduced = x + np.abs(np.floor(x + s.c(0.5)))
    pi = s.c(math.pi)
    angle = pi * reduced
    reflection = digamma - (pi * s.cos(angle)) / s.sin(angle)
    digamma = np.where(reflect, reflection, digamma)
    pole = (x <= zero) & (x == np.floor(x))
    return np.where(pole, s.c(np.nan), digamma)


_ZETA = (-7.1661652561756670113e18, 1.8152105401943546773e17, -4.5979787224074726105e15,
         1.1646782814350067249e14, -2.950130727918164224e12, 7.47242496e10,
         -1.8924375803183791606e9, 47900160.0, -1209600.0, 30240.0, -720.0, 12.0)


def zeta_steps(s: Steps, x, q):
    zero, one = s.c(0.0), s.c(1.0)
    acc = q
    neg_x = -x
    power_sum = s.pow(q, neg_x)
    for _ in range(9):
        acc = acc + one
        power_sum = power_sum + s.pow(acc, neg_x)
    acc = acc + one
    q_neg_power = s.pow(acc, neg_x)
    correction = (q_neg_power * acc) / (x - one)
    inv_acc2 = one / (acc * acc)
    horner_sum = np.zeros(np.broadcast_shapes(x.shape, q.shape), s.dt)
    terms = 2 * len(_ZETA) - 1
    for i in range(len(_ZETA) - 1):
        product = (x + s.c(terms - 1 - 2 * i)) * (x + s.c(terms - 2 - 2 * i))
        horner_sum = product * (inv_acc2 * (horner_sum + s.c(1.0 / _ZETA[i])))
    tail = q_neg_power * (s.c(0.5) + (x / acc) * (s.c(1.0 / _ZETA[-1]) + horner_sum))
    accurate = (power_sum + correction) + tail
    smallest = s.c(float(ml_dtypes.finfo(s.dt).smallest_subnormal))
    out = np.where(np.abs(q_neg_power) < np.abs(power_sum) * smallest, power_sum, accurate)
    nan, inf = s.c(np.nan), s.c(np.inf)
    out = np.where(x < one, nan, out)
    q_le_zero = q <= zero
    out = np.where(q_le_zero & (x != np.floor(x)), nan, out)
    x_even_int = (x == np.floor(x)) & (np.fmod(x, s.c(2.0)) == zero)
    out = np.where(q_le_zero & (q == np.floor(q)), np.where(x_even_int, inf, nan), out)
    return np.where(x == one, inf, out)


def polygamma_steps(s: Steps, n, x):
    one, two, zero = s.c(1.0), s.c(2.0), s.c(0.0)
    sign = two * np.fmod(n, two) - one
    n1 = n + one
    factorial = s.exp(lgamma_steps(s, n1))
    result = (sign * factorial) * zeta_steps(s, n1, x)
    result = np.where(n == zero, digamma_steps(s, x), result)
    natural = (n == np.floor(n)) & ~(n < zero)
    return np.where(natural, result, s.c(np.nan))


def lgamma(x: np.ndarray) -> np.ndarray:
    return upcast(lgamma_steps, x)


def digamma(x: np.ndarray) -> np.ndarray:
    return upcast(digamma_steps, x)


def zeta(x: np.ndarray, q: np.ndarray) -> np.ndarray:
    return upcast(zeta_steps, x, q)


def polygamma(n: np.ndarray, x: np.ndarray) -> np.ndarray:
    return upcast(polygamma_steps, n, x)
