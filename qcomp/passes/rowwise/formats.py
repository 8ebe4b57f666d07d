"""The rowwise conversions as StableHLO: each function emits the formula of its
`qcomp.quant.rowwise` / `rowwise_rand` counterpart (same name) on rows [R, C]."""

from __future__ import annotations

import math

from xdsl.ir import SSAValue

from qcomp.passes.rowwise.emit import (
    RowwiseBuilder as Builder,
)
from qcomp.passes.rowwise.emit import (
    f16,
    f32,
    f64,
    i32,
    i64,
    shape,
    ui8,
    ui64,
)
from qcomp.quant.rowwise import EPSILON_8BIT
from qcomp.quant.rowwise_rand import GOLDEN, HEADER, MIX1, MIX2, QEPSILON, tail_of


def as_rows(b: Builder, x: SSAValue) -> tuple[SSAValue, tuple[int, ...]]:
    """x [..., C] (f16 or f32) -> (float32 rows [R, C], leading dims)."""
    s = shape(x)
    lead = s[:-1]
    x = b.convert(x, f32)
    return b.reshape(x, (math.prod(lead), s[-1])), lead


def fused_rows(b: Builder, data: SSAValue) -> tuple[SSAValue, tuple[int, ...]]:
    s = shape(data)
    return b.reshape(data, (math.prod(s[:-1]), s[-1])), s[:-1]


def _saturated(b: Builder, t: SSAValue, top: int) -> SSAValue:
    """fbgemm's blocks of 32 columns (`rowwise_kernels._saturated`): rint, 0 for NaN and
    t >= 2^31, clamped to [0, top]; ui8."""
    shp = shape(t)
    zero = b.splat(0.0, f32, shp)
    q = b.rint(t)
    q = b.select(b.cmp_const("LT", q, 2.0 ** 31), q, zero)
    q = b.select(b.cmp_const("GT", q, 0.0), q, zero)
    return b.convert(b.min(q, b.splat(float(top), f32, shp)), ui8)


def _low_byte(b: Builder, t: SSAValue) -> SSAValue:
    """fbgemm's 8-bit columns after the blocks (`rowwise_kernels._low_byte`): the low
    byte of rint(t), 0 for NaN and |t| >= 2^31; ui8."""
    shp = shape(t)
    q = b.rint(t)
    inside = b.and_(b.cmp_const("LT", q, 2.0 ** 31), b.cmp_const("GE", q, -2.0 ** 31))
    q = b.convert(b.select(inside, q, b.splat(0.0, f32, shp)), i32)
    return b.convert(b.and_(q, b.splat(0xFF, i32, shp)), ui8)


def _lrint_clamped(b: Builder, t: SSAValue, top: int) -> SSAValue:
    """fbgemm's n-bit columns after the blocks (`rowwise_kernels._lrint_clamped`):
    lrintf's long (0 for NaN and out of range) truncated to int, clamped; ui8."""
    shp = shape(t)
    r = b.rint(b.convert(t, f64))
    inside = b.and_(b.cmp_const("LT", r, 2.0 ** 63), b.cmp_const("GE", r, -2.0 ** 63))
    v = b.convert(b.select(inside, r, b.splat(0.0, f64, shp)), i64)
    low = b.and_(v, b.splat(0xFFFFFFFF, i64, shp))
    low = b.select(b.cmp_const("GE", low, 1 << 31), b.sub(low, b.splat(1 << 32, i64, shp)), low)
    return b.convert(b.clamp(b.scalar(0, i64), low, b.scalar(top, i64)), ui8)


def _fbgemm_values(b: Builder, t: SSAValue, bits: int) -> SSAValue:
    """The quantized values of fused 8/4/2-bit rows as fbgemm rounds them: its blocks of
    32 columns saturate, the columns after them take the low byte (8-bit) or lrintf's
    truncated long (4/2-bit)."""
    c = shape(t)[1]
    top = (1 << bits) - 1
    blocks = c // 32 * 32
    parts = []
    if blocks:
        parts.append(_saturated(b, b.slice_cols(t, 0, blocks), top))
    if c > blocks:
        rest = b.slice_cols(t, blocks, c)
        parts.append(_low_byte(b, rest) if bits == 8 else _lrint_clamped(b, rest, top))
    return b.concat(parts, 1)


def _finish(b: Builder, parts: list[SSAValue], lead: tuple[int, ...], out_elem=None) -> SSAValue:
    out = b.concat(parts, 1) if len(parts) > 1 else parts[0]
    if out_elem is not None:
        out = b.convert(out, out_elem)
    return b.reshape(out, (*lead, shape(out)[1]))


def float_to_fused_8bit(b: Builder, x: SSAValue) -> SSAValue:
    rows, lead = as_rows(b, x)
    r, c = shape(rows)
    mn, mx = b.fbgemm_min_max(rows)
    rng = b.sub(mx, mn)
    scale = b.div(rng, b.splat(255.0, f32, (r,)))
    inverse = b.div(b.splat(255.0, f32, (r,)), b.add(rng, b.splat(float(EPSILON_8BIT), f32, (r,))))
    t = b.mul(b.sub(rows, b.rows(mn, (r, c))), b.rows(inverse, (r, c)))
    q = _fbgemm_values(b, t, 8)
    return _finish(b, [q, b.float_bytes(scale), b.float_bytes(mn)], lead)


def decode(b: Builder, rows: SSAValue, bits: int, cols: int
           ) -> tuple[SSAValue, SSAValue, SSAValue]:
    """(q f32 [R, cols], scale f32 [R], bias f32 [R]) of fused 8/4/2-bit rows."""
    w = shape(rows)[1]
    if bits == 8:
        q = b.slice_cols(rows, 0, cols)
        scale, bias = b.bytes_float(rows, cols, f32), b.bytes_float(rows, cols + 4, f32)
    else:
        nb = w - 4
        q = b.unpack(b.slice_cols(rows, 0, nb), bits, cols, segments=False)
        scale = b.convert(b.bytes_float(rows, nb, f16), f32)
        bias = b.convert(b.bytes_float(rows, nb + 2, f16), f32)
    return b.convert(q, f32), scale, bias


def fused_to_float(b: Builder, data: SSAValue, bits: int, cols: int, out_elem) -> SSAValue:
    """8-bit: fma(q, scale, bias); 4/2-bit: fma(scale, q, bias)."""
    rows, lead = fused_rows(b, data)
    q, scale, bias = decode(b, rows, bits, cols)
    shp = shape(q)
    s, o = b.rows(scale, shp), b.rows(bias, shp)
    out = b.fma(q, s, o) if bits == 8 else b.fma(s, q, o)
    return _finish(b, [out], lead, out_elem)


def nbit_params(b: Builder, mn: SSAValue, mx: SSAValue, bits: int):
    """(bias f16, scale f16, m f32, inverse f32) per row (`rowwise._quantize_nbit`)."""
    r = shape(mn)
    one = b.splat(1.0, f32, r)
    bias16 = b.convert(mn, f16)
    m = b.convert(bias16, f32)
    rng = b.sub(mx, m)
    scale = b.select(b.cmp_const("EQ", rng, 0.0), one,
                     b.div(rng, b.splat(float((1 << bits) - 1), f32, r)))
    scale = b.convert(b.convert(scale, f16), f32)
    scale = b.select(b.cmp_const("EQ", scale, 0.0), one, scale)
    inverse = b.div(one, scale)
    inf = b.cmp_const("EQ", b.abs(inverse), float("inf"))
    scale = b.select(inf, one, scale)
    inverse = b.select(inf, one, inverse)
    return bias16, b.convert(scale, f16), m, inverse


def float_to_fused_nbit(b: Builder, x: SSAValue, bits: int) -> SSAValue:
    rows, lead = as_rows(b, x)
    r, c = shape(rows)
    mn, mx = b.fbgemm_min_max(rows)
    bias16, scale16, m, inverse = nbit_params(b, mn, mx, bits)
    t = b.mul(b.sub(rows, b.rows(m, (r, c))), b.rows(inverse, (r, c)))
    q = _fbgemm_values(b, t, bits)
    packed = b.pack(q, bits, segments=False)
    return _finish(b, [packed, b.float_bytes(scale16), b.float_bytes(bias16)], lead)


def float_to_fused_nbit_fake(b: Builder, x: SSAValue, bits: int) -> SSAValue:
    rows, lead = as_rows(b, x)
    r, c = shape(rows)
    mn, mx = b.first_min_max(rows)
    m = b.convert(b.convert(mn, f16), f32)
    rng = b.sub(mx, m)
    step = b.convert(b.convert(b.div(rng, b.splat(float((1 << bits) - 1), f32, (r,))), f16), f32)
    scale = b.select(b.cmp_const("EQ", rng, 0.0), b.splat(1.0, f32, (r,)), step)
    inverse = b.div(b.splat(1.0, f32, (r,)), scale)
    t = b.mul(b.sub(rows, b.rows(m, (r, c))), b.rows(inverse, (r, c)))
    top = float((1 << bits) - 1)
    q = b.clamp(b.scalar(0.0, f32), b.rint(t), b.scalar(top, f32))
    q = b.convert(b.select(b.is_finite(t), q, b.splat(0.0, f32, (r, c))), ui8)
    return _finish(b, [q, b.float_bytes(scale), b.float_bytes(m)], lead)


def uniforms(b: Builder, seed: int, r: int, c: int) -> SSAValue:
    """[R, C] f32: `(splitmix64(seed, row * C + col) >> 40) * 2^-24`."""
    shp = (r, c)

    def k(v: int) -> SSAValue:
        return b.splat(v % (1 << 64), ui64, shp)

    n = b.add(b.mul(b.iota(0, ui64, shp), k(c)), b.iota(1, ui64, shp))
    z = b.add(k(seed), b.mul(b.add(n, k(1)), k(GOLDEN)))
    z = b.mul(b.xor(z, b.shr(z, k(30))), k(MIX1))
    z = b.mul(b.xor(z, b.shr(z, k(27))), k(MIX2))
    z = b.xor(z, b.shr(z, k(31)))
    return b.mul(b.convert(b.shr(z, k(40)), f32), b.splat(2.0 ** -24, f32, shp))


def float_to_fused_rand(b: Builder, x: SSAValue, bits: int, random: bool, seed: int) -> SSAValue:
    rows, lead = as_rows(b, x)
    r, c = shape(rows)
    mn, mx = b.first_min_max(rows)
    top = float((1 << bits) - 1)
    gap = b.div(b.sub(mx, mn), b.splat(top, f32, (r,)))
    gap_inv = b.div(b.splat(1.0, f64, (r,)), b.add(b.convert(gap, f64), b.splat(QEPSILON, f64, (r,))))
    gap_inv = b.convert(gap_inv, f32)
    t = b.mul(b.sub(rows, b.rows(mn, (r, c))), b.rows(gap_inv, (r, c)))
    if random:
        t = b.floor(b.add(t, uniforms(b, seed, r, c)))
    q = b.clamp(b.scalar(0.0, f32), t, b.scalar(top, f32))
    q = b.select(b.is_nan(t), b.splat(top, f32, (r, c)), q)
    if not random:
        q = b.rint(q)
    q = b.convert(q, ui8)
    header = b.bcast(b.constant([bits, tail_of(c, bits)], ui8), (r, 2), [1])
    data = b.pack(q, bits, segments=True)
    return _finish(b, [header, b.float_bytes(mn), b.float_bytes(mx), data], lead)


def fused_rand_to_float(b: Builder, data: SSAValue, bits: int, cols: int, out_elem) -> SSAValue:
    rows, lead = fused_rows(b, data)
    r, w = shape(rows)
    mn, mx = b.bytes_float(rows, 2, f32), b.bytes_float(rows, 6, f32)
    gap = b.div(b.sub(mx, mn), b.splat(float((1 << bits) - 1), f32, (r,)))
    gap = b.convert(b.add(b.convert(gap, f64), b.splat(QEPSILON, f64, (r,))), f32)
    q = b.convert(b.unpack(b.slice_cols(rows, HEADER, w), bits, cols, segments=True), f32)
    out = b.fma(q, b.rows(gap, (r, cols)), b.rows(mn, (r, cols)))
    return _finish(b, [out], lead, out_elem)
