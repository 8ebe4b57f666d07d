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

F32 = np.float32
FLT_MAX = np.float32(np.finfo(np.float32).max)
EPSILON_8BIT = np.float32(1e-8)
"""fbgemm's `kEpsilon` in the 8-bit inverse scale."""
NBIT_BITS = (2, 4)
_BLOCK = 1 << 18
"""Elements per block in the row loops (a block stays in cache between NumPy passes)."""


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


def row_min_max(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Row minimum and maximum values of a float32 [R, C] (C >= 1), signs of zero
    unspecified, in cache-sized blocks of rows (`_tree_min_max`)."""
    r, c = x.shape
    if r * c <= _BLOCK:
        return _tree_min_max(np.ascontiguousarray(x))
    mn, mx = np.empty(r, F32), np.empty(r, F32)
    for sl in _blocks(r, c):
        mn[sl], mx[sl] = _tree_min_max(np.ascontiguousarray(x[sl]))
    return mn, mx


def _tree_min_max(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """`row_min_max` of a C-contiguous block: a pairwise tree over flat views
    (`lo[0::2]` against `lo[1::2]` halves every row at once; an odd width first folds
    its last column into the first), a few whole-array passes instead of NumPy's
    per-row reduction loop (3x faster at C = 64)."""
    r, c = x.shape
    if c == 1:
        return x[:, 0].copy(), x[:, 0].copy()
    lo = hi = x.reshape(-1)
    while c > 1:
        if c % 2:
            lo2, hi2 = lo.reshape(r, c), hi.reshape(r, c)
            nlo, nhi = lo2[:, :-1].copy(), hi2[:, :-1].copy()
            np.minimum(nlo[:, 0], lo2[:, -1], out=nlo[:, 0])
            np.maximum(nhi[:, 0], hi2[:, -1], out=nhi[:, 0])
            lo, hi, c = nlo.reshape(-1), nhi.reshape(-1), c - 1
        lo, hi, c = np.minimum(lo[0::2], lo[1::2]), np.maximum(hi[0::2], hi[1::2]), c // 2
    return lo, hi


def fbgemm_min_max(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Row minimum and maximum as fbgemm's AVX2 quantizers find them.

    Values: `min(FLT_MAX, row min)` and `max(-FLT_MAX, row max)` (the running
    extremes start at +-FLT_MAX, so a row of +inf has minimum FLT_MAX). The sign of a
    zero extreme (all that the order decides for NaN-free rows): the first C - C % 8
    columns run in 8 lanes (lane l holds columns l, l+8, ...; `_mm256_min_ps(acc, x)`
    keeps the newer of two equal values), the lanes are folded in order with
    `std::min` (keeps the older), then the remaining columns one by one (keeps the
    older): the zero kept is the last zero of the first lane holding one, else the
    first zero of the remaining columns."""
    if not x.shape[1]:
        return np.full(len(x), FLT_MAX), np.full(len(x), -FLT_MAX)
    mn, mx = row_min_max(x)
    mn = np.minimum(mn, FLT_MAX)
    mx = np.maximum(mx, -FLT_MAX)
    for ext in (mn, mx):
        rows = np.flatnonzero(ext == 0)
        if rows.size:
            ext[rows] = _fbgemm_zero(x[rows])
    return mn, mx


def _fbgemm_zero(rows: np.ndarray) -> np.ndarray:
    """+-0.0 per row (see `fbgemm_min_max`), rows whose extreme is zero."""
    n, c = rows.shape
    v = c // 8 * 8
    sign = np.zeros(n, bool)
    zero = rows == 0
    neg = np.signbit(rows)
    done = np.zeros(n, bool)
    if v:
        z = zero[:, :v].reshape(n, v // 8, 8)
        s = neg[:, :v].reshape(n, v // 8, 8)
        has = z.any(axis=1)                                   # [n, 8] lane holds a zero
        last = v // 8 - 1 - np.argmax(z[:, ::-1, :], axis=1)  # its last zero
        lane_sign = np.take_along_axis(s, last[:, None, :], axis=1)[:, 0, :]
        first_lane = np.argmax(has, axis=1)
        done = has.any(axis=1)
        sign = np.where(done, lane_sign[np.arange(n), first_lane], False)
    tz = zero[:, v:]
    if tz.shape[1]:
        first = np.argmax(tz, axis=1)
        tail_sign = neg[:, v:][np.arange(n), first]
        sign = np.where(done, sign, tail_sign)
    return np.where(sign, F32(-0.0), F32(0.0))


def first_min_max(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Row extremes as a scalar loop keeping the first of equal values finds them
    (`std::min_element` / `std::max_element`, Caffe2's random quantizer): of several
    zeros the first one's sign."""
    mn, mx = row_min_max(x)
    for ext in (mn, mx):
        rows = np.flatnonzero(ext == 0)
        if rows.size:
            sub = x[rows]
            first = np.argmax(sub == 0, axis=1)
            ext[rows] = np.where(np.signbit(sub[np.arange(len(rows)), first]), F32(-0.0), F32(0.0))
    return mn, mx


def _f16(x) -> np.ndarray:
    """float32 -> float16 -> float32 (round to nearest even, overflow to inf)."""
    with np.errstate(over="ignore", invalid="ignore"):
        return np.asarray(x, F32).astype(np.float16).astype(F32)


def _blocks(rows: int, cols: int):
    step = max(1, _BLOCK // max(cols, 1))
    for start in range(0, rows, step):
        yield slice(start, min(rows, start + step))


def _quantize_rows(x: np.ndarray, minimum: np.ndarray, inverse: np.ndarray, top: int,
                   out: np.ndarray, in_range: bool | None = False, t: np.ndarray | None = None
                   ) -> None:
    """out[r, c] = clamp(rint((x - min[r]) * inverse[r]), 0, top), NaN -> 0 (fbgemm's
    cvtps/packus saturation and lrintf's integer indefinite value both give 0), for one
    block of rows (`t`: a float32 scratch array shaped like x).
    `in_range`: the caller knows every t is a number in [0, top + 1/2) (the 8-bit rows
    with a finite range: 0 <= x - min <= range and inverse <= 255 / range); `None`: no
    NaN but maybe out of range (finite x, minimum and inverse: see `_finite_rows`).
    `out` narrower than x (by 8 / bits for top = 2^bits - 1 < 255): the values packed
    as `pack_consecutive` does, summed as floats (`_pack_floats`)."""
    t = np.empty(x.shape, F32) if t is None else t
    with np.errstate(invalid="ignore", over="ignore"):
        np.subtract(x, minimum[:, None], out=t)
        np.multiply(t, inverse[:, None], out=t)
        np.rint(t, out=t)
        if in_range is False:
            t[np.isnan(t)] = 0
        if not in_range:
            np.clip(t, 0, top, out=t)
        if out.shape[1] != x.shape[1]:
            t = _pack_floats(t, x.shape[1] // out.shape[1])
        np.copyto(out, t, casting="unsafe")


def _pack_floats(t: np.ndarray, k: int) -> np.ndarray:
    """[R, nb * k] C-contiguous small integers (floats) -> [R, nb] floats of their
    packed bytes: sum of value j * 2^(j * 8 / k) (exact), by strided flat views."""
    f = t.reshape(-1)
    h = f[k - 1::k] * F32(1 << (8 // k))
    for j in range(k - 2, -1, -1):
        np.add(h, f[j::k], out=h)
        if j:
            np.multiply(h, F32(1 << (8 // k)), out=h)
    return h.reshape(len(t), -1)


def _finite_rows(*row_values: np.ndarray) -> bool:
    """Every value finite: for the row extremes this means every element of the rows is."""
    return all(np.isfinite(v).all() for v in row_values)


def _scratch(rows: int, cols: int) -> np.ndarray:
    return np.empty((min(rows, max(1, _BLOCK // max(cols, 1))), cols), F32)


# ---------------------------------------------------------------------------
# Fused 8-bit
# ---------------------------------------------------------------------------
def float_to_fused_8bit(x: np.ndarray) -> np.ndarray:
    """Caffe2's `FloatToFused8BitRowwiseQuantized` = PyTorch's
    `embedding_bag_byte_prepack` (module docstring for the formulas)."""
    x = np.asarray(x)
    rows = as_rows(x)
    r, c = rows.shape
    mn, mx = fbgemm_min_max(rows)
    with np.errstate(over="ignore", invalid="ignore"):
        rng = mx - mn
        scale = rng / F32(255)
        inverse = F32(255) / (rng + EPSILON_8BIT)
    out = np.empty((r, c + 8), np.uint8)
    in_range = bool(np.isfinite(rng).all())
    tmp = _scratch(r, c)
    for sl in _blocks(r, c):
        _quantize_rows(rows[sl], mn[sl], inverse[sl], 255, out[sl, :c], in_range,
                       tmp[:sl.stop - sl.start])
    out[:, c:c + 4] = scale.astype("<f4").view(np.uint8).reshape(r, 4)
    out[:, c + 4:] = mn.astype("<f4").view(np.uint8).reshape(r, 4)
    return out.reshape(x.shape[:-1] + (c + 8,))


def _fused_rows(data: np.ndarray, min_width: int) -> np.ndarray:
    data = np.asarray(data)
    if data.dtype != np.uint8:
        raise RowwiseError(f"fused rows are uint8, got {data.dtype}")
    if data.ndim == 0 or data.shape[-1] < min_width:
        raise RowwiseError(f"a fused row needs at least {min_width} bytes, got shape {data.shape}")
    return np.ascontiguousarray(data).reshape(-1, data.shape[-1])


def params_8bit(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(scale, bias) float32 per fused 8-bit row."""
    c = rows.shape[1] - 8
    sb = np.ascontiguousarray(rows[:, c:]).view("<f4").astype(F32)
    return sb[:, 0], sb[:, 1]


def fused_8bit_to_float(data: np.ndarray, dtype=np.float32) -> np.ndarray:
    """Caffe2's `Fused8BitRowwiseQuantizedToFloat` = `embedding_bag_byte_unpack`:
    `fma(q, scale, bias)` per value (float32; float16 output rounds that)."""
    data = np.asarray(data)
    rows = _fused_rows(data, 8)
    c = rows.shape[1] - 8
    scale, bias = params_8bit(rows)
    out = np.empty((len(rows), c), F32)
    exact = exact_rows(scale, bias)
    tmp = np.empty((min(len(rows), max(1, _BLOCK // max(c, 1))), c), np.float64)
    for sl in _blocks(len(rows), c):
        mul_add_rows(rows[sl, :c], scale[sl], bias[sl], exact[sl], out[sl], tmp[:sl.stop - sl.start])
    return out.astype(dtype, copy=False).reshape(data.shape[:-1] + (c,))


# ---------------------------------------------------------------------------
# Fused 4-bit / 2-bit (float16 scale and bias) and the fake 8-bit-stored variant
# ---------------------------------------------------------------------------
def pack_consecutive(q: np.ndarray, bits: int) -> np.ndarray:
    """[R, C] values < 2^bits -> [R, ceil(C*bits/8)] bytes, column c in byte c // k at
    bit (c % k) * bits (k = 8 / bits values per byte; unused high slots are 0)."""
    k = per_byte(bits)
    r, c = q.shape
    nb = packed_bytes(c, bits)
    if c % k or not q.flags.c_contiguous:
        padded = np.zeros((r, nb * k), np.uint8)
        padded[:, :c] = q
        q = padded
    out = np.empty((r, nb), np.uint8)
    _pack_into(q, bits, out)
    return out


def _pack_into(q: np.ndarray, bits: int, out: np.ndarray) -> None:
    """`pack_consecutive` of a C-contiguous [R, nb * k] into out [R, nb]: the k values
    of a byte read as one little-endian integer v (value j in bits 8j...), then
    `v | v >> 4` (k = 2) or `u = v | v >> 6; u | u >> 12` (k = 4) holds the packed byte
    in its low 8 bits (no two shifted values overlap there)."""
    k = per_byte(bits)
    r = len(q)
    if k == 1:
        np.copyto(out, q)
        return
    v = q.reshape(r, -1, k).view("<u2" if k == 2 else "<u4").reshape(r, -1)
    u = np.right_shift(v, 4 if k == 2 else 6)
    np.bitwise_or(u, v, out=u)
    if k == 4:
        np.bitwise_or(u, u >> 12, out=u)
    np.copyto(out, u, casting="unsafe")   # the low byte


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


def nbit_params(mn: np.ndarray, mx: np.ndarray, bits: int
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(bias f16, scale f16, m = f32(bias), inverse) of the fbgemm n-bit quantizer."""
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        bias16 = mn.astype(np.float16)
        m = bias16.astype(F32)
        rng = mx - m
        scale = np.where(rng == 0, F32(1), rng / F32((1 << bits) - 1)).astype(F32)
        scale = _f16(scale)
        scale = np.where(scale == 0, F32(1), scale)
        inverse = (F32(1) / scale).astype(F32)
        inf = np.isinf(inverse)
        scale = np.where(inf, F32(1), scale)
        inverse = np.where(inf, F32(1), inverse)
        return bias16, scale.astype(np.float16), m, inverse


def float_to_fused_nbit(x: np.ndarray, bits: int) -> np.ndarray:
    """Caffe2's `FloatToFused{4,2}BitRowwiseQuantized` = PyTorch's
    `embedding_bag_{4,2}bit_prepack` (module docstring). PyTorch needs C to be a
    multiple of 8 / bits; any C packs here (the last byte's unused slots are 0)."""
    _check_nbit(bits)
    x = np.asarray(x)
    rows = as_rows(x)
    r, c = rows.shape
    k = per_byte(bits)
    nb = packed_bytes(c, bits)
    mn, mx = fbgemm_min_max(rows)
    bias16, scale16, m, inverse = nbit_params(mn, mx, bits)
    finite = None if _finite_rows(mn, mx, m, inverse) else False
    out = np.empty((r, nb + 4), np.uint8)
    tmp = _scratch(r, c)
    q = None if c % k == 0 else np.zeros((len(tmp), nb * k), np.uint8)
    for sl in _blocks(r, c):
        n = sl.stop - sl.start
        if q is None:   # packed on the way out
            _quantize_rows(rows[sl], m[sl], inverse[sl], (1 << bits) - 1, out[sl, :nb],
                           finite, tmp[:n])
        else:
            _quantize_rows(rows[sl], m[sl], inverse[sl], (1 << bits) - 1, q[:n, :c], finite,
                           tmp[:n])
            _pack_into(q[:n], bits, out[sl, :nb])
    out[:, nb:nb + 2] = scale16.astype("<f2").view(np.uint8).reshape(r, 2)
    out[:, nb + 2:] = bias16.astype("<f2").view(np.uint8).reshape(r, 2)
    return out.reshape(x.shape[:-1] + (nb + 4,))


def params_nbit(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(scale, bias) as float32 per fused n-bit row (stored as float16)."""
    sb = np.ascontiguousarray(rows[:, -4:]).view("<f2").astype(F32)
    return sb[:, 0], sb[:, 1]


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
    scale, bias = params_nbit(rows)
    out = np.empty((len(rows), cols), F32)
    with np.errstate(invalid="ignore", over="ignore"):
        for sl in _blocks(len(rows), cols):
            q = unpack_consecutive(rows[sl, :-4], bits, cols)
            # fma: the product of a float16 scale (11 bits) and q (<= 4 bits) is exact
            # in float32, so the one rounding of the float32 add is the fma's
            np.multiply(q.astype(F32), scale[sl, None], out=out[sl])
            np.add(out[sl], bias[sl, None], out=out[sl])
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
    r, c = rows.shape
    top = (1 << bits) - 1
    out = np.empty((r, c + 8), np.uint8)
    tmp = _scratch(r, c)
    for sl in _blocks(r, c):
        xb = rows[sl]
        n = len(xb)
        mn, mx = first_min_max(xb) if c else (np.zeros(n, F32), np.zeros(n, F32))
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            m = _f16(mn)
            rng = mx - m
            scale = np.where(rng == 0, F32(1), _f16(rng / F32(top))).astype(F32)
            inverse = (F32(1) / scale).astype(F32)
            if _finite_rows(mn, mx, m, inverse):   # then every t is finite
                _quantize_rows(xb, m, inverse, top, out[sl, :c], in_range=None, t=tmp[:n])
            else:
                t = np.subtract(xb, m[:, None])
                np.multiply(t, inverse[:, None], out=t)
                bad = ~np.isfinite(t)
                np.rint(t, out=t)
                np.clip(t, 0, top, out=t)
                t[bad] = 0
                out[sl, :c] = t
        out[sl, c:c + 4] = scale.astype("<f4").view(np.uint8).reshape(n, 4)
        out[sl, c + 4:] = m.astype("<f4").view(np.uint8).reshape(n, 4)
    return out.reshape(x.shape[:-1] + (c + 8,))


# ---------------------------------------------------------------------------
# Decoding fused rows for the bag reductions
# ---------------------------------------------------------------------------
def decode_rows(rows: np.ndarray, bits: int, cols: int
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(q float32 [R, cols], scale float32 [R], bias float32 [R]) of fused rows."""
    if bits == 8:
        scale, bias = params_8bit(rows)
        return rows[:, :cols].astype(F32), scale, bias
    _check_nbit(bits)
    scale, bias = params_nbit(rows)
    return unpack_consecutive(rows[:, :-4], bits, cols).astype(F32), scale, bias
