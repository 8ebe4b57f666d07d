"""Integer convolutions as dot_generals (im2col), for XLA's int8 dot kernels.

A convolution with one feature group and one batch group, no lhs dilation and no window
reversal, whose input and output list their dimensions in the same order with the
feature last (NHWC), is a matrix product of its input's windows with its kernel:

    p   = pad(x, 0, padding)                                  (when it pads)
    t_k = slice(p, k * rhs_dilation, stride = window_strides)  for each kernel position k
    r   = reshape(dot_general(reshape(concatenate(t_k..., dim = feature)) : [N*H'*W', T*C],
                              reshape(W) : [T*C, O]))          : [N, H', W', O]

(`T` kernel positions, the kernel's positions in row-major order and its input features
within each, as the concatenation lays out the window: `W` transposed to (spatial...,
input feature, output feature) at preparation). Each result element is the same sum of
the same products (integer arithmetic: any order, wrapping alike), so the same bits; a
padded position holds 0, as the convolution's padding. A pointwise (1x1, unit stride,
no padding) convolution is one window: `reshape(dot_general(reshape(x), W))`.

`convolutions_as_dots` rewrites the `i8 x i8 -> i32` ones with a constant kernel that
are pointwise (1x1, unit strides, no padding; MobileNetV2's 34), contract more than
`xla_contractions.FLOAT_MAX_K` products per result (those stay integer convolutions,
which XLA's CPU backend multiplies at the float rate) or have `DOT_MIN_ROWS` result rows
(batched ones, whose f32 convolution is the slower), straight into the `ui8 x i8` form
of `xla_dots` for XLA's VNNI kernels: `x` becomes `ui8` (`xla_dots.as_unsigned`, `x + 128`)
before the windows are cut, so the padding is `128` and the windows move bytes only
(XLA otherwise recomputes `x`'s producer in each window's slice), and the dot is
`xla_dots.unsigned_dot` (only where the preparation asks for those dots:
`xla_prepare.for_entry(unsigned_dots=True)`). The windows cost `T` times the
input's bytes (the benchmark's 3x3, 64 -> 64 convolution on 56x56: 1.8 MB of `ui8`).
The interpreter is not changed.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable

import numpy as np
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.ir import Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from qcomp.backends.xla_contractions import FLOAT_MAX_K
from qcomp.backends.xla_dots import SHIFT, as_unsigned, is_integer_type, unsigned_dot
from qcomp.backends.xla_rewrite import erase_unused, inserter, rewrite_once
from qcomp.dialects import stablehlo as sh
from qcomp.dialects.stablehlo.attrs import DotDimensionNumbersAttr
from qcomp.dialects.stablehlo.format import i64_array
from qcomp.interpreter.values import dense_to_array, element_type, shape_of
from qcomp.ir.splat import dense_attr, splat_attr


class ConvolutionAsDot(RewritePattern):
    """An `i8 x i8 -> i32` convolution the module docstring takes -> its windows' dot
    with the [T*C, O] kernel."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: sh.ConvolutionOp, rewriter: PatternRewriter) -> None:
        w = _kernel(op)
        if w is None:
            return
        kernel = op.operands[1].owner
        rewriter.replace(op, [], [_as_dot(op, w, inserter(rewriter))])
        erase_unused(rewriter, kernel)  # the kernel lives on as the [T*C, O] constant


def convolutions_as_dots(module: ModuleOp) -> int:
    """Rewrite each `i8 x i8 -> i32` convolution of `module` the module docstring takes
    (`ConvolutionAsDot`); returns how many."""
    return rewrite_once(module, ConvolutionAsDot())


DOT_MIN_ROWS = 4096
"""A short contraction (`FLOAT_MAX_K`) with at least this many result rows (`N*H'*W'`)
is a dot all the same: MobileNetV2's first convolution (3x3x3, 16384 rows at batch 64)
ran about 5% of the whole program faster as the int8 dot than as XLA's f32 convolution,
at batch 1 (256 rows) no faster."""


def _kernel(op: sh.ConvolutionOp) -> np.ndarray | None:
    """The kernel as a [T*C, O] matrix (module docstring), or None when `op` is not
    such a convolution."""
    lhs, rhs = op.operands
    if not (is_integer_type(lhs.type, 8) and is_integer_type(rhs.type, 8)
            and is_integer_type(op.results[0].type, 32)):
        return None
    d = op.dimension_numbers
    rank = len(shape_of(lhs.type))
    in_order = (d.input_batch_dimension, *d.input_spatial_dimensions, d.input_feature_dimension)
    out_order = (d.output_batch_dimension, *d.output_spatial_dimensions, d.output_feature_dimension)
    kshape = shape_of(rhs.type)
    if (in_order != out_order or d.input_feature_dimension != rank - 1
            or op.feature_group_count != 1 or op.batch_group_count != 1
            or any(v != 1 for v in op.lhs_dilation) or any(op.window_reversal)
            or any(s < 0 for s in (*shape_of(lhs.type), *shape_of(op.results[0].type)))
            or not isinstance(rhs.owner, sh.ConstantOp)):
        return None
    spatial = [kshape[i] for i in d.kernel_spatial_dimensions]
    c, o = kshape[d.kernel_input_feature_dimension], kshape[d.kernel_output_feature_dimension]
    pointwise = (all(k == 1 for k in spatial) and all(s == 1 for s in op.window_strides)
                 and not any(lo or hi for lo, hi in op.padding))
    rows = int(np.prod(shape_of(op.results[0].type))) // max(o, 1)
    if not pointwise and int(np.prod(spatial)) * c <= FLOAT_MAX_K and rows < DOT_MIN_ROWS:
        return None  # xla_contractions.float_contractions takes the short, small ones
    w = dense_to_array(rhs.owner.value, rhs.type)
    order = (*d.kernel_spatial_dimensions, d.kernel_input_feature_dimension, d.kernel_output_feature_dimension)
    return np.transpose(w, order).reshape(-1, o)


def _windows(op: sh.ConvolutionOp, add) -> SSAValue:
    """The concatenated windows of `op`'s input plus 128, `ui8` [N, H', W', T*C] (module
    docstring)."""
    x = as_unsigned(op.operands[0], add)
    d = op.dimension_numbers
    e = element_type(x.type)
    in_shape, out_shape = shape_of(x.type), shape_of(op.results[0].type)
    dims = d.input_spatial_dimensions
    if any(lo or hi for lo, hi in op.padding):
        low, high = [0] * len(in_shape), [0] * len(in_shape)
        for i, (lo, hi) in zip(dims, op.padding):
            low[i], high[i] = lo, hi
        padded = [s + low[i] + high[i] for i, s in enumerate(in_shape)]
        zero = add(sh.ConstantOp(splat_attr(TensorType(e, []), SHIFT)))  # 0 + 128
        x = add(sh.PadOp.create(operands=[x, zero], result_types=[TensorType(e, padded)], properties={
            "edge_padding_low": i64_array(low), "edge_padding_high": i64_array(high),
            "interior_padding": i64_array([0] * len(in_shape))}))
        in_shape = padded
    kshape = shape_of(op.operands[1].type)
    spatial = [kshape[i] for i in d.kernel_spatial_dimensions]
    taps = []
    for k in itertools.product(*(range(n) for n in spatial)):
        start, limit, strides = [0] * len(in_shape), list(in_shape), [1] * len(in_shape)
        for j, i in enumerate(dims):
            start[i] = k[j] * op.rhs_dilation[j]
            limit[i] = start[i] + (out_shape[i] - 1) * op.window_strides[j] + 1
            strides[i] = op.window_strides[j]
        if start == [0] * len(in_shape) and limit == list(in_shape) and strides == [1] * len(in_shape):
            taps.append(x)
        else:
            taps.append(add(sh.SliceOp(x, start, limit, strides)))
    return taps[0] if len(taps) == 1 else add(sh.ConcatenateOp(taps, len(in_shape) - 1))


def _as_dot(op: sh.ConvolutionOp, w: np.ndarray, add: Callable[[Operation], SSAValue]) -> SSAValue:
    """`op`'s windows' dot with `w` (`_kernel`: the [T*C, O] kernel), its ops emitted by
    `add`; the value that replaces `op`'s result."""
    out_t = op.results[0].type
    windows = _windows(op, add)
    rows = int(np.prod(shape_of(out_t)[:-1]))
    k, o = w.shape
    flat = add(sh.ReshapeOp(windows, TensorType(element_type(windows.type), [rows, k])))
    wt = TensorType(element_type(op.operands[1].type), [k, o])
    wv = add(sh.ConstantOp(dense_attr(wt, np.ascontiguousarray(w).astype("i1").tobytes())))
    dims = DotDimensionNumbersAttr.get(lhs_contracting=[1], rhs_contracting=[0])
    dot = unsigned_dot(flat, wv, w, dims, TensorType(element_type(out_t), [rows, o]), add)
    return add(sh.ReshapeOp(dot, out_t))
