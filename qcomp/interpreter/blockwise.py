"""`dot_general` with a blockwise (sub-channel) quantized rhs and a per-tensor quantized
lhs, under `--semantics spec` (a qcomp extension; see docs/blockwise.md).

The contracting dimension the rhs splits into blocks is cut at the block boundaries;
each block j gives an exact integer sum acc_j = Σ (q_l - z_l)(q_r - z_r,j) over its K
positions, and `qcomp.quant.accumulator.rescale_blocks` scales each by s_l * s_r,j and
adds them in block order before quantizing once.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from qcomp.dialects.quant import UniformQuantizedType
from qcomp.interpreter import kernels
from qcomp.quant.accumulator import rescale_blocks
from qcomp.quant.blockwise import block_scales, split_dimension, take


def blockwise_dot(lhs: np.ndarray, rhs: np.ndarray, lq: UniformQuantizedType,
                  rq: UniformQuantizedType, oq: UniformQuantizedType, out_shape: Sequence[int],
                  lb, rb, lc, rc, dtype) -> np.ndarray:
    """The module docstring's formula; `lhs` / `rhs` are storage integers."""
    rk, size = split_dimension(rq.quantized_dimensions, rq.block_sizes, rhs.shape, rc)
    lk = lc[list(rc).index(rk)] if rk is not None else None
    blocks = rhs.shape[rk] // size if rk is not None else 1
    cl = lhs.astype(np.int64) - int(lq.zero_point)
    zr = rq.broadcast_zero_points(rhs.shape)
    cr = rhs.astype(np.int64) - zr if np.any(zr) else rhs
    scales = np.broadcast_to(rq.broadcast_scales(rhs.shape), rhs.shape)
    lhs_free = lhs.ndim - len(lb) - len(lc)
    accs, block_s = [], []
    for j in range(blocks):
        a, b, s = cl, cr, scales
        if rk is not None:
            lo, hi = j * size, (j + 1) * size
            a, b, s = take(cl, lk, lo, hi), take(cr, rk, lo, hi), take(scales, rk, lo, hi)
        accs.append(kernels.dot_general(a, b, lb, rb, lc, rc, "int"))
        block_s.append(block_scales(s, rb, rc, lhs_free))
    so = oq.broadcast_scales(out_shape)
    zo = oq.broadcast_zero_points(out_shape)
    return rescale_blocks(accs, lq.scale, block_s, so, zo, oq.storage_min, oq.storage_max, dtype)
