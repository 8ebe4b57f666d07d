"""Caffe2's `FloatToFusedRandRowwiseQuantized` / `FusedRandRowwiseQuantizedToFloat`.

Row layout, `W = 10 + ceil(C * bits / 8)` bytes::

    [bitwidth: 1 byte][tail: 1 byte][min: float32][max: float32][data: ceil(C*bits/8) bytes]

`bitwidth` is 1, 2, 4 or 8; k = 8 / bitwidth values share a byte; `tail = (k - C % k) % k`
is the number of unused slots. Segment-interleaved packing: the row is cut into k
segments of S = ceil(C / k) consecutive values (the last ones shorter or empty), and slot
b (bits `b*bitwidth ...`) of data byte i holds value i of segment b, i.e. value `b*S + i`.
With bitwidth 2 and x = [x1, x2, x3, x4, x5]: S = 2, byte 0 = x1 | x3 << 2 | x5 << 4,
byte 1 = x2 | x4 << 2, tail = 3.

Quantization (Caffe2's `quantize_and_compress`, float32 unless said)::

    min, max   = first-wins scalar extremes (from +-inf)
    gap        = (max - min) / (2^bitwidth - 1)
    gap_inv    = f32(1.0 / (f64(gap) + 1e-8))                (in double, as the C++ does)
    t          = (x - min) * gap_inv
    random:       q = clamp(floor(t + u), 0, 2^bitwidth - 1),  u uniform in [0, 1)
    deterministic: q = rint(clamp(t, 0, 2^bitwidth - 1))
    (a NaN t gives 2^bitwidth - 1: the C++ `t < max_q ? t : max_q`)

With `P(q = j + 1) = t - j` for `j <= t < j + 1`, `E[q] = t`: the rounding is unbiased
(TernGrad). Dequantization: `fma(q, gap', min)` with `gap' = f32(f64(f32((max - min) /
(2^bitwidth - 1))) + 1e-8)` (the AVX2 kernel's fused multiply-add).

The random numbers: Caffe2 draws them from an unseeded `std::minstd_rand`; here `u` of
the element at flat index `n` (row-major over the rows x columns) is the n-th output
(counting from 1) of SplitMix64 seeded with `seed`, top 24 bits: `u = (z >> 40) * 2^-24`,
deterministic for a seed and computable from the index alone (so the StableHLO
lowering reproduces it with integer ops).
"""

from __future__ import annotations

import numpy as np

from qcomp.quant.rowwise import F32, RowwiseError, as_rows, kernel, packed_bytes, per_byte
from qcomp.quant.rowwise_base import GOLDEN, HEADER, MIX1, MIX2, QEPSILON  # noqa: F401
from qcomp.quant.threads import for_blocks


def rand_width(cols: int, bits: int) -> int:
    """10 + ceil(cols * bits / 8)."""
    return HEADER + packed_bytes(cols, bits)


def tail_of(cols: int, bits: int) -> int:
    """Unused slots of the last bytes: (k - cols % k) % k, k = 8 / bits."""
    k = per_byte(bits)
    return (k - cols % k) % k


def float_to_fused_rand(x: np.ndarray, bits: int, random: bool = True, seed: int = 0
                        ) -> np.ndarray:
    """The module docstring's quantization; [..., C] float -> [..., 10 + ceil(C*bits/8)]."""
    per_byte(bits)
    x = np.asarray(x)
    rows = as_rows(x)
    r, c = rows.shape
    if c == 0:
        raise RowwiseError("the random rowwise format needs at least one column")
    out = np.empty((r, rand_width(c, bits)), np.uint8)
    ib, seed64 = rows.view(np.int32), np.uint64(seed % (1 << 64))
    quantize = kernel("rand_quantize_rows")
    for_blocks(r, c, lambda a, b: quantize(rows, ib, out, bits, bool(random), seed64, a, b))
    return out.reshape(x.shape[:-1] + (out.shape[1],))


def read_header(rows: np.ndarray) -> tuple[int, int]:
    """(bitwidth, columns) of fused random rows, checked to be the same on every row."""
    if rows.shape[1] < HEADER:
        raise RowwiseError(f"a random-format row needs at least {HEADER} bytes, got {rows.shape[1]}")
    if len(rows) == 0:
        raise RowwiseError("no rows to read the bit width from")
    bits, tail = int(rows[0, 0]), int(rows[0, 1])
    if bits not in (1, 2, 4, 8):
        raise RowwiseError(f"row 0 has bit width {bits}; 1, 2, 4 or 8 expected")
    bad = np.flatnonzero((rows[:, 0] != bits) | (rows[:, 1] != tail))
    if bad.size:
        i = int(bad[0])
        raise RowwiseError(f"row {i} has bit width {rows[i, 0]} and tail {rows[i, 1]}, "
                           f"row 0 {bits} and {tail}")
    cols = (rows.shape[1] - HEADER) * per_byte(bits) - tail
    if tail >= per_byte(bits) or cols < 0:
        raise RowwiseError(f"tail {tail} is not below {per_byte(bits)} values per byte")
    return bits, cols


def fused_rand_to_float(data: np.ndarray, dtype=np.float32) -> np.ndarray:
    """`FusedRandRowwiseQuantizedToFloat`: [..., W] uint8 -> [..., C] with C =
    (W - 10) * 8 / bitwidth - tail read from the rows' headers."""
    data = np.asarray(data)
    if data.dtype != np.uint8 or data.ndim == 0:
        raise RowwiseError(f"fused rows are uint8 with at least one dimension, got {data.dtype}")
    rows = np.ascontiguousarray(data).reshape(-1, data.shape[-1])
    bits, cols = read_header(rows)
    out = np.empty((len(rows), cols), F32)
    dequantize = kernel("rand_dequantize_rows")
    for_blocks(len(rows), cols, lambda a, b: dequantize(rows, bits, out, a, b))
    return out.astype(dtype, copy=False).reshape(data.shape[:-1] + (cols,))
