import numpy as np
import pytest

from qcomp.quant.fixed_point import RescaleError, multiplier_and_shift, tosa_rescale


@pytest.mark.parametrize("scale,expected", [
    (1.0, (1073741824, 30)),
    (0.025 / 0.15 * 2**20, (1431655765, 13)),
    (0.5, (1073741824, 31)),
    (0.75, (1610612736, 31)),
    # mantissa rounding up to 2^31 renormalises: (1 - 2^-40) -> M = 2^31 -> 2^30, e + 1
    (1.0 - 2.0**-40, (1073741824, 30)),
    # tiny scales: shift capped at 62, multiplier shifted right
    (2.0**-40, (1073741824 >> 8, 62)),  # shift would be 70
])
def test_multiplier_and_shift_32(scale, expected):
    assert multiplier_and_shift(scale) == expected


def test_multiplier_and_shift_16():
    assert multiplier_and_shift(1.0, bits=16) == (16384, 14)
    assert multiplier_and_shift(0.75, bits=16) == (24576, 15)


def test_multiplier_and_shift_rejects_non_positive():
    with pytest.raises(ValueError):
        multiplier_and_shift(0.0)


def test_rescale_reference_model_vector():
    # REFERENCE.md §6: checked with tosa_reference_model
    got = tosa_rescale(np.array([-128, -1, 0, 127], np.int8), 1431655765, 31, 3, -1)
    assert got.tolist() == [-88, -4, -3, 82]


def test_rescale_single_round_ties_go_up():
    # multiplier 2^30, shift 31 -> x/2 with +0.5 rounding toward +inf
    got = tosa_rescale(np.array([1, 3, -1, -3, 5]), 1 << 30, 31, 0, 0, out_bitwidth=32)
    assert got.tolist() == [1, 2, 0, -1, 3]


def test_rescale_double_round_differs_only_for_shift_over_31():
    x = np.array([3, -3, 5, -5], np.int64)
    # shift 33, multiplier 2^31-1 ~ 0.25: double round adds +-2^30 to the rounding term
    s = tosa_rescale(x * (1 << 20), (1 << 31) - 1, 33, 0, 0, out_bitwidth=32)
    d = tosa_rescale(x * (1 << 20), (1 << 31) - 1, 33, 0, 0, out_bitwidth=32,
                     rounding_mode="DOUBLE_ROUND")
    exact = (x * (1 << 20) * ((1 << 31) - 1)) / 2.0**33
    assert np.all(np.abs(s - exact) <= 0.5)
    assert d.tolist() == [786432, -786432, 1310720, -1310720]
    # below shift 32 the two modes agree
    assert (tosa_rescale(x, 1 << 30, 31, 0, 0, rounding_mode="DOUBLE_ROUND").tolist()
            == tosa_rescale(x, 1 << 30, 31, 0, 0).tolist())


def test_rescale_shift_extremes():
    x = np.array([-(2**31), 2**31 - 1], np.int64)
    got = tosa_rescale(x, (1 << 31) - 1, 62, 0, 0, out_bitwidth=32)
    # x * (1 - 2^-31) / 2^31: -0.49999... + 0.5 floors to... -1 (sum is -2^61 + 2^31 < 0); 0.99999... -> 1
    assert got.tolist() == [-1, 1]
    assert tosa_rescale(np.array([1, -2]), 3, 2, 0, 0).tolist() == [1, -1]  # (3+2)>>2, (-6+2)>>2
    with pytest.raises(RescaleError):
        tosa_rescale(np.array([1]), 1, 1, 0, 0)
    with pytest.raises(RescaleError):
        tosa_rescale(np.array([1]), 1, 63, 0, 0)


def test_rescale_saturates_and_unsigned_io():
    got = tosa_rescale(np.array([100, -100]), 1 << 30, 28, 0, 0)  # x * 4
    assert got.tolist() == [127, -128]
    # uint8 input stored as int8 bit pattern: -1 is 255
    got = tosa_rescale(np.array([-1], np.int8), 1 << 30, 30, 128, 0, input_unsigned=True)
    assert got.tolist() == [127]
    got = tosa_rescale(np.array([-5, 300]), 1 << 30, 30, 0, 0, output_unsigned=True)
    assert got.tolist() == [0, 255]


def test_rescale_per_channel_uses_last_dim():
    x = np.array([[10, 10], [20, 20]])
    got = tosa_rescale(x, [1 << 30, 1 << 30], [30, 31], 0, 0, per_channel=True)
    assert got.tolist() == [[10, 5], [20, 10]]


def test_rescale_scale16_48bit_values():
    x = np.array([2**46, -(2**46)], np.int64)
    got = tosa_rescale(x, 1 << 14, 30, 0, 0, scale32=False, out_bitwidth=32)
    assert got.tolist() == [2**30, -(2**30)]


def test_rescale_value_range_require():
    with pytest.raises(RescaleError):
        tosa_rescale(np.array([1 << 20]), 1 << 30, 20, 0, 0)
