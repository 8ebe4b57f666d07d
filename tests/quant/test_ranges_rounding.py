import ml_dtypes
import numpy as np
import pytest

from qcomp.quant.ranges import (
    container_dtype,
    literal_range,
    saturate,
    signed_view,
    storage_range,
    wrap,
)
from qcomp.quant.rounding import round_half_away_from_zero, round_half_to_even


@pytest.mark.parametrize("bits,signed,expected", [
    (2, True, (-2, 1)), (2, False, (0, 3)), (4, True, (-8, 7)), (4, False, (0, 15)),
    (8, True, (-128, 127)), (8, False, (0, 255)), (32, True, (-2**31, 2**31 - 1)),
    (64, False, (0, 2**64 - 1)),
])
def test_storage_range(bits, signed, expected):
    assert storage_range(bits, signed) == expected


@pytest.mark.parametrize("bits,signed,dtype", [
    (1, False, np.uint8), (2, True, np.int8), (4, False, np.uint8), (8, True, np.int8),
    (9, True, np.int16), (16, False, np.uint16), (17, True, np.int32), (33, True, np.int64),
    (64, False, np.uint64),
])
def test_container_dtype(bits, signed, dtype):
    assert container_dtype(bits, signed) == np.dtype(dtype)


def test_container_dtype_rejects_bad_width():
    with pytest.raises(ValueError):
        container_dtype(65, True)


@pytest.mark.parametrize("bits,signed,oracle", [
    (2, True, ml_dtypes.int2), (2, False, ml_dtypes.uint2),
    (4, True, ml_dtypes.int4), (4, False, ml_dtypes.uint4),
])
def test_wrap_matches_ml_dtypes(bits, signed, oracle):
    x = np.arange(-40, 41, dtype=np.int64)
    got = wrap(x, bits, signed)
    # ml_dtypes narrow ints wrap on conversion from wider ints modulo 2^bits
    expected = np.array([((int(v) + (1 << (bits - 1) if signed else 0)) % (1 << bits))
                         - ((1 << (bits - 1)) if signed else 0) for v in x])
    assert got.tolist() == expected.tolist()
    # the container values round-trip through the narrow dtype unchanged
    assert got.astype(oracle).astype(np.int64).tolist() == expected.tolist()


def test_wrap_bit_patterns():
    assert wrap(np.array([127 + 1, -129, 255, 256]), 8, True).tolist() == [-128, 127, -1, 0]
    assert wrap(np.array([-1, 256, 257]), 8, False).tolist() == [255, 0, 1]
    assert wrap(np.array([2**31]), 32, True).tolist() == [-2**31]
    assert wrap(np.array([-1], np.int64), 64, False).tolist() == [2**64 - 1]
    assert wrap(np.array([2, 3, -3]), 2, True).tolist() == [-2, -1, 1]
    assert wrap(np.array([4, 5, -1]), 2, False).tolist() == [0, 1, 3]


def test_saturate():
    assert saturate(np.array([-300, 5, 300]), -128, 127, np.int8).tolist() == [-128, 5, 127]


def test_round_half_to_even_ties():
    x = np.array([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 2.4999999], np.float32)
    assert round_half_to_even(x).tolist() == [0.0, 2.0, 2.0, -0.0, -2.0, -2.0, 2.0]


def test_round_half_away_from_zero_ties_and_near_ties():
    x = np.array([0.5, 1.5, 2.5, -0.5, -2.5, 0.49999999999999994, -0.49999999999999994, 3.0])
    got = round_half_away_from_zero(x)
    assert got.tolist() == [1.0, 2.0, 3.0, -1.0, -3.0, 0.0, -0.0, 3.0]
    assert got.dtype == np.float64


def test_round_half_away_from_zero_bf16_keeps_dtype():
    x = np.array([2.5, -3.5, 0.25], ml_dtypes.bfloat16)
    got = round_half_away_from_zero(x)
    assert got.dtype == np.dtype(ml_dtypes.bfloat16)
    assert got.astype(np.float32).tolist() == [3.0, -4.0, 0.0]


@pytest.mark.parametrize("bits,signed,expected", [
    (8, None, (-128, 255)), (8, True, (-128, 127)), (8, False, (0, 255)),
    (64, None, (-2**63, 2**64 - 1)), (0, None, (0, 0)), (0, False, (0, 0)), (0, True, (0, -1)),
])
def test_literal_range(bits, signed, expected):
    assert literal_range(bits, signed) == expected


def test_signed_view():
    assert signed_view(np.array([200, 5, 255, 128]), 8).tolist() == [-56, 5, -1, -128]
    assert signed_view(np.array([3, 1]), 2).tolist() == [-1, 1]
    big = np.array([2**63, 2**64 - 1, -5], dtype=object)
    assert signed_view(big, 64).tolist() == [-2**63, -1, -5]
