"""TFLite's index and logical operators a converted model keeps outside int8 (its shape
and index arithmetic in INT32, masks in BOOL): REDUCE_ANY, REDUCE_ALL, CUMSUM, RANGE,
SCATTER_ND (tensorflow/lite/kernels/reduce.cc, cumsum.cc, range.cc, scatter_nd.cc):

- REDUCE_ANY / REDUCE_ALL (BOOL): `stablehlo.reduce` with an or / and body over the
  constant axes (ReducerOptions keepDims: then a reshape);
- CUMSUM (FLOAT32, INT32, INT64; CumsumOptions exclusive, reverse): reference_ops::
  CumSum's running sum acc = 0; acc += x_i along the axis. Integers: `stablehlo.
  reduce_window` add over the n - 1 values before (exact in any order); FLOAT32: the sum
  unrolled in LiteRT's order (out_0 = 0 + x_0, out_i = out_(i-1) + x_i: slices, adds, a
  concatenate), as float addition does not reassociate. exclusive: the input shifted
  by one (a zero first); reverse: `stablehlo.reverse` before and after;
- RANGE (INT32, FLOAT32; start, limit, delta known when imported: constant tensors or
  values a `stablehlo.constant` made): a constant, the reference kernel's
  value = start; value += delta (f32 steps for FLOAT32); size ceil(|limit - start| /
  |delta|) (GetSize);
- SCATTER_ND (indices INT32, updates FLOAT32 / INT32 / INT64 / BOOL, shape constant):
  `stablehlo.scatter` into zeros with an add (BOOL: or) body: reference_ops::ScatterNd
  adds repeated indices' updates in their order.
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Block, Operation, Region, SSAValue

from qcomp.dialects import stablehlo as sh
from qcomp.dialects.stablehlo.format import i64_array
from qcomp.dialects.stablehlo.scatter import ScatterDimensionNumbersAttr
from qcomp.passes.utils.builder import Builder, dense_values, element_of, shape_of
from qcomp.tflite.common import need_constant, op, op_in, padding_attr
from qcomp.tflite.context import ELEMENT, NUMPY, OpContext, Tensor
from qcomp.tflite.kernels import reduce
from qcomp.tflite.operator import Operand, Operator, Options, boolean, declare
from qcomp.tflite.reductions import reduction_axes


def logical_reducer(kind: type[Operation], init: bool):
    def build(ctx: OpContext) -> list[SSAValue]:
        x, out = ctx.inputs[0], ctx.outputs[0]
        if x.dtype != "BOOL" or out.dtype != "BOOL":
            raise ctx.fail(f"{ctx.name} takes and gives BOOL tensors")
        axes, _, _ = reduction_axes(ctx, ctx.name.lower())
        v = ctx.value(x)
        if axes:
            v = reduce(ctx.b, v, axes, kind, init)
        if shape_of(v) != tuple(out.shape):
            v = op(ctx, sh.ReshapeOp, [v], out.type())
        return [v]
    return build


def pad(b: Builder, x: SSAValue, low: list[int], high: list[int]) -> SSAValue:
    """`x` padded with zeros, `low` / `high` values per dimension."""
    el = element_of(x)
    shape = tuple(d + lo + hi for d, lo, hi in zip(shape_of(x), low, high))
    return op_in(b, sh.PadOp, [x, b.constant(np.zeros((), NUMPY_OF.get(el, np.int64)), el)],
                 TensorType(el, list(shape)), edge_padding_low=i64_array(low),
                 edge_padding_high=i64_array(high),
                 interior_padding=i64_array([0] * len(shape)))


def _slice(b: Builder, x: SSAValue, axis: int, start: int, stop: int) -> SSAValue:
    shape = shape_of(x)
    lo = [start if d == axis else 0 for d in range(len(shape))]
    hi = [stop if d == axis else n for d, n in enumerate(shape)]
    return b.emit(sh.SliceOp(x, lo, hi))


def running_sum(b: Builder, x: SSAValue, axis: int) -> SSAValue:
    """out_i = (((0 + x_0) + x_1) + ...) + x_i along `axis`, each addition in `x`'s type."""
    shape = shape_of(x)
    n = shape[axis]
    el = element_of(x)
    if not _is_float(el):
        window = [n if d == axis else 1 for d in range(len(shape))]
        init = b.constant(np.zeros((), NUMPY_OF[el]), el)
        block = Block(arg_types=[init.type, init.type])
        r = sh.AddOp.create(operands=list(block.args), result_types=[init.type])
        block.add_ops([r, sh.ReturnOp(r.results[0])])
        pads = [[n - 1, 0] if d == axis else [0, 0] for d in range(len(shape))]
        return b.emit(sh.ReduceWindowOp.create(
            operands=[x, init], result_types=[x.type],
            properties={"padding": padding_attr(pads), "window_dimensions": i64_array(window),
                        "window_strides": i64_array([1] * len(shape))},
            regions=[Region(block)]))
    parts, acc = [], None
    for i in range(n):
        col = _slice(b, x, axis, i, i + 1)
        acc = b.binary(sh.AddOp, b.full(np.float32(0), el, shape_of(col)), col) \
            if acc is None else b.binary(sh.AddOp, acc, col)
        parts.append(acc)
    if len(parts) == 1:
        return parts[0]
    return b.emit(sh.ConcatenateOp(parts, axis, x.type))


NUMPY_OF = {el: NUMPY[name] for name, el in ELEMENT.items()}
"""MLIR element type -> NumPy type, of the element types the importer makes."""


def _is_float(el) -> bool:
    return el not in NUMPY_OF or np.dtype(NUMPY_OF[el]).kind == "f"


def cumsum(ctx: OpContext) -> list[SSAValue]:
    x, axis_t, out = ctx.inputs[0], ctx.inputs[1], ctx.outputs[0]
    if x.dtype not in ("FLOAT32", "INT32", "INT64") or x.quantized or out.dtype != x.dtype \
            or tuple(out.shape) != tuple(x.shape):
        raise ctx.fail("CUMSUM takes a FLOAT32, INT32 or INT64 tensor and gives one of its "
                       "type and shape")
    r = len(x.shape)
    a = need_constant(ctx, axis_t, "axis").reshape(-1)
    if a.size != 1 or not -r <= int(a[0]) < r:
        raise ctx.fail(f"axis {a.tolist()} must be one value inside the input's rank {r}")
    axis = int(a[0]) % r
    b = ctx.b
    v = ctx.value(x)
    reverse = bool(ctx.option("reverse", False))
    if reverse:
        v = op(ctx, sh.ReverseOp, [v], v.type, dimensions=i64_array([axis]))
    if ctx.option("exclusive", False):
        low = [1 if d == axis else 0 for d in range(r)]
        v = _slice(b, pad(b, v, low, [0] * r), axis, 0, x.shape[axis])
    v = running_sum(b, v, axis)
    if reverse:
        v = op(ctx, sh.ReverseOp, [v], v.type, dimensions=i64_array([axis]))
    return [v]


def known_data(ctx: OpContext, t: Tensor, what: str) -> np.ndarray:
    """`t`'s values: constant data, or those of the `stablehlo.constant` that made it."""
    if t.data is not None:
        return t.data
    v = ctx.out.values.get(t.index)
    owner = getattr(v, "owner", None)
    if isinstance(owner, sh.ConstantOp):
        return np.asarray(dense_values(owner.value))
    raise ctx.fail(f"the {what} must be known when the model is imported (a constant)")


def range_operator(ctx: OpContext) -> list[SSAValue]:
    start_t, limit_t, delta_t = ctx.inputs
    out = ctx.outputs[0]
    if out.dtype not in ("INT32", "FLOAT32") or any(
            t.dtype != out.dtype for t in (start_t, limit_t, delta_t)):
        raise ctx.fail("RANGE is imported for INT32 and FLOAT32 (start, limit, delta and "
                       "output of one type)")
    t = NUMPY[out.dtype]
    values_of = []
    for x, what in ((start_t, "start"), (limit_t, "limit"), (delta_t, "delta")):
        v = np.asarray(known_data(ctx, x, what)).reshape(-1)
        if v.size != 1:
            raise ctx.fail(f"the {what} must be one value, not {v.size}")
        values_of.append(t(v[0]))
    start, limit, delta = values_of
    if not (np.isfinite(start) and np.isfinite(limit) and np.isfinite(delta)) or delta == 0 \
            or (limit > start and delta < 0) or (limit < start and delta > 0):
        raise ctx.fail(f"delta {delta} does not lead from start {start} to limit {limit}")
    if out.dtype == "INT32":
        n = (abs(int(limit) - int(start)) + abs(int(delta)) - 1) // abs(int(delta))
    else:
        n = int(np.ceil(np.abs(np.float32((limit - start) / delta))))
    if list(out.shape) != [n]:
        raise ctx.fail(f"output shape {list(out.shape)} is not [{n}]")
    if out.dtype == "INT32":
        values = (int(start) + int(delta) * np.arange(n)).astype(np.int32)
    else:
        values = np.zeros(n, np.float32)
        acc = np.float32(start)
        for i in range(n):
            values[i] = acc
            acc = np.float32(acc + delta)
    return [ctx.b.constant(values, out.element())]


def scatter_nd(ctx: OpContext) -> list[SSAValue]:
    indices, updates, shape_t = ctx.inputs
    out = ctx.outputs[0]
    shape = [int(d) for d in need_constant(ctx, shape_t, "shape").reshape(-1)]
    if any(d < 0 for d in shape):
        raise ctx.fail(f"the shape {shape} has a negative size")
    if list(out.shape) != shape:
        raise ctx.fail(f"output shape {list(out.shape)} is not the shape operand {shape}")
    if updates.quantized or updates.dtype not in ("FLOAT32", "INT32", "INT64", "BOOL") \
            or out.dtype != updates.dtype:
        raise ctx.fail("SCATTER_ND is imported for FLOAT32, INT32, INT64 and BOOL updates "
                       "(the output of their type)")
    ir = len(indices.shape)
    k = indices.shape[-1] if ir else 0
    want = [*indices.shape[:-1], *shape[k:]]
    if ir < 1 or k > len(shape) or list(updates.shape) != want:
        raise ctx.fail(f"updates of shape {list(updates.shape)} do not fit indices of shape "
                       f"{list(indices.shape)} into {shape} (want {want})")
    el = out.element()
    zeros = ctx.b.full(np.zeros((), NUMPY[out.dtype]), el, tuple(shape))
    scalar = TensorType(el, [])
    block = Block(arg_types=[scalar, scalar])
    body = (sh.OrOp if out.dtype == "BOOL" else sh.AddOp).create(
        operands=list(block.args), result_types=[scalar])
    block.add_ops([body, sh.ReturnOp(body.results[0])])
    dims = ScatterDimensionNumbersAttr.get(
        update_window_dims=list(range(ir - 1, len(want))), inserted_window_dims=list(range(k)),
        scatter_dims_to_operand_dims=list(range(k)), index_vector_dim=ir - 1)
    return [ctx.b.emit(sh.ScatterOp.create(
        operands=[zeros, ctx.value(indices), ctx.value(updates)], result_types=[out.type()],
        properties={"scatter_dimension_numbers": dims}, regions=[Region(block)]))]


_BOOL_REDUCER = (Operand("input", ("BOOL",), min_rank=1),
                 Operand("axis", ("INT32", "INT64"), constant=True))
_REDUCER_OPTIONS = Options("ReducerOptions", {"keepDims": boolean}, required=False)
for _name, _kind, _init in (("REDUCE_ANY", sh.OrOp, False), ("REDUCE_ALL", sh.AndOp, True)):
    declare(Operator(_name, output="none", spec=False, how="reduce (BOOL)",
                     options=_REDUCER_OPTIONS, inputs=_BOOL_REDUCER,
                     build=logical_reducer(_kind, _init)))
declare(Operator(
    "CUMSUM", output="none", spec=False, how="reduce_window add / running sum (float)",
    options=Options("CumsumOptions", {"exclusive": boolean, "reverse": boolean},
                    required=False),
    inputs=(Operand("input", min_rank=1), Operand("axis", ("INT32",), constant=True)),
    build=cumsum))
declare(Operator(
    "RANGE", output="none", spec=False, how="constant",
    options=Options("RangeOptions", required=False),
    inputs=(Operand("start"), Operand("limit"), Operand("delta")), build=range_operator))
declare(Operator(
    "SCATTER_ND", output="none", spec=False, how="scatter into zeros (add)",
    options=Options("ScatterNdOptions", required=False),
    inputs=(Operand("indices", ("INT32",)), Operand("updates"),
            Operand("shape", ("INT32",), constant=True)), build=scatter_nd))


__all__ = ["cumsum", "known_data", "logical_reducer", "pad", "range_operator",
           "running_sum", "scatter_nd"]
