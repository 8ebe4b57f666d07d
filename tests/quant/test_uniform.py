import ml_dtypes
import numpy as np

from qcomp.quant.uniform import dequantize, float_to_int, quantize, requantize


def test_quantize_per_axis_reference_example():
    # interpret/quantized_ops.mlir: [4.0, 15.0] with {0.1:-30, 0.5:-20} -> [10, 10]
    got = quantize(np.array([4.0, 15.0], np.float32), np.array([0.1, 0.5]), np.array([-30, -20]),
                   -128, 127, "f32")
    assert got.tolist() == [10, 10]


def test_quantize_clamps_then_rounds_half_even():
    x = np.array([0.5, 1.5, 2.5, -0.5, 1000.0, -1000.0], np.float32)
    assert quantize(x, 1.0, 0, -128, 127, "f32").tolist() == [0, 2, 2, 0, 127, -128]
    # narrowed storage range i8<-127:127>
    assert quantize(np.array([-1000.0], np.float32), 1.0, 0, -127, 127, "f32").tolist() == [-127]


def test_quantize_computes_in_f32():
    # 0.3 / 0.1 in f32 is 3.0000002 (f64: 2.9999999999999996): both round to 3, but
    # x/scale + zp at a tie depends on the precision: 0.25/0.1 -> 2.5 in f32 -> 2
    x = np.array([0.25], np.float32)
    assert quantize(x, 0.1, 0, -128, 127, "f32").tolist() == [2]
    f32 = np.float32(0.25) / np.float32(0.1)
    assert f32 == np.float32(2.5)


def test_quantize_nan_and_wide_storage_saturate():
    x = np.array([np.nan, 3e9, -3e9], np.float32)
    assert quantize(x, 1.0, 0, -2**31, 2**31 - 1, "f32").tolist() == [0, 2**31 - 1, -2**31]


def test_quantize_bf16_expressed_rounds_each_step_in_bf16():
    x = np.array([1.0], ml_dtypes.bfloat16)
    # 1/3 in bf16 is 0.333984375; /(1/3) -> 2.99..., + 0 -> 3
    got = quantize(x, 1 / 3, 0, -128, 127, "bf16")
    assert got.tolist() == [3]
    assert quantize(np.array([300.0], np.float32), 1.0, 0, 0, 255, "bf16").tolist() == [255]


def test_dequantize_per_axis():
    got = dequantize(np.array([10, 10]), np.array([0.1, 0.5]), np.array([-30, -20]), "f32")
    assert got.dtype == np.float32
    assert got.tolist() == [np.float32(40) * np.float32(0.1), 15.0]


def test_requantize_reference_example():
    # interpret/quantized_ops.mlir: [10, 10] {0.1:-30,0.5:-20} -> {0.1:-20,0.2:-30} = [20, 45]
    got = requantize(np.array([10, 10]), np.array([0.1, 0.5]), np.array([-30, -20]),
                     np.array([0.1, 0.2]), np.array([-20, -30]), -128, 127, "f32")
    assert got.tolist() == [20, 45]


def test_float_to_int_truncates_toward_zero():
    assert float_to_int(np.array([2.9, -2.9, 0.5, -0.5]), -128, 127).tolist() == [2, -2, 0, 0]
    assert float_to_int(np.array([1e300, -1e300]), -2**63, 2**63 - 1).tolist() == [2**63 - 1, -2**63]


def test_rescale_blocks_adds_scaled_block_sums_before_the_one_rounding():
    from qcomp.quant.accumulator import rescale_blocks

    # real = [1, 2] * 0.5 * [1, 2] + [3, 4] * 0.5 * 0.25 = [0.875, 2.5] -> [1, 2] (tie to even);
    # rounding each block first would give [0 + 0, 2 + 0] or [1 + 0, 2 + 1]
    two = rescale_blocks([np.array([1, 2]), np.array([3, 4])], 0.5, [np.array([1.0, 2.0]), 0.25],
                         1.0, 0, -128, 127)
    assert two.tolist() == [1, 2]
    shifted = rescale_blocks([np.array([1, 2]), np.array([3, 4])], 0.5,
                             [np.array([1.0, 2.0]), 0.25], 0.5, 3, -128, 127)
    assert shifted.tolist() == [5, 8]  # 1.75 + 3 -> 5 (4.75), 5 + 3 = 8


def test_storage_round_trips():
    from qcomp.quant.uniform import storage_round_trips

    assert storage_round_trips([0.1], [3], -128, 127, "f32")
    assert storage_round_trips([0.5, 0.013], [0, -7], -32768, 32767, "f32")
    assert not storage_round_trips([0.5], [0], -32768, 32767, "f16")  # f16 keeps 11 bits
    assert not storage_round_trips([0.5], [0], -(2**31), 2**31 - 1, "f32")  # too wide to enumerate


def test_i32_maximum_is_dequantize_max_quantize_in_f32():
    """The spec's value for a quantized maximum (issue 16): computed here in plain f32 NumPy."""
    from qcomp.interpreter import run
    from qcomp.registry import parse_module

    t = "tensor<2x!quant.uniform<i32:f32, 0.5>>"
    src = (f"func.func @main(%a: {t}, %b: {t}) -> {t} {{\n"
           f"  %0 = stablehlo.maximum %a, %b : {t}\n  return %0 : {t}\n}}\n")
    a = np.array([1505919583, -7], np.int32)
    b = np.array([12, -1505919583], np.int32)
    want = np.rint(np.maximum(a.astype(np.float32) * np.float32(0.5),
                              b.astype(np.float32) * np.float32(0.5)) / np.float32(0.5))
    (r,) = run(parse_module(src), [a, b], semantics="spec")
    assert r.results[0].tolist() == want.astype(np.int64).tolist() == [1505919616, -7]
