"""Integer accumulators of quantized dot_general / convolution, and their rescale.

With q = stored integers and z = zero points, the exact real result of a quantized
contraction over K products is

    real = s_l * s_r * acc,   acc = Σ (q_l - z_l)(q_r - z_r)
                                  = Σ q_l q_r - z_r Σ q_l - z_l Σ q_r + K z_l z_r

(the LiteRT / arXiv:1712.05877 decomposition: only Σ q_l q_r and, when z_r != 0,
Σ q_l depend on the activations; the rest is constant for constant weights).
`acc` is an exact integer; the two rescales below turn it into result storage.
The quant-to-math lowering emits exactly these formulas, and `--semantics spec`
computes dot_general / convolution with `rescale_accumulator`.
"""

from __future__ import annotations

import numpy as np

from qcomp.quant.fixed_point import multiplier_and_shift
from qcomp.quant.ieee import ieee


@ieee
def accumulator_multiplier(lhs_scale, rhs_scales, result_scales) -> np.ndarray:
    """M = s_l * s_r / s_res in float64 (the fixed-point rescale's real factor)."""
    return (np.float64(lhs_scale) * np.asarray(rhs_scales, np.float64)
            / np.asarray(result_scales, np.float64))


def rescale_accumulator(acc, lhs_scale, rhs_scales, result_scales, result_zero_points,
                        storage_min: int, storage_max: int, dtype=np.int64) -> np.ndarray:
    """`rescale=float` (and `--semantics spec`): the exact real result, quantized once.

        real = f64(acc) * (f64(s_l) * f64(s_r))
        q    = clamp(round_half_to_even(real / f64(s_res) + f64(z_res)), min, max)

    all in float64 (acc is exact below 2^53); `rhs_scales`, `result_scales` and
    `result_zero_points` are scalars or arrays broadcastable against the result
    (per-axis along the result dimension where the channel lands). Returns `dtype`
    (int64 unless told; any integer type holding [min, max]).
    """
    return rescale_blocks([acc], lhs_scale, [rhs_scales], result_scales, result_zero_points,
                          storage_min, storage_max, dtype)


@ieee
def rescale_blocks(accs, lhs_scale, rhs_block_scales, result_scales, result_zero_points,
                   storage_min: int, storage_max: int, dtype=np.int64) -> np.ndarray:
    """A blockwise (sub-channel) rhs: one exact integer sum per block j of the split
    contracting dimension, scaled by its own rhs scales and added in block order,

        real = Σ_j f64(acc_j) * (f64(s_l) * f64(s_r,j))      (j = 0, 1, ... in order)
        q    = clamp(round_half_to_even(real / f64(s_res) + f64(z_res)), min, max)

    in float64; with one block this is `rescale_accumulator`."""
    real = None
    for acc, rhs_scales in zip(accs, rhs_block_scales, strict=True):
        c = accumulator_factor(lhs_scale, rhs_scales)
        term = np.multiply(acc, c, dtype=np.float64)  # acc is exact below 2^53
        real = np.asarray(term) if real is None else np.add(real, term, out=real)
    return _quantize_real(real, np.asarray(result_scales, np.float64),
                          np.asarray(result_zero_points).astype(np.float64), storage_min,
                          storage_max, dtype)


def accumulator_factor(lhs_scale, rhs_scales) -> np.ndarray:
    """c = f64(s_l) * f64(s_r): the factor of `rescale_blocks` / `rescale_scaled`."""
    return np.float64(lhs_scale) * np.asarray(rhs_scales, np.float64)


@ieee
def rescale_scaled(raw, factor, result_scales, result_zero_points, storage_min: int,
                   storage_max: int, dtype=np.int64, offset=None, work=None) -> np.ndarray:
    """`rescale_accumulator` with its factor `factor` = `accumulator_factor(s_l, s_r)`
    and operands already as float64 arrays (made once for constant parameters):

        acc  = raw - offset                  (exact integers: both below 2^53)
        q    = clamp(round_half_to_even(f64(acc) * factor / s_res + z_res), min, max)

    `raw`: exact integers in any dtype (float32 / float64 holding them, or integers);
    `offset` None or float64 exact integers; `result_zero_points` None when all are 0
    (adding +0.0 changes no rounded value); `work`: a float64 array of the result's
    shape to compute in (else a new one). Fewer passes over the data than
    `rescale_blocks`, the same values."""
    shape = np.broadcast_shapes(np.shape(raw), np.shape(factor), np.shape(offset))
    if work is None or work.shape != shape or work.dtype != np.float64:
        work = np.empty(shape, np.float64)
    if offset is not None:
        v = np.subtract(raw, offset, out=work, dtype=np.float64)
        v *= factor
    else:
        v = np.multiply(raw, factor, out=work, dtype=np.float64)
    return _quantize_real(v, result_scales, result_zero_points, storage_min, storage_max, dtype)


_IDENTITY_LIMIT = 1 << 51
_TINY = float(np.finfo(np.float64).tiny)
_HUGE = float(np.finfo(np.float64).max)


def unit_rescale_is_exact(scales, acc_bound: int) -> bool:
    """Whether `round_half_to_even(fl(fl(f64(x) * s) / s)) == x` for every integer
    |x| <= `acc_bound` and every `s` of `scales` (also after a clamp to integer bounds
    between the divide and the round): with |d1|, |d2| <= 2^-53,

        fl(fl(f64(x) * s) / s) = x (1 + d1)(1 + d2),  |error| <= |x| 2^-52 < 1/2

    when |x| < 2^51 (f64(x) exact), no product underflows (|s| >= the smallest normal
    float64, so |x s| >= |s| for x != 0 and nothing is subnormal: XLA's flush to zero
    changes nothing) and none overflows (acc_bound |s| <= the largest float64). A clamp
    to integer bounds moves the quotient no further from clamp(x), an integer, so the
    round gives clamp(x). The one copy of the rule: the NumPy backend's skipped
    accumulator rescale (`rescale_is_identity`) and the XLA preparation's dropped
    `(f64(x) * s) / s` (`qcomp.backends.xla_same_scale`)."""
    if acc_bound >= _IDENTITY_LIMIT:
        return False
    a = np.abs(np.asarray(scales, np.float64))
    return bool(np.all(np.isfinite(a)) and np.all(a >= _TINY)
                and np.all(a <= _HUGE / max(acc_bound, 1)))


def rescale_is_identity(factor, result_scales, result_zero_points, acc_bound: int,
                        storage_min: int, storage_max: int) -> bool:
    """Whether `rescale_scaled(acc, factor, result_scales, result_zero_points, ...)`
    returns `acc` itself for every exact integer |acc| <= `acc_bound`: the result scales
    are the factor (`factor == s_res` bit for bit, as for an i32 accumulator type whose
    scales are s_l * s_r), every z_res is 0 (or None), `f64(acc) * c / c` rounds back to
    acc (`unit_rescale_is_exact`), and clamping changes nothing
    (`storage_min <= -acc_bound` and `acc_bound <= storage_max`)."""
    if -acc_bound < storage_min or acc_bound > storage_max:
        return False
    if result_zero_points is not None and np.any(result_zero_points):
        return False
    try:
        f, s = np.broadcast_arrays(np.asarray(factor, np.float64),
                                   np.asarray(result_scales, np.float64))
    except ValueError:
        return False
    return bool(np.array_equal(f, s)) and unit_rescale_is_exact(f, acc_bound)


def _quantize_real(v: np.ndarray, result_scales, result_zero_points, storage_min: int,
                   storage_max: int, dtype) -> np.ndarray:
    """clamp(round_half_to_even(v / s_res + z_res), min, max) as `dtype`, in place on the
    float64 array `v` (the tail of `rescale_blocks`)."""
    if np.broadcast_shapes(v.shape, np.shape(result_scales)) != v.shape:
        v = v / result_scales
    else:
        v /= result_scales
    if result_zero_points is not None:
        if np.broadcast_shapes(v.shape, np.shape(result_zero_points)) != v.shape:
            v = v + result_zero_points
        else:
            v += result_zero_points
    np.clip(v, float(storage_min), float(storage_max), out=v)
    out = np.empty(v.shape, dtype)
    np.rint(v, out=out, casting="unsafe")  # integral values in range: the cast is exact
    return out


BLOCK_FRACTION_BITS = 16
"""F: fractional bits each block's fixed-point term keeps before the one final rounding."""


def block_fixed_point_parameters(multipliers, acc_bound: int,
                                 frac_bits: int = BLOCK_FRACTION_BITS):
    """Per-block (m_j, r_j) of `fixed_point_rescale_blocks` for the real factors
    M_j = s_l * s_r,j / s_res (a list, one array per block): (m_j, sh_j) =
    `multiplier_and_shift(M_j, 32)` and r_j = sh_j - F. Raises ValueError when a term
    cannot be computed in int64 for |acc_j| <= `acc_bound` (r_j < 1, |acc_j * m_j| or
    the sum of the terms reaching 2^62)."""
    params, total = [], 1 << (frac_bits - 1)
    for m in multipliers:
        mult, shift = fixed_point_parameters(m)
        r = shift - frac_bits
        if np.any(r < 1):
            raise ValueError(f"scale factor {float(np.max(m))} is too large for a 32-bit "
                             f"multiplier with {frac_bits} fraction bits")
        if acc_bound * int(np.max(mult)) >= 1 << 62:
            raise ValueError(f"a block sum of up to {acc_bound} times a 32-bit multiplier "
                             "overflows 64 bits")
        total += int(np.max((acc_bound * mult >> r) + 1))
        params.append((mult, r))
    if total >= 1 << 62:
        raise ValueError("the sum of the scaled blocks overflows 64 bits")
    return params


@ieee
def fixed_point_rescale_blocks(accs, params, result_zero_points, storage_min: int,
                               storage_max: int, frac_bits: int = BLOCK_FRACTION_BITS
                               ) -> np.ndarray:
    """`rescale=fixed-point` for a blockwise rhs, integer only (int64):

        t_j = (acc_j * m_j + 2^(r_j - 1)) >> r_j        acc_j * M_j with F fraction bits
        q   = clamp(((Σ_j t_j + 2^(F-1)) >> F) + z_res, min, max)

    (`params` from `block_fixed_point_parameters`; `>>` is arithmetic, so both roundings
    are half up). Each t_j is within 1/2 + |acc_j M_j| 2^(F-31) of acc_j M_j 2^F, so
    before the final rounding the value is within e = n_blocks 2^-(F+1) + 2^-31
    Σ_j |acc_j M_j| of the exact real / s_res; whenever e < 1 the result is within one
    storage step of `rescale_blocks` (round half to even of the exact value)."""
    total = np.int64(0)
    for acc, (mult, r) in zip(accs, params, strict=True):
        a = np.asarray(acc).astype(np.int64)
        total = total + ((a * mult + (np.int64(1) << (r - 1))) >> r)
    q = ((total + (np.int64(1) << (frac_bits - 1))) >> frac_bits)
    q = q + np.asarray(result_zero_points).astype(np.int64)
    return np.clip(q, storage_min, storage_max)


def fixed_point_parameters(multiplier) -> tuple[np.ndarray, np.ndarray]:
    """Per-element (M, shift) of `multiplier_and_shift(m, 32)` for an array of multipliers."""
    m = np.asarray(multiplier, np.float64)
    pairs = [multiplier_and_shift(float(v), 32) for v in m.reshape(-1)]
    mult = np.array([p[0] for p in pairs], np.int64).reshape(m.shape)
    shift = np.array([p[1] for p in pairs], np.int64).reshape(m.shape)
    return mult, shift
