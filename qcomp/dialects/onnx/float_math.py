"""onnx-mlir's elementwise math, comparisons and normalizations of the model zoo's float
models (BERT, GPT, MobileNet, BatchNormalization kept): Neg, Exp, Sqrt, Erf, Pow,
HardSigmoid, HardSwish, Equal, Less, Greater, Where, BatchNormalization (inference),
LayerNormalization (Y only) and ReduceMean, declared the "Adding an ONNX op" way
(docs/design.md): each class states its ONNX facts and its StableHLO lowering, which
the interpreter runs too.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np
from xdsl.dialects.builtin import FloatAttr, IntegerAttr, i1
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    result_def,
    traits_def,
    var_result_def,
)
from xdsl.traits import NoMemoryEffect

from qcomp.dialects import chlo
from qcomp.dialects import stablehlo as sh
from qcomp.dialects.facts import NO_QUANTIZATION
from qcomp.dialects.onnx import float_shapes as fs
from qcomp.dialects.onnx import to_stablehlo as ts
from qcomp.dialects.onnx.core import (
    Lowering,
    NoValueOp,
    OnnxFacts,
    QdqRole,
    attr,
    elements_in,
    fail,
    is_none,
    static_shape,
)
from qcomp.dialects.onnx.float_common import (
    ARITH_T,
    FLOAT_T,
    OnnxOp,
    _same_element,
    _shapes,
    const_ints,
)
from qcomp.dialects.onnx.float_ops import BinaryOp, UnaryOp
from qcomp.dialects.onnx.reduce_ops import _REDUCE_FACTS, _Reduce

SIGNED_T = ("float", "int32", "int8", "int16", "int64", "float16", "double", "bfloat16")
CMP_T = (*ARITH_T, "bool")


# -- elementwise ------------------------------------------------------------------------------

def hard_sigmoid(b, op, out, x=None):
    """`clamp(0, alpha * x + beta, 1)`."""
    e = ts.element_of(op.results[0])
    x = op.X if x is None else x
    y = b.op(sh.MultiplyOp, [x, b.splat(attr(op, "alpha"), e, out)], e, out)
    y = b.op(sh.AddOp, [y, b.splat(attr(op, "beta"), e, out)], e, out)
    return b.op(sh.ClampOp, [b.constant(np.array(0.0), e), y, b.constant(np.array(1.0), e)],
                e, out)


def hard_swish(b, op, out):
    """`x * clamp(0, x / 6 + 1/2, 1)` (HardSigmoid with alpha = 1/6, beta = 1/2)."""
    e = ts.element_of(op.Y)
    return b.op(sh.MultiplyOp, [op.X, hard_sigmoid(b, op, out)], e, out)


@irdl_op_definition
class NegOp(UnaryOp):
    """`Y = -X`."""

    name = "onnx.Neg"
    ALLOWED: ClassVar[tuple[str, ...]] = SIGNED_T
    X = operand_def()
    Y = result_def()
    traits = traits_def(NoMemoryEffect(), NO_QUANTIZATION,
                        OnnxFacts("Neg", (1, 6, 13), ("X",), ("Y",)),
                        Lowering(ts.unary(sh.NegateOp)))


@irdl_op_definition
class ExpOp(UnaryOp):
    """`output = e^input`."""

    name = "onnx.Exp"
    input = operand_def()
    output = result_def()
    traits = traits_def(NoMemoryEffect(), NO_QUANTIZATION,
                        OnnxFacts("Exp", (1, 6, 13), ("input",), ("output",)),
                        Lowering(ts.unary(sh.ExponentialOp)))


@irdl_op_definition
class SqrtOp(UnaryOp):
    """`Y = sqrt(X)`."""

    name = "onnx.Sqrt"
    X = operand_def()
    Y = result_def()
    traits = traits_def(NoMemoryEffect(), NO_QUANTIZATION,
                        OnnxFacts("Sqrt", (1, 6, 13), ("X",), ("Y",)),
                        Lowering(ts.unary(sh.SqrtOp)))


@irdl_op_definition
class ErfOp(UnaryOp):
    """`output = erf(input) = 2/sqrt(pi) * integral_0^input exp(-t^2) dt` (chlo.erf)."""

    name = "onnx.Erf"
    input = operand_def()
    output = result_def()
    traits = traits_def(NoMemoryEffect(), NO_QUANTIZATION,
                        OnnxFacts("Erf", (9, 13), ("input",), ("output",)),
                        Lowering(ts.unary(chlo.ErfOp)))


@irdl_op_definition
class HardSigmoidOp(UnaryOp):
    """`Y = max(0, min(1, alpha * X + beta))`."""

    name = "onnx.HardSigmoid"
    X = operand_def()
    alpha = opt_prop_def(FloatAttr)
    beta = opt_prop_def(FloatAttr)
    Y = result_def()
    traits = traits_def(NoMemoryEffect(), NO_QUANTIZATION, OnnxFacts(
        "HardSigmoid", (1, 6, 22), ("X",), ("Y",), {"alpha": 0.2, "beta": 0.5}),
        Lowering(hard_sigmoid))


@irdl_op_definition
class HardSwishOp(UnaryOp):
    """`Y = X * max(0, min(1, X / 6 + 1/2))`."""

    name = "onnx.HardSwish"
    X = operand_def()
    Y = result_def()
    traits = traits_def(NoMemoryEffect(), NO_QUANTIZATION, OnnxFacts(
        "HardSwish", (14, 22), ("X",), ("Y",), {"alpha": 1 / 6, "beta": 0.5}),
        Lowering(hard_swish))


def power(b, op, out):
    e = ts.element_of(op.Z)
    return b.op(sh.PowerOp, [b.numpy_broadcast(op.X, out), b.numpy_broadcast(op.Y, out)], e, out)


@irdl_op_definition
class PowOp(OnnxOp):
    """`Z = X ^ Y`, NumPy broadcasting (qcomp: X and Y of one element type)."""

    name = "onnx.Pow"
    X = operand_def()
    Y = operand_def()
    Z = result_def()
    traits = traits_def(NoMemoryEffect(), NO_QUANTIZATION,
                        OnnxFacts("Pow", (1, 7, 12, 13, 15), ("X", "Y"), ("Z",)),
                        Lowering(power))

    def check(self) -> None:
        elements_in(self, self.X, "operand #0", ("float", "double", "float16", "bfloat16"))
        _same_element(self, [self.X, self.Y, self.Z])

    def infer(self):
        s = _shapes(self.X, self.Y)
        return None if s is None else fs.broadcast(*s)


# -- comparisons and select ---------------------------------------------------------------------

def _compare(direction: str):
    def lower(b, op, out):
        return b.emit(sh.CompareOp(b.numpy_broadcast(op.A, out), b.numpy_broadcast(op.B, out),
                                   direction))
    lower.__doc__ = f"`compare {direction}` of A and B broadcast NumPy-style."
    return lower


class CompareOp(BinaryOp):
    """`C = A op B` (bool), NumPy broadcasting."""

    def check(self) -> None:
        elements_in(self, self.A, "operand #0", CMP_T)
        _same_element(self, [self.A, self.B])
        if self.C.type.element_type != i1:  # type: ignore[attr-defined]
            fail(f"'{self.name}' op result must be a tensor of bool")


@irdl_op_definition
class EqualOp(CompareOp):
    """`C = A == B`."""

    name = "onnx.Equal"
    traits = traits_def(NoMemoryEffect(), NO_QUANTIZATION,
                        OnnxFacts("Equal", (1, 7, 11, 13, 19), ("A", "B"), ("C",)),
                        Lowering(_compare("EQ")))


@irdl_op_definition
class LessOp(CompareOp):
    """`C = A < B`."""

    name = "onnx.Less"
    traits = traits_def(NoMemoryEffect(), NO_QUANTIZATION,
                        OnnxFacts("Less", (1, 7, 9, 13), ("A", "B"), ("C",)),
                        Lowering(_compare("LT")))


@irdl_op_definition
class GreaterOp(CompareOp):
    """`C = A > B`."""

    name = "onnx.Greater"
    traits = traits_def(NoMemoryEffect(), NO_QUANTIZATION,
                        OnnxFacts("Greater", (1, 7, 9, 13), ("A", "B"), ("C",)),
                        Lowering(_compare("GT")))


def where(b, op, out):
    """`select` of the three operands broadcast NumPy-style."""
    return b.op(sh.SelectOp, [b.numpy_broadcast(v, out) for v in (op.condition, op.X, op.Y)],
                ts.element_of(op.output), out)


@irdl_op_definition
class WhereOp(OnnxOp):
    """`output = condition ? X : Y`, NumPy broadcasting of all three."""

    name = "onnx.Where"
    condition = operand_def()
    X = operand_def()
    Y = operand_def()
    output = result_def()
    traits = traits_def(NoMemoryEffect(), NO_QUANTIZATION,
                        OnnxFacts("Where", (9, 16), ("condition", "X", "Y"), ("output",)),
                        Lowering(where), QdqRole("where", "QLinearWhere", data_inputs=(1, 2)))

    def check(self) -> None:
        elements_in(self, self.condition, "operand #0", ("bool",))
        _same_element(self, [self.X, self.Y, self.output])

    def infer(self):
        s = _shapes(self.condition, self.X, self.Y)
        return None if s is None else fs.broadcast(fs.broadcast(s[0], s[1]), s[2])


# -- normalizations and ReduceMean --------------------------------------------------------------

def per_channel(op, x_value, x_name: str, operands) -> None:
    """Operands 1, 2, ... are 1-D with `x_value`'s dimension-1 size (its channels)."""
    x = static_shape(x_value)
    for i, v in enumerate(operands, 1):
        s = static_shape(v)
        if s is not None and x is not None and len(x) > 1 and (
                len(s) != 1 or (s[0] >= 0 and x[1] >= 0 and s[0] != x[1])):
            fail(f"'{op.name}' op operand #{i} must be 1-D with {x_name}'s {x[1]} channels")


def _per_channel(b, v, out):
    return b.broadcast_in_dim(v, out, [1])


def batch_norm(b, op, out):
    """`(X - mean) / sqrt(var + epsilon) * scale + B`, per channel (dimension 1)."""
    e = ts.element_of(op.Y)
    d = b.op(sh.SubtractOp, [op.X, _per_channel(b, op.input_mean, out)], e, out)
    var = b.op(sh.AddOp, [_per_channel(b, op.input_var, out),
                          b.splat(attr(op, "epsilon"), e, out)], e, out)
    y = b.op(sh.DivideOp, [d, b.op(sh.SqrtOp, [var], e, out)], e, out)
    y = b.op(sh.MultiplyOp, [y, _per_channel(b, op.scale, out)], e, out)
    return b.op(sh.AddOp, [y, _per_channel(b, op.B, out)], e, out)


@irdl_op_definition
class BatchNormalizationOp(OnnxOp):
    """Inference mode: `Y = (X - input_mean) / sqrt(input_var + epsilon) * scale + B`,
    the 1-D operands along X's dimension 1 (onnx-mlir's
    `onnx.BatchNormalizationInferenceMode`)."""

    name = "onnx.BatchNormalization"
    X = operand_def()
    scale = operand_def()
    B = operand_def()
    input_mean = operand_def()
    input_var = operand_def()
    epsilon = opt_prop_def(FloatAttr)
    momentum = opt_prop_def(FloatAttr)
    training_mode = opt_prop_def(IntegerAttr)
    Y = result_def()
    traits = traits_def(NoMemoryEffect(), NO_QUANTIZATION, OnnxFacts(
        "BatchNormalization", (1, 6, 7, 9, 14, 15),
        ("X", "scale", "B", "input_mean", "input_var"), ("Y",),
        {"epsilon": 1e-5, "momentum": 0.9, "training_mode": 0}),
        Lowering(batch_norm), QdqRole("keep"))

    def check(self) -> None:
        elements_in(self, self.X, "operand #0", FLOAT_T)
        if attr(self, "training_mode"):
            fail(f"'{self.name}' op training_mode = 1 is not supported")
        _same_element(self, [self.X, self.Y])
        per_channel(self, self.X, "X", (self.scale, self.B, self.input_mean, self.input_var))

    def infer(self):
        return static_shape(self.X)


def normalized(b, x, out, dims: list[int], epsilon: float):
    """(`D / sqrt(mean(D^2) + epsilon)`, `mean(x)`, `sqrt(mean(D^2) + epsilon)`) with
    `D = x - mean(x)`, the means over `dims` (reduce add, divided by their element
    count); the mean and the deviation have the shape of the other dimensions."""
    e = ts.element_of(x)
    kept = [d for d in range(len(out)) if d not in dims]
    small = tuple(out[d] for d in kept)
    n = b.splat(float(np.prod([out[d] for d in dims])), e, small)

    def mean(v):  # over `dims`, of shape `small`
        return b.op(sh.DivideOp, [b.reduce(v, dims, sh.AddOp, 0), n], e, small)

    m = mean(x)
    d = b.op(sh.SubtractOp, [x, b.broadcast_in_dim(m, out, kept)], e, out)
    var = mean(b.op(sh.MultiplyOp, [d, d], e, out))
    std = b.op(sh.SqrtOp, [b.op(sh.AddOp, [var, b.splat(epsilon, e, small)], e, small)],
               e, small)
    return b.op(sh.DivideOp, [d, b.broadcast_in_dim(std, out, kept)], e, out), m, std


def layer_norm(b, op, out):
    """`Y = normalized(X) * Scale + B`, the means over the dimensions from `axis` on;
    `Mean = mean(X)`, `InvStdDev = 1 / sqrt(mean(D^2) + epsilon)` (keeping those
    dimensions as 1s)."""
    e = ts.element_of(op.Y)
    a = fs.axis_in(attr(op, "axis"), len(out))
    z, m, std = normalized(b, op.X, out, list(range(a, len(out))), attr(op, "epsilon"))
    y = b.op(sh.MultiplyOp, [z, b.numpy_broadcast(op.Scale, out)], e, out)
    y = y if is_none(op.B) else b.op(sh.AddOp, [y, b.numpy_broadcast(op.B, out)], e, out)
    if not op.stats:
        return y
    stat_shape = (*out[:a], *[1] * (len(out) - a))
    results = [y]
    for k, r in enumerate(op.stats):
        if is_none(r):
            results.append(b.emit(NoValueOp()))
            continue
        v = m if k == 0 else b.op(sh.DivideOp, [b.splat(1, e, out[:a]), std], e, out[:a])
        v = b.reshape(v, stat_shape)
        if ts.element_of(r) != e:
            v = b.op(sh.ConvertOp, [v], ts.element_of(r), stat_shape)
        results.append(v)
    return results


@irdl_op_definition
class LayerNormalizationOp(OnnxOp):
    """`Y = (X - mean) / sqrt(var + epsilon) * Scale + B` over the dimensions from `axis`
    on; the optional results (`stats`) Mean and InvStdDev = 1 / sqrt(var + epsilon),
    of X's shape with the dimensions from `axis` on 1 (`none` for an absent Mean before
    a present InvStdDev); stash_type 1, float32."""

    name = "onnx.LayerNormalization"
    X = operand_def()
    Scale = operand_def()
    B = operand_def()
    axis = opt_prop_def(IntegerAttr)
    epsilon = opt_prop_def(FloatAttr)
    stash_type = opt_prop_def(IntegerAttr)
    Y = result_def()
    stats = var_result_def()
    traits = traits_def(NoMemoryEffect(), NO_QUANTIZATION, OnnxFacts(
        "LayerNormalization", (17,), ("X", "Scale", "B?"), ("Y", "Mean?", "InvStdDev?"),
        {"axis": -1, "epsilon": 1e-5, "stash_type": 1}),
        Lowering(layer_norm), QdqRole("keep"))

    def check(self) -> None:
        elements_in(self, self.X, "operand #0", FLOAT_T)
        _same_element(self, [v for v in (self.X, self.Scale, self.B, self.Y) if not is_none(v)])
        if attr(self, "stash_type") != 1:
            fail(f"'{self.name}' op stash_type must be 1 (float), got {attr(self, 'stash_type')}")
        if len(self.stats) > 2:
            fail(f"'{self.name}' op has at most 3 results (Y, Mean, InvStdDev), got "
                 f"{1 + len(self.stats)}")
        x = static_shape(self.X)
        for i, r in enumerate(self.stats, 1):
            if is_none(r):
                continue
            elements_in(self, r, f"result #{i}", FLOAT_T)
            s = static_shape(r)
            if x is not None and s is not None:
                a = fs.axis_in(attr(self, "axis"), len(x), "axis")
                want = [*x[:a], *[1] * (len(x) - a)]
                if len(s) != len(want) or any(p != q and -1 not in (p, q)
                                              for p, q in zip(s, want)):
                    fail(f"'{self.name}' op result #{i} must have shape {want} (X's up to "
                         f"axis, then 1s), got {s}")

    def infer(self):
        x = static_shape(self.X)
        if x is not None:
            fs.axis_in(attr(self, "axis"), len(x), "axis")
        return x


def reduce_mean(b, op, out):
    """`reduce add` over the axes, divided by their element count, reshaped to keep them."""
    x = ts.static(op.data, op)
    e = ts.element_of(op.reduced)
    axes = const_ints(op.axes) if not is_none(op.axes) else attr(op, "axes")
    if axes is None and not is_none(op.axes):
        raise ts.Unsupported(f"{ts.PASS}: ReduceMean's axes must be a constant")
    if not axes:
        if attr(op, "noop_with_empty_axes"):
            return op.data
        axes = list(range(len(x)))
    dims = sorted({fs.axis_in(a, len(x)) for a in axes})
    s = b.reduce(op.data, dims, sh.AddOp, 0)
    count = float(np.prod([x[d] for d in dims]))
    s = b.op(sh.DivideOp, [s, b.splat(count, e, ts.shape_of(s))], e, ts.shape_of(s))
    return b.reshape(s, out)


@irdl_op_definition
class ReduceMeanOp(OnnxOp, _Reduce):
    """`reduced = sum(data) / count over axes` (axes: as ReduceMin's)."""

    name = "onnx.ReduceMean"
    traits = traits_def(NoMemoryEffect(), NO_QUANTIZATION,
                        OnnxFacts("ReduceMean", **{**_REDUCE_FACTS, "since": (1, 11, 13, 18)}),
                        Lowering(reduce_mean))

    def check(self) -> None:
        _Reduce.verify_(self)


MATH_OPS: list[type[IRDLOperation]] = [
    NegOp, ExpOp, SqrtOp, ErfOp, HardSigmoidOp, HardSwishOp, PowOp, EqualOp, LessOp,
    GreaterOp, WhereOp, BatchNormalizationOp, LayerNormalizationOp, ReduceMeanOp]
"""The model zoo's elementwise, comparison and normalization ops."""
