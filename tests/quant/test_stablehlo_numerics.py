"""Upstream (quant-to-math) numerics; departures from the spec per REFERENCE.md §2."""

import numpy as np

from qcomp.quant import stablehlo as up
from qcomp.quant import uniform


def test_dot_rescale_truncates():
    # i8 dot at scale 1 into an i32 result at scale 2.0: 3 -> 1, -3 -> -1 (spec: 2, -2)
    got = up.dot_rescale(np.array([3, -3]), None, 0.5, 0, 32)
    assert got.tolist() == [1, -1]
    spec = uniform.quantize(np.array([3.0, -3.0], np.float32), 2.0, 0, -2**31, 2**31 - 1, "f32")
    assert spec.tolist() == [2, -2]


def test_dot_rescale_wraps_to_storage():
    got = up.dot_rescale(np.array([200]), None, 1.0, 0, 8)
    assert got.dtype == np.int8 and got.tolist() == [-56]


def test_dot_rescale_skips_scale_near_one_and_applies_offset():
    # |cs - 1| <= 0.001: no multiply; out = acc + zp_res - offset
    got = up.dot_rescale(np.array([10, 20]), np.array([4, 4]), 1.0005, 3, 32)
    assert got.tolist() == [9, 19]
    # offset is scaled (and truncated) too when cs applies
    got = up.dot_rescale(np.array([10]), np.array([5]), 0.5, 0, 32)
    assert got.tolist() == [5 - 2]


def test_dot_zero_point_offset():
    off = up.dot_zero_point_offset(np.array([7]), np.array([11]), 2, 3, 4)
    assert off.tolist() == [3 * 7 + 2 * 11 - 2 * 3 * 4]
    assert up.dot_zero_point_offset(np.array([7]), np.array([11]), 0, 0, 4) is None


def test_add_rounds_each_operand_separately():
    # scales 1.0 + 1.0 into 2.0: [1+1, 3+3] -> [0, 4]; the spec gives [1, 3]
    q = np.array([1, 3])
    got = up.add(q, q, (1.0, 0), (1.0, 0), (2.0, 0), -128, 127, res_is_i32=False)
    assert got.tolist() == [0, 4]
    real = uniform.dequantize(q, 1.0, 0, "f32") * 2
    assert uniform.quantize(real, 2.0, 0, -128, 127, "f32").tolist() == [1, 3]


def test_add_clamps_unless_i32():
    q = np.array([100])
    assert up.add(q, q, (1.0, 0), (1.0, 0), (1.0, 0), -128, 127, False, True, True).tolist() == [127]
    assert up.add(q, q, (1.0, 0), (1.0, 0), (1.0, 0), -2**31, 2**31 - 1, True, True, True).tolist() == [200]


def test_requantize_clamps_only_below_32_bits():
    q = np.array([100, -100])
    assert up.requantize(q, 1.0, 0, 0.5, 0, -128, 127, 8).tolist() == [127, -128]
    assert up.requantize(q, 1.0, 0, 0.5, 0, -2**31, 2**31 - 1, 32).tolist() == [200, -200]


def test_requantize_merged_zero_point_in_f32():
    # f = q * (s_in/s_out) + (zp_out - zp_in * s_in/s_out): [10,10] -> per-axis example
    got = up.requantize(np.array([10, 10]), np.array([0.1, 0.5]), np.array([-30, -20]),
                        np.array([0.1, 0.2]), np.array([-20, -30]), -128, 127, 8)
    assert got.tolist() == [20, 45]


def test_dequantize_i32_subtraction_wraps():
    got = up.dequantize(np.array([2**31 - 1]), 1.0, -1)
    assert got.tolist() == [-2.0**31]
