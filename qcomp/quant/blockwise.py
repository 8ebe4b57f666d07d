"""Blockwise (sub-channel) weights in a contraction: where the blocks split the
contracting dimension, and the scales of one block as the result sees them.

A sub-channel rhs of `dot_general` or `convolution` (a qcomp extension) may split one
contracting dimension (a convolution: the kernel input feature dimension) into blocks
of B positions; the contraction is then a sum of per-block
integer sums, each rescaled by its own scales (`accumulator.rescale_blocks`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def split_dimension(quantized_dimensions: Sequence[int], block_sizes: Sequence[int],
                    shape: Sequence[int], contracting: Sequence[int]) -> tuple[int | None, int]:
    """(the contracting dimension the blocks split, its block size), or (None, 0)."""
    for d, b in zip(quantized_dimensions, block_sizes):
        if d in contracting and 0 < b < shape[d]:
            return d, b
    return None, 0


def block_scales(scales: np.ndarray, rhs_batch: Sequence[int], rhs_contract: Sequence[int],
                 lhs_free: int) -> np.ndarray:
    """One block's rhs scales (`scales`: the full rhs shape cut to the block, constant
    along the contracting dimensions) shaped to broadcast against the dot_general
    result [batch..., lhs free..., rhs free...]."""
    rank = scales.ndim
    first = scales[tuple(slice(0, 1) if d in rhs_contract else slice(None) for d in range(rank))]
    rfree = [d for d in range(rank) if d not in rhs_batch and d not in rhs_contract]
    s = np.transpose(first, list(rhs_batch) + rfree + list(rhs_contract))
    s = s.reshape(s.shape[:len(rhs_batch) + len(rfree)])
    return s.reshape(s.shape[:len(rhs_batch)] + (1,) * lhs_free + s.shape[len(rhs_batch):])


def conv_block_scales(scales: np.ndarray, kernel_out: int, output_feature: int,
                      out_rank: int) -> np.ndarray:
    """One block's kernel scales (the full kernel shape cut to the block, constant along
    the input feature and spatial dimensions) shaped to broadcast against the
    convolution result: a vector along its output feature dimension."""
    v = np.moveaxis(scales, kernel_out, -1).reshape(-1, scales.shape[kernel_out])[0]
    shape = [1] * out_rank
    shape[output_feature] = v.size
    return v.reshape(shape)


def take(a: np.ndarray, dim: int, start: int, stop: int) -> np.ndarray:
    """`a[..., start:stop, ...]` along `dim`."""
    index = [slice(None)] * a.ndim
    index[dim] = slice(start, stop)
    return a[tuple(index)]
