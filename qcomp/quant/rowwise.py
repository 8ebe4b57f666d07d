"""Caffe2's fused rowwise quantization formats, bit for bit with PyTorch's kernels.

Every format stores one table row per output row: the quantized values of the row
followed (or, for the random format, preceded) by the row's own quantization
parameters, all in one `uint8` row. An N-d float input is `rows x last dimension`:
a `5x2x4` input is 10 rows of 4 columns, and the fused output is `5x2xW`.

Formats (C = columns of the float row, W = bytes of the fused row):

- fused 8-bit (`FloatToFused8BitRowwiseQuantized`, `embedding_bag_byte_prepack`),
  W = C + 8: `C` uint8 values, then float32 scale and float32 bias (little endian)::

      min, max = row extremes (fbgemm's order, see `fbgemm_min_max`)
      range = max - min                       (float32; inf when it overflows)
      scale = range / 255                     bias = min
      q     = rint((x - min) * (255 / (range + 1e-8)))     (float32 ops, half to even)

  dequantized: `fma(q, scale, bias)` (one rounding, as fbgemm's AVX2 kernel).
- fused 4-bit / 2-bit (`FloatToFused4BitRowwiseQuantized`, `embedding_bag_4bit_prepack`),
  W = ceil(C * bits / 8) + 4: values packed from the low bits up (column `c` in byte
  `c // (8/bits)` at bit `(c % (8/bits)) * bits`), then float16 scale and float16 bias::

      bias  = f16(min)                     m = f32(bias)
      scale = range == 0 ? 1 : (max - m) / (2^bits - 1), rounded to f16; 0 -> 1;
              1/scale infinite -> 1
      q     = clamp(rint((x - m) * (1 / scale)), 0, 2^bits - 1)  (NaN -> 0)

  dequantized: `fma(f32(scale), q, f32(bias))` (exact product: one rounding either way).
- fake 4-bit / 2-bit (`FloatToFused4BitFakeRowwiseQuantized`): the 8-bit layout
  (W = C + 8, float32 scale and bias) holding values in [0, 2^bits - 1] computed as
  above but with `std::min_element` extremes and no guard on a zero or infinite scale;
  read back with the 8-bit dequantization.
- the random format (`FloatToFusedRandRowwiseQuantized`): `qcomp.quant.rowwise_rand`.

NaN inputs are outside the formats' contract (C++ `<` comparisons decide what a NaN
does); infinities and huge finite ranges follow the kernels exactly.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from qcomp.quant.rowwise_jit import (
    f16_bits,
    f16_round,
    f16_value,
    f32_from_bits,
    f32_to_bits,
    fma32,
    load_f16,
    load_f32,
    store_f32,
    store_u16,
)

F32 = np.float32
FLT_MAX = np.float32(np.finfo(np.float32).max)
EPSILON_8BIT = np.float32(1e-8)
"""fbgemm's `kEpsilon` in the 8-bit inverse scale."""
NBIT_BITS = (2, 4)


class RowwiseError(ValueError):
    """Input the rowwise kernels reject (bad layout, out-of-range index, ...)."""


# ---------------------------------------------------------------------------
# Widths
# ---------------------------------------------------------------------------
def per_byte(bits: int) -> int:
    """Values per byte at `bits` bits."""
    if bits not in (1, 2, 4, 8):
        raise RowwiseError(f"bit width must be 1, 2, 4 or 8, got {bits}")
    return 8 // bits


def packed_bytes(cols: int, bits: int) -> int:
    """ceil(cols * bits / 8): bytes holding `cols` values of `bits` bits."""
    return -(-cols // per_byte(bits))


def fused_width(cols: int, bits: int) -> int:
    """Bytes of a fused row: C + 8 at 8 bits, ceil(C*bits/8) + 4 at 4 and 2 bits."""
    if bits == 8:
        return cols + 8
    if bits not in NBIT_BITS:
        raise RowwiseError(f"fused rows have 8, 4 or 2 bits, got {bits}")
    return packed_bytes(cols, bits) + 4


def fused_cols(width: int, bits: int) -> int:
    """Columns a fused row of `width` bytes holds (at n bits: every slot of the packed
    bytes, as Caffe2's and PyTorch's dequantization report them)."""
    if bits == 8:
        return width - 8
    return (width - 4) * per_byte(bits)


# ---------------------------------------------------------------------------
# Shared numerics
# ---------------------------------------------------------------------------
def as_rows(x: np.ndarray) -> np.ndarray:
    """A float16/float32 array as float32 rows `[prod(leading dims), last dim]`."""
    x = np.asarray(x)
    if x.ndim == 0:
        raise RowwiseError("a rowwise input needs at least one dimension")
    if x.dtype not in (np.float32, np.float16):
        raise RowwiseError(f"rowwise inputs are float32 or float16, got {x.dtype}")
    return np.ascontiguousarray(x, dtype=F32).reshape(-1, x.shape[-1])


def fma_f32(a, b, c, integer_factor: bool = False) -> np.ndarray:
    """float32 `a * b + c` rounded once (C's `fmaf`), for float32 operands (broadcast).

    The product is exact in float64 (24 + 24 bits); `s = p + c` in float64 is rounded
    once. Rounding `s` to float32 is then correct unless `s` is exactly halfway between
    two float32 values while `p + c` is not (double rounding): only there the exact
    error `e = (p + c) - s` (Knuth's TwoSum) moves `s` one float64 ulp toward the true
    sum (round to odd), which float32 rounding then resolves correctly. Candidates are
    the float32 midpoints (the low 29 of 52 fraction bits are 1000...0) and, unless
    `integer_factor` (`a` or `b` holds integers: then `p + c` is a multiple of 2^-149
    and exact wherever it is below 2^-126), the float32 subnormal range."""
    # same-dtype ufuncs: NumPy's mixed-dtype loops are several times slower
    a, b, c = (np.asarray(v).astype(np.float64) for v in (a, b, c))
    with np.errstate(invalid="ignore", over="ignore"):
        s = np.multiply(a, b)
        s = np.add(s, c, out=s) if np.broadcast_shapes(s.shape, c.shape) == s.shape else s + c
        bits = s.view(np.int64)
        tmp = np.bitwise_and(bits, 0x1FFFFFFF)
        cand = tmp == 0x10000000
        if not integer_factor:
            cand |= (np.abs(s) < 2.0 ** -126) & (s != 0)
        idx = np.flatnonzero(cand)
        if idx.size:
            where = np.unravel_index(idx, s.shape)
            pa = np.broadcast_to(a, s.shape)[where]
            pb = np.broadcast_to(b, s.shape)[where]
            cc = np.broadcast_to(c, s.shape)[where]
            pc = pa * pb
            sc = s[where]
            bb = sc - pc
            err = (pc - (sc - bb)) + (cc - bb)
            b64 = sc.view(np.int64)
            fix = (err != 0) & np.isfinite(sc)
            up = (err > 0) == (sc > 0)
            s[where] = np.where(fix, np.where(up, b64 + 1, b64 - 1), b64).view(np.float64)
        return s.astype(F32)


def exact_rows(scale: np.ndarray, bias: np.ndarray) -> np.ndarray:
    """Rows where `q * scale + bias` (q an integer in [0, 256), float32 scale and bias)
    is exact in float64, so that rounding the float64 result to float32 is the fma.

    With 2^eb <= |scale| < 2^(eb+1) and 2^ec <= |bias| < 2^(ec+1), the sum is a multiple
    of 2^(min(eb, ec) - 23) below 2^(max(eb + 9, ec + 1) + 1): at most 53 significant
    bits when -28 <= eb - ec <= 20 (subnormals have a coarser grid: still exact). A zero
    or non-finite scale or bias needs no correction either."""
    _, eb = np.frexp(scale)
    _, ec = np.frexp(bias)
    d = eb.astype(np.int64) - ec
    with np.errstate(invalid="ignore"):
        return ((d >= -28) & (d <= 20)) | (scale == 0) | (bias == 0) | ~np.isfinite(scale) \
            | ~np.isfinite(bias)


def mul_add_rows(q: np.ndarray, scale: np.ndarray, bias: np.ndarray, exact: np.ndarray,
                 out: np.ndarray | None = None, tmp: np.ndarray | None = None) -> np.ndarray:
    """float32 fma(q, scale[r], bias[r]) for integer q [R, C] in [0, 256): plain float64
    arithmetic on the `exact` rows (see `exact_rows`), `fma_f32` on the others; into
    `out` if given (`tmp`: a float64 scratch array shaped like q)."""
    out = np.empty(q.shape, F32) if out is None else out
    if exact.all():
        s = np.empty(q.shape, np.float64) if tmp is None else tmp
        with np.errstate(invalid="ignore", over="ignore"):
            np.copyto(s, q)
            np.multiply(s, scale.astype(np.float64)[:, None], out=s)
            np.add(s, bias.astype(np.float64)[:, None], out=s)
            np.copyto(out, s, casting="same_kind")
    else:
        out[...] = fma_f32(q, scale[:, None], bias[:, None], True)
    return out


# ---------------------------------------------------------------------------
# Row loop kernels (numba: one fused loop per row, compiled once, cached on disk)
# ---------------------------------------------------------------------------
_ONE = F32(1)
_INF = F32(np.inf)
_255 = F32(255)
_F16_ONE = 0x3C00
_JIT = {"cache": True, "error_model": "numpy"}
"""IEEE division (no ZeroDivisionError), compiled code cached next to the module."""


@njit(inline="always", **_JIT)
def _key(x):
    """An integer key ordering float32 values as IEEE's total order (-0 < +0)."""
    u = np.int64(f32_to_bits(x))
    u = u - (1 << 32) if u >= (1 << 31) else u
    return u ^ ((u >> 31) & 0x7FFFFFFF)


@njit(inline="always", **_JIT)
def _unkey(k):
    """The float32 of a `_key`."""
    return f32_from_bits(np.uint32((k ^ ((k >> 31) & 0x7FFFFFFF)) & 0xFFFFFFFF))


@njit(inline="always", **_JIT)
def _ordered_min_max(ib, lo, hi):
    """(min, max, NaN seen) of a float32 row given as its int32 bits `ib`, starting
    from the floats lo and hi, in IEEE total order (-0 < +0): integer min/max of the
    keys `u ^ ((u >> 31) & 0x7FFFFFFF)`, which order the floats as they compare."""
    kmin, kmax = np.int32(_key(lo)), np.int32(_key(hi))
    mag = np.int32(0)
    for j in range(ib.shape[0]):
        u = ib[j]
        k = np.int32(u ^ ((u >> np.int32(31)) & np.int32(0x7FFFFFFF)))
        kmin = min(kmin, k)
        kmax = max(kmax, k)
        mag = max(mag, np.int32(u & np.int32(0x7FFFFFFF)))
    return _unkey(np.int64(kmin)), _unkey(np.int64(kmax)), mag > 0x7F800000


@njit(inline="always", **_JIT)
def _first_nan(row):
    for j in range(row.shape[0]):
        if row[j] != row[j]:
            return row[j]
    return row[0]


@njit(inline="always", **_JIT)
def _fbgemm_row_min_max(row, ib, lanes):
    """(min, max) of a float32 row (`ib`: its int32 bits) as fbgemm's AVX2 quantizers
    find them: `min(FLT_MAX, row min)`, `max(-FLT_MAX, row max)` (the running extremes
    start there), NaN, NaN for a row holding a NaN (outside the formats' contract).
    Only a zero extreme depends on the order (its sign), then the row runs again as
    fbgemm does (`lanes`: a float32 [2, 8] scratch): 8 lanes over the first C - C % 8
    columns (lane l holds columns l, l + 8, ...; `_mm256_min_ps(acc, x)` =
    `acc < x ? acc : x` keeps the newer of two equal values), the lanes folded in order
    with `std::min` (keeps the older), then the remaining columns one by one."""
    mn, mx, nan = _ordered_min_max(ib, FLT_MAX, -FLT_MAX)
    if nan:
        a = _first_nan(row)
        return a, a
    if mn != 0 and mx != 0:
        return mn, mx
    c = row.shape[0]
    v = c - c % 8
    lo, hi = lanes[0], lanes[1]
    for lane in range(8):
        lo[lane] = FLT_MAX
        hi[lane] = -FLT_MAX
    for j in range(0, v, 8):
        for lane in range(8):
            a = row[j + lane]
            lo[lane] = lo[lane] if lo[lane] < a else a
            hi[lane] = hi[lane] if hi[lane] > a else a
    mn, mx = FLT_MAX, -FLT_MAX
    for lane in range(8):
        mn = lo[lane] if lo[lane] < mn else mn
        mx = hi[lane] if mx < hi[lane] else mx
    for j in range(v, c):
        a = row[j]
        mn = a if a < mn else mn
        mx = a if mx < a else mx
    return mn, mx


@njit(inline="always", **_JIT)
def _first_row_min_max(row, ib):
    """(min, max) of a float32 row (C >= 1; `ib`: its int32 bits) keeping the first of
    equal values (`std::min_element` / `std::max_element`: of zeros the first one's
    sign); NaN, NaN for a row holding a NaN."""
    mn, mx, nan = _ordered_min_max(ib, _INF, -_INF)
    if nan:
        a = _first_nan(row)
        return a, a
    if mn != 0 and mx != 0:
        return mn, mx
    mn = mx = row[0]
    for j in range(row.shape[0]):
        a = row[j]
        mn = a if a < mn else mn
        mx = a if mx < a else mx
    return mn, mx


@njit(inline="always", **_JIT)
def _round_clamp(t, top):
    """clamp(rint(t), 0, top) as an integer, NaN -> 0 (fbgemm's cvtps/packus saturation
    and lrintf's integer indefinite value both give 0)."""
    t = np.rint(t)
    if not t > 0:
        return 0
    return np.int64(top if t > top else t)


@njit(**_JIT)
def _fbgemm_min_max_rows(x, ib, mn, mx):
    lanes = np.empty((2, 8), F32)
    for i in range(x.shape[0]):
        mn[i], mx[i] = _fbgemm_row_min_max(x[i], ib[i], lanes)


@njit(**_JIT)
def _first_min_max_rows(x, ib, mn, mx):
    for i in range(x.shape[0]):
        mn[i], mx[i] = _first_row_min_max(x[i], ib[i])


def fbgemm_min_max(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Row minimum and maximum of a float32 [R, C] as fbgemm's AVX2 quantizers find
    them (`_fbgemm_row_min_max`): `min(FLT_MAX, row min)`, `max(-FLT_MAX, row max)`,
    of equal zeros the last of the first lane holding one, else the first of the
    remaining C % 8 columns."""
    x = np.ascontiguousarray(x, F32)
    mn, mx = np.empty(len(x), F32), np.empty(len(x), F32)
    _fbgemm_min_max_rows(x, x.view(np.int32), mn, mx)
    return mn, mx


def first_min_max(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Row extremes of a float32 [R, C >= 1] as a scalar loop keeping the first of
    equal values finds them (`std::min_element` / `std::max_element`, Caffe2's random
    quantizer): of several zeros the first one's sign."""
    x = np.ascontiguousarray(x, F32)
    mn, mx = np.empty(len(x), F32), np.empty(len(x), F32)
    _first_min_max_rows(x, x.view(np.int32), mn, mx)
    return mn, mx


@njit(**_JIT)
def _quantize_8bit(x, ib, out):
    """Fused 8-bit rows of float32 x [R, C] (`ib`: its int32 bits) into out [R, C + 8]
    (module docstring)."""
    lanes = np.empty((2, 8), F32)
    c = x.shape[1]
    for i in range(x.shape[0]):
        row, o = x[i], out[i]
        mn, mx = _fbgemm_row_min_max(row, ib[i], lanes)
        rng = mx - mn
        inverse = _255 / (rng + EPSILON_8BIT)
        for j in range(c):
            o[j] = _round_clamp((row[j] - mn) * inverse, _255)
        store_f32(o, c, rng / _255)
        store_f32(o, c + 4, mn)


@njit(inline="always", **_JIT)
def _quantize_pack(row, m, inverse, top, bits, o):
    """o[b] = the k = 8 / bits quantized values of columns b * k ... b * k + k - 1,
    column b * k + s at bit s * bits (slots past the row's end 0)."""
    c = row.shape[0]
    if bits == 4:
        for b in range(c // 2):
            o[b] = (_round_clamp((row[2 * b] - m) * inverse, top)
                    | (_round_clamp((row[2 * b + 1] - m) * inverse, top) << 4))
    else:
        for b in range(c // 4):
            o[b] = (_round_clamp((row[4 * b] - m) * inverse, top)
                    | (_round_clamp((row[4 * b + 1] - m) * inverse, top) << 2)
                    | (_round_clamp((row[4 * b + 2] - m) * inverse, top) << 4)
                    | (_round_clamp((row[4 * b + 3] - m) * inverse, top) << 6))
    k = 8 // bits
    if c % k:
        v = 0
        for j in range(c - c % k, c):
            v |= _round_clamp((row[j] - m) * inverse, top) << ((j % k) * bits)
        o[c // k] = v


@njit(**_JIT)
def _quantize_nbit(x, ib, out, bits):
    """Fused n-bit rows of float32 x [R, C] into out [R, ceil(C * bits / 8) + 4]::

        bias = f16(min)    m = f32(bias)    range = max - m
        scale = f16(range == 0 ? 1 : range / (2^bits - 1)); 0 -> 1; 1/scale inf -> 1
        q = clamp(rint((x - m) * (1 / scale)), 0, 2^bits - 1), packed from the low bits"""
    lanes = np.empty((2, 8), F32)
    c = x.shape[1]
    nb = out.shape[1] - 4
    top = F32((1 << bits) - 1)
    for i in range(x.shape[0]):
        row, o = x[i], out[i]
        mn, mx = _fbgemm_row_min_max(row, ib[i], lanes)
        bias16 = f16_bits(mn)
        m = f16_value(bias16)
        rng = mx - m
        scale16 = f16_bits(_ONE if rng == 0 else rng / top)
        scale = f16_value(scale16)
        if scale == 0:
            scale, scale16 = _ONE, _F16_ONE
        inverse = _ONE / scale
        if np.isinf(inverse):
            scale16, inverse = _F16_ONE, _ONE
        _quantize_pack(row, m, inverse, top, bits, o)
        store_u16(o, nb, scale16)
        store_u16(o, nb + 2, bias16)


@njit(**_JIT)
def _quantize_fake(x, ib, out, bits):
    """Fake n-bit rows of float32 x [R, C] into out [R, C + 8]
    (`float_to_fused_nbit_fake`)."""
    c = x.shape[1]
    top = F32((1 << bits) - 1)
    for i in range(x.shape[0]):
        row, o = x[i], out[i]
        mn = mx = F32(0)
        if c:
            mn, mx = _first_row_min_max(row, ib[i])
        m = f16_round(mn)
        rng = mx - m
        scale = _ONE if rng == 0 else f16_round(rng / top)
        inverse = _ONE / scale
        for j in range(c):
            t = (row[j] - m) * inverse
            o[j] = _round_clamp(t, top) if np.isfinite(t) else 0
        store_f32(o, c, scale)
        store_f32(o, c + 4, m)


@njit(inline="always", **_JIT)
def unpack_row(row, bits, q):
    """q[c] = value c of a fused n-bit row's packed bytes (all but its last 4; low
    bits first), as float32."""
    if bits == 4:
        for b in range(row.shape[0] - 4):
            v = row[b]
            q[2 * b] = F32(v & 0xF)
            q[2 * b + 1] = F32(v >> 4)
    else:
        for b in range(row.shape[0] - 4):
            v = row[b]
            q[4 * b] = F32(v & 0x3)
            q[4 * b + 1] = F32((v >> 2) & 0x3)
            q[4 * b + 2] = F32((v >> 4) & 0x3)
            q[4 * b + 3] = F32(v >> 6)


@njit(**_JIT)
def _dequantize_8bit(rows, out):
    """out[r, c] = fma(q, scale, bias) of fused 8-bit rows (one rounding: `fma32`)."""
    c = out.shape[1]
    for i in range(rows.shape[0]):
        row, o = rows[i], out[i]
        scale, bias = load_f32(row, c), load_f32(row, c + 4)
        for j in range(c):
            o[j] = fma32(F32(row[j]), scale, bias)


@njit(**_JIT)
def _dequantize_nbit(rows, bits, out):
    """out[r, c] = fma(scale, q, bias) of fused n-bit rows (float16 scale and bias)."""
    width = rows.shape[1]
    q = np.zeros((width - 4) * (8 // bits), F32)
    for i in range(rows.shape[0]):
        row, o = rows[i], out[i]
        scale, bias = load_f16(row, width - 4), load_f16(row, width - 2)
        unpack_row(row, bits, q)
        for j in range(o.shape[0]):
            o[j] = fma32(scale, q[j], bias)


# ---------------------------------------------------------------------------
# Fused 8-bit
# ---------------------------------------------------------------------------
def float_to_fused_8bit(x: np.ndarray) -> np.ndarray:
    """Caffe2's `FloatToFused8BitRowwiseQuantized` = PyTorch's
    `embedding_bag_byte_prepack` (module docstring for the formulas)."""
    x = np.asarray(x)
    rows = as_rows(x)
    r, c = rows.shape
    out = np.empty((r, c + 8), np.uint8)
    _quantize_8bit(rows, rows.view(np.int32), out)
    return out.reshape(x.shape[:-1] + (c + 8,))


def _fused_rows(data: np.ndarray, min_width: int) -> np.ndarray:
    data = np.asarray(data)
    if data.dtype != np.uint8:
        raise RowwiseError(f"fused rows are uint8, got {data.dtype}")
    if data.ndim == 0 or data.shape[-1] < min_width:
        raise RowwiseError(f"a fused row needs at least {min_width} bytes, got shape {data.shape}")
    return np.ascontiguousarray(data).reshape(-1, data.shape[-1])


def fused_8bit_to_float(data: np.ndarray, dtype=np.float32) -> np.ndarray:
    """Caffe2's `Fused8BitRowwiseQuantizedToFloat` = `embedding_bag_byte_unpack`:
    `fma(q, scale, bias)` per value (float32; float16 output rounds that)."""
    data = np.asarray(data)
    rows = _fused_rows(data, 8)
    c = rows.shape[1] - 8
    out = np.empty((len(rows), c), F32)
    _dequantize_8bit(rows, out)
    return out.astype(dtype, copy=False).reshape(data.shape[:-1] + (c,))


# ---------------------------------------------------------------------------
# Fused 4-bit / 2-bit (float16 scale and bias) and the fake 8-bit-stored variant
# ---------------------------------------------------------------------------
def pack_consecutive(q: np.ndarray, bits: int) -> np.ndarray:
    """[R, C] values < 2^bits -> [R, ceil(C*bits/8)] bytes, column c in byte c // k at
    bit (c % k) * bits (k = 8 / bits values per byte; unused high slots are 0)."""
    k = per_byte(bits)
    r, c = q.shape
    padded = np.zeros((r, packed_bytes(c, bits) * k), np.uint8)
    padded[:, :c] = q
    out = np.zeros((r, padded.shape[1] // k), np.uint8)
    for s in range(k):
        out |= padded[:, s::k] << (s * bits)
    return out


def unpack_consecutive(packed: np.ndarray, bits: int, cols: int) -> np.ndarray:
    """Inverse of `pack_consecutive`: [R, nb] bytes -> [R, cols] values."""
    k = per_byte(bits)
    r, nb = packed.shape
    if k == 1:
        return packed[:, :cols].copy()
    if k == 2:
        p = packed.astype("<u2")
        v = (p & 0x0F) | ((p & 0xF0) << 4)
    else:
        p = packed.astype("<u4")
        v = (p & 0x03) | ((p & 0x0C) << 6) | ((p & 0x30) << 12) | ((p & 0xC0) << 18)
    return np.ascontiguousarray(v).view(np.uint8).reshape(r, nb * k)[:, :cols]


def _check_nbit(bits: int) -> None:
    if bits not in NBIT_BITS:
        raise RowwiseError(f"n-bit rowwise formats have 4 or 2 bits, got {bits}")


def float_to_fused_nbit(x: np.ndarray, bits: int) -> np.ndarray:
    """Caffe2's `FloatToFused{4,2}BitRowwiseQuantized` = PyTorch's
    `embedding_bag_{4,2}bit_prepack` (module docstring, `_quantize_nbit`). PyTorch needs
    C to be a multiple of 8 / bits; any C packs here (the last byte's unused slots are 0)."""
    _check_nbit(bits)
    x = np.asarray(x)
    rows = as_rows(x)
    r, c = rows.shape
    nb = packed_bytes(c, bits)
    out = np.empty((r, nb + 4), np.uint8)
    _quantize_nbit(rows, rows.view(np.int32), out, bits)
    return out.reshape(x.shape[:-1] + (nb + 4,))


def fused_nbit_to_float(data: np.ndarray, bits: int, cols: int | None = None,
                        dtype=np.float32) -> np.ndarray:
    """Caffe2's `Fused{4,2}BitRowwiseQuantizedToFloat` = `embedding_bag_{4,2}bit_unpack`:
    `fma(scale, q, bias)`. `cols` defaults to every packed slot ((W - 4) * 8 / bits);
    fewer columns drop the last slots."""
    _check_nbit(bits)
    data = np.asarray(data)
    rows = _fused_rows(data, 4)
    full = fused_cols(rows.shape[1], bits)
    cols = full if cols is None else cols
    if packed_bytes(cols, bits) != rows.shape[1] - 4:
        raise RowwiseError(f"{cols} columns at {bits} bits need {fused_width(cols, bits)} "
                           f"bytes per row, got {rows.shape[1]}")
    out = np.empty((len(rows), cols), F32)
    _dequantize_nbit(rows, bits, out)
    return out.astype(dtype, copy=False).reshape(data.shape[:-1] + (cols,))


def float_to_fused_nbit_fake(x: np.ndarray, bits: int) -> np.ndarray:
    """Caffe2's `FloatToFused{4,2}BitFakeRowwiseQuantized`: n-bit values stored one per
    byte in the 8-bit layout with float32 scale and bias::

        min, max = std::min_element / std::max_element     m = f32(f16(min))
        scale = range == 0 ? 1 : f32(f16((max - m) / (2^bits - 1)))   (range = max - m)
        q = clamp(lrintf((x - m) * (1 / scale)), 0, 2^bits - 1)   (non-finite -> 0)
        row = q..., f32 scale, f32 m

    (no guard when the float16 scale is 0: 1/scale is inf and every value becomes 0)."""
    _check_nbit(bits)
    x = np.asarray(x)
    rows = as_rows(x)
    out = np.empty((len(rows), rows.shape[1] + 8), np.uint8)
    _quantize_fake(rows, rows.view(np.int32), out, bits)
    c = rows.shape[1]
    return out.reshape(x.shape[:-1] + (c + 8,))

