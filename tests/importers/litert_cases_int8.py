"""Random tiny int8 models of the operators issue 26 added for int8 (rectifiers, PRELU,
splits, GATHER, ARG_MAX / ARG_MIN, reductions, comparisons, SELECT, nearest resize,
depth / space rearrangements), in the style of `litert_cases` (one builder per op,
parameters from a seeded generator)."""

from __future__ import annotations

import numpy as np

from tests.importers.litert_cases import OPS, OPTS, _finish, _i8, _out_scale, _scale, _zp
from tests.importers.litert_cases_more import _all_int8
from tests.importers.tflite_models import Model, schema


def _rectifier(op):
    """Every int8 input value once; the output scale 0.05..50 times the input's (or the
    same parameters)."""
    def build(rng):
        m = Model()
        same = rng.integers(0, 4) == 0
        s = _scale(rng, 1e-3, 0.5)
        x = m.tensor([256], scale=s, zero_point=_zp(rng))
        y = (m.tensor([256], scale=s, zero_point=m.tensors[x].quantization.zeroPoint[0])
             if same else m.tensor([256], scale=_out_scale(rng, s), zero_point=_zp(rng)))
        m.inputs, m.outputs = [x], [y]
        return _finish(m, op, [x], [y], None, 0, [np.arange(-128, 128).astype(np.int8)])
    return build


def prelu(rng):
    """A constant slope of shape [C], [1, 1, C] or the input's, or a slope input."""
    m = Model()
    shape = [1, int(rng.integers(1, 4)), int(rng.integers(1, 4)), int(rng.integers(1, 5))]
    s = _scale(rng, 1e-3, 1.0)
    x = m.tensor(shape, scale=s, zero_point=_zp(rng))
    kind = int(rng.integers(0, 4))
    a_shape = [[shape[3]], [1, 1, shape[3]], shape[1:], shape[1:]][kind]
    sa, za = _scale(rng, 1e-3, 0.1), _zp(rng)
    feeds = [_i8(rng, shape)]
    if kind == 3:
        a = m.tensor(a_shape, scale=sa, zero_point=za)
        feeds.append(_i8(rng, a_shape))
    else:
        a = m.tensor(a_shape, scale=sa, zero_point=za, data=_i8(rng, a_shape))
    y = m.tensor(shape, scale=_out_scale(rng, s), zero_point=_zp(rng))
    m.inputs, m.outputs = ([x, a] if kind == 3 else [x]), [y]
    feeds[0][0, 0, 0, :2] = (-128, 127)[:min(2, shape[3])]
    return _finish(m, OPS.PRELU, [x, a], [y], None, 0, feeds)


CASES = {
    "RELU": _rectifier(OPS.RELU), "RELU6": _rectifier(OPS.RELU6),
    "RELU_N1_TO_1": _rectifier(OPS.RELU_N1_TO_1), "PRELU": prelu,
}
