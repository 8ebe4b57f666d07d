"""onnx-mlir's Slice and Split, declared the "Adding an ONNX op" way (docs/design.md):
both lower to `stablehlo.slice` (Split: one per result; its `Lowering` returns them all).
Their constant operands (starts, ends, axes, steps; split) are read from `onnx.Constant`.

    Slice:  output = data[starts[i]:ends[i]:steps[i] along axes[i]], each start and end
            counted from the end when negative, then clamped: to [0, dim] for a
            positive step, start to [0, dim - 1] and end to [-1, dim - 1] for a negative
            one (elements start, start + step, ... while > end); a negative step
            lowers to `stablehlo.reverse` of that dimension, then the slice with
            start' = dim - 1 - start, limit' = dim - 1 - end, stride -step
    Split:  outputs = data cut along `axis` into the sizes `split` (or `num_outputs` /
            the number of results: equal parts, the last one smaller)
"""

from __future__ import annotations

from xdsl.dialects.builtin import IntegerAttr, TensorType
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
    is_none,
    static_shape,
)
from qcomp.dialects.onnx.float_common import MOVE_T, OnnxOp, _same_element, const_ints
from qcomp.dialects.stablehlo.format import i64_array

INDEX_T = ("int32", "int64")


def _slice(b, x, starts, limits, strides, e):
    out = tuple((hi - lo + s - 1) // s if hi > lo else 0
                for lo, hi, s in zip(starts, limits, strides))
    return b.emit(sh.SliceOp.create(
        operands=[x], result_types=[TensorType(e, out)],
        properties={"start_indices": i64_array(starts), "limit_indices": i64_array(limits),
                    "strides": i64_array(strides)}))


def slice_bounds(shape, starts, ends, axes, steps):
    """Per dimension (start, limit, stride) of ONNX Slice, and the dimensions a negative
    step reverses (their start and limit counted on the reversed dimension)."""
    lo, hi, st = [0] * len(shape), list(shape), [1] * len(shape)
    reversed_ = []
    axes = range(len(starts)) if axes is None else axes
    steps = [1] * len(starts) if steps is None else steps
    for s, e, a, k in zip(starts, ends, axes, steps):
        if k == 0:
            raise fs.ShapeError("steps must not be 0")
        d = fs.axis_in(a, len(shape), "axes")
        n = shape[d]
        s, e = s + n if s < 0 else s, e + n if e < 0 else e
        if k > 0:
            lo[d], hi[d], st[d] = min(max(s, 0), n), min(max(e, 0), n), k
        else:
            s, e = min(max(s, 0), n - 1), min(max(e, -1), n - 1)
            lo[d], hi[d], st[d] = n - 1 - s, n - 1 - e, -k
            reversed_.append(d)
    return lo, hi, st, sorted(reversed_)


def _slice_constants(op):
    vals = [const_ints(v) if not is_none(v) else None
            for v in (op.starts, op.ends, op.axes, op.steps)]
    if vals[0] is None or vals[1] is None or any(
            v is None and not is_none(o) for v, o in zip(vals[2:], (op.axes, op.steps))):
        return None
    return vals


def slice_(b, op, out):
    """`stablehlo.slice` with ONNX's bounds resolved (constant starts / ends / axes / steps)."""
    c = _slice_constants(op)
    if c is None:
        raise ts.Unsupported(f"{ts.PASS}: Slice's starts, ends, axes and steps must be constants")
    try:
        lo, hi, st, rev = slice_bounds(ts.static(op.data, op), *c)
    except fs.ShapeError as e:
        raise ts.Unsupported(f"{ts.PASS}: Slice: {e}") from None
    x = op.data
    if rev:
        x = b.op(sh.ReverseOp, [x], ts.element_of(x), ts.shape_of(x), dimensions=i64_array(rev))
    return _slice(b, x, lo, hi, st, ts.element_of(op.output))


@irdl_op_definition
class SliceOp(OnnxOp):
    """`output = data[starts:ends:steps along axes]` (see the module docstring)."""

    name = "onnx.Slice"
    data = operand_def()
    starts = operand_def()
    ends = operand_def()
    axes = operand_def()
    steps = operand_def()
    output = result_def()
    traits = traits_def(NoMemoryEffect(), NO_QUANTIZATION, OnnxFacts(
        "Slice", (1, 10, 11, 13), ("data", "starts", "ends", "axes?", "steps?"), ("output",)),
        Lowering(slice_, constants=(1, 2, 3, 4)), QdqRole("drop", data_inputs=(0,)))

    def check(self) -> None:
        elements_in(self, self.data, "operand #0", MOVE_T)
        for i, v in enumerate((self.starts, self.ends, self.axes, self.steps), 1):
            elements_in(self, v, f"operand #{i}", INDEX_T, optional=i > 2)
        _same_element(self, [self.data, self.output])

    def infer(self):
        x = static_shape(self.data)
        c = _slice_constants(self)
        if x is None or c is None or any(d < 0 for d in x):
            return None
        lo, hi, st, _ = slice_bounds(x, *c)
        return tuple((h - l + s - 1) // s if h > l else 0 for l, h, s in zip(lo, hi, st))


def split_sizes(op, dim: int) -> list[int]:
    """The sizes Split cuts `dim` elements into."""
    if not is_none(op.split):
        sizes = const_ints(op.split)
        if sizes is None:
            raise fs.ShapeError("split must be a constant")
        sizes = list(sizes)
    else:
        n = attr(op, "num_outputs") or len(op.results)
        part = -(-dim // n)
        sizes = [min(part, max(dim - part * i, 0)) for i in range(n)]
    if sum(sizes) != dim or len(sizes) != len(op.results):
        raise fs.ShapeError(f"split sizes {sizes} do not cut {dim} into "
                            f"{len(op.results)} parts")
    return sizes


def split_(b, op, out):
    """One `stablehlo.slice` per result."""
    x = ts.static(op.input, op)
    axis = fs.axis_in(attr(op, "axis"), len(x))
    try:
        sizes = split_sizes(op, x[axis])
    except fs.ShapeError as e:
        raise ts.Unsupported(f"{ts.PASS}: Split: {e}") from None
    outs, at = [], 0
    for n in sizes:
        lo = [at if d == axis else 0 for d in range(len(x))]
        hi = [at + n if d == axis else x[d] for d in range(len(x))]
        outs.append(_slice(b, op.input, lo, hi, [1] * len(x), ts.element_of(op.input)))
        at += n
    return outs


@irdl_op_definition
class SplitOp(OnnxOp):
    """`outputs = data cut along axis` (see the module docstring)."""

    name = "onnx.Split"
    input = operand_def()
    split = operand_def()
    axis = opt_prop_def(IntegerAttr)
    num_outputs = opt_prop_def(IntegerAttr)
    outputs = var_result_def()
    traits = traits_def(NoMemoryEffect(), NO_QUANTIZATION, OnnxFacts(
        "Split", (1, 2, 11, 13, 18), ("input", "split?"), ("outputs*",), {"axis": 0}),
        Lowering(split_, constants=(1,)), QdqRole("drop", data_inputs=(0,)))

    def check(self) -> None:
        elements_in(self, self.input, "operand #0", MOVE_T)
        elements_in(self, self.split, "operand #1", ("int64",), optional=True)
        _same_element(self, [self.input, *self.outputs])
        x = static_shape(self.input)
        if x is None or any(d < 0 for d in x):
            return
        axis = fs.axis_in(attr(self, "axis"), len(x))
        try:
            sizes = split_sizes(self, x[axis])
        except fs.ShapeError as e:
            fail(f"'{self.name}' op {e}")
            return
        for r, n in zip(self.outputs, sizes):
            want = [n if d == axis else s for d, s in enumerate(x)]
            if static_shape(r) not in (None, want):
                fail(f"'{self.name}' op result shape {static_shape(r)} is not {want}")


SLICE_OPS: list[type[IRDLOperation]] = [SliceOp, SplitOp]
