"""onnx-mlir's TopK, ArgMax, CumSum, GatherElements, InstanceNormalization and LeakyRelu,
declared the "Adding an ONNX op" way (docs/design.md): each class states its ONNX facts,
its StableHLO lowering (which the interpreter runs too) and how onnxruntime's QDQ
selectors treat it.

    TopK:       Values, Indices = the K largest (largest = 1) / smallest entries of X along
                `axis`, in that order, equal entries lowest index first (sorted = 0, where
                ONNX leaves the order open, gives the same order)
    ArgMax:     reduced = the index of the largest entry along `axis` (equal entries: the
                lowest index, the highest with select_last_index = 1), int64
    CumSum:     y[i] = x[0] + ... + x[i] along `axis` (exclusive: up to x[i - 1], 0 first;
                reverse: from the end), summed in order from the first term
    GatherElements: output[i_0, .., i_r] = data[.., indices[i_0, .., i_r] at axis, ..]
                (negative indices count from the end)
    InstanceNormalization: y = scale[c] * (x - mean) / sqrt(var + epsilon) + B[c], mean and
                var over the spatial dimensions of each (n, c)
    LeakyRelu:  Y = X < 0 ? alpha * X : X

Lowerings: TopK a stable `stablehlo.sort` of (X, iota) then a slice (what `chlo.top_k`
decomposes to, with ONNX's axis and `largest`); ArgMax a variadic `stablehlo.reduce` of
(X, iota); CumSum a `stablehlo.reduce_window` add over a window as long as the axis
(`stablehlo.reverse` around it for `reverse`); GatherElements one `stablehlo.gather` of
every element's full index; InstanceNormalization reduce / broadcast steps.
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import BoolAttr, FloatAttr, IntegerAttr, IntegerType, TensorType, i1, i64
from xdsl.ir import Block, Region
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
    fail,
    static_shape,
    verify_int_attr,
)
from qcomp.dialects.onnx.float_common import (
    ARITH_T,
    FLOAT_T,
    MOVE_T,
    OnnxOp,
    _same_element,
    _shapes,
    const_ints,
)
from qcomp.dialects.onnx.float_math import normalized, per_channel
from qcomp.dialects.onnx.float_ops import UnaryOp
from qcomp.dialects.onnx.float_slices import _slice
from qcomp.dialects.stablehlo.attrs import GatherDimensionNumbersAttr
from qcomp.dialects.stablehlo.format import i64_array, padding_attr

INDEX_T = ("int32", "int64")
CUMSUM_T = ("uint32", "uint64", "int32", "int64", "float16", "float", "double", "bfloat16")


def _scalar(e) -> TensorType:
    return TensorType(e, ())


def _iota(b, e, shape, dim: int):
    return b.emit(sh.IotaOp(dim, TensorType(e, tuple(shape))))


def _slice_axis(b, x, axis: int, start: int, stop: int):
    """`x[start:stop]` along `axis` (`x` itself when that is all of it)."""
    shape = ts.shape_of(x)
    lo = [start if d == axis else 0 for d in range(len(shape))]
    hi = [stop if d == axis else n for d, n in enumerate(shape)]
    if lo == [0] * len(shape) and hi == list(shape):
        return x
    return _slice(b, x, lo, hi, [1] * len(shape), ts.element_of(x))


def _k(op) -> int:
    k = const_ints(op.K)
    if k is None or len(k) != 1:
        raise ts.Unsupported(f"{ts.PASS}: TopK's K must be a constant of one value")
    return k[0]


# -- TopK -----------------------------------------------------------------------------------

def top_k(b, op, out):
    """`sort(X, iota) along axis` (stable, comparator X_a > X_b, or < for largest = 0),
    then the first K of both."""
    x = ts.static(op.X, op)
    axis = fs.axis_in(attr(op, "axis"), len(x))
    k = _k(op)
    e, ie = ts.element_of(op.X), ts.element_of(op.Indices)
    idx = _iota(b, ie, x, axis)
    block = Block(arg_types=[_scalar(e), _scalar(e), _scalar(ie), _scalar(ie)])
    cmp = sh.CompareOp(block.args[0], block.args[1], "GT" if attr(op, "largest") else "LT")
    block.add_ops([cmp, sh.ReturnOp(cmp.results[0])])
    sort = b.insert(sh.SortOp.create(
        operands=[op.X, idx], result_types=[TensorType(e, x), TensorType(ie, x)],
        properties={"dimension": IntegerAttr(axis, i64), "is_stable": BoolAttr(True, i1)},
        regions=[Region(block)]))
    return [_slice_axis(b, r, axis, 0, k) for r in sort.results]


def top_k_bounds(op, x, k) -> None:
    n = np.shape(x)[fs.axis_in(attr(op, "axis"), np.ndim(x))]
    kv = int(np.ravel(k)[0])
    if not 0 <= kv <= n:
        raise ValueError(f"K = {kv} is not in [0, {n}]")


@irdl_op_definition
class TopKOp(OnnxOp):
    """`Values, Indices = the K largest (or smallest) entries along axis` (see the module
    docstring)."""

    name = "onnx.TopK"
    X = operand_def()
    K = operand_def()
    axis = opt_prop_def(IntegerAttr)
    largest = opt_prop_def(IntegerAttr)
    sorted = opt_prop_def(IntegerAttr)
    Values = result_def()
    Indices = result_def()
    traits = traits_def(NoMemoryEffect(), NO_QUANTIZATION, OnnxFacts(
        "TopK", (1, 10, 11, 24), ("X", "K"), ("Values", "Indices"),
        {"axis": -1, "largest": 1, "sorted": 1}),
        Lowering(top_k, check=top_k_bounds, constants=(1,)), QdqRole("keep"))

    def check(self) -> None:
        elements_in(self, self.X, "operand #0", ARITH_T)
        elements_in(self, self.K, "operand #1", ("int64",))
        elements_in(self, self.Indices, "result #1", ("int64",))
        for a in ("largest", "sorted"):
            verify_int_attr(self, a, (0, 1))
        _same_element(self, [self.X, self.Values])
        if static_shape(self.Values) is not None and static_shape(self.Indices) is not None \
                and static_shape(self.Values) != static_shape(self.Indices):
            fail(f"'{self.name}' op Values and Indices must have the same shape")

    def infer(self):
        x = static_shape(self.X)
        if x is None:
            return None
        axis = fs.axis_in(attr(self, "axis"), len(x))
        k = const_ints(self.K)
        if k is None or len(k) != 1:
            return None
        if x[axis] >= 0 and not 0 <= k[0] <= x[axis]:
            raise fs.ShapeError(f"K = {k[0]} is not in [0, {x[axis]}]")
        return tuple(k[0] if d == axis else n for d, n in enumerate(x))


# -- ArgMax ---------------------------------------------------------------------------------

def arg_max(b, op, out):
    """`reduce (X, iota) along axis` keeping the larger value, on equal values the lower
    index (the higher with select_last_index), from (lowest, 0); reshaped for keepdims."""
    x = ts.static(op.data, op)
    axis = fs.axis_in(attr(op, "axis"), len(x))
    e, ie = ts.element_of(op.data), ts.element_of(op.reduced)
    idx = _iota(b, ie, x, axis)
    s, si = _scalar(e), _scalar(ie)
    block = Block(arg_types=[s, si, s, si])
    a, ia, c, ic = block.args
    gt = sh.CompareOp(a, c, "GT")
    eq = sh.CompareOp(a, c, "EQ")
    first = sh.CompareOp(ia, ic, "GT" if attr(op, "select_last_index") else "LT")
    tie = sh.AndOp.create(operands=[eq.results[0], first.results[0]], result_types=[_scalar(i1)])
    pick = sh.OrOp.create(operands=[gt.results[0], tie.results[0]], result_types=[_scalar(i1)])
    v = sh.SelectOp.create(operands=[pick.results[0], a, c], result_types=[s])
    i = sh.SelectOp.create(operands=[pick.results[0], ia, ic], result_types=[si])
    block.add_ops([gt, eq, first, tie, pick, v, i, sh.ReturnOp(v.results[0], i.results[0])])
    reduced = tuple(n for d, n in enumerate(x) if d != axis)
    lowest = ts.lowest_highest(e)[0]
    red = b.insert(sh.ReduceOp.create(
        operands=[op.data, idx, b.constant(np.array(lowest), e), b.constant(np.array(0), ie)],
        result_types=[TensorType(e, reduced), TensorType(ie, reduced)],
        properties={"dimensions": i64_array([axis])}, regions=[Region(block)]))
    return b.reshape(red.results[1], out)


@irdl_op_definition
class ArgMaxOp(OnnxOp):
    """`reduced = argmax(data) along axis` (see the module docstring)."""

    name = "onnx.ArgMax"
    data = operand_def()
    axis = opt_prop_def(IntegerAttr)
    keepdims = opt_prop_def(IntegerAttr)
    select_last_index = opt_prop_def(IntegerAttr)
    reduced = result_def()
    traits = traits_def(NoMemoryEffect(), NO_QUANTIZATION, OnnxFacts(
        "ArgMax", (1, 11, 12, 13), ("data",), ("reduced",),
        {"axis": 0, "keepdims": 1, "select_last_index": 0}),
        Lowering(arg_max), QdqRole("drop_dq", data_inputs=(0,)))

    def check(self) -> None:
        elements_in(self, self.data, "operand #0", ARITH_T)
        elements_in(self, self.reduced, "result #0", ("int64",))
        verify_int_attr(self, "keepdims", (0, 1))
        verify_int_attr(self, "select_last_index", (0, 1))

    def infer(self):
        x = static_shape(self.data)
        if x is None:
            return None
        axis = fs.axis_in(attr(self, "axis"), len(x))
        if attr(self, "keepdims"):
            return tuple(1 if d == axis else n for d, n in enumerate(x))
        return tuple(n for d, n in enumerate(x) if d != axis)


# -- CumSum ---------------------------------------------------------------------------------

def _cumsum_axis(op, rank: int) -> int:
    a = const_ints(op.axis)
    if a is None or len(a) != 1:
        raise ts.Unsupported(f"{ts.PASS}: CumSum's axis must be a constant of one value")
    try:
        return fs.axis_in(a[0], rank)
    except fs.ShapeError as e:
        raise ts.Unsupported(f"{ts.PASS}: CumSum: {e}") from None


def cum_sum(b, op, out):
    """`reduce_window add` with a window of the axis' length n padded n - 1 before (n
    before, then the first n sums, for exclusive); `reverse` before and after for
    reverse (the sum starts from the last term, as onnxruntime's)."""
    x = ts.static(op.x, op)
    axis = _cumsum_axis(op, len(x))
    e = ts.element_of(op.y)
    n = x[axis]
    v = op.x
    rev = {"dimensions": i64_array([axis])}
    if attr(op, "reverse"):
        v = b.op(sh.ReverseOp, [v], e, x, **rev)
    exclusive = bool(attr(op, "exclusive"))
    s = ts.static(v)
    body = Block(arg_types=[_scalar(e), _scalar(e)])
    add = sh.AddOp.create(operands=[body.args[0], body.args[1]], result_types=[_scalar(e)])
    body.add_ops([add, sh.ReturnOp(add.results[0])])
    pads = [(n if exclusive else n - 1, 0) if d == axis else (0, 0) for d in range(len(x))]
    summed = tuple(n + 1 if exclusive and d == axis else m for d, m in enumerate(s))
    r = b.emit(sh.ReduceWindowOp.create(
        operands=[v, b.constant(np.array(0), e)], result_types=[TensorType(e, summed)],
        properties={"window_dimensions": i64_array([n if d == axis else 1
                                                     for d in range(len(x))]),
                    "padding": padding_attr(pads)},
        regions=[Region(body)]))
    if exclusive:
        r = _slice_axis(b, r, axis, 0, n)
    if attr(op, "reverse"):
        r = b.op(sh.ReverseOp, [r], e, x, **rev)
    return r


@irdl_op_definition
class CumSumOp(OnnxOp):
    """`y = cumulative sum of x along axis` (see the module docstring)."""

    name = "onnx.CumSum"
    x = operand_def()
    axis = operand_def()
    exclusive = opt_prop_def(IntegerAttr)
    reverse = opt_prop_def(IntegerAttr)
    y = result_def()
    traits = traits_def(NoMemoryEffect(), NO_QUANTIZATION, OnnxFacts(
        "CumSum", (11, 14), ("x", "axis"), ("y",), {"exclusive": 0, "reverse": 0}),
        Lowering(cum_sum, constants=(1,)), QdqRole("keep"))

    def check(self) -> None:
        elements_in(self, self.x, "operand #0", CUMSUM_T)
        elements_in(self, self.axis, "operand #1", INDEX_T)
        verify_int_attr(self, "exclusive", (0, 1))
        verify_int_attr(self, "reverse", (0, 1))
        _same_element(self, [self.x, self.y])

    def infer(self):
        return static_shape(self.x)


# -- GatherElements -------------------------------------------------------------------------

def gather_elements(b, op, out):
    """Each output element's full index (iota along the other dimensions, the
    indices plus the axis' size where negative along axis) as the last dimension of an
    index tensor, one `gather` of single elements."""
    data = ts.static(op.data, op)
    s = ts.static(op.indices, op)
    r = len(data)
    axis = fs.axis_in(attr(op, "axis"), r)
    ie = IntegerType(64)
    idx = op.indices
    if ts.element_of(idx) != ie:
        idx = b.op(sh.ConvertOp, [idx], ie, s)
    neg = b.emit(sh.CompareOp(idx, b.splat(0, ie, s), "LT"))
    wrapped = b.op(sh.AddOp, [idx, b.splat(data[axis], ie, s)], ie, s)
    idx = b.op(sh.SelectOp, [neg, wrapped, idx], ie, s)
    parts = [b.reshape(idx if d == axis else _iota(b, ie, s, d), (*s, 1)) for d in range(r)]
    full = parts[0] if r == 1 else b.emit(sh.ConcatenateOp.create(
        operands=parts, result_types=[TensorType(ie, (*s, r))],
        properties={"dimension": IntegerAttr(len(s), i64)}))
    dn = GatherDimensionNumbersAttr.get(offset_dims=[], collapsed_slice_dims=list(range(r)),
                                        start_index_map=list(range(r)), index_vector_dim=len(s))
    return b.op(sh.GatherOp, [op.data, full], ts.element_of(op.data), out,
                dimension_numbers=dn, slice_sizes=i64_array([1] * r))


@irdl_op_definition
class GatherElementsOp(OnnxOp):
    """`output[i] = data[i with i_axis = indices[i]]` (see the module docstring)."""

    name = "onnx.GatherElements"
    data = operand_def()
    indices = operand_def()
    axis = opt_prop_def(IntegerAttr)
    output = result_def()
    traits = traits_def(NoMemoryEffect(), NO_QUANTIZATION, OnnxFacts(
        "GatherElements", (11, 13), ("data", "indices"), ("output",), {"axis": 0}),
        Lowering(gather_elements, check=ts.gather_bounds), QdqRole("drop", data_inputs=(0,)))

    def check(self) -> None:
        elements_in(self, self.data, "operand #0", MOVE_T)
        elements_in(self, self.indices, "operand #1", INDEX_T)
        _same_element(self, [self.data, self.output])

    def infer(self):
        s = _shapes(self.data, self.indices)
        if s is None:
            return None
        d, i = s
        if len(d) != len(i):
            raise fs.ShapeError("data and indices must have the same rank")
        fs.axis_in(attr(self, "axis"), len(d))
        return tuple(i)


# -- InstanceNormalization ------------------------------------------------------------------

def instance_norm(b, op, out):
    """`output = normalized(input) * scale + B` (`float_math.normalized`: the means over
    the spatial dimensions), scale and B along dimension 1."""
    e = ts.element_of(op.output)
    z = normalized(b, op.input, out, list(range(2, len(out))), attr(op, "epsilon"))[0]
    y = b.op(sh.MultiplyOp, [z, b.broadcast_in_dim(op.scale, out, [1])], e, out)
    return b.op(sh.AddOp, [y, b.broadcast_in_dim(op.B, out, [1])], e, out)


@irdl_op_definition
class InstanceNormalizationOp(OnnxOp):
    """`output = scale * (input - mean) / sqrt(var + epsilon) + B` per (n, c) (see the
    module docstring)."""

    name = "onnx.InstanceNormalization"
    input = operand_def()
    scale = operand_def()
    B = operand_def()
    epsilon = opt_prop_def(FloatAttr)
    output = result_def()
    traits = traits_def(NoMemoryEffect(), NO_QUANTIZATION, OnnxFacts(
        "InstanceNormalization", (1, 6, 22), ("input", "scale", "B"), ("output",),
        {"epsilon": 1e-5}),
        Lowering(instance_norm), QdqRole("keep"))

    def check(self) -> None:
        elements_in(self, self.input, "operand #0", FLOAT_T)
        _same_element(self, [self.input, self.scale, self.B, self.output])
        x = static_shape(self.input)
        if x is not None and len(x) < 3:
            fail(f"'{self.name}' op input must have rank 3 or more, got {len(x)}")
        per_channel(self, self.input, "input", (self.scale, self.B))

    def infer(self):
        return static_shape(self.input)


# -- LeakyRelu ------------------------------------------------------------------------------

def leaky_relu(b, op, out):
    """`select(x < 0, x * alpha, x)`."""
    e = ts.element_of(op.Y)
    neg = b.emit(sh.CompareOp(op.X, b.splat(0, e, out), "LT"))
    scaled = b.op(sh.MultiplyOp, [op.X, b.splat(attr(op, "alpha"), e, out)], e, out)
    return b.op(sh.SelectOp, [neg, scaled, op.X], e, out)


@irdl_op_definition
class LeakyReluOp(UnaryOp):
    """`Y = X < 0 ? alpha * X : X`."""

    name = "onnx.LeakyRelu"
    X = operand_def()
    alpha = opt_prop_def(FloatAttr)
    Y = result_def()
    traits = traits_def(NoMemoryEffect(), NO_QUANTIZATION,
                        OnnxFacts("LeakyRelu", (1, 6, 16), ("X",), ("Y",), {"alpha": 0.01}),
                        Lowering(leaky_relu), QdqRole("unary", "QLinearLeakyRelu"))


INDEX_OPS: list[type[IRDLOperation]] = [
    TopKOp, ArgMaxOp, CumSumOp, GatherElementsOp, InstanceNormalizationOp, LeakyReluOp]
"""TopK, ArgMax, CumSum, GatherElements, InstanceNormalization, LeakyRelu."""
