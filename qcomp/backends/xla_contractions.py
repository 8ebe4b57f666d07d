"""Integer contractions in the forms XLA's CPU backend runs fastest, same bits.

XLA's CPU backend (jaxlib 0.10.2) spends most of an int8 MobileNetV2's time in its
integer convolutions: depthwise ones go to YNNPACK's int8 kernels or become a dense
convolution with a masked kernel, short ones (few products per result) to its integer
loops. Measured on the lowered MobileNetV2 (docs/benchmarks.md, "XLA's fast paths"),
two rewrites, applied only to the program prepared for XLA:

- `depthwise_as_elementwise`: a depthwise convolution as a sum of strided slices times
  broadcast taps (integer arithmetic, wrapping alike; float ones in f32 / f64, where
  XLA's own grouped convolution is a slow loop);
- `float_contractions`: a short integer contraction (`FLOAT_MAX_K`) as a float one.

`float_contractions` rewrites

    %r = stablehlo.convolution(%a, %b) ... -> tensor<...xi32>

as `convert(convolution(convert(%a) : f32, convert(%b) : f32) : f32) : i32` (or f64)
when a static bound proves every partial sum exact in the float type, so the result
is the integer one bit for bit whatever order XLA sums in:

    |partial sum| <= max|a| * max_o sum_k |b[k, o]|  <=  2^24 (f32) / 2^53 (f64)

(`k` the contracted positions of `b` for output position `o`: any partial sum is a
sub-sum of the full one; with `b` not a constant, `K * max|a| * max|b|`). `max|a|`
and `max|b|` come from the operand's integer type or, where the operand is a convert
from a narrower integer, from that one's type; a constant operand's values are read (through a
convert that widens it, as a 16x8 model's `convert(i8 kernel) : i32`).
The bound must also be below the result type's largest value (no wrap-around, so the
integer result is the exact sum). The interpreter is not changed: this is part of
preparing a program for XLA (`qcomp.backends.xla_prepare.for_entry`).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from xdsl.dialects.builtin import IntegerType, ModuleOp, TensorType, f32, f64
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from qcomp.backends.xla_bounds import type_range
from qcomp.backends.xla_dots import is_unsigned_lhs_dot
from qcomp.backends.xla_rewrite import inserter, rewrite_once
from qcomp.dialects import stablehlo as sh
from qcomp.dialects.stablehlo.format import i64_array
from qcomp.interpreter.values import dense_to_array, element_type, numpy_dtype, shape_of
from qcomp.ir.splat import dense_attr, splat_attr

EXACT = ((f32, 1 << 24), (f64, 1 << 53))
"""Float types and the largest magnitude up to which they hold every integer."""

FLOAT_MAX_K = 512
"""Only contractions of at most this many products per result go to float: on longer
ones XLA's own int8 kernels (YNNPACK) were the faster (measured on this machine: K = 576
and 1024 slower as f32; K <= 336, MobileNetV2's, faster)."""

DEPTHWISE_MAX_TAPS = 64
"""Depthwise kernels of more positions than this stay convolutions (the element-wise
form emits five ops per position)."""

_VIEWS = (sh.ReshapeOp, sh.TransposeOp, sh.BroadcastInDimOp)


class FloatContraction(RewritePattern):
    """An integer convolution / dot_general whose float result is exact (module
    docstring) -> the same contraction in that float type between converts."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, sh.ConvolutionOp | sh.DotGeneralOp):
            return
        ft = _exact_float_type(op)
        if ft is None:
            return
        add = inserter(rewriter)
        out = op.results[0].type
        operands = [add(sh.ConvertOp(v, TensorType(ft, shape_of(v.type)))) for v in op.operands]
        new = add(type(op).create(operands=operands, result_types=[TensorType(ft, shape_of(out))],
                                  properties=dict(op.properties), attributes=dict(op.attributes)))
        rewriter.replace(op, sh.ConvertOp(new, out))


def float_contractions(module: ModuleOp) -> int:
    """Rewrite every integer convolution / dot_general of `module` whose float result is
    exact (`FloatContraction`); returns how many were rewritten."""
    return rewrite_once(module, FloatContraction())


def _exact_float_type(op: Operation) -> Attribute | None:
    """The narrowest float type (`EXACT`) in which every partial sum of the integer
    contraction `op` is exact, or None when it has none or is not such a contraction."""
    a, b = op.operands
    out = op.results[0].type
    if not all(_is_int(t) for t in (a.type, b.type, out)) or is_unsigned_lhs_dot(op):
        return None
    if contraction_size(op) > FLOAT_MAX_K:
        return None
    bound = contraction_bound(op)
    if bound is None:
        return None
    out_dt = numpy_dtype(element_type(out))
    if bound > np.iinfo(out_dt).max:
        return None
    return next((t for t, limit in EXACT if bound <= limit), None)


def _contracted(op: Operation) -> tuple[int, ...]:
    """The dimensions of `op`'s second operand (kernel, rhs) summed over."""
    if isinstance(op, sh.ConvolutionOp):
        d = op.dimension_numbers
        return (*d.kernel_spatial_dimensions, d.kernel_input_feature_dimension)
    return tuple(op.dot_dimension_numbers.rhs_contracting_dimensions)


def contraction_size(op: Operation) -> int:
    """K: the number of products summed into each result element."""
    shape = shape_of(op.operands[1].type)
    return int(np.prod([shape[i] for i in _contracted(op)], dtype=np.int64))


def contraction_bound(op: Operation) -> int | None:
    """The bound on every partial sum of `op`'s products (module docstring), or None
    when an operand's magnitude is not known."""
    a, b = op.operands
    amax = _absmax(a)
    if amax is None:
        return None
    b_contracted = _contracted(op)
    weights = _constant(b)
    if weights is not None:
        mags = np.abs(weights.astype(np.int64))
        per_out = mags.sum(axis=b_contracted) if b_contracted else mags
        return amax * int(per_out.max(initial=0))
    bmax = _absmax(b)
    if bmax is None:
        return None
    return amax * bmax * contraction_size(op)


def _absmax(v: SSAValue) -> int | None:
    """A bound on `|v|`: its constant's values, else its integer type's range, narrowed
    by the operand of a view or integer convert that produces it."""
    c = _constant(v)
    if c is not None:
        return int(np.abs(c.astype(np.int64)).max(initial=0))
    if not _is_int(v.type):
        return None
    info = np.iinfo(numpy_dtype(element_type(v.type)))
    own = max(abs(int(info.min)), int(info.max))
    src = v.owner
    if isinstance(src, (sh.ConvertOp, *_VIEWS)) and _is_int(src.operands[0].type):
        inner = _absmax(src.operands[0])
        return own if inner is None else min(own, inner)
    return own


def _constant(v: SSAValue) -> np.ndarray | None:
    """The values of an integer constant `v`, or of the constant that an integer convert
    which keeps every value (a widening one: 16x8 models' `convert(i8 kernel) : i32`)
    produces `v` from; else None."""
    src = v.owner
    if isinstance(src, sh.ConstantOp) and _is_int(v.type):
        return dense_to_array(src.value, v.type)
    if isinstance(src, sh.ConvertOp) and _is_int(v.type) and _is_int(src.operands[0].type):
        (n_lo, n_hi), (w_lo, w_hi) = type_range(src.operands[0].type), type_range(v.type)
        if w_lo <= n_lo and n_hi <= w_hi:
            return _constant(src.operands[0])
    return None


def _is_int(t: Attribute) -> bool:
    e = element_type(t)
    return isinstance(e, IntegerType) and e.width.data > 1


class DepthwiseAsElementwise(RewritePattern):
    """A depthwise convolution -> the sum of its windows times the kernel's taps
    (`depthwise_as_elementwise`)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: sh.ConvolutionOp, rewriter: PatternRewriter) -> None:
        taps = _depthwise_taps(op)
        if taps is None:
            return
        rewriter.replace(op, [], [_depthwise_sum(op, *taps, inserter(rewriter))])


def depthwise_as_elementwise(module: ModuleOp) -> int:
    """Rewrite each depthwise convolution (one input feature per group, as many groups
    as input features, one output feature per group, no input dilation, the input's and
    the output's dimensions in the same order, at most `DEPTHWISE_MAX_TAPS` kernel
    positions) as the sum over kernel positions `p` of
    `convert(slice_p(lhs)) * broadcast(w[p])` (`slice_p` the strided window of position
    `p`, `w[p]` the kernel's taps there: constants, or a slice of the kernel):

    - integer (any widths): the same integer arithmetic, which wraps as the
      convolution's does, so any order of the additions gives the same bits;
    - float (f32 or f64, operands and result of one type): the same products summed in
      kernel-position order in that type. XLA's CPU backend runs a grouped float
      convolution through a slow general loop (a 3x3 depthwise convolution of 32
      channels on 112x112: 8.4 ms against 0.16 ms as this sum; float convolutions are
      not bit for bit the interpreter on XLA in either form, `facts.XLA_SUM_ORDER`).

    Returns how many were rewritten (`DepthwiseAsElementwise`)."""
    return rewrite_once(module, DepthwiseAsElementwise())


def _depthwise_taps(op: sh.ConvolutionOp) -> tuple[tuple[int, ...], np.ndarray | None] | None:
    """For a depthwise convolution `depthwise_as_elementwise` takes: the kernel's
    spatial extent and its constant taps ordered (spatial..., feature) (None when the
    kernel is not a constant: its taps are sliced from it); else None."""
    lhs, rhs = op.operands
    out = op.results[0].type
    floats = {element_type(t) for t in (lhs.type, rhs.type, out)}
    if not (all(_is_int(t) for t in (lhs.type, rhs.type, out)) or floats in ({f32}, {f64})):
        return None
    d = op.dimension_numbers
    in_order = (d.input_batch_dimension, *d.input_spatial_dimensions, d.input_feature_dimension)
    out_order = (d.output_batch_dimension, *d.output_spatial_dimensions, d.output_feature_dimension)
    channels = shape_of(lhs.type)[d.input_feature_dimension]
    if (in_order != out_order or op.batch_group_count != 1 or op.feature_group_count != channels
            or any(v != 1 for v in op.lhs_dilation) or any(op.window_reversal)
            or any(s < 0 for s in (*shape_of(lhs.type), *shape_of(out)))
            or shape_of(rhs.type)[d.kernel_input_feature_dimension] != 1
            or shape_of(rhs.type)[d.kernel_output_feature_dimension] != channels):
        return None
    kernel = shape_of(rhs.type)
    spatial = tuple(kernel[i] for i in d.kernel_spatial_dimensions)
    if int(np.prod(spatial)) > DEPTHWISE_MAX_TAPS:
        return None
    w = _constant(rhs)
    if w is None:
        return spatial, None
    return spatial, np.transpose(w, (*d.kernel_spatial_dimensions, d.kernel_input_feature_dimension,
                                     d.kernel_output_feature_dimension))[..., 0, :]


def _depthwise_sum(op: sh.ConvolutionOp, spatial: tuple[int, ...], w: np.ndarray | None,
                   add: Callable[[Operation], SSAValue]) -> SSAValue:
    """`op` as the sum over its kernel's `spatial` positions of window times taps (`w`
    or slices of the kernel: `_depthwise_taps`), its ops emitted by `add`; the value that
    replaces `op`'s result."""
    lhs, rhs = op.operands
    out_t = op.results[0].type
    out_e = element_type(out_t)
    out_shape = shape_of(out_t)
    d = op.dimension_numbers
    if any(lo or hi for lo, hi in op.padding):
        rank = len(shape_of(lhs.type))
        low, high = [0] * rank, [0] * rank
        for dim, (lo, hi) in zip(d.input_spatial_dimensions, op.padding):
            low[dim], high[dim] = lo, hi
        zero = add(sh.ConstantOp(splat_attr(TensorType(element_type(lhs.type), []), 0)))
        lhs = add(sh.PadOp.create(operands=[lhs, zero], result_types=[TensorType(
            element_type(lhs.type), [s + lo + hi for s, lo, hi in zip(shape_of(lhs.type), low, high)])],
            properties={"edge_padding_low": i64_array(low), "edge_padding_high": i64_array(high),
                        "interior_padding": i64_array([0] * rank)}))
    in_shape, kernel = shape_of(lhs.type), shape_of(rhs.type)
    channels = out_shape[d.output_feature_dimension]
    vec_t = TensorType(out_e, [channels])
    acc: SSAValue | None = None
    wdt = numpy_dtype(out_e).newbyteorder("<")
    for pos in np.ndindex(*spatial):
        start, limit, strides = [0] * len(in_shape), list(in_shape), [1] * len(in_shape)
        for k, dim in enumerate(d.input_spatial_dimensions):
            out_dim = d.output_spatial_dimensions[k]
            start[dim] = pos[k] * op.rhs_dilation[k]
            strides[dim] = op.window_strides[k]
            limit[dim] = start[dim] + (out_shape[out_dim] - 1) * strides[dim] + 1
        window = add(sh.SliceOp(lhs, start, limit, strides))
        wide = window if element_type(window.type) == out_e else \
            add(sh.ConvertOp(window, TensorType(out_e, out_shape)))
        if w is not None:
            vec = add(sh.ConstantOp(dense_attr(vec_t, w[pos].astype(wdt).tobytes())))
        else:  # the kernel's taps at `pos`: a slice of it, as a vector of the features
            k_start, k_limit = [0] * len(kernel), list(kernel)
            for k, dim in enumerate(d.kernel_spatial_dimensions):
                k_start[dim], k_limit[dim] = pos[k], pos[k] + 1
            tap = add(sh.SliceOp(rhs, k_start, k_limit, [1] * len(kernel)))
            vec = add(sh.ReshapeOp(tap, TensorType(element_type(rhs.type), [channels])))
            if element_type(rhs.type) != out_e:
                vec = add(sh.ConvertOp(vec, vec_t))
        wb = add(sh.BroadcastInDimOp(vec, [d.output_feature_dimension], TensorType(out_e, out_shape)))
        term = add(sh.MultiplyOp(wide, wb, TensorType(out_e, out_shape)))
        acc = term if acc is None else add(sh.AddOp(acc, term, TensorType(out_e, out_shape)))
    assert acc is not None
    return acc

