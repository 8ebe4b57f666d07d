"""The interpreter's `arith` and `math` ops: exact values, per width and signedness."""

from __future__ import annotations

import numpy as np
import pytest

from qcomp.registry import parse_module
from qcomp.interpreter import run


def run_main(src: str, *args):
    (r,) = run(parse_module(src), list(args))
    assert r.error is None, r.error.message
    return r.results


def unary(op: str, t_in: str, t_out: str, x, attrs: str = ""):
    src = (f"func.func @main(%x: {t_in}) -> {t_out} {{\n"
           f"  %r = {op} %x{attrs} : {t_in} to {t_out}\n  func.return %r : {t_out}\n}}")
    return run_main(src, x)[0]


def cast(op: str, t_in: str, t_out: str, values, dtype):
    """A scalar cast (xDSL's arith casts take scalars only), once per value."""
    return [unary(op, t_in, t_out, np.array(v, dtype)).item() for v in values]


def binary(op: str, t: str, a, b):
    src = (f"func.func @main(%a: {t}, %b: {t}) -> {t} {{\n"
           f"  %r = {op} %a, %b : {t}\n  func.return %r : {t}\n}}")
    return run_main(src, a, b)[0]


def same(op: str, t: str, x):
    src = (f"func.func @main(%x: {t}) -> {t} {{\n"
           f"  %r = {op} %x : {t}\n  func.return %r : {t}\n}}")
    return run_main(src, x)[0]


I8 = np.int8


def test_integer_add_sub_mul_wrap_per_width():
    a = np.array([127, -128, 100, -1], I8)
    b = np.array([1, -1, 100, -1], I8)
    assert binary("arith.addi", "tensor<4xi8>", a, b).tolist() == [-128, 127, -56, -2]
    assert binary("arith.subi", "tensor<4xi8>", a, b).tolist() == [126, -127, 0, 0]
    assert binary("arith.muli", "tensor<4xi8>", a, b).tolist() == [127, -128, 16, 1]
    # i4 values live in int8 and wrap at 4 bits
    r = binary("arith.addi", "tensor<3xi4>", np.array([7, -8, 5], I8), np.array([1, -1, 5], I8))
    assert r.dtype == np.int8 and r.tolist() == [-8, 7, -6]


def test_scalar_values_are_zero_d_arrays():
    r = binary("arith.addi", "i32", np.array(2147483647, np.int32), np.array(1, np.int32))
    assert r.shape == () and r.dtype == np.int32 and int(r) == -2147483648


def test_signed_and_unsigned_division_read_the_same_bits_differently():
    a = np.array([-7, 7, -8, -1], I8)
    b = np.array([2, -2, 3, 16], I8)
    assert binary("arith.divsi", "tensor<4xi8>", a, b).tolist() == [-3, -3, -2, 0]
    assert binary("arith.remsi", "tensor<4xi8>", a, b).tolist() == [-1, 1, -2, -1]
    assert binary("arith.floordivsi", "tensor<4xi8>", a, b).tolist() == [-4, -4, -3, -1]
    assert binary("arith.ceildivsi", "tensor<4xi8>", a, b).tolist() == [-3, -3, -2, 0]
    # unsigned: -7 is 249, -8 is 248, -2 is 254, -1 is 255
    assert binary("arith.divui", "tensor<4xi8>", a, b).tolist() == [124, 0, 82, 15]
    assert binary("arith.remui", "tensor<4xi8>", a, b).tolist() == [1, 7, 2, 15]
    assert binary("arith.ceildivui", "tensor<4xi8>", a, b).tolist() == [125, 1, 83, 16]


def test_integer_division_by_zero_is_an_error_not_a_value():
    (r,) = run(parse_module(
        "func.func @main(%a: i32, %b: i32) -> i32 {\n  %r = arith.divsi %a, %b : i32\n"
        "  func.return %r : i32\n}"), [np.array(1, np.int32), np.array(0, np.int32)])
    assert r.error is not None and "division by zero" in r.error.message
    assert r.error.op is not None and r.error.op.name == "arith.divsi"


def test_min_max_signed_and_unsigned():
    a = np.array([-1, 5, -128], I8)
    b = np.array([1, -5, 127], I8)
    assert binary("arith.maxsi", "tensor<3xi8>", a, b).tolist() == [1, 5, 127]
    assert binary("arith.minsi", "tensor<3xi8>", a, b).tolist() == [-1, -5, -128]
    assert binary("arith.maxui", "tensor<3xi8>", a, b).tolist() == [-1, -5, -128]  # 255, 251, 128
    assert binary("arith.minui", "tensor<3xi8>", a, b).tolist() == [1, 5, 127]


def test_shifts_and_bitwise():
    a = np.array([-128, 64, -1], I8)
    b = np.array([1, 1, 7], I8)
    assert binary("arith.shli", "tensor<3xi8>", a, b).tolist() == [0, -128, -128]
    assert binary("arith.shrsi", "tensor<3xi8>", a, b).tolist() == [-64, 32, -1]
    assert binary("arith.shrui", "tensor<3xi8>", a, b).tolist() == [64, 32, 1]
    assert binary("arith.xori", "tensor<3xi8>", a, b).tolist() == [-127, 65, -8]
    (r,) = run(parse_module(
        "func.func @main(%a: i8, %b: i8) -> i8 {\n  %r = arith.shli %a, %b : i8\n"
        "  func.return %r : i8\n}"), [np.array(1, I8), np.array(8, I8)])
    assert r.error is not None and "shift" in r.error.message


def test_extensions_and_truncation():
    x = [-1, -128, 127]
    assert cast("arith.extsi", "i8", "i32", x, I8) == [-1, -128, 127]
    assert cast("arith.extui", "i8", "i32", x, I8) == [255, 128, 127]
    assert cast("arith.extui", "i4", "i8", [-1, -8], I8) == [15, 8]
    assert cast("arith.trunci", "i32", "i8", [300, -129, 0x7F80], np.int32) == [44, 127, -128]
    assert cast("arith.extui", "i1", "i8", [True, False], np.bool_) == [1, 0]
    assert cast("arith.extsi", "i1", "i8", [True, False], np.bool_) == [-1, 0]


def test_float_arithmetic_is_rounded_once_in_f32():
    # 1 + 2^-24 is a tie in f32 (rounds to 1); 1 + 3*2^-24 rounds up to 1 + 2^-22
    a = np.array([1.0, 1.0, 16777216.0], np.float32)
    b = np.array([2.0 ** -24, 3 * 2.0 ** -24, 1.0], np.float32)
    r = binary("arith.addf", "tensor<3xf32>", a, b)
    assert r.dtype == np.float32
    assert r.tolist() == [1.0, 1.0 + 2.0 ** -22, 16777216.0]
    q = binary("arith.divf", "tensor<3xf32>", np.array([1, 2, 0], np.float32),
               np.array([3, 3, 0], np.float32))
    assert q.view(np.uint32).tolist()[:2] == [0x3EAAAAAB, 0x3F2AAAAB] and np.isnan(q[2])


def test_maximumf_minimumf_nan_and_signed_zero():
    a = np.array([np.nan, -0.0, 0.0, 1.0], np.float32)
    b = np.array([1.0, 0.0, -0.0, 2.0], np.float32)
    mx = binary("arith.maximumf", "tensor<4xf32>", a, b)
    mn = binary("arith.minimumf", "tensor<4xf32>", a, b)
    assert np.isnan(mx[0]) and np.isnan(mn[0])
    assert np.signbit(mx[1:3]).tolist() == [False, False] and np.signbit(mn[1:3]).tolist() == [True, True]
    assert mx[3] == 2.0 and mn[3] == 1.0
    assert binary("arith.maxnumf", "tensor<4xf32>", a, b)[0] == 1.0
    assert binary("arith.minnumf", "tensor<4xf32>", a, b)[0] == 1.0


def test_fptosi_truncates_and_saturates_nan_to_zero():
    x = [2.9, -2.9, 1000.0, -1000.0, np.nan, -0.5]
    assert cast("arith.fptosi", "f32", "i8", x, np.float32) == [2, -2, 127, -128, 0, 0]
    # fptoui: unsigned range [0, 255] held as signless i8 bits (200 -> -56)
    y = [200.7, -3.0, 300.0, 1.5]
    assert cast("arith.fptoui", "f32", "i8", y, np.float32) == [-56, 0, -1, 1]


def test_int_to_float_rounds_once_and_reads_unsigned_bits():
    x = [16777217, -16777219, 2147483647]
    assert cast("arith.sitofp", "i32", "f32", x, np.int32) == [16777216.0, -16777220.0, 2147483648.0]
    assert cast("arith.uitofp", "i8", "f32", [-56, 3], I8) == [200.0, 3.0]


def test_float_casts_and_bitcast():
    h = unary("arith.truncf", "f32", "f16", np.array(1.0 + 2.0 ** -11, np.float32))
    assert h.dtype == np.float16 and h.item() == 1.0
    assert cast("arith.truncf", "f32", "f16", [65520.0, 1.0 + 3 * 2.0 ** -11], np.float32) == [
        float("inf"), 1.0 + 2.0 ** -9]
    assert cast("arith.bitcast", "f32", "i32", [1.0, -2.0], np.float32) == [0x3F800000, -0x40000000]


def test_compare_and_select():
    def cmp(op, pred, t, a, b, dtype):
        src = (f"func.func @main(%a: {t}, %b: {t}) -> i1 {{\n  %r = {op} {pred}, %a, %b : {t}\n"
               f"  func.return %r : i1\n}}")
        return [run_main(src, np.array(x, dtype), np.array(y, dtype))[0].item() for x, y in zip(a, b)]

    assert cmp("arith.cmpi", "slt", "i8", [-1, 1, 5], [1, -1, 5], I8) == [True, False, False]
    assert cmp("arith.cmpi", "ult", "i8", [-1, 1, 5], [1, -1, 5], I8) == [False, True, False]
    nan = float("nan")
    assert cmp("arith.cmpf", "une", "f32", [nan, 1.0, 0.0], [nan, 1.0, -0.0], np.float32) == [True, False, False]
    assert cmp("arith.cmpf", "olt", "f32", [nan, 1.0, -0.0], [1.0, 2.0, 0.0], np.float32) == [False, True, False]
    src = """func.func @main(%c: tensor<3xi1>, %a: tensor<3xi8>, %b: tensor<3xi8>) -> tensor<3xi8> {
  %s = "arith.select"(%c, %a, %b) : (tensor<3xi1>, tensor<3xi8>, tensor<3xi8>) -> tensor<3xi8>
  func.return %s : tensor<3xi8>
}"""
    (s,) = run_main(src, np.array([True, False, True]), np.array([1, 2, 3], I8), np.array([-1, -2, -3], I8))
    assert s.tolist() == [1, -2, 3]


def test_constants_scalar_and_dense():
    src = """func.func @main() -> (i8, f32, tensor<2xi4>) {
  %a = arith.constant -3 : i8
  %b = arith.constant 0.1 : f32
  %c = arith.constant dense<[7, -8]> : tensor<2xi4>
  func.return %a, %b, %c : i8, f32, tensor<2xi4>
}"""
    a, b, c = run_main(src)
    assert a.dtype == np.int8 and int(a) == -3
    assert b.dtype == np.float32 and b == np.float32(0.1)
    assert c.tolist() == [7, -8]


@pytest.mark.parametrize("op, expected", [
    ("math.roundeven", [0.0, 2.0, -2.0, 2.0, -0.0]),
    ("math.round", [1.0, 3.0, -3.0, 2.0, -1.0]),
    ("math.floor", [0.0, 2.0, -3.0, 1.0, -1.0]),
    ("math.ceil", [1.0, 3.0, -2.0, 2.0, -0.0]),
    ("math.trunc", [0.0, 2.0, -2.0, 1.0, -0.0]),
])
def test_math_rounding(op, expected):
    x = np.array([0.5, 2.5, -2.5, 1.75, -0.5], np.float32)
    r = same(op, "tensor<5xf32>", x)
    assert r.dtype == np.float32 and r.tolist() == expected
    assert np.signbit(r).tolist() == np.signbit(np.array(expected)).tolist()


def test_math_sqrt_correctly_rounded_in_f32_and_integer_ops():
    r = same("math.sqrt", "tensor<1xf32>", np.array([2.0], np.float32))
    assert r.view(np.uint32).tolist() == [0x3FB504F3]
    assert same("math.absi", "tensor<2xi8>", np.array([-128, -5], I8)).tolist() == [-128, 5]
    assert same("math.ctpop", "tensor<2xi8>", np.array([-1, 6], I8)).tolist() == [8, 2]
    assert same("math.ctlz", "tensor<2xi8>", np.array([1, -1], I8)).tolist() == [7, 0]
    assert same("math.cttz", "tensor<2xi8>", np.array([8, 0], I8)).tolist() == [3, 8]


def test_math_fma_rounds_once():
    # a*b = 1 + 2^-11 + 2^-24 exactly; rounded to f32 first it would lose the 2^-24 (a tie)
    a = np.array([1.0 + 2.0 ** -12], np.float32)
    b = np.array([1.0 + 2.0 ** -12], np.float32)
    c = np.array([-1.0], np.float32)
    src = """func.func @main(%a: tensor<1xf32>, %b: tensor<1xf32>, %c: tensor<1xf32>) -> tensor<1xf32> {
  %r = math.fma %a, %b, %c : tensor<1xf32>
  func.return %r : tensor<1xf32>
}"""
    (r,) = run_main(src, a, b, c)
    assert r.tolist() == [2.0 ** -11 + 2.0 ** -24]


def test_conversions_to_bf16_round_once():
    # ml_dtypes casts float64 -> bf16 through f32 (two roundings): 1 + 2^-8 + 2^-30 would
    # become a tie at f32 and round down to 1; rounded once it is 1 + 2^-7
    assert cast("arith.truncf", "f64", "bf16", [1 + 2.0 ** -8 + 2.0 ** -30], np.float64) == [1 + 2.0 ** -7]
    v = (1 << 62) + (1 << 54) + 1  # a bf16 tie broken upward by the last bit
    assert cast("arith.sitofp", "i64", "bf16", [v, -v], np.int64) == [2.0 ** 62 * (1 + 2.0 ** -7),
                                                                       -(2.0 ** 62) * (1 + 2.0 ** -7)]
    assert cast("arith.uitofp", "i64", "f32", [-1], np.int64) == [2.0 ** 64]


def test_64_bit_division_near_int_min():
    lo = np.iinfo(np.int64).min
    a = np.array([lo, lo, lo + 1], np.int64)
    b = np.array([2, 3, -7], np.int64)
    assert binary("arith.divsi", "tensor<3xi64>", a, b).tolist() == [lo // 2, -(-lo // 3), (-(lo + 1)) // 7]
    assert binary("arith.ceildivsi", "tensor<3xi64>", a, b).tolist() == [lo // 2, -(-lo // 3), -((lo + 1) // 7)]
    (r,) = run(parse_module(
        "func.func @main(%a: i64, %b: i64) -> i64 {\n  %r = arith.divsi %a, %b : i64\n"
        "  func.return %r : i64\n}"), [np.array(lo, np.int64), np.array(-1, np.int64)])
    assert r.error is not None and "overflow" in r.error.message
