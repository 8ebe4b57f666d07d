"""The interpreter's tosa and chlo ops: exact values."""

from __future__ import annotations

import numpy as np

from qcomp.registry import parse_module
from qcomp.interpreter import run


def run_main(src: str, *args):
    (r,) = run(parse_module(src), list(args))
    assert r.error is None, r.error.message
    return r.results


RESCALE = """func.func @main(%x: tensor<4xi8>) -> tensor<4xi8> {{
  %m = "tosa.const"() <{{values = dense<{m}> : tensor<1xi32>}}> : () -> tensor<1xi32>
  %s = "tosa.const"() <{{values = dense<{s}> : tensor<1xi8>}}> : () -> tensor<1xi8>
  %iz = "tosa.const"() <{{values = dense<{izp}> : tensor<1xi8>}}> : () -> tensor<1xi8>
  %oz = "tosa.const"() <{{values = dense<{ozp}> : tensor<1xi8>}}> : () -> tensor<1xi8>
  %r = tosa.rescale %x, %m, %s, %iz, %oz {{input_unsigned = false, output_unsigned = {ou}, per_channel = false, rounding_mode = {mode}, scale32 = true}} : (tensor<4xi8>, tensor<1xi32>, tensor<1xi8>, tensor<1xi8>, tensor<1xi8>) -> tensor<4xi8>
  func.return %r : tensor<4xi8>
}}"""


def test_rescale_matches_reference_model_vector():
    # REFERENCE.md §6, checked with tosa_reference_model
    src = RESCALE.format(m=1431655765, s=31, izp=3, ozp=-1, ou="false", mode="SINGLE_ROUND")
    x = np.array([-128, -1, 0, 127], np.int8)
    assert run_main(src, x)[0].tolist() == [-88, -4, -3, 82]


def test_rescale_unsigned_output_is_stored_as_bit_pattern():
    # x * 2 with output read as uint8: 100 -> 200 (stored as i8 -56), -5 -> 0 (clamped)
    src = RESCALE.format(m=1 << 30, s=29, izp=0, ozp=0, ou="true", mode="SINGLE_ROUND")
    x = np.array([100, -5, 127, 3], np.int8)
    assert run_main(src, x)[0].tolist() == [-56, 0, -2, 6]


def test_rescale_require_failure_is_a_diagnostic():
    src = RESCALE.format(m=1 << 30, s=1, izp=0, ozp=0, ou="false", mode="SINGLE_ROUND")
    (r,) = run(parse_module(src), [np.zeros(4, np.int8)])
    assert r.error is not None and "shift must be in [2, 62]" in r.error.message


def test_tosa_mul_with_shift_rounds():
    src = """func.func @main(%a: tensor<3xi32>, %b: tensor<3xi32>) -> tensor<3xi32> {
      %s = "tosa.const"() <{values = dense<2> : tensor<1xi8>}> : () -> tensor<1xi8>
      %r = tosa.mul %a, %b, %s : (tensor<3xi32>, tensor<3xi32>, tensor<1xi8>) -> tensor<3xi32>
      func.return %r : tensor<3xi32>
    }"""
    a = np.array([3, -3, 5], np.int32)
    b = np.array([1, 1, 1], np.int32)
    assert run_main(src, a, b)[0].tolist() == [1, -1, 1]  # (3+2)>>2, (-3+2)>>2, (5+2)>>2


def test_chlo_broadcast_dimensions():
    src = """func.func @main(%a: tensor<2x3xf32>, %b: tensor<2xf32>) -> tensor<2x3xf32> {
      %r = chlo.broadcast_multiply %a, %b {broadcast_dimensions = array<i64: 0>} : (tensor<2x3xf32>, tensor<2xf32>) -> tensor<2x3xf32>
      func.return %r : tensor<2x3xf32>
    }"""
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    b = np.array([10, 100], np.float32)
    assert run_main(src, a, b)[0].tolist() == [[0, 10, 20], [300, 400, 500]]


def test_chlo_trailing_broadcast_and_int_wrap():
    src = """func.func @main(%a: tensor<2x2xi8>, %b: tensor<2xi8>) -> tensor<2x2xi8> {
      %r = chlo.broadcast_add %a, %b : (tensor<2x2xi8>, tensor<2xi8>) -> tensor<2x2xi8>
      func.return %r : tensor<2x2xi8>
    }"""
    a = np.array([[127, 0], [1, 2]], np.int8)
    b = np.array([1, 5], np.int8)
    assert run_main(src, a, b)[0].tolist() == [[-128, 5], [2, 7]]
