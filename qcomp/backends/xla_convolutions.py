"""Pointwise (1x1) integer convolutions as dot_generals, for XLA's int8 dot kernels.

A convolution whose kernel has size 1 in every spatial dimension, with unit strides, no
padding and no lhs dilation, one feature group and one batch group, is a matrix
product over the input features at each (batch, spatial...) position. When its input
and output list their dimensions in the same order with the feature last (NHWC), it is

    reshape(dot_general(reshape(x) : [N*H*W, C], W : [C, O]) : [N*H*W, O]) : [N, H, W, O]

the same products summed (integer arithmetic: any order, wrapping alike), so the same
bits. `pointwise_as_dots` rewrites the `i8 x i8 -> i32` ones with a constant kernel,
for `xla_dots.unsigned_lhs_dots` to hand to XLA's VNNI kernels (only where the
preparation asks for those dots: `xla_prepare.for_entry(unsigned_dots=True)`). The
interpreter is not changed.
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import IntegerType, ModuleOp, Signedness, TensorType
from xdsl.ir import Operation, SSAValue

from qcomp.dialects import stablehlo as sh
from qcomp.dialects.stablehlo.attrs import DotDimensionNumbersAttr
from qcomp.interpreter.values import dense_to_array, element_type, shape_of
from qcomp.ir.splat import dense_attr


def pointwise_as_dots(module: ModuleOp) -> int:
    """Rewrite each pointwise `i8 x i8 -> i32` convolution with a constant kernel (module
    docstring); returns how many."""
    n = 0
    for op in list(module.walk()):
        if isinstance(op, sh.ConvolutionOp) and _kernel(op) is not None:
            _rewrite(op)
            n += 1
    return n


def _is_i(t, width: int) -> bool:
    """A signed / signless integer element type of `width` bits."""
    e = element_type(t)
    return isinstance(e, IntegerType) and e.width.data == width and \
        e.signedness.data != Signedness.UNSIGNED


def _kernel(op: sh.ConvolutionOp) -> np.ndarray | None:
    """The kernel as a [C, O] matrix, or None when `op` is not such a convolution."""
    lhs, rhs = op.operands
    if not (_is_i(lhs.type, 8) and _is_i(rhs.type, 8) and _is_i(op.results[0].type, 32)):
        return None
    d = op.dimension_numbers
    rank = len(shape_of(lhs.type))
    in_order = (d.input_batch_dimension, *d.input_spatial_dimensions, d.input_feature_dimension)
    out_order = (d.output_batch_dimension, *d.output_spatial_dimensions, d.output_feature_dimension)
    kshape = shape_of(rhs.type)
    if (in_order != out_order or d.input_feature_dimension != rank - 1
            or op.feature_group_count != 1 or op.batch_group_count != 1
            or any(kshape[i] != 1 for i in d.kernel_spatial_dimensions)
            or any(s != 1 for s in op.window_strides) or any(v != 1 for v in op.lhs_dilation)
            or any(lo or hi for lo, hi in op.padding) or any(op.window_reversal)
            or not isinstance(rhs.owner, sh.ConstantOp)):
        return None
    w = dense_to_array(rhs.owner.value, rhs.type)
    return np.transpose(w, (d.kernel_input_feature_dimension, d.kernel_output_feature_dimension,
                            *d.kernel_spatial_dimensions)).reshape(kshape[d.kernel_input_feature_dimension],
                                                                   kshape[d.kernel_output_feature_dimension])


def _rewrite(op: sh.ConvolutionOp) -> None:
    w = _kernel(op)
    assert w is not None
    x = op.operands[0]
    out_t = op.results[0].type
    block = op.parent_block()
    assert block is not None

    def add(new: Operation) -> SSAValue:
        block.insert_op_before(new, op)
        return new.results[0]

    in_shape = shape_of(x.type)
    rows = int(np.prod(in_shape[:-1]))
    c, o = w.shape
    flat = add(sh.ReshapeOp(x, TensorType(element_type(x.type), [rows, c])))
    wt = TensorType(element_type(op.operands[1].type), [c, o])
    wv = add(sh.ConstantOp(dense_attr(wt, np.ascontiguousarray(w).astype("i1").tobytes())))
    dims = DotDimensionNumbersAttr.get(lhs_contracting=[1], rhs_contracting=[0])
    dot = add(sh.DotGeneralOp(flat, wv, dims, TensorType(element_type(out_t), [rows, o])))
    out = add(sh.ReshapeOp(dot, out_t))
    op.results[0].replace_all_uses_with(out)
    op.detach()
    op.erase()
