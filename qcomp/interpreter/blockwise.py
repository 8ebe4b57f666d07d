"""`dot_general` and `convolution` with a blockwise (sub-channel) quantized rhs and a
per-tensor quantized lhs (a qcomp extension; see docs/blockwise.md).

The contracting dimension the rhs splits into blocks (a convolution: the kernel input
feature dimension, with the lhs input feature dimension) is cut at the block
boundaries; each block j gives an exact integer sum acc_j = Σ (q_l - z_l)(q_r - z_r,j)
over its positions (a convolution's window: every spatial tap of the block's input
channels; the centred lhs is padded and dilated with 0, i.e. with z_l). Then

- `spec`: `qcomp.quant.accumulator.rescale_blocks` scales each acc_j by s_l * s_r,j in
  f64 and adds them in block order before quantizing once;
- `stablehlo`: `qcomp.quant.stablehlo.dot_rescale_blocks`, upstream's dot rescale
  extended to blocks (i32 sums, f32 scaling, one truncation, wrapping).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from qcomp.dialects.quant import UniformQuantizedType
from qcomp.interpreter import kernels
from qcomp.quant import stablehlo as up
from qcomp.quant.accumulator import rescale_blocks
from qcomp.quant.blockwise import block_scales, conv_block_scales, split_dimension, take


def blockwise_dot(lhs: np.ndarray, rhs: np.ndarray, lq: UniformQuantizedType,
                  rq: UniformQuantizedType, oq: UniformQuantizedType, out_shape: Sequence[int],
                  lb, rb, lc, rc, dtype, upstream: bool = False) -> np.ndarray:
    """The module docstring's formula; `lhs` / `rhs` are storage integers."""
    rk, size = split_dimension(rq.quantized_dimensions, rq.block_sizes, rhs.shape, rc)
    lk = lc[list(rc).index(rk)] if rk is not None else None
    lhs_free = lhs.ndim - len(lb) - len(lc)
    return _blockwise(lhs, rhs, lq, rq, oq, out_shape, lk, rk, size,
                      lambda a, b: kernels.dot_general(a, b, lb, rb, lc, rc, "int"),
                      lambda s: block_scales(s, rb, rc, lhs_free), dtype, upstream)


def blockwise_conv(lhs: np.ndarray, rhs: np.ndarray, lq: UniformQuantizedType,
                   rq: UniformQuantizedType, oq: UniformQuantizedType, out_shape: Sequence[int],
                   conv: dict, dtype, upstream: bool = False) -> np.ndarray:
    """The module docstring's formula for a convolution (group counts 1)."""
    kin = conv["kernel_in"]
    rk, size = split_dimension(rq.quantized_dimensions, rq.block_sizes, rhs.shape, [kin])
    lk = conv["input_feature"] if rk is not None else None
    rank = len(out_shape)
    return _blockwise(lhs, rhs, lq, rq, oq, out_shape, lk, rk, size,
                      lambda a, b: kernels.convolution(a, b, accumulate="int", pad_value=0,
                                                       **conv),
                      lambda s: conv_block_scales(s, conv["kernel_out"],
                                                  conv["output_feature"], rank),
                      dtype, upstream)


def _blockwise(lhs, rhs, lq, rq, oq, out_shape, lk: int | None, rk: int | None, size: int,
               kernel: Callable, scales_of: Callable, dtype, upstream: bool) -> np.ndarray:
    blocks = rhs.shape[rk] // size if rk is not None else 1
    cl = lhs.astype(np.int64) - int(lq.zero_point)
    zr = rq.broadcast_zero_points(rhs.shape)
    cr = rhs.astype(np.int64) - zr if np.any(zr) else rhs
    scales = np.broadcast_to(rq.broadcast_scales(rhs.shape), rhs.shape)
    accs, block_s = [], []
    for j in range(blocks):
        a, b, s = cl, cr, scales
        if rk is not None:
            lo, hi = j * size, (j + 1) * size
            a, b, s = take(cl, lk, lo, hi), take(cr, rk, lo, hi), take(scales, rk, lo, hi)
        accs.append(kernel(a, b))
        block_s.append(scales_of(s))
    so = oq.broadcast_scales(out_shape)
    zo = oq.broadcast_zero_points(out_shape)
    if upstream:
        cs = up.block_combined_scales(lq.scale, block_s, so)
        return up.dot_rescale_blocks(accs, cs, zo, oq.storage_bitwidth, oq.is_signed)
    return rescale_blocks(accs, lq.scale, block_s, so, zo, oq.storage_min, oq.storage_max, dtype)
