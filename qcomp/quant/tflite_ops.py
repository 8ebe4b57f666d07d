"""NumPy formulas of more TFLite int8 reference kernels (tensorflow/lite/kernels and
kernels/internal/reference): the rectifiers (RELU, RELU6, RELU_N1_TO_1), PRELU's
multipliers, the comparisons' input scaling, SUM's rescale. The MBQM and
QuantizeMultiplier they use are `qcomp.quant.tflite`'s."""

from __future__ import annotations

import numpy as np

from qcomp.quant.tflite import mbqm, quantize_multiplier, round_half_away


def relu_range(lo: float | None, hi: float | None, s_out: float, z_out: int,
               qmin: int = -128, qmax: int = 127) -> tuple[int, int]:
    """QuantizedReluX's (act_min, act_max): max(qmin, z + round(f32(lo) / f32(s))),
    min(qmax, z + round(f32(hi) / f32(s))) (round half away; an absent bound is the
    storage bound)."""
    def q(v: float) -> int:
        return z_out + int(round_half_away(np.float32(v) / np.float32(s_out)))
    return (qmin if lo is None else max(qmin, q(lo)), qmax if hi is None else min(qmax, q(hi)))


def relu_x_int8(q, s_in: float, z_in: int, s_out: float, z_out: int,
                lo: float | None, hi: float | None) -> np.ndarray:
    """TFLite's int8 RELU / RELU6 / RELU_N1_TO_1 (reference_ops::ReluX):
    clamp(MBQM(q - z_in, f32(s_in / s_out)) + z_out, act_min, act_max) (ReluPrepare
    divides the f32 scales in f32)."""
    m, s = quantize_multiplier(float(np.float32(s_in) / np.float32(s_out)))
    a, b = relu_range(lo, hi, s_out, z_out)
    return np.clip(mbqm(np.asarray(q, np.int64) - z_in, m, s) + z_out, a, b)


def prelu_multipliers(s_in: float, s_alpha: float, s_out: float
                      ) -> tuple[tuple[int, int], tuple[int, int]]:
    """PreluPrepare's QuantizeMultiplier of f32(s_in / s_out) (x >= 0) and of
    f32(f32(s_in s_alpha) / s_out) (x < 0): the kernel's products are f32."""
    f = np.float32
    return (quantize_multiplier(float(f(s_in) / f(s_out))),
            quantize_multiplier(float(f(f(s_in) * f(s_alpha)) / f(s_out))))


def prelu_int8(q, a, s_in: float, z_in: int, s_alpha: float, z_alpha: int, s_out: float,
               z_out: int) -> np.ndarray:
    """TFLite's int8 PRELU (reference_ops::BroadcastPrelu4DSlow): x = q - z_in;
    clamp(z_out + (x >= 0 ? MBQM(x, M1) : MBQM(x (a - z_alpha), M2)))."""
    (m1, s1), (m2, s2) = prelu_multipliers(s_in, s_alpha, s_out)
    x = np.asarray(q, np.int64) - z_in
    y = np.asarray(a, np.int64) - z_alpha
    return np.clip(np.where(x >= 0, mbqm(x, m1, s1), mbqm(x * y, m2, s2)) + z_out, -128, 127)


__all__ = ["prelu_int8", "prelu_multipliers", "relu_range", "relu_x_int8"]
