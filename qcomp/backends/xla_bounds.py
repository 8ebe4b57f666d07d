"""Static bounds on the integer values of a program prepared for XLA (interval analysis).

`value_bounds(block)` walks a block's ops once, in program order, and gives every
integer-valued result (integer tensors, and float tensors that hold integers: converts
of integers, contractions of them) an interval `[lo, hi]` holding each of its elements
on every input. An interval is a pair of float64 arrays of the value's rank, each
dimension either the value's size (bounds that differ along it, e.g. per channel) or 1
(one bound for the whole dimension); float64 holds every bound met here exactly (they
stay far below 2^53) and rounds larger ones outward (`_out`), so a bound is never too
tight. What the walk knows:

- constants: their values (a splat, large or not: one bound); `broadcast_in_dim`
  moves the operand's bounds to its dimensions; slice, pad (with the padding value),
  reshape, transpose, reduce-free views: one bound for the whole value;
- add, subtract, multiply, negate, maximum, minimum, clamp, select: interval
  arithmetic; shift_left / shift_right_arithmetic by a non-negative bounded amount,
  divide (toward zero) by a positive one, `and` with a non-negative constant;
- convolution and dot_general with a constant kernel / rhs: per output feature,
  `sum_k max(w_k * lo, w_k * hi)` (and the min) over the contracted positions, `lo, hi`
  the other operand's bounds (any other operand: `K * max|a| * max|b|`);
- convert: the operand's bounds, rounded outward to a float type, truncated toward zero
  to an integer one; compare: `[0, 1]`.

Float results get an interval only from ops that move values or sum exactly (converts,
views, pad, select, and contractions whose bound is within the type's exact integers):
float arithmetic rounds.

An integer result whose interval leaves its type's range may wrap: it gets the type's
range, as does every integer value the walk does not know (block arguments, ops in
nested regions, gathers, reduces). A float value that is not known holds no interval
(`None`). Nothing here changes the program.
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import IntegerType, Signedness
from xdsl.ir import Block, Operation, SSAValue

from qcomp.dialects import stablehlo as sh
from qcomp.interpreter.values import dense_to_array, element_type, is_float, numpy_dtype, shape_of
from qcomp.ir.splat import is_splat_array

Interval = tuple[np.ndarray, np.ndarray]

_FLOAT_EXACT = (sh.ConvertOp, sh.BroadcastInDimOp, sh.SliceOp, sh.ReshapeOp, sh.TransposeOp,
                sh.PadOp, sh.SelectOp, sh.ConvolutionOp, sh.DotGeneralOp)
"""The ops whose float results get an interval (they move values or sum exactly)."""

_EXACT = {np.dtype(np.float32): float(1 << 24), np.dtype(np.float64): float(1 << 53)}
"""Float dtypes and the magnitude up to which they hold every integer."""

_MAX_CONSTANT = 1 << 16
"""Constants with more elements than this are bounded by their min and max only."""


def _out(lo, hi) -> Interval:
    """`[lo, hi]` widened by a relative 2^-40 (outward rounding of float64 sums)."""
    lo, hi = np.asarray(lo, np.float64), np.asarray(hi, np.float64)
    return lo - np.abs(lo) * 2.0 ** -40, hi + np.abs(hi) * 2.0 ** -40


def type_range(t) -> Interval | None:
    """The interval of an integer element type (None for other types)."""
    e = element_type(t)
    if not isinstance(e, IntegerType):
        return None
    w = e.width.data
    if w == 1:
        return np.zeros(()), np.ones(())
    if e.signedness.data == Signedness.UNSIGNED:
        return np.zeros(()), np.asarray(float(2 ** w - 1))
    return np.asarray(-float(2 ** (w - 1))), np.asarray(float(2 ** (w - 1) - 1))


def _rank(iv: Interval, rank: int) -> Interval:
    lo, hi = iv
    if lo.ndim != rank:
        lo, hi = lo.reshape((1,) * rank) if lo.size == 1 else lo, hi.reshape((1,) * rank) if hi.size == 1 else hi
    return lo, hi


def _whole(iv: Interval, rank: int) -> Interval:
    """One bound for the whole value."""
    return np.full((1,) * rank, iv[0].min()), np.full((1,) * rank, iv[1].max())


def magnitude(iv: Interval) -> np.ndarray:
    """max(|lo|, |hi|), elementwise."""
    return np.maximum(np.abs(iv[0]), np.abs(iv[1]))


class Bounds:
    """The intervals of one block's values (module docstring)."""

    def __init__(self, block: Block):
        self._iv: dict[SSAValue, Interval | None] = {}
        self.wrapped: set[SSAValue] = set()
        """Integer results whose interval was unknown or left the type (they may wrap)."""
        for op in block.ops:
            for r in op.results:
                try:
                    iv = self._derive(op, r)
                except (ValueError, IndexError, TypeError, OverflowError):
                    iv = None
                tr = type_range(r.type)
                if tr is not None and (iv is None or np.any(iv[0] < tr[0]) or np.any(iv[1] > tr[1])):
                    self.wrapped.add(r)
                self._iv[r] = self._fit(r, iv)

    def alias(self, new: SSAValue, old: SSAValue) -> None:
        """`new` (a value added by a rewrite) equals `old` element for element."""
        self._iv[new] = self[old]

    def __getitem__(self, v: SSAValue) -> Interval | None:
        if v in self._iv:
            return self._iv[v]
        return self._fit(v, None)

    def _fit(self, v: SSAValue, iv: Interval | None) -> Interval | None:
        """`iv` in `v`'s rank, or the type's range when it is unknown or leaves it."""
        rank = len(shape_of(v.type))
        tr = type_range(v.type)
        if tr is None:
            return None if iv is None else _rank(iv, rank)
        if iv is None or not (np.all(iv[0] >= tr[0]) and np.all(iv[1] <= tr[1])):
            return _rank(tr, rank)
        return _rank(iv, rank)

    def _derive(self, op: Operation, r: SSAValue) -> Interval | None:
        rank = len(shape_of(r.type))
        ivs = [self[v] for v in op.operands]
        if isinstance(op, sh.ConstantOp):
            a = dense_to_array(op.value, r.type).astype(np.float64)
            if a.size > _MAX_CONSTANT or a.ndim != rank or is_splat_array(a):
                return np.full((1,) * rank, a.min()), np.full((1,) * rank, a.max())
            return a, a
        if any(iv is None for iv in ivs) and not isinstance(op, sh.ConvertOp):
            return None
        if is_float(element_type(r.type)) and not isinstance(op, _FLOAT_EXACT):
            return None  # float arithmetic rounds: no interval
        if isinstance(op, sh.BroadcastInDimOp):
            lo, hi = ivs[0]
            shape = [1] * rank
            for i, d in enumerate(op.broadcast_dimensions):
                shape[d] = lo.shape[i] if lo.ndim > i else 1
            return lo.reshape(shape), hi.reshape(shape)
        if isinstance(op, sh.ReshapeOp):
            lo, hi = ivs[0]
            src, dst = shape_of(op.operands[0].type), shape_of(r.type)
            if src and dst and src[-1] == dst[-1] and lo.size == lo.shape[-1]:
                shape = (1,) * (rank - 1) + (lo.shape[-1],)  # bounds along the kept last dim
                return lo.reshape(shape), hi.reshape(shape)
            return _whole(ivs[0], rank)
        if isinstance(op, (sh.SliceOp, sh.TransposeOp)):
            return _whole(ivs[0], rank)
        if isinstance(op, sh.PadOp):
            a, p = _whole(ivs[0], rank), _whole(ivs[1], rank)
            return np.minimum(a[0], p[0]), np.maximum(a[1], p[1])
        if isinstance(op, sh.ConvertOp):
            return _convert(ivs[0], r)
        if isinstance(op, sh.CompareOp):
            return np.zeros((1,) * rank), np.ones((1,) * rank)
        if isinstance(op, (sh.AddOp, sh.SubtractOp, sh.MultiplyOp, sh.MaximumOp, sh.MinimumOp)):
            (alo, ahi), (blo, bhi) = ivs
            if isinstance(op, sh.AddOp):
                return _out(alo + blo, ahi + bhi)
            if isinstance(op, sh.SubtractOp):
                return _out(alo - bhi, ahi - blo)
            if isinstance(op, sh.MaximumOp):
                return np.maximum(alo, blo), np.maximum(ahi, bhi)
            if isinstance(op, sh.MinimumOp):
                return np.minimum(alo, blo), np.minimum(ahi, bhi)
            c = (alo * blo, alo * bhi, ahi * blo, ahi * bhi)
            return _out(np.minimum.reduce(np.broadcast_arrays(*c)),
                        np.maximum.reduce(np.broadcast_arrays(*c)))
        if isinstance(op, sh.NegateOp):
            return -ivs[0][1], -ivs[0][0]
        if isinstance(op, sh.ClampOp):
            (mlo, mhi), (xlo, xhi), (Mlo, Mhi) = ivs
            return np.minimum(np.maximum(xlo, mlo), Mlo), np.minimum(np.maximum(xhi, mhi), Mhi)
        if isinstance(op, sh.SelectOp):
            (alo, ahi), (blo, bhi) = ivs[1:]
            return np.minimum(alo, blo), np.maximum(ahi, bhi)
        if isinstance(op, (sh.ShiftLeftOp, sh.ShiftRightArithmeticOp, sh.DivideOp)):
            return _scale(op, ivs)
        if isinstance(op, sh.AndOp):
            mlo, mhi = ivs[1]
            if np.all(mlo >= 0):
                return np.zeros_like(mhi), mhi
            return None
        if isinstance(op, (sh.ConvolutionOp, sh.DotGeneralOp)):
            iv = _contraction(op, ivs, rank)
            e = element_type(r.type)
            if iv is not None and is_float(e) and magnitude(iv).max() > _EXACT.get(numpy_dtype(e), 0):
                return None  # a float sum that may round
            return iv
        return None


def _convert(iv: Interval | None, r: SSAValue) -> Interval | None:
    if iv is None:
        return None
    e = element_type(r.type)
    if is_float(e):
        dt = numpy_dtype(e)
        lo, hi = iv[0].astype(dt), iv[1].astype(dt)  # round to nearest: monotone
        return np.minimum(lo.astype(np.float64), iv[0]), np.maximum(hi.astype(np.float64), iv[1])
    return np.trunc(iv[0]), np.trunc(iv[1])


def _scale(op: Operation, ivs: list[Interval]) -> Interval | None:
    (xlo, xhi), (slo, shi) = ivs
    if np.any(slo < 0) or (not isinstance(op, sh.DivideOp) and np.any(shi > 62)):
        return None
    if isinstance(op, sh.DivideOp):
        if np.any(slo <= 0):
            return None
        c = (xlo / slo, xlo / shi, xhi / slo, xhi / shi)
        t = np.trunc
    else:
        k = 1.0 if isinstance(op, sh.ShiftLeftOp) else -1.0
        c = (xlo * 2.0 ** (k * slo), xlo * 2.0 ** (k * shi), xhi * 2.0 ** (k * slo),
             xhi * 2.0 ** (k * shi))
        t = (lambda a: a) if k > 0 else np.floor
    c = np.broadcast_arrays(*c)
    return _out(t(np.minimum.reduce(c)), t(np.maximum.reduce(c)))


def _contraction(op: Operation, ivs: list[Interval], rank: int) -> Interval | None:
    """Per output feature (conv) / rhs free dimension (dot) for a constant rhs."""
    _, b = op.operands
    alo, ahi = float(ivs[0][0].min()), float(ivs[0][1].max())
    w = b.owner
    if isinstance(op, sh.ConvolutionOp):
        d = op.dimension_numbers
        contracted = (*d.kernel_spatial_dimensions, d.kernel_input_feature_dimension)
        out_dim = d.output_feature_dimension
        if op.batch_group_count != 1 or any(v != 1 for v in op.lhs_dilation):
            return None
    else:
        dd = op.dot_dimension_numbers
        contracted = tuple(dd.rhs_contracting_dimensions)
        free = [i for i in range(len(shape_of(b.type)))
                if i not in contracted and i not in tuple(dd.rhs_batching_dimensions)]
        out_dim = rank - 1 if len(free) == 1 else None
    k = int(np.prod([shape_of(b.type)[i] for i in contracted]))
    if isinstance(w, sh.ConstantOp) and out_dim is not None:
        wv = dense_to_array(w.value, b.type).astype(np.float64)
        keep = [i for i in range(wv.ndim) if i not in contracted]
        wv = np.transpose(wv, (*keep, *contracted)).reshape(len(keep) and -1, k) if keep else wv.reshape(1, k)
        hi = np.maximum(wv * alo, wv * ahi).sum(axis=1)
        lo = np.minimum(wv * alo, wv * ahi).sum(axis=1)
        shape = [1] * rank
        shape[out_dim] = hi.size
        if hi.size != shape_of(op.results[0].type)[out_dim]:
            return None
        return _out(lo.reshape(shape), hi.reshape(shape))
    m = max(abs(alo), abs(ahi)) * float(magnitude(ivs[1]).max()) * k
    return _out(np.full((1,) * rank, -m), np.full((1,) * rank, m))
