"""qcomp.quant.litert against torch.ao.quantization's observers (an independent
implementation of the same per-channel symmetric / per-tensor affine int8 rules)."""

from __future__ import annotations

import numpy as np
import pytest

from qcomp.quant import litert

from tests.lazy import importorskip, lazy_module

torch = importorskip("torch")  # imported when a test first uses it
observer = lazy_module("torch.ao.quantization.observer")


def _near_tie(x: np.ndarray) -> np.ndarray:
    """Values within float32 rounding of a half-integer: there torch (x * (1/s) in
    float32, ties to even) and TFLite/qcomp (x / s, ties away) may round apart."""
    return np.abs(np.abs(x - np.trunc(x)) - 0.5) < 1e-4


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("axis", [0, 1, 3])
def test_weight_scales_and_values_match_torch(seed: int, axis: int):
    rng = np.random.default_rng(seed)
    w = (rng.standard_normal((5, 4, 3, 6)) * rng.uniform(1e-3, 10)).astype(np.float32)
    w[(slice(None),) * axis + (0,)] = 0.0 if seed == 0 else w[(slice(None),) * axis + (0,)]
    obs = observer.PerChannelMinMaxObserver(ch_axis=axis, dtype=torch.qint8, quant_min=-127,
                                   quant_max=127, qscheme=torch.per_channel_symmetric)
    tw = torch.from_numpy(w)
    obs(tw)
    t_scales, t_zps = obs.calculate_qparams()
    scales = litert.weight_scales(w, axis)
    assert np.all(t_zps.numpy() == 0)
    zero = np.abs(w).max(axis=tuple(d for d in range(4) if d != axis)) == 0
    # torch clamps a zero channel's scale to float32 eps; qcomp writes 1 (any scale
    # gives 0 there). Every other channel: bit-identical float32 scales.
    assert np.array_equal(scales[~zero], t_scales.numpy()[~zero])
    assert np.all(scales[zero] == 1.0)
    q = litert.quantize_weights(w, scales, axis)
    tq = torch.quantize_per_channel(tw, torch.from_numpy(scales.astype(np.float64)),
                                    torch.zeros(scales.size, dtype=torch.int64), axis,
                                    torch.qint8).int_repr().numpy()
    shape = [1] * 4
    shape[axis] = scales.size
    ratio = w.astype(np.float64) / scales.reshape(shape)
    agree = (q == tq) | _near_tie(ratio)
    assert agree.all()
    assert q.min() >= -127 and q.max() <= 127
    # max |w| of each channel maps to +-127 exactly
    assert np.array_equal(np.abs(q).max(axis=tuple(d for d in range(4) if d != axis))[~zero],
                          np.full((~zero).sum(), 127))


@pytest.mark.parametrize("seed", range(20))
def test_activation_params_match_torch(seed: int):
    rng = np.random.default_rng(seed)
    lo, hi = sorted(rng.uniform(-20, 20, 2) * rng.choice([1e-3, 1, 10]))
    x = np.array([lo, hi], dtype=np.float32)
    obs = observer.MinMaxObserver(dtype=torch.qint8, quant_min=-128, quant_max=127,
                         qscheme=torch.per_tensor_affine)
    obs(torch.from_numpy(x))
    t_scale, t_zp = obs.calculate_qparams()
    scale, zp = litert.activation_params(float(x[0]), float(x[1]))
    assert np.float32(scale) == t_scale.numpy()[0]
    z = -128 - float(np.float32(min(x[0], 0))) / scale
    assert zp == int(t_zp) or _near_tie(np.array([z]))[0]


def test_activation_params_exact_cases():
    # exact binary fractions: [-64, 63.5] has scale 127.5 / 255 = 0.5 and zero point
    # -128 + 64 / 0.5 = 0; [-1, 254]: scale 1, zero point -127; [0.5, 3] is widened
    # to [0, 3]: zero point -128; [-3, -1] to [-3, 0]: zero point -128 + 255 = 127
    assert litert.activation_params(-64.0, 63.5) == (0.5, 0)
    assert litert.activation_params(-1.0, 254.0) == (1.0, -127)
    assert litert.activation_params(0.5, 3.0)[1] == -128
    assert litert.activation_params(-3.0, -1.0)[1] == 127


def test_bias_is_int32_at_input_times_weight_scale():
    # 0.5 * [0.25, 0.125] = [0.125, 0.0625]; b / s = [2.5, -1.5] rounds away from zero
    s_b = litert.bias_scales(0.5, np.array([0.25, 0.125], np.float32))
    assert s_b.tolist() == [0.125, 0.0625]
    assert litert.quantize_bias([0.3125, -0.09375], s_b).tolist() == [3, -2]
    assert litert.quantize_bias([1e12, -1e12], [1e-3, 1e-3]).tolist() == [2**31 - 1, -2**31]
