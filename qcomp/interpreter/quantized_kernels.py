"""Kernels for a block program's quantized ops under `--semantics spec`
(`straight_line.fast_kernel`): what `QuantSemantics` computes, with everything that
depends on the op and its folded weights worked out once.

- `uniform_quantize` (float -> quantized) and `uniform_dequantize`: the same
  `qcomp.quant.uniform` calls with the broadcast scales and zero points made once;
- `dot_general` / `convolution` of a per-tensor quantized lhs by folded quantized
  weights (per-tensor or per-axis along a result dimension): the exact integer sum
  Σ (q_l - z_l)(q_r - z_r) = Σ q_l (q_r - z_r) - z_l Σ (q_r - z_r) (`_centered_dot` /
  `_centered_conv`) with the first sum by float32 BLAS when a static bound proves every
  partial sum exact, `K * B_l * max|q_r - z_r| < 2^24` (`B_l` the largest magnitude of
  the lhs container type, or of the padding value z_l), float64 below 2^53 (the sum
  then exact in any order), and no int64 copy of it; the rescale
  (`qcomp.quant.accumulator.rescale_scaled`, the formula of `rescale_accumulator`)
  reads that float array, subtracts z_l Σ (q_r - z_r) (exact in float64) and rounds
  once. Where that rescale provably returns the exact sum itself
  (`qcomp.quant.accumulator.rescale_is_identity`: an i32 accumulator type scaled by
  s_l * s_r, zero points 0, every sum inside its range) the float sums are converted
  to the result's container and the offset subtracted there instead (`_finish`). The
  same array as the interpreter function, bit for bit.

A kernel returns None (the interpreter function then runs) when an operand is not in
its type's container dtype.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np
from xdsl.ir import Operation

from qcomp.dialects import stablehlo as sh
from qcomp.interpreter.quantized import (
    _axis_params,
    _container,
    _dot_rhs_axis_map,
    _kind,
    _params,
)
from qcomp.interpreter.structured_kernels import SCRATCH as _SCRATCH
from qcomp.interpreter.structured_kernels import _static_shape as _static
from qcomp.interpreter.structured_kernels import conv_accumulator
from qcomp.interpreter.values import element_type, numpy_dtype, quant_of
from qcomp.quant import uniform
from qcomp.quant.accumulator import accumulator_factor, rescale_is_identity, rescale_scaled
from qcomp.quant.float_storage import to_float

if TYPE_CHECKING:
    from concurrent.futures import ThreadPoolExecutor

Kernel = Callable[[list], np.ndarray | None]

_EXACT_F32 = 1 << 24
_EXACT_F64 = 1 << 53

HALVES_MIN_SIZE = 1 << 16
"""Element-wise work on results of at least this many elements runs in two halves, the
second on a helper thread (NumPy's loops release the GIL), when two cores are free."""

_HELPER: dict[int, ThreadPoolExecutor | None] = {}
"""The helper thread, by process id (a forked child makes its own: the parent's thread
does not exist in it)."""


def _helper() -> ThreadPoolExecutor | None:
    pid = os.getpid()
    if pid not in _HELPER:
        from concurrent.futures import ThreadPoolExecutor  # here: a small run starts no thread

        _HELPER.clear()
        _HELPER[pid] = ThreadPoolExecutor(1, thread_name_prefix="qcomp-kernel") \
            if len(os.sched_getaffinity(0)) >= 2 else None
    return _HELPER[pid]


def in_halves(fn: Callable[..., np.ndarray], shape: tuple[int, ...], dtype, *arrays):
    """`fn(*arrays)`, an element-wise function of arrays broadcasting against `shape`
    (None passes through), into a new array of `shape` and `dtype`: on large results
    computed as two halves along the first dimension longer than 1, concurrently (each
    element is computed as it is in one call, so the values are the same)."""
    axis = next((i for i, d in enumerate(shape) if d > 1), None)
    pool = _helper() if math.prod(shape) >= HALVES_MIN_SIZE else None
    if axis is None or pool is None:
        return fn(*arrays)
    out = np.empty(shape, dtype)
    rank, mid = len(shape), shape[axis] // 2

    def part(lo: int, hi: int) -> None:
        sliced = []
        for a in arrays:
            at = axis - (rank - np.ndim(a))
            if a is not None and at >= 0 and np.shape(a)[at] > 1:
                a = a[(slice(None),) * at + (slice(lo, hi),)]
            sliced.append(a)
        out[(slice(None),) * axis + (slice(lo, hi),)] = fn(*sliced)

    later = pool.submit(part, mid, shape[axis])
    try:
        part(0, mid)
    finally:
        later.result()
    return out


def _integer(q) -> bool:
    return q is not None and not q.is_float_storage


def _magnitude(dtype: np.dtype) -> int:
    info = np.iinfo(dtype)
    return max(-int(info.min), int(info.max))


def _frozen(a: np.ndarray) -> np.ndarray:
    a = np.ascontiguousarray(a)
    a.flags.writeable = False
    return a


def quantized_kernel(op: Operation, slots: list[int], known: list) -> Kernel | None:
    """A spec-semantics kernel for quantized `op` (module docstring), or None."""
    if isinstance(op, sh.UniformQuantizeOp):
        return _quantize_kernel(op, slots)
    if isinstance(op, sh.UniformDequantizeOp):
        return _dequantize_kernel(op, slots)
    if isinstance(op, sh.DotGeneralOp):
        return _dot_kernel(op, slots, known)
    if isinstance(op, sh.ConvolutionOp):
        return _conv_kernel(op, slots, known)
    return None


def _quantize_kernel(op, slots) -> Kernel | None:
    it, ot = op.operands[0].type, op.results[0].type
    shape, q, iq = _static(ot), quant_of(ot), quant_of(it)
    if shape is None or not _integer(q) or _static(it) != shape:
        return None
    s, z = _params(q, shape)
    kind, dt, lo, hi = _kind(q), _container(q), q.storage_min, q.storage_max
    (x,) = slots
    if iq is None:
        return lambda v: in_halves(lambda a, s_, z_: uniform.quantize(a, s_, z_, lo, hi, kind, dt),
                                   shape, dt, v[x], s, z)
    if not _integer(iq):
        return None
    si, zi = _params(iq, shape)  # requantize: quantize(dequantize(x))
    kind_i, dt_i = _kind(iq), _container(iq)

    def requantize(v: list) -> np.ndarray | None:
        a = v[x]
        if a.dtype != dt_i:
            return None
        return in_halves(lambda a_, si_, zi_, s_, z_: uniform.quantize(
            uniform.dequantize(a_, si_, zi_, kind_i), s_, z_, lo, hi, kind, dt), shape, dt,
            a, si, zi, s, z)
    return requantize


def _dequantize_kernel(op, slots) -> Kernel | None:
    it, ot = op.operands[0].type, op.results[0].type
    shape, q = _static(it), quant_of(it)
    if shape is None or not _integer(q) or _static(ot) != shape:
        return None
    s, z = _params(q, shape)
    kind, dt, out = _kind(q), _container(q), numpy_dtype(element_type(ot))
    (x,) = slots

    def run(v: list) -> np.ndarray | None:
        a = v[x]
        if a.dtype != dt:
            return None
        def dequantize(a_, s_, z_):
            r = uniform.dequantize(a_, s_, z_, kind)
            return r if r.dtype == out else to_float(r, out)
        return in_halves(dequantize, shape, out, a, s, z)
    return run


def _contraction(op, known):
    """(lq, rq, oq, result shape, the weights centered as int64, their largest
    magnitude) when the spec's exact integer path applies to `op` and its rhs is
    folded, else None."""
    lq, rq, oq = (quant_of(v.type) for v in (*op.operands, op.results[0]))
    shape, w = _static(op.results[0].type), known[1]
    if shape is None or not (_integer(lq) and _integer(rq) and _integer(oq)):
        return None
    if not lq.is_per_tensor or rq.is_blockwise or oq.is_blockwise:
        return None
    if not isinstance(w, np.ndarray) or w.dtype != _container(rq) or not w.size:
        return None
    zr = _params(rq, w.shape)[1]
    cr = w.astype(np.int64) - zr if np.any(zr) else w.astype(np.int64)
    return lq, rq, oq, shape, cr, max(abs(int(cr.max())), abs(int(cr.min())))


def _rescale_parameters(lq, rq, oq, rank: int, rhs_axis: int | None, out_axis: int | None):
    """(factor, s_res, z_res or None) as float64 arrays broadcasting against the result
    (rank `rank`; the rhs's quantized dimension lands on `rhs_axis`, the result's on
    `out_axis`), as `_spec_contraction` passes them to `rescale_accumulator`."""
    sr = np.float64(rq.scale) if rq.is_per_tensor else _axis_params(rq.scales, rhs_axis, rank)
    if oq.is_per_tensor:
        so = np.asarray(oq.scales, np.float64).reshape((1,) * rank)
        zo = np.asarray(oq.zero_points).reshape((1,) * rank)
    else:
        so = _axis_params(oq.scales, out_axis, rank)
        zo = oq.zero_points.reshape(so.shape)
    zo = zo.astype(np.float64)
    return accumulator_factor(lq.scale, sr), so, (zo if np.any(zo) else None)


def _float_type(bound: int):
    return np.float32 if bound < _EXACT_F32 else np.float64 if bound < _EXACT_F64 else None


def _dot_kernel(op: sh.DotGeneralOp, slots, known) -> Kernel | None:
    facts = _contraction(op, known)
    lshape = _static(op.operands[0].type)
    if facts is None or lshape is None:
        return None
    lq, rq, oq, out_shape, cr, wmax = facts
    ldt = _container(lq)
    d = op.dot_dimension_numbers
    lb, rb = list(d.lhs_batching_dimensions), list(d.rhs_batching_dimensions)
    lc, rc = list(d.lhs_contracting_dimensions), list(d.rhs_contracting_dimensions)
    axis_map = _dot_rhs_axis_map(len(lshape), cr.ndim, lb, rb, lc, rc)
    if rq.is_per_axis and rq.quantized_dimension not in axis_map:
        return None
    lf = [i for i in range(len(lshape)) if i not in lb and i not in lc]
    rf = [i for i in range(cr.ndim) if i not in rb and i not in rc]
    nb, k = math.prod(lshape[i] for i in lb), math.prod(lshape[i] for i in lc)
    m, n = math.prod(lshape[i] for i in lf), math.prod(cr.shape[i] for i in rf)
    if nb * m * n != math.prod(out_shape):
        return None
    zl = int(lq.zero_point)
    bound = k * _magnitude(ldt) * wmax
    ft = _float_type(bound)
    if ft is None or bound + abs(zl) * k * wmax >= _EXACT_F64:
        return None
    wm = _frozen(np.transpose(cr, rb + rc + rf).reshape(nb, k, n).astype(ft))
    offset = None
    if zl:
        s = np.sum(np.transpose(cr, rb + rf + rc).reshape(nb, n, k), axis=2)
        lfree = [1] * len(lf)
        offset = _frozen((zl * s).astype(np.float64).reshape(
            [lshape[i] for i in lb] + lfree + [cr.shape[i] for i in rf]))
    factor, so, zo = _rescale_parameters(
        lq, rq, oq, len(out_shape), axis_map[rq.quantized_dimension] if rq.is_per_axis else None,
        None if oq.is_per_tensor else oq.quantized_dimension)
    perm, dt, lo, hi = lb + lf + lc, _container(oq), oq.storage_min, oq.storage_max
    finish = _finish(factor, so, zo, offset, bound + abs(zl) * k * wmax, lo, hi, dt)
    x = slots[0]

    def run(v: list) -> np.ndarray | None:
        a = v[x]
        if a.dtype != ldt:
            return None
        fa = _SCRATCH.get("lhs", (nb, m, k), ft)
        np.copyto(fa, np.transpose(a, perm).reshape(nb, m, k))
        raw = _SCRATCH.get("sum", (nb, m, n), ft)
        if nb == 1:
            np.matmul(fa[0], wm[0], out=raw[0])
        else:
            np.matmul(fa, wm, out=raw)
        return finish(raw.reshape(out_shape))
    return run


def _finish(factor, so, zo, offset, acc_bound: int, lo: int, hi: int, dt
            ) -> Callable[[np.ndarray], np.ndarray]:
    """The result storage from the raw sums Σ q_l (q_r - z_r) (exact integers in a float
    array, |acc| <= `acc_bound` once `offset` = z_l Σ (q_r - z_r) is subtracted):
    `rescale_scaled` (in halves on large results), or, where `rescale_is_identity`
    proves it returns the exact sum itself (an i32 accumulator type scaled by
    s_l * s_r), the sum converted to `dt` and the offset subtracted (both exact: every
    value is an integer of magnitude at most `acc_bound`, inside the storage range): in
    the sums' float type, converting in the same pass, when `acc_bound` is below its
    2^24 / 2^53, else in `dt` after the conversion."""
    if rescale_is_identity(factor, so, zo, acc_bound, lo, hi):
        int_offset = None if offset is None else _frozen(offset.astype(dt))
        # raw - offset in the float type itself where every value is exact there
        # (|raw|, |offset|, |raw - offset| <= acc_bound), converted in the same pass
        float_offset = {} if offset is None else {
            np.dtype(f): _frozen(offset.astype(f)) for f, limit in
            ((np.float32, _EXACT_F32), (np.float64, _EXACT_F64)) if acc_bound < limit}

        def identity(raw: np.ndarray) -> np.ndarray:
            out = np.empty(raw.shape, dt)
            if int_offset is None:
                np.copyto(out, raw, casting="unsafe")
            elif raw.dtype in float_offset:
                np.subtract(raw, float_offset[raw.dtype], out=out, casting="unsafe")
            else:
                np.copyto(out, raw, casting="unsafe")
                np.subtract(out, int_offset, out=out)
            return out
        return identity

    def rescale(raw_, factor_, so_, zo_, offset_, work_):
        return rescale_scaled(raw_, factor_, so_, zo_, lo, hi, dt, offset_, work_)

    def general(raw: np.ndarray) -> np.ndarray:
        work = _SCRATCH.get("real", raw.shape, np.float64)
        return in_halves(rescale, raw.shape, dt, raw, factor, so, zo, offset, work)
    return general


def _conv_kernel(op: sh.ConvolutionOp, slots, known) -> Kernel | None:
    facts = _contraction(op, known)
    if facts is None:
        return None
    lq, rq, oq, _, cr, wmax = facts
    ldt, dn = _container(lq), op.dimension_numbers
    kout = dn.kernel_output_feature_dimension
    if rq.is_per_axis and rq.quantized_dimension != kout:
        return None
    zl = int(lq.zero_point)
    planned = conv_accumulator(op, slots[0], cr, max(_magnitude(ldt), abs(zl)), zl)
    if planned is None:
        return None
    accumulate, acc_shape, inv, bound, k = planned
    if bound + abs(zl) * k * wmax >= _EXACT_F64:
        return None
    offset = None
    if zl:  # z_l Σ (q_r - z_r) over all but the output feature, on the acc's last axis
        axes = tuple(i for i in range(cr.ndim) if i != kout)
        offset = _frozen((zl * np.sum(cr, axis=axes)).astype(np.float64))
    if not oq.is_per_tensor and oq.quantized_dimension != dn.output_feature_dimension:
        return None
    rank = len(acc_shape)  # the feature is the acc's last dimension
    factor, so, zo = _rescale_parameters(lq, rq, oq, rank, rank - 1, rank - 1)
    dt, lo, hi = _container(oq), oq.storage_min, oq.storage_max
    finish = _finish(factor, so, zo, offset, bound + abs(zl) * k * wmax, lo, hi, dt)
    x = slots[0]

    def run(v: list) -> np.ndarray | None:
        if v[x].dtype != ldt:
            return None
        return np.transpose(finish(accumulate(v)), inv)
    return run


__all__ = ["quantized_kernel"]
