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

NaN, infinities and huge finite ranges follow fbgemm's AVX2 kernels bit for bit in
the fused formats (a NaN drops out of the extremes with the values before it in its
8-lane vector: `rowwise_kernels._fbgemm_in_order`); in the fake and random formats a
row holding a NaN has NaN extremes (no oracle to follow).

Kernels: the loops run as numba code (`rowwise_kernels`, `rowwise_bag_kernels`,
`rowwise_rand_kernels`; `pip install 'qcomp[fast]'`) or, without numba or with
`QCOMP_ROWWISE_KERNELS=numpy`, as their NumPy twins in `rowwise_numpy` (same bytes,
10-85x torch's time where numba takes 0.7-1.8x). numba is imported when a kernel
first runs.
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
import os

import numpy as np

from qcomp.quant import rowwise_numpy
from qcomp.quant.rowwise_base import (  # noqa: F401 (the formats' constants, re-exported)
    EPSILON_8BIT,
    F32,
    FLT_MAX,
    fma_f32,
    nan_first,
)
from qcomp.quant.threads import for_blocks

NBIT_BITS = (2, 4)
KERNELS_ENV = "QCOMP_ROWWISE_KERNELS"
"""`numba`, `numpy`, or unset / `auto` (numba when it is installed)."""
_NUMBA_MODULES = ("rowwise_kernels", "rowwise_bag_kernels", "rowwise_rand_kernels")
_backend: str | None = None
_kernels: dict[tuple[str, str], object] = {}


class RowwiseError(ValueError):
    """Input the rowwise kernels reject (bad layout, out-of-range index, ...)."""


# ---------------------------------------------------------------------------
# Kernels: numba or NumPy
# ---------------------------------------------------------------------------
@functools.cache
def numba_available() -> bool:
    """numba and llvmlite are installed (the `fast` extra); looked up once a process
    (every kernel call asks)."""
    return all(importlib.util.find_spec(m) is not None for m in ("numba", "llvmlite"))


def kernel_backend() -> str:
    """`numba` or `numpy`: `set_kernel_backend`'s choice, else `QCOMP_ROWWISE_KERNELS`,
    else numba when it is installed."""
    choice = _backend or os.environ.get(KERNELS_ENV, "").strip().lower() or "auto"
    if choice == "auto":
        return "numba" if numba_available() else "numpy"
    if choice not in ("numba", "numpy"):
        raise RowwiseError(f"{KERNELS_ENV} must be numba, numpy or auto, got {choice!r}")
    if choice == "numba" and not numba_available():
        raise RowwiseError("the numba rowwise kernels need numba and llvmlite "
                           "(pip install 'qcomp[fast]')")
    return choice


def set_kernel_backend(name: str | None) -> None:
    """Run the rowwise loops as `numba` or `numpy` code from now on (None: back to
    `QCOMP_ROWWISE_KERNELS` / the default)."""
    global _backend
    if name not in (None, "numba", "numpy", "auto"):
        raise RowwiseError(f"rowwise kernels are numba, numpy or auto, got {name!r}")
    _backend = name
    kernel_backend()


def kernel(name: str):
    """The loop kernel `name` of the chosen backend (numba modules imported here, on
    first use)."""
    backend = kernel_backend()
    fn = _kernels.get((backend, name))
    if fn is None:
        modules = _NUMBA_MODULES if backend == "numba" else ("rowwise_numpy",)
        for m in modules:
            fn = getattr(importlib.import_module(f"qcomp.quant.{m}"), name, None)
            if fn is not None:
                break
        _kernels[(backend, name)] = fn
    return fn


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


# ---------------------------------------------------------------------------
# Row extremes (the loops: qcomp.quant.rowwise_kernels, on threads by row blocks)
# ---------------------------------------------------------------------------
def _min_max(name: str, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    x = np.ascontiguousarray(x, F32)
    r, c = x.shape
    mn, mx = np.empty(r, F32), np.empty(r, F32)
    ib = x.view(np.int32)
    run = kernel(name)
    for_blocks(r, c, lambda a, b: run(x, ib, mn, mx, a, b))
    return mn, mx


def fbgemm_min_max(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Row minimum and maximum of a float32 [R, C] as fbgemm's AVX2 quantizers find
    them: `min(FLT_MAX, row min)`, `max(-FLT_MAX, row max)`, of equal zeros the last of
    the first lane holding one, else the first of the remaining C % 8 columns
    (`rowwise_kernels._fbgemm_in_order`, which says what a NaN does)."""
    return _min_max("fbgemm_min_max_rows", x)


def first_min_max(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Row extremes of a float32 [R, C >= 1] as a scalar loop keeping the first of
    equal values finds them (`std::min_element` / `std::max_element`, Caffe2's random
    quantizer): of several zeros the first one's sign."""
    return _min_max("first_min_max_rows", x)


def _quantize(name: str, x: np.ndarray, width_of, *args) -> np.ndarray:
    """Run a quantize kernel over the rows of x into fused rows of `width_of(C)` bytes."""
    run = kernel(name)
    rows = as_rows(x)
    r, c = rows.shape
    width = width_of(c)
    out = np.empty((r, width), np.uint8)
    ib = rows.view(np.int32)
    for_blocks(r, c, lambda a, b: run(rows, ib, out, *args, a, b))
    return out.reshape(np.shape(x)[:-1] + (width,))


# ---------------------------------------------------------------------------
# Fused 8-bit
# ---------------------------------------------------------------------------
def float_to_fused_8bit(x: np.ndarray) -> np.ndarray:
    """Caffe2's `FloatToFused8BitRowwiseQuantized` = PyTorch's
    `embedding_bag_byte_prepack` (module docstring for the formulas)."""
    x = np.asarray(x)
    return _quantize("quantize_8bit", x, lambda c: c + 8)


def _fused_rows(data: np.ndarray, min_width: int) -> np.ndarray:
    data = np.asarray(data)
    if data.dtype != np.uint8:
        raise RowwiseError(f"fused rows are uint8, got {data.dtype}")
    if data.ndim == 0 or data.shape[-1] < min_width:
        raise RowwiseError(f"a fused row needs at least {min_width} bytes, got shape {data.shape}")
    return np.ascontiguousarray(data).reshape(-1, data.shape[-1])


def _nan_rows_again(name: str, rows: np.ndarray, dtype, at: int, out: np.ndarray,
                    *args) -> None:
    """After a numba dequantization: the rows whose scale or bias (`dtype` at byte
    `at`) is not finite, again with the NumPy twin. LLVM may swap the operands of an
    add or an fma, which changes only which NaN comes out; the NumPy code keeps
    fma_f32's order (torch's)."""
    if kernel_backend() != "numba" or not len(rows):
        return
    n = np.dtype(dtype).itemsize
    params = np.ascontiguousarray(rows[:, at:at + 2 * n]).view(dtype)
    bad = np.flatnonzero(~np.isfinite(params).all(axis=1))
    if bad.size:
        sub, again = np.ascontiguousarray(rows[bad]), np.empty((bad.size, out.shape[1]), F32)
        getattr(rowwise_numpy, name)(sub, *args, again, 0, bad.size)
        out[bad] = again


def fused_8bit_to_float(data: np.ndarray, dtype=np.float32) -> np.ndarray:
    """Caffe2's `Fused8BitRowwiseQuantizedToFloat` = `embedding_bag_byte_unpack`:
    `fma(q, scale, bias)` per value (float32; float16 output rounds that)."""
    data = np.asarray(data)
    rows = _fused_rows(data, 8)
    c = rows.shape[1] - 8
    out = np.empty((len(rows), c), F32)
    run = kernel("dequantize_8bit")
    for_blocks(len(rows), c, lambda a, b: run(rows, out, a, b))
    _nan_rows_again("dequantize_8bit", rows, np.float32, c, out)
    return out.astype(dtype, copy=False).reshape(data.shape[:-1] + (c,))


# ---------------------------------------------------------------------------
# Fused 4-bit / 2-bit (float16 scale and bias) and the fake 8-bit-stored variant
# ---------------------------------------------------------------------------
def _check_nbit(bits: int) -> None:
    if bits not in NBIT_BITS:
        raise RowwiseError(f"n-bit rowwise formats have 4 or 2 bits, got {bits}")


def float_to_fused_nbit(x: np.ndarray, bits: int) -> np.ndarray:
    """Caffe2's `FloatToFused{4,2}BitRowwiseQuantized` = PyTorch's
    `embedding_bag_{4,2}bit_prepack` (module docstring,
    `rowwise_kernels.quantize_nbit`). PyTorch needs
    C to be a multiple of 8 / bits; any C packs here (the last byte's unused slots are 0)."""
    _check_nbit(bits)
    x = np.asarray(x)
    return _quantize("quantize_nbit", x, lambda c: packed_bytes(c, bits) + 4, bits)


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
    run = kernel("dequantize_nbit")
    for_blocks(len(rows), cols, lambda a, b: run(rows, bits, out, a, b))
    _nan_rows_again("dequantize_nbit", rows, np.float16, rows.shape[1] - 4, out, bits)
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
    return _quantize("quantize_fake", x, lambda c: c + 8, bits)

