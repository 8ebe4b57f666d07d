"""The scalar primitives of the rowwise loop kernels (qcomp.quant.rowwise_jit) against
independent oracles: NumPy's float16 casts and exact rational arithmetic."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

pytest.importorskip("numba", reason="numba is not installed (pip install -e '.[fast]')")

from numba import njit  # noqa: E402

from qcomp.quant.rowwise_jit import (  # noqa: E402
    f16_bits, f16_value, fma32, get_f16, get_f32, put_f32, put_u16)


@njit(cache=True)
def _to_f16(x, out):
    for i in range(x.shape[0]):
        out[i] = f16_bits(x[i])


@njit(cache=True)
def _from_f16(h, out):
    for i in range(h.shape[0]):
        out[i] = f16_value(h[i])


@njit(cache=True)
def _fma(a, b, c, out):
    for i in range(a.shape[0]):
        out[i] = fma32(a[i], b[i], c[i])


@njit(cache=True)
def _fields(table, out32, out16, back):
    out32[0] = get_f32(table, 1, 1)
    out16[0] = get_f16(table, 1, 5)
    put_f32(back, 0, 0, out32[0])
    put_u16(back, 0, 4, 0xBEEF)


def test_f16_bits_round_like_numpy():
    """Every float16 value, its neighbours' midpoints +-1 float32 ulp, and a million
    random float32 bit patterns (NaNs, infinities, subnormals included)."""
    halves = (np.arange(1 << 16, dtype=np.uint16).view(np.float16).astype(np.float32)
              .view(np.uint32).astype(np.int64))
    near = np.concatenate([halves + d for d in (0, 1, -1, 1 << 12, (1 << 12) + 1, (1 << 12) - 1)])
    near &= 0xFFFFFFFF
    rand = np.random.default_rng(0).integers(0, 1 << 32, 1 << 20, dtype=np.uint64)
    x = np.concatenate([near, rand.astype(np.int64)]).astype(np.uint32).view(np.float32)
    got = np.empty(x.size, np.int64)
    _to_f16(x, got)
    with np.errstate(all="ignore"):
        want = x.astype(np.float16).view(np.uint16).astype(np.int64)
    assert np.array_equal(got, want), np.flatnonzero(got != want)[:5]


def test_f16_value_is_numpys_widening():
    h = np.arange(1 << 16, dtype=np.int64)
    got = np.empty(h.size, np.float32)
    _from_f16(h, got)
    want = h.astype(np.uint16).view(np.float16).astype(np.float32)
    assert got.view(np.uint32).tobytes() == want.view(np.uint32).tobytes()


def test_fma32_rounds_once():
    """Against the exact rational a * b + c rounded to float32 (nearest, ties to even,
    decided by comparing the exact value with the neighbours' midpoint), on random
    operands and on sums that land on float32 midpoints."""
    rng = np.random.default_rng(1)
    n = 3000
    a = rng.standard_normal(n).astype(np.float32)
    b = (rng.standard_normal(n) * 2.0 ** rng.integers(-30, 30, n)).astype(np.float32)
    c = (rng.standard_normal(n) * 2.0 ** rng.integers(-40, 40, n)).astype(np.float32)
    # a = 3 (1 + 2^-23), b = 1: the product needs 25 bits; c = +-tiny decides the rounding
    a[:4] = np.float32(1 + 2 ** -23)
    b[:4] = 3
    c[:4] = np.array([1e-30, -1e-30, 0, 1e-38], np.float32)
    got = np.empty(n, np.float32)
    _fma(a, b, c, got)
    for i in range(n):
        exact = Fraction(float(a[i])) * Fraction(float(b[i])) + Fraction(float(c[i]))
        lo = np.float32(float(exact))
        if Fraction(float(lo)) > exact:
            lo = np.nextafter(lo, np.float32(-np.inf))
        hi = np.nextafter(lo, np.float32(np.inf))
        mid = (Fraction(float(lo)) + Fraction(float(hi))) / 2
        if exact == Fraction(float(lo)):
            want = lo
        elif exact < mid:
            want = lo
        elif exact > mid:
            want = hi
        else:
            want = lo if int(lo.view(np.uint32)) % 2 == 0 else hi
        assert got[i].view(np.uint32) == want.view(np.uint32), (i, a[i], b[i], c[i])
    assert got[0] != got[1]


def test_little_endian_fields():
    table = np.zeros((2, 8), np.uint8)       # the fields in row 1 of a 2-d table
    table[1, 1:5] = np.array([-1.5], "<f4").view(np.uint8)
    table[1, 5:7] = np.array([0.333], "<f2").view(np.uint8)
    f32, f16, back = np.zeros(1, np.float32), np.zeros(1, np.float32), np.zeros((1, 6), np.uint8)
    _fields(table, f32, f16, back)
    assert f32[0] == np.float32(-1.5)
    assert f16[0] == np.float32(np.float16(0.333))
    assert back[0, :4].tobytes() == table[1, 1:5].tobytes()
    assert back[0, 4:].tobytes() == bytes([0xEF, 0xBE])
