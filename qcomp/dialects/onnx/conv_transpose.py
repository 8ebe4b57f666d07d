"""onnx-mlir's ConvTranspose, declared the "Adding an ONNX op" way (docs/design.md):

    Y[n, m, o] = B[m] + sum over c in group(m), k with s*i + d*k - pad_begin = o of
                 X[n, c, i] * W[c, m', k]          (X: N x C x D..., W: C x M/group x K...)

Output size per spatial dimension: `s * (in - 1) + output_padding + (k - 1) * d + 1 -
pad_begin - pad_end`. With `output_shape` (or auto_pad SAME_UPPER / SAME_LOWER, whose
output_shape is `in * s`) the pads are derived: `total = s * (in - 1) + output_padding
+ (k - 1) * d + 1 - output_shape` (auto_pad: at least 0, as onnxruntime and onnx's
shape inference take it; the reference evaluator pads negatively), the odd one at the
end for SAME_UPPER, at the beginning otherwise (the spec's text; onnxruntime's
`ComputeTransposePadAndOutputShape`).

Lowering: `stablehlo.convolution` of X with the kernel reversed along its spatial
dimensions (`stablehlo.reverse`) and the stride as lhs_dilation, padding
`(k - 1) * d - pad_begin` and `(k - 1) * d - pad_end + output_padding`, the dilation
as rhs_dilation; W's layout `[i, o, 0, 1]` (group 1) or, grouped, W reshaped to
group x C/group x M/group x K, transposed to group x M/group x C/group x K and
reshaped to M x C/group x K (`feature_group_count = group`); the bias broadcast and added.

Quantized: onnxruntime has no QLinear form (its QOperator quantizer leaves it float
between DequantizeLinear and the next QuantizeLinear) and its QDQ transformers do not
fuse it (no ConvTranspose rule in `qdq_selector_action_transformer.cc`): its
`QdqRole` is `keep`.
"""

from __future__ import annotations

from xdsl.dialects.builtin import ArrayAttr, IntegerAttr, StringAttr, i64
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    result_def,
    traits_def,
)
from xdsl.traits import NoMemoryEffect

from qcomp.dialects import stablehlo as sh
from qcomp.dialects.facts import NO_QUANTIZATION
from qcomp.dialects.onnx import float_shapes as fs
from qcomp.dialects.onnx import to_stablehlo as ts
from qcomp.dialects.onnx.core import (
    Lowering,
    OnnxFacts,
    QdqRole,
    attr,
    elements_in,
    is_none,
    static_shape,
    verify_int_attr,
)
from qcomp.dialects.onnx.float_common import (
    FLOAT_T,
    OnnxOp,
    _same_element,
    _shapes,
    _verify_ints_attr,
    _window_attrs,
    ints_attr,
)
from qcomp.dialects.stablehlo.attrs import ConvDimensionNumbersAttr
from qcomp.dialects.stablehlo.format import i64_array, padding_attr


def transpose_window(op, x: list[int], w: list[int]
                     ) -> tuple[list[tuple[int, int]], list[int], list[int], list[int]]:
    """(pads (begin, end), output spatial sizes, strides, dilations) of ConvTranspose."""
    n = len(x) - 2
    k = list(ints_attr(op, "kernel_shape") or w[2:])
    s = list(ints_attr(op, "strides") or [1] * n)
    d = list(ints_attr(op, "dilations") or [1] * n)
    op_ = list(ints_attr(op, "output_padding") or [0] * n)
    p = list(ints_attr(op, "pads") or [0] * (2 * n))
    shape = ints_attr(op, "output_shape")
    if any(len(v) != n for v in (k, s, d, op_)) or len(p) != 2 * n:
        raise fs.ShapeError(f"kernel_shape, strides, dilations, output_padding must have {n} "
                            f"values and pads {2 * n}")
    if any(v < 1 for v in (*s, *d, *k)):
        raise fs.ShapeError("kernel_shape, strides and dilations must be positive")
    if any(v < 0 for v in p):
        raise fs.ShapeError("pads must be non-negative")
    auto = attr(op, "auto_pad")
    if shape is not None and len(shape) not in (n, n + 2):
        raise fs.ShapeError(f"output_shape must have {n} values")
    explicit = shape is not None
    if shape is not None:
        shape = list(shape)[-n:]
    elif auto in ("SAME_UPPER", "SAME_LOWER"):
        shape = [v * st for v, st in zip(x[2:], s)]
    full = [st * (v - 1) + o + (kk - 1) * dd + 1 for v, st, o, kk, dd in zip(x[2:], s, op_, k, d)]
    if shape is not None:
        pads = []
        for f, want in zip(full, shape):
            # auto_pad's total padding is never negative (onnxruntime, onnx's shape
            # inference: the output is then shorter than in * s)
            total = f - want if explicit else max(0, f - want)
            half = total // 2
            pads.append((half, total - half) if auto == "SAME_UPPER" else (total - half, half))
    elif auto == "VALID":
        pads = [(0, 0)] * n
    else:
        pads = [(p[i], p[i + n]) for i in range(n)]
    out = [f - lo - hi for f, (lo, hi) in zip(full, pads)]
    if any(o < 1 for o in out):
        raise fs.ShapeError(f"the output size {out} is not positive")
    return pads, out, s, d


def conv_transpose(b, op, out):
    """`stablehlo.convolution` of X with the reversed kernel, lhs_dilation = strides
    (module docstring); the bias broadcast and added."""
    e = ts.element_of(op.Y)
    x, w = list(ts.static(op.X, op)), list(ts.static(op.W, op))
    try:
        pads, _, strides, dil = transpose_window(op, x, w)
    except fs.ShapeError as err:
        raise ts.Unsupported(f"{ts.PASS}: ConvTranspose: {err}") from None
    g = attr(op, "group")
    n = len(x) - 2
    sp = list(range(2, 2 + n))
    k = w[2:]
    kernel = b.op(sh.ReverseOp, [op.W], e, tuple(w), dimensions=i64_array(sp))
    if g == 1:
        dn = ConvDimensionNumbersAttr.get(0, 1, sp, 0, 1, sp, 0, 1, sp)
    else:
        c, mg = w[0] // g, w[1]
        kernel = b.reshape(kernel, (g, c, mg, *k))
        kernel = b.op(sh.TransposeOp, [kernel], e, (g, mg, c, *k),
                      permutation=i64_array([0, 2, 1, *range(3, 3 + n)]))
        kernel = b.reshape(kernel, (g * mg, c, *k))
        dn = ConvDimensionNumbersAttr.get(0, 1, sp, 1, 0, sp, 0, 1, sp)
    op_pad = list(ints_attr(op, "output_padding") or [0] * n)
    span = [(kk - 1) * dd for kk, dd in zip(k, dil)]
    padding = [(sp_ - lo, sp_ - hi + o) for sp_, (lo, hi), o in zip(span, pads, op_pad)]
    y = b.op(sh.ConvolutionOp, [op.X, kernel], e, out, dimension_numbers=dn,
             window_strides=i64_array([1] * n), padding=padding_attr(padding),
             lhs_dilation=i64_array(strides), rhs_dilation=i64_array(dil),
             feature_group_count=IntegerAttr(g, i64), batch_group_count=IntegerAttr(1, i64))
    if is_none(op.B):
        return y
    return b.op(sh.AddOp, [y, b.broadcast_in_dim(op.B, out, [1])], e, out)


@irdl_op_definition
class ConvTransposeOp(OnnxOp):
    """`Y = B + X convolved transposed with W` (see the module docstring)."""

    name = "onnx.ConvTranspose"
    X = operand_def()
    W = operand_def()
    B = operand_def()
    auto_pad = opt_prop_def(StringAttr)
    dilations = opt_prop_def(ArrayAttr)
    group = opt_prop_def(IntegerAttr)
    kernel_shape = opt_prop_def(ArrayAttr)
    output_padding = opt_prop_def(ArrayAttr)
    output_shape = opt_prop_def(ArrayAttr)
    pads = opt_prop_def(ArrayAttr)
    strides = opt_prop_def(ArrayAttr)
    Y = result_def()
    traits = traits_def(NoMemoryEffect(), NO_QUANTIZATION, OnnxFacts(
        "ConvTranspose", (1, 11, 22), ("X", "W", "B?"), ("Y",),
        {"auto_pad": "NOTSET", "group": 1}),
        Lowering(conv_transpose), QdqRole("keep"))

    def check(self) -> None:
        for i, v in enumerate((self.X, self.W)):
            elements_in(self, v, f"operand #{i}", FLOAT_T)
        elements_in(self, self.B, "operand #2", FLOAT_T, optional=True)
        verify_int_attr(self, "group")
        _window_attrs(self)
        for a in ("output_padding", "output_shape"):
            _verify_ints_attr(self, a)
        _same_element(self, [v for v in (self.X, self.W, self.B, self.Y) if not is_none(v)])

    def infer(self):
        s = _shapes(self.X, self.W)
        if s is None:
            return None
        x, w = s
        g = attr(self, "group")
        if len(x) < 3 or len(w) != len(x):
            raise fs.ShapeError("X and W must have the same rank (at least 3)")
        if g < 1 or (x[1] >= 0 and w[0] >= 0 and x[1] != w[0]):
            raise fs.ShapeError(f"X has {x[1]} channels, W's first dimension {w[0]}")
        if w[0] >= 0 and w[0] % g:
            raise fs.ShapeError(f"W's {w[0]} input channels are not divisible by group {g}")
        if not is_none(self.B):
            bs = static_shape(self.B)
            if bs is not None and (len(bs) != 1 or (bs[0] >= 0 and w[1] >= 0
                                                    and bs[0] != w[1] * g)):
                raise fs.ShapeError(f"B must be 1-D with {w[1] * g} output channels")
        if any(d < 0 for d in (*x[2:], *w[1:])):
            return None
        _, out, _, _ = transpose_window(self, x, w)
        return (x[0], w[1] * g, *out)


CONV_TRANSPOSE_OPS: list[type[IRDLOperation]] = [ConvTransposeOp]
