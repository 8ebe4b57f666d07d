"""Oracles for blockwise (sub-channel) contractions written without qcomp's code:
programs as MLIR text, per-block integer sums (NumPy for dot_general, torch's conv2d
in float64 on exact integers for convolution), the exact rational result, and the
documented fixed-point and stablehlo rescales re-derived in Python integers / NumPy
float32 (docs/blockwise.md)."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np


# -- programs ----------------------------------------------------------------------------
def _nested(scales: np.ndarray, zps: np.ndarray) -> str:
    if scales.ndim == 0:
        z = int(zps)
        return f"{float(scales)!r}" + (f":{z}" if z else "")
    return "{" + ", ".join(_nested(s, z) for s, z in zip(scales, zps)) + "}"


def block_type(storage: str, blocks: dict[int, int], scales: np.ndarray, zps: np.ndarray) -> str:
    spec = ", ".join(f"{d}:{b}" for d, b in blocks.items())
    return f"!quant.uniform<{storage}:f32:{{{spec}}}, {_nested(scales, zps)}>"


def per_tensor(storage: str, scale: float, zp: int) -> str:
    return f"!quant.uniform<{storage}:f32, {scale!r}:{zp}>"


def per_axis(storage: str, axis: int, scales, zps) -> str:
    inner = ", ".join(f"{float(s)!r}:{int(z)}" for s, z in zip(scales, zps))
    return f"!quant.uniform<{storage}:f32:{axis}, {{{inner}}}>"


def _shape(s) -> str:
    return "x".join(map(str, s))


def program(op_text: str, lhs_t: str, w: np.ndarray, w_storage: str, w_t: str,
            out_t: str) -> str:
    """@main(lhs) -> op(lhs, constant w); `op_text` has {x}, {w} and {types} holes."""
    wt = f"tensor<{_shape(w.shape)}x{w_t}>"
    return (f"func.func @main(%x: {lhs_t}) -> {out_t} {{\n"
            f"  %w = stablehlo.constant() {{value = dense<{w.tolist()}> : "
            f"tensor<{_shape(w.shape)}x{w_storage}>}} : () -> {wt}\n"
            f"  %y = {op_text.format(x='%x', w='%w')} : ({lhs_t}, {wt}) -> {out_t}\n"
            f"  func.return %y : {out_t}\n}}\n")


def dot_text() -> str:
    return "stablehlo.dot_general {x}, {w}, contracting_dims = [1] x [0]"


def conv_text(layout: str, stride, pad, lhs_dilate) -> str:
    dims = ("[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]" if layout == "nhwc"
            else "[b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1]")
    window = (f"stride = {list(stride)}, pad = [[{pad[0]}, {pad[0]}], [{pad[1]}, {pad[1]}]], "
              f"lhs_dilate = {list(lhs_dilate)}")
    return (f"stablehlo.convolution({{x}}, {{w}}) dim_numbers = {dims}, window = {{{{{window}}}}}"
            " {{batch_group_count = 1 : i64, feature_group_count = 1 : i64}}")


# -- per-block integer sums ----------------------------------------------------------------
def dot_block_sums(cl: np.ndarray, cr: np.ndarray, block: int) -> list[np.ndarray]:
    """Σ over each block of K of (q_l - z_l)(q_r - z_r): cl is M x K, cr K x N, centred."""
    return [cl[:, j:j + block].astype(np.int64) @ cr[j:j + block].astype(np.int64)
            for j in range(0, cr.shape[0], block)]


def conv_block_sums(cl_nchw: np.ndarray, cr_oihw: np.ndarray, block: int, stride, pad,
                    lhs_dilate) -> list[np.ndarray]:
    """Per input-channel block, torch's conv2d in float64 on the centred integers (exact:
    every partial sum is far below 2^53); the centred lhs is dilated and padded with 0."""
    import torch

    n, c, h, w = cl_nchw.shape
    dh, dw = lhs_dilate
    x = np.zeros((n, c, (h - 1) * dh + 1, (w - 1) * dw + 1), np.float64)
    x[:, :, ::dh, ::dw] = cl_nchw
    x = np.pad(x, ((0, 0), (0, 0), (pad[0], pad[0]), (pad[1], pad[1])))
    out = []
    for j in range(0, c, block):
        r = torch.nn.functional.conv2d(torch.tensor(x[:, j:j + block]),
                                       torch.tensor(cr_oihw[:, j:j + block].astype(np.float64)),
                                       stride=tuple(stride))
        a = r.numpy()
        assert np.all(a == np.round(a))
        out.append(a.astype(np.int64))
    return out


# -- rescales ----------------------------------------------------------------------------------
def round_half_even(v: Fraction) -> int:
    f = v.numerator // v.denominator
    rem = v - f
    if rem > Fraction(1, 2) or (rem == Fraction(1, 2) and f % 2):
        return f + 1
    return f


def exact(accs, s_l: float, block_scales, s_o, z_o) -> np.ndarray:
    """x = Σ_j acc_j s_l s_r,j / s_res + z_res as exact rationals (object array)."""
    shape = np.broadcast(*accs, *block_scales, s_o, z_o).shape
    out = np.empty(shape, object)
    for idx in np.ndindex(shape):
        real = sum(Fraction(int(np.broadcast_to(a, shape)[idx])) * Fraction(float(s_l))
                   * Fraction(float(np.broadcast_to(s, shape)[idx]))
                   for a, s in zip(accs, block_scales))
        out[idx] = real / Fraction(float(np.broadcast_to(s_o, shape)[idx])) \
            + int(np.broadcast_to(z_o, shape)[idx])
    return out


def spec_q(x: np.ndarray, lo: int, hi: int) -> np.ndarray:
    return np.vectorize(lambda v: min(max(round_half_even(v), lo), hi), otypes=[np.int64])(x)


def near_tie(x: np.ndarray, eps: float = 1e-6) -> np.ndarray:
    return np.vectorize(lambda v: abs(v - math.floor(v) - Fraction(1, 2)) < eps,
                        otypes=[bool])(x)


def multiplier_and_shift(m: float) -> tuple[int, int]:
    """MLIR's computeMultiplierAndShift (32 bits), as the TOSA spec states it."""
    mant, e = math.frexp(m)
    mult = math.floor(mant * 2**31 + 0.5)
    if mult == 2**31:
        mult, e = mult // 2, e + 1
    shift = 31 - e
    if shift > 62:
        mult, shift = mult >> min(31, shift - 62), 62
    return mult, shift


def fixed_point_q(accs, s_l: float, block_scales, s_o, z_o, lo: int, hi: int,
                  frac: int = 16) -> np.ndarray:
    """t_j = (acc_j m_j + 2^(r_j-1)) >> r_j, r_j = shift_j - F; q = ((Σ t_j + 2^(F-1)) >> F) + z."""
    shape = np.broadcast(*accs, *block_scales, s_o, z_o).shape
    out = np.empty(shape, np.int64)
    for idx in np.ndindex(shape):
        total = 0
        for a, s in zip(accs, block_scales):
            m = float(s_l) * float(np.broadcast_to(s, shape)[idx]) / float(
                np.broadcast_to(s_o, shape)[idx])
            mult, shift = multiplier_and_shift(m)
            r = shift - frac
            total += (int(np.broadcast_to(a, shape)[idx]) * mult + (1 << (r - 1))) >> r
        q = ((total + (1 << (frac - 1))) >> frac) + int(np.broadcast_to(z_o, shape)[idx])
        out[idx] = min(max(q, lo), hi)
    return out


def stablehlo_q(accs, s_l: float, block_scales, s_o, z_o, bits: int) -> np.ndarray:
    """v = Σ_j f32(acc_j) * f32(s_l s_r,j / s_res) in f32; wrap_bits(trunc(v) + z)."""
    v = None
    for a, s in zip(accs, block_scales):
        cs = (np.float64(s_l) * np.asarray(s, np.float64) / np.asarray(s_o, np.float64))
        t = np.asarray(a).astype(np.float32) * cs.astype(np.float32)
        v = t if v is None else (v + t).astype(np.float32)
    q = np.trunc(v).astype(np.int64) + np.asarray(z_o, np.int64)
    q = q & ((1 << bits) - 1)
    return np.where(q >= 1 << (bits - 1), q - (1 << bits), q)
