"""`dot_general` and `convolution` with a blockwise (sub-channel) rhs for
`stablehlo-legalize-quant-to-math` (a qcomp extension; see docs/blockwise.md).

Hybrid (float lhs): the rhs is dequantized with its block scales and the op runs in
float (`dot.lower_hybrid`). Fully quantized (per-tensor lhs): one integer contraction
per block of the split contracting dimension (dot_general: the rhs contracting
dimension the blocks cut, and its lhs partner; convolution: the kernel input feature
and lhs input feature dimensions) on the centred operands (a constant rhs is centred
and cut at compile time; a convolution pads the centred lhs with 0), then by `rescale`:

    acc_j = op(slice_j(q_l - z_l), slice_j(q_r - z_r))          i32 (i64 if it may not fit)
    float:       real = Σ_j f64(acc_j) * (s_l * s_r,j)
                 q = convert(round_nearest_even(clamp(real / s_res + z_res)))
                 (`qcomp.quant.accumulator.rescale_blocks`, op for op)
    fixed-point: t_j = (i64(acc_j) * m_j + 2^(r_j-1)) >> r_j;  T = Σ_j t_j
                 q = convert(clamp(((T + 2^(F-1)) >> F) + z_res))
                 (`qcomp.quant.accumulator.fixed_point_rescale_blocks`)
    stablehlo:   acc_j in i32 (wrapping);  v = Σ_j f32(acc_j) * f32(s_l s_r,j / s_res)
                 q = convert(convert(v, i32) + z_res)   (truncates, wraps; signless iN)
                 (`qcomp.quant.stablehlo.dot_rescale_blocks`)
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import IntegerType, TensorType, f32, f64, i32, i64
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
from qcomp.passes.quant_to_math.emit import upstream_storage
from qcomp.passes.quant_to_math.mode import RescaleMode
from qcomp.passes.utils.builder import Builder, shape_of
from qcomp.passes.utils.diagnostics import PassDiagnostic, short_name
from qcomp.quant.accumulator import BLOCK_FRACTION_BITS, block_fixed_point_parameters
from qcomp.quant.blockwise import block_scales, conv_block_scales, split_dimension, take
from qcomp.quant.ranges import storage_range


def _magnitude(q: UniformQuantizedType) -> int:
    z = np.asarray(q.zero_points, np.int64).reshape(-1)
    return int(max(np.max(np.abs(q.storage_min - z)), np.max(np.abs(q.storage_max - z))))


def _slice(b: Builder, x: SSAValue, dim: int, start: int, stop: int) -> SSAValue:
    shape = list(shape_of(x))
    lo, hi = [0] * len(shape), list(shape)
    lo[dim], hi[dim] = start, stop
    out = tuple(stop - start if d == dim else n for d, n in enumerate(shape))
    return b.op(sh.SliceOp, [x], x.type.element_type, out, start_indices=i64_array(lo),
                limit_indices=i64_array(hi), strides=i64_array([1] * len(shape)))


def _broadcast_array(b: Builder, a: np.ndarray, element, shape: tuple[int, ...]) -> SSAValue:
    dims = [d for d, n in enumerate(a.shape) if n != 1]
    if not dims:
        return b.full(a.reshape(()), element, shape)
    return b.broadcast(b.constant(a.reshape([a.shape[d] for d in dims]), element), shape, dims)


def _plan(op: Operation, rq: UniformQuantizedType):
    """(lhs dim, rhs dim the blocks split or None, block size, the contraction on one
    block's operands as an op builder, one block's scales as the result sees them)."""
    shape = shape_of(op.result)
    if isinstance(op, sh.ConvolutionOp):
        dn = op.dimension_numbers
        kin = dn.kernel_input_feature_dimension
        rk, size = split_dimension(rq.quantized_dimensions, rq.block_sizes, shape_of(op.rhs),
                                   [kin])
        props = dict(op.properties)

        def conv(b: Builder, a: SSAValue, r: SSAValue, acc: IntegerType) -> SSAValue:
            return b.emit(sh.ConvolutionOp.create(operands=[a, r], result_types=[
                TensorType(acc, shape)], properties=props))

        return (dn.input_feature_dimension, rk, size, conv,
                lambda s: conv_block_scales(s, dn.kernel_output_feature_dimension,
                                            dn.output_feature_dimension, len(shape)))
    lb, rb, lc, rc = _dot_dims(op)
    rk, size = split_dimension(rq.quantized_dimensions, rq.block_sizes, shape_of(op.rhs), rc)
    lk = lc[rc.index(rk)] if rk is not None else None
    lhs_free = len(shape_of(op.lhs)) - len(lb) - len(lc)
    dims = DotDimensionNumbersAttr.get(lb, rb, lc, rc)

    def dot(b: Builder, a: SSAValue, r: SSAValue, acc: IntegerType) -> SSAValue:
        return b.op(sh.DotGeneralOp, [a, r], acc, shape, dot_dimension_numbers=dims)

    return lk, rk, size, dot, lambda s: block_scales(s, rb, rc, lhs_free)


def lower_blockwise(b: Builder, op: Operation, lq: UniformQuantizedType,
                    rq: UniformQuantizedType, oq: UniformQuantizedType, lhs: SSAValue,
                    rhs: SSAValue, mode: RescaleMode) -> SSAValue:
    """The module docstring's lowering; `lhs` / `rhs` are the storage values."""
    rs = shape_of(op.rhs)
    if any(d < 0 for v in (op.lhs, op.rhs, op.result) for d in shape_of(v)):
        raise PassDiagnostic(op, f"{short_name(op)}: a blockwise rhs needs static shapes")
    lk, rk, size, contract, scales_of = _plan(op, rq)
    blocks = rs[rk] // size if rk is not None else 1
    k = int(np.prod([rs[d] for d in _summed_dims(op)], dtype=np.int64)) // blocks
    bound = k * _magnitude(lq) * _magnitude(rq)
    acc_t = i32 if mode.upstream or bound <= storage_range(32, True)[1] else i64
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
    accs, block_s = [], []
    for j in range(blocks):
        a, s = cl, scales
        if rk is None:
            r = b.constant(cr_values, acc_t) if const is not None else cr
        else:
            lo, hi = j * size, (j + 1) * size
            a, s = _slice(b, cl, lk, lo, hi), take(scales, rk, lo, hi)
            r = (b.constant(take(cr_values, rk, lo, hi), acc_t) if const is not None
                 else _slice(b, cr, rk, lo, hi))
        accs.append(contract(b, a, r, acc_t))
        block_s.append(scales_of(np.asarray(s, np.float64)))
    rescale = (_upstream_rescale if mode.upstream else
               _fixed_point_rescale if mode.integer_only else _float_rescale)
    return rescale(b, op, accs, block_s, lq, oq, bound)


def _summed_dims(op: Operation) -> list[int]:
    """The rhs dimensions each result element sums over (K is their product): the
    contracting ones, or a kernel's all but the output feature dimension."""
    if isinstance(op, sh.ConvolutionOp):
        kout = op.dimension_numbers.kernel_output_feature_dimension
        return [d for d in range(len(shape_of(op.rhs))) if d != kout]
    return _dot_dims(op)[3]


def _result_params(oq: UniformQuantizedType, shape) -> tuple[np.ndarray, np.ndarray]:
    return (np.asarray(oq.broadcast_scales(shape), np.float64),
            np.asarray(oq.broadcast_zero_points(shape), np.int64))


def _sum(b: Builder, terms: list[SSAValue]) -> SSAValue:
    total = terms[0]
    for t in terms[1:]:
        total = b.binary(sh.AddOp, total, t)
    return total


def _float_rescale(b: Builder, op, accs, block_s, lq, oq, bound) -> SSAValue:
    terms = []
    for acc, s in zip(accs, block_s):
        c = np.float64(lq.scale) * s
        term = b.convert(acc, f64)
        if np.any(c != 1.0):  # x * 1.0 is exact: skipped
            term = b.binary(sh.MultiplyOp, term, _broadcast_array(b, c, f64, shape_of(acc)))
        terms.append(term)
    return quantize_real(b, _sum(b, terms), oq)


def _fixed_point_rescale(b: Builder, op, accs, block_s, lq, oq, bound) -> SSAValue:
    shape = shape_of(accs[0])
    so, zo = _result_params(oq, shape)
    multipliers = [np.float64(lq.scale) * s / so for s in block_s]
    try:
        params = block_fixed_point_parameters(multipliers, bound)
    except ValueError as e:
        raise PassDiagnostic(op, f"{short_name(op)}: rescale=fixed-point: {e}") from None
    terms = []
    for acc, (m, r) in zip(accs, params):
        v = acc if acc.type.element_type == i64 else b.convert(acc, i64)
        v = b.binary(sh.MultiplyOp, v, _broadcast_array(b, m, i64, shape))
        v = b.binary(sh.AddOp, v, _broadcast_array(b, np.left_shift(np.int64(1), r - 1),
                                                  i64, shape))
        terms.append(b.binary(sh.ShiftRightArithmeticOp, v,
                              _broadcast_array(b, np.asarray(r, np.int64), i64, shape)))
    f = BLOCK_FRACTION_BITS
    v = b.binary(sh.AddOp, _sum(b, terms), b.full(np.int64(1 << (f - 1)), i64, shape))
    v = b.binary(sh.ShiftRightArithmeticOp, v, b.full(np.int64(f), i64, shape))
    if np.any(zo != 0):
        v = b.binary(sh.AddOp, v, _broadcast_array(b, zo, i64, shape))
    v = b.clamp(v, oq.storage_min, oq.storage_max)
    return b.convert(v, oq.storage)


def _upstream_rescale(b: Builder, op, accs, block_s, lq, oq, bound) -> SSAValue:
    shape = shape_of(accs[0])
    so, zo = _result_params(oq, shape)
    terms = []
    for acc, s in zip(accs, block_s):
        cs = (np.float64(lq.scale) * s / so).astype(np.float32)
        terms.append(b.binary(sh.MultiplyOp, b.convert(acc, f32),
                              _broadcast_array(b, cs, f32, shape)))
    v = b.convert(_sum(b, terms), i32)
    if np.any(zo != 0):
        v = b.binary(sh.AddOp, v, _broadcast_array(b, zo, i32, shape))
    return b.convert(v, upstream_storage(oq))


__all__ = ["lower_blockwise"]
