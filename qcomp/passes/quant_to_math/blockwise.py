"""`dot_general` with a blockwise (sub-channel) rhs for `stablehlo-legalize-quant-to-math`
(a qcomp extension; see docs/blockwise.md).

Hybrid (float lhs): the rhs is dequantized with its block scales and the dot runs in
float (`dot.lower_hybrid`). Fully quantized (per-tensor lhs), `rescale=float`: one
integer `dot_general` per block of the split contracting dimension on the centred
operands, each converted to f64 and scaled by s_l * s_r,j, added in block order, and
quantized once — `qcomp.quant.accumulator.rescale_blocks` op for op:

    acc_j = dot_general(slice_j(q_l - z_l), slice_j(q_r - z_r))        (i32 or i64)
    real  = Σ_j f64(acc_j) * (s_l * s_r,j)
    q     = convert(round_nearest_even(clamp(real / s_res + z_res)))
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import IntegerType, f64, i32, i64
from xdsl.ir import Operation, SSAValue

from qcomp.dialects import stablehlo as sh
from qcomp.dialects.quant import UniformQuantizedType
from qcomp.dialects.stablehlo.attrs import DotDimensionNumbersAttr
from qcomp.dialects.stablehlo.format import i64_array
from qcomp.passes.quant_to_math.dot import (
    _dot_dims,
    centered,
    constant_values,
    is_broadcast,
    quantize_real,
)
from qcomp.passes.utils.builder import Builder, shape_of
from qcomp.passes.utils.diagnostics import PassDiagnostic
from qcomp.quant.blockwise import block_scales, split_dimension, take
from qcomp.quant.ranges import storage_range


def _magnitude(q: UniformQuantizedType) -> int:
    z = np.asarray(q.zero_points, np.int64).reshape(-1)
    return int(max(np.max(np.abs(q.storage_min - z)), np.max(np.abs(q.storage_max - z))))


def _accumulator(lq: UniformQuantizedType, rq: UniformQuantizedType, k: int) -> IntegerType:
    bound = k * _magnitude(lq) * _magnitude(rq)
    return i32 if bound <= storage_range(32, True)[1] else i64


def _slice(b: Builder, x: SSAValue, dim: int, start: int, stop: int) -> SSAValue:
    shape = list(shape_of(x))
    lo, hi = [0] * len(shape), list(shape)
    lo[dim], hi[dim] = start, stop
    out = tuple(stop - start if d == dim else n for d, n in enumerate(shape))
    return b.op(sh.SliceOp, [x], x.type.element_type, out, start_indices=i64_array(lo),
                limit_indices=i64_array(hi), strides=i64_array([1] * len(shape)))


def _broadcast_array(b: Builder, a: np.ndarray, shape: tuple[int, ...]) -> SSAValue:
    dims = [d for d, n in enumerate(a.shape) if n != 1]
    if not dims:
        return b.full(a.reshape(()), f64, shape)
    return b.broadcast(b.constant(a.reshape([a.shape[d] for d in dims]), f64), shape, dims)


def lower_blockwise_dot(b: Builder, op: Operation, lq: UniformQuantizedType,
                        rq: UniformQuantizedType, oq: UniformQuantizedType, lhs: SSAValue,
                        rhs: SSAValue, integer_only: bool) -> SSAValue:
    """The module docstring's lowering; `lhs` / `rhs` are the storage values."""
    if integer_only:
        raise PassDiagnostic(op, "dot_general: a blockwise rhs has one scale per block; "
                             "rescale=fixed-point cannot sum the blocks in integers, use "
                             "rescale=float")
    lb, rb, lc, rc = _dot_dims(op)
    rs = shape_of(op.rhs)
    shape = shape_of(op.result)
    rk, size = split_dimension(rq.quantized_dimensions, rq.block_sizes, rs, rc)
    lk = lc[rc.index(rk)] if rk is not None else None
    blocks = rs[rk] // size if rk is not None else 1
    k = int(np.prod([rs[d] for d in rc], dtype=np.int64)) // blocks
    acc_t = _accumulator(lq, rq, k)
    cl = centered(b, lhs, lq, acc_t)
    const = constant_values(rhs)
    if const is not None and is_broadcast(const):
        const = None  # a held splat: subtract as ops, never materialised here
    if const is not None:
        cr_values = const - np.asarray(rq.broadcast_zero_points(rs), np.int64)
    else:
        cr = b.convert(rhs, acc_t)
        if np.any(rq.zero_points):
            full_z = np.broadcast_to(rq.broadcast_zero_points(rs), rs)
            cr = b.binary(sh.SubtractOp, cr, b.constant(full_z, acc_t))
    scales = np.broadcast_to(rq.broadcast_scales(rs), rs)
    lhs_free = len(shape_of(op.lhs)) - len(lb) - len(lc)
    dims = DotDimensionNumbersAttr.get(lb, rb, lc, rc)
    real = None
    for j in range(blocks):
        a, s = cl, scales
        if rk is None:
            r = b.constant(cr_values, acc_t) if const is not None else cr
        else:
            lo, hi = j * size, (j + 1) * size
            a, s = _slice(b, cl, lk, lo, hi), take(scales, rk, lo, hi)
            r = (b.constant(take(cr_values, rk, lo, hi), acc_t) if const is not None
                 else _slice(b, cr, rk, lo, hi))
        acc = b.op(sh.DotGeneralOp, [a, r], acc_t, shape, dot_dimension_numbers=dims)
        c = np.float64(lq.scale) * block_scales(np.asarray(s, np.float64), rb, rc, lhs_free)
        term = b.convert(acc, f64)
        if np.any(c != 1.0):  # x * 1.0 is exact: skipped
            term = b.binary(sh.MultiplyOp, term, _broadcast_array(b, c, shape))
        real = term if real is None else b.binary(sh.AddOp, real, term)
    assert real is not None
    return quantize_real(b, real, oq)
