"""Exact values of the interpreter's ops: integer wrap at narrow widths, division by
zero, shifts, conversions, contractions, checks, and the two quantized semantics."""

from __future__ import annotations

import numpy as np
import pytest

from qcomp.registry import parse_module
from qcomp.interpreter import run


def run_main(src: str, *args, semantics="spec"):
    runs = run(parse_module(src), list(args), semantics=semantics)
    assert len(runs) == 1
    r = runs[0]
    assert r.error is None, r.error.message
    return r.results


def unary(op: str, t: str, values, result_t: str | None = None, semantics="spec"):
    rt = result_t or t
    src = f"""func.func @main(%x: {t}) -> {rt} {{
      %r = stablehlo.{op} %x : ({t}) -> {rt}
      func.return %r : {rt}
    }}"""
    return run_main(src, values, semantics=semantics)[0]


def binary(op: str, t: str, a, b):
    src = f"""func.func @main(%a: {t}, %b: {t}) -> {t} {{
      %r = stablehlo.{op} %a, %b : {t}
      func.return %r : {t}
    }}"""
    return run_main(src, a, b)[0]


I4 = np.int8


@pytest.mark.parametrize("op,a,b,expected", [
    ("add", [7, -8, 5], [1, -1, 5], [-8, 7, -6]),
    ("subtract", [-8, 7], [1, -1], [7, -8]),
    ("multiply", [4, -8, 3], [4, -1, 3], [0, -8, -7]),
    ("divide", [7, -7, 5, -8, 0], [2, 2, 0, -1, 0], [3, -3, -1, -8, -1]),
    ("remainder", [7, -7, 5, -8], [2, 2, 0, -1], [1, -1, 5, 0]),
    ("shift_left", [1, 1, 3], [3, 4, -1], [-8, 0, 0]),
    ("shift_right_arithmetic", [-8, -8, 7], [1, 9, 9], [-4, -1, 0]),
    ("shift_right_logical", [-8, -1], [1, 3], [4, 1]),
    ("power", [3, -1, 2, 2], [3, -3, -1, 0], [-5, -1, 0, 1]),
    ("maximum", [-8, 3], [7, -3], [7, 3]),
])
def test_i4_binary_wraps_and_edge_cases(op, a, b, expected):
    got = binary(op, "tensor<%dxi4>" % len(a), np.array(a, I4), np.array(b, I4))
    assert got.dtype == np.int8 and got.tolist() == expected


def test_ui2_and_i2_wrap():
    assert binary("add", "tensor<3xui2>", np.array([3, 2, 0], np.uint8),
                  np.array([1, 3, 0], np.uint8)).tolist() == [0, 1, 0]
    assert binary("multiply", "tensor<2xi2>", np.array([-2, 1], np.int8),
                  np.array([-1, -2], np.int8)).tolist() == [-2, -2]
    assert unary("negate", "tensor<2xi2>", np.array([-2, 1], np.int8)).tolist() == [-2, -1]


def test_i64_and_ui64_wrap():
    big = np.array([2**63 - 1], np.int64)
    assert binary("add", "tensor<1xi64>", big, np.array([1], np.int64)).tolist() == [-2**63]
    u = np.array([2**64 - 1], np.uint64)
    assert binary("add", "tensor<1xui64>", u, np.array([2], np.uint64)).tolist() == [1]
    assert binary("divide", "tensor<1xui64>", u, np.array([0], np.uint64)).tolist() == [2**64 - 1]


def test_float_to_int_convert_truncates_and_saturates():
    x = np.array([2.9, -2.9, 1e10, -1e10, np.nan], np.float32)
    assert unary("convert", "tensor<5xf32>", x, "tensor<5xi8>").tolist() == [2, -2, 127, -128, 0]
    assert unary("convert", "tensor<5xf32>", x, "tensor<5xui8>").tolist() == [2, 0, 255, 0, 0]


def test_int_convert_wraps_and_bool():
    x = np.array([300, -1, 0], np.int32)
    assert unary("convert", "tensor<3xi32>", x, "tensor<3xi8>").tolist() == [44, -1, 0]
    assert unary("convert", "tensor<3xi32>", x, "tensor<3xi1>").tolist() == [True, True, False]


def test_bf16_and_f16_round_once():
    import ml_dtypes

    x = np.array([1.0, 3.0], ml_dtypes.bfloat16)
    got = binary("divide", "tensor<2xbf16>", x, np.array([3.0, 7.0], ml_dtypes.bfloat16))
    assert got.dtype == np.dtype(ml_dtypes.bfloat16)
    assert got.astype(np.float32).tolist() == [0.333984375, 0.427734375]
    h = binary("add", "tensor<1xf16>", np.array([65504], np.float16), np.array([32], np.float16))
    assert h.tolist() == [np.inf]


def test_round_ops():
    x = np.array([0.5, 1.5, 2.5, -2.5], np.float32)
    assert unary("round_nearest_even", "tensor<4xf32>", x).tolist() == [0.0, 2.0, 2.0, -2.0]
    assert unary("round_nearest_afz", "tensor<4xf32>", x).tolist() == [1.0, 2.0, 3.0, -3.0]


def test_dot_general_int_exact_and_wrapping():
    src = """func.func @main(%a: tensor<2x3xi8>, %b: tensor<3xi8>) -> tensor<2xi8> {
      %r = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<2x3xi8>, tensor<3xi8>) -> tensor<2xi8>
      func.return %r : tensor<2xi8>
    }"""
    a = np.array([[100, 100, 1], [1, 2, 3]], np.int8)
    b = np.array([1, 1, 1], np.int8)
    assert run_main(src, a, b)[0].tolist() == [201 - 256, 6]


def test_convolution_accumulates_in_result_type():
    # upstream's reference interpreter at the suite's commit (#2953) sums an
    # i8 x i8 -> i32 convolution in i32 (jaxlib 0.10.2's in i8: 18)
    src = """func.func @main(%a: tensor<1x3x1xi8>, %b: tensor<3x1x1xi8>) -> tensor<1x1x1xi32> {
      %r = stablehlo.convolution(%a, %b) dim_numbers = [b, 0, f]x[0, i, o]->[b, 0, f], window = {} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x3x1xi8>, tensor<3x1x1xi8>) -> tensor<1x1x1xi32>
      func.return %r : tensor<1x1x1xi32>
    }"""
    a = np.array([100, 1, 1], np.int8).reshape(1, 3, 1)
    b = np.array([100, 1, 1], np.int8).reshape(3, 1, 1)
    assert run_main(src, a, b, semantics="stablehlo")[0].ravel().tolist() == [10002]
    assert run_main(src, a, b, semantics="spec")[0].ravel().tolist() == [10002]


QA = "!quant.uniform<i8:f32, 1.0>"
QB = "!quant.uniform<i8:f32, 2.0>"


def test_quantized_add_semantics_differ_as_documented():
    src = f"""func.func @main(%a: tensor<2xi8>) -> tensor<2xi8> {{
      %q = stablehlo.bitcast_convert %a : (tensor<2xi8>) -> tensor<2x{QA}>
      %s = stablehlo.add %q, %q : (tensor<2x{QA}>, tensor<2x{QA}>) -> tensor<2x{QB}>
      %o = stablehlo.bitcast_convert %s : (tensor<2x{QB}>) -> tensor<2xi8>
      func.return %o : tensor<2xi8>
    }}"""
    a = np.array([1, 3], np.int8)
    assert run_main(src, a, semantics="stablehlo")[0].tolist() == [0, 4]
    assert run_main(src, a, semantics="spec")[0].tolist() == [1, 3]


def test_quantized_dot_truncates_under_stablehlo_rounds_under_spec():
    q32 = "!quant.uniform<i32:f32, 2.0>"
    src = f"""func.func @main(%a: tensor<1x1xi8>, %b: tensor<1x2xi8>) -> tensor<1x2xi32> {{
      %qa = stablehlo.bitcast_convert %a : (tensor<1x1xi8>) -> tensor<1x1x{QA}>
      %qb = stablehlo.bitcast_convert %b : (tensor<1x2xi8>) -> tensor<1x2x{QA}>
      %r = stablehlo.dot_general %qa, %qb, contracting_dims = [1] x [0] : (tensor<1x1x{QA}>, tensor<1x2x{QA}>) -> tensor<1x2x{q32}>
      %o = stablehlo.bitcast_convert %r : (tensor<1x2x{q32}>) -> tensor<1x2xi32>
      func.return %o : tensor<1x2xi32>
    }}"""
    a, b = np.array([[1]], np.int8), np.array([[3, -3]], np.int8)
    assert run_main(src, a, b, semantics="stablehlo")[0].tolist() == [[1, -1]]
    assert run_main(src, a, b, semantics="spec")[0].tolist() == [[2, -2]]


def test_quantized_dot_wraps_under_stablehlo_clamps_under_spec():
    src = f"""func.func @main(%a: tensor<1x2xi8>, %b: tensor<2x1xi8>) -> tensor<1x1xi8> {{
      %qa = stablehlo.bitcast_convert %a : (tensor<1x2xi8>) -> tensor<1x2x{QA}>
      %qb = stablehlo.bitcast_convert %b : (tensor<2x1xi8>) -> tensor<2x1x{QA}>
      %r = stablehlo.dot_general %qa, %qb, contracting_dims = [1] x [0] : (tensor<1x2x{QA}>, tensor<2x1x{QA}>) -> tensor<1x1x{QA}>
      %o = stablehlo.bitcast_convert %r : (tensor<1x1x{QA}>) -> tensor<1x1xi8>
      func.return %o : tensor<1x1xi8>
    }}"""
    a, b = np.array([[10, 10]], np.int8), np.array([[10], [10]], np.int8)
    assert run_main(src, a, b, semantics="stablehlo")[0].tolist() == [[-56]]
    assert run_main(src, a, b, semantics="spec")[0].tolist() == [[127]]


def test_unsigned_storage_saturates_at_signed_max_under_stablehlo():
    q = "!quant.uniform<u8:f32, 1.0>"
    src = f"""func.func @main(%x: tensor<3xf32>) -> tensor<3xui8> {{
      %q = stablehlo.uniform_quantize %x : (tensor<3xf32>) -> tensor<3x{q}>
      %o = stablehlo.bitcast_convert %q : (tensor<3x{q}>) -> tensor<3xui8>
      func.return %o : tensor<3xui8>
    }}"""
    x = np.array([100.0, 200.0, 300.0], np.float32)
    assert run_main(src, x, semantics="stablehlo")[0].tolist() == [100, 127, 127]
    assert run_main(src, x, semantics="spec")[0].tolist() == [100, 200, 255]


def test_checks_are_logged_with_mismatches():
    src = """func.func @t() {
      %c = stablehlo.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
      check.expect_almost_eq_const %c, dense<[1.00005, 2.5, 3.0]> : tensor<3xf32>
      %i = stablehlo.constant dense<[1, 2]> : tensor<2xi4>
      check.expect_eq_const %i, dense<[1, 2]> : tensor<2xi4>
      func.return
    }"""
    (r,) = run(parse_module(src))
    assert [c.passed for c in r.checks] == [False, True]
    assert r.checks[0].total_mismatches == 1
    assert r.checks[0].mismatches == [((1,), 2.0, 2.5)]


def test_unsupported_op_is_a_run_error_naming_it():
    src = """func.func @main(%a: tensor<3xf32>) -> tensor<3xf32> {
      %d = stablehlo.custom_call @my.kernel(%a) : (tensor<3xf32>) -> tensor<3xf32>
      func.return %d : tensor<3xf32>
    }"""
    (r,) = run(parse_module(src), [np.zeros(3, np.float32)])
    assert r.error is not None and r.error.message == "unsupported custom_call target @my.kernel"
    assert r.error.op is not None and r.error.op.name == "stablehlo.custom_call"


def test_reduce_precision_rounds_mantissa_and_exponent():
    src = """func.func @main(%a: tensor<5xf32>) -> tensor<5xf32> {
      %d = stablehlo.reduce_precision %a, format = e5m2 : tensor<5xf32>
      func.return %d : tensor<5xf32>
    }"""
    x = np.array([1.125, 1.375, 70000.0, 1e-6, np.nan], np.float32)
    got = run_main(src, x)[0]
    # 1.125 = 1.001b -> 1.0 (tie to even), 1.375 = 1.011b -> 1.5, e5 overflows to inf, underflows to 0
    assert got[:4].tolist() == [1.0, 1.5, np.inf, 0.0] and np.isnan(got[4])


def test_input_shape_and_dtype_are_checked():
    src = """func.func @main(%a: tensor<3xi8>) -> tensor<3xi8> {
      func.return %a : tensor<3xi8>
    }"""
    (r,) = run(parse_module(src), [np.zeros(2, np.int8)])
    assert "shape (2,)" in r.error.message
    (r,) = run(parse_module(src), [np.zeros(3, np.float32)])
    assert "dtype float32" in r.error.message
    (r,) = run(parse_module(src), [np.array([1, 2, 300])])
    assert "outside" in r.error.message


def test_memory_limit_stops_before_allocating():
    src = """func.func @main() -> tensor<1000000xf32> {
      %c = stablehlo.constant dense<1.0> : tensor<1000000xf32>
      func.return %c : tensor<1000000xf32>
    }"""
    (r,) = run(parse_module(src), max_memory=1 << 20)
    assert r.error is not None and "memory limit" in r.error.message
    (r,) = run(parse_module(src), max_memory=1 << 30)
    assert r.error is None and r.results[0].shape == (1000000,)


def test_quant_dialect_casts():
    q = "!quant.uniform<i8:f32, 0.5:1>"
    src = f"""func.func @main(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xi8>) {{
      %q = quant.qcast %x : tensor<4xf32> to tensor<4x{q}>
      %s = quant.scast %q : tensor<4x{q}> to tensor<4xi8>
      %d = quant.dcast %q : tensor<4x{q}> to tensor<4xf32>
      func.return %d, %s : tensor<4xf32>, tensor<4xi8>
    }}"""
    d, s = run_main(src, np.array([0.25, 0.75, 100, -3], np.float32))
    assert s.tolist() == [2, 2, 127, -5]  # 1.5 -> 2, 2.5 -> 2 (half to even), saturate
    assert d.tolist() == [0.5, 0.5, 63.0, -3.0]


def test_expect_close_counts_ulps():
    src = """func.func @t() {
      %a = stablehlo.constant dense<[1.0, -0.0, 2.0]> : tensor<3xf32>
      %b = stablehlo.constant dense<[1.00000012, 0.0, 2.0]> : tensor<3xf32>
      check.expect_close %a, %b, max_ulp_difference = 1 : tensor<3xf32>, tensor<3xf32>
      check.expect_close %a, %b, max_ulp_difference = 3, min_ulp_difference = 1 : tensor<3xf32>, tensor<3xf32>
      func.return
    }"""
    (r,) = run(parse_module(src))
    assert [c.passed for c in r.checks] == [True, False]
    assert [m[0] for m in r.checks[1].mismatches] == [(1,), (2,)]


def test_reduce_window_strides_dilations_padding():
    # values checked against jaxlib's reference interpreter
    src = """func.func @main(%x: tensor<5x5xf32>) -> tensor<3x4xf32> {
      %i = stablehlo.constant dense<0xFF800000> : tensor<f32>
      %r = "stablehlo.reduce_window"(%x, %i) <{window_dimensions = array<i64: 2, 2>, window_strides = array<i64: 2, 1>, base_dilations = array<i64: 1, 1>, window_dilations = array<i64: 1, 2>, padding = dense<[[0, 1], [1, 0]]> : tensor<2x2xi64>}> ({
      ^bb0(%a: tensor<f32>, %b: tensor<f32>):
        %s = stablehlo.maximum %a, %b : tensor<f32>
        stablehlo.return %s : tensor<f32>
      }) : (tensor<5x5xf32>, tensor<f32>) -> tensor<3x4xf32>
      func.return %r : tensor<3x4xf32>
    }"""
    x = np.arange(1, 26, dtype=np.float32).reshape(5, 5)
    assert run_main(src, x)[0].tolist() == [[7, 8, 9, 10], [17, 18, 19, 20], [22, 23, 24, 25]]
