"""`builtin.unrealized_conversion_cast` in qcomp's interpreter: integer tensors keep
their value, wrapped into the result type (sign-extension when widening)."""

from __future__ import annotations

import numpy as np
import pytest

from qcomp.ir import QcompParser
from qcomp.interpreter import run
from qcomp.registry import make_context

CTX = make_context()


def _cast(src: str, dst: str, x: np.ndarray):
    text = f"""func.func @main(%x: {src}) -> {dst} {{
  %0 = builtin.unrealized_conversion_cast %x : {src} to {dst}
  return %0 : {dst}
}}
"""
    module = QcompParser(CTX, text).parse_module()
    module.verify()
    (r,) = run(module, [x])
    return r


@pytest.mark.parametrize("src, dst, x, want", [
    # i48 -> i64 sign-extends: the ends of i48 keep their value
    ("tensor<3xi48>", "tensor<3xi64>", [-(1 << 47), (1 << 47) - 1, -1], [-(1 << 47), (1 << 47) - 1, -1]),
    # i64 -> i48 wraps modulo 2^48: 2^47 -> -2^47, -2^47 - 1 -> 2^47 - 1
    ("tensor<2xi64>", "tensor<2xi48>", [1 << 47, -(1 << 47) - 1], [-(1 << 47), (1 << 47) - 1]),
    # i16 -> i8 wraps: 300 -> 44, -129 -> 127
    ("tensor<2xi16>", "tensor<2xi8>", [300, -129], [44, 127]),
    # i8 -> ui8: -1 -> 255
    ("tensor<2xi8>", "tensor<2xui8>", [-1, 5], [255, 5]),
])
def test_integer_cast_wraps_into_the_result_type(src, dst, x, want):
    r = _cast(src, dst, np.array(x, np.int64))
    assert r.error is None, r.error
    assert np.asarray(r.results[0]).tolist() == want


def test_float_cast_is_reported_not_raised():
    r = _cast("tensor<2xf32>", "tensor<2xi32>", np.array([1.0, 2.0], np.float32))
    assert r.error is not None
    assert "unsupported unrealized_conversion_cast from tensor<2xf32> to tensor<2xi32>" \
        in str(r.error)
