"""StableHLO sequences for the spec's quantize / dequantize on tensors, shared by
`lower-quant-ops` and `stablehlo-legalize-quant-to-math` (the IR form of
`qcomp.quant.uniform.quantize` / `dequantize`):

    quantize:    q = convert(round_half_to_even(clamp(storage_min,
                              x / scale + zero_point, storage_max)))
    dequantize:  x = convert(q - zero_point) * scale

Every op of a sequence has the result shape `shape` (the quantized tensor's; by
default the operand's). Parameters are broadcast to that shape (static) or applied
with `chlo.broadcast_*` (dynamic).
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import IntegerType, TensorType
from xdsl.ir import Attribute, Operation, SSAValue

from qcomp.dialects import chlo
from qcomp.dialects import stablehlo as sh
from qcomp.dialects.quant import UniformQuantizedType
from qcomp.dialects.stablehlo.format import i64_array
from qcomp.passes.utils.builder import Builder, shape_of
from qcomp.passes.utils.diagnostics import PassDiagnostic
from qcomp.quant.ranges import storage_range

Shape = tuple[int, ...]

def signless(width: int) -> IntegerType:
    return IntegerType(width)


def wide_int(q: UniformQuantizedType) -> IntegerType:
    """Signless integer wide enough for `q - zero_point` for every storage value q and
    zero point of `q`: i32 when that fits (storage narrower than 32 bits, zero points
    near it), else i64. Zero points may lie anywhere in int64 (MLIR's types allow it):
    one so far from the storage range that the difference overflows i64 is refused
    (`check_zero_points`)."""
    lo, hi = storage_range(q.storage_bitwidth, q.is_signed)
    zps = [int(z) for z in q.zero_points.flat]
    widest = max(max(abs(lo - z), abs(hi - z)) for z in zps) if zps else 0
    return signless(32 if widest < 1 << 31 else 64)


def check_zero_points(op: Operation, q: UniformQuantizedType, name: str) -> None:
    """A PassDiagnostic unless every `q - zero_point` fits i64 (see `wide_int`; float
    storage subtracts in the expressed type)."""
    if q.is_float_storage:
        return
    lo, hi = storage_range(q.storage_bitwidth, q.is_signed)
    for z in q.zero_points.flat:
        if max(abs(lo - int(z)), abs(hi - int(z))) >= 1 << 63:
            raise PassDiagnostic(
                op, f"{name}: zero point {int(z)} is too far from the storage range "
                f"[{lo}, {hi}] for 64-bit arithmetic")


def zero_in_range(q: UniformQuantizedType) -> bool:
    return q.storage_min <= 0 <= q.storage_max


def with_params(b: Builder, cls: type[Operation], v: SSAValue, q: UniformQuantizedType,
                values: np.ndarray, element: Attribute, shape: Shape) -> SSAValue:
    """`cls` (add, subtract, multiply, divide) of `v` and the parameter tensor `values`:
    StableHLO on the parameters broadcast to a static `shape`; for dynamic shapes the
    `chlo.broadcast_*` twin of `cls` with the small constant (rank 0, or 1-D along the
    quantized dimension)."""
    if not any(d < 0 for d in shape):
        return b.op(cls, [v, broadcast_params(b, q, values, element, shape)], element, shape)
    if q.is_per_tensor:
        small, dims = b.constant(values.reshape(()), element), None
    else:
        small = b.constant(values.reshape(-1), element)
        dims = i64_array([q.quantized_dimension])
    props = {} if dims is None else {"broadcast_dimensions": dims}
    return b.op(chlo.BROADCASTING_TWIN[cls], [v, small], element, shape, **props)


def broadcast_params(b: Builder, q: UniformQuantizedType, values: np.ndarray,
                     element: Attribute, shape: Shape) -> SSAValue:
    """The parameter tensor `values` (shaped like `q`'s parameters) broadcast to
    `shape`: per-tensor and per-axis with one `broadcast_in_dim`, sub-channel by
    broadcasting into (count, block) pairs and reshaping."""
    rank = len(shape)
    if q.is_per_tensor:
        return b.broadcast_in_dim(b.constant(values.reshape(()), element), shape, [])
    if q.is_per_axis:
        return b.broadcast_in_dim(b.constant(values.reshape(-1), element), shape,
                                  [q.quantized_dimension])
    counts = list(q.params_shape) + [1] * (rank - len(q.params_shape))
    values = values.reshape(counts)
    wide: list[int] = []
    dims: list[int] = []
    for d in range(rank):
        dims.append(len(wide))
        if counts[d] in (1, shape[d]):
            wide.append(shape[d])
        else:
            wide += [counts[d], shape[d] // counts[d]]
    out = b.broadcast_in_dim(b.constant(values, element), tuple(wide), dims)
    if tuple(wide) != shape:
        out = b.op(sh.ReshapeOp, [out], element, shape)
    return out


STABLEHLO_INT_WIDTHS = (2, 4, 8, 16, 32, 64)


def storage_width(op: Operation, q: UniformQuantizedType) -> None:
    """A PassDiagnostic unless StableHLO has an integer type of `q`'s storage width."""
    if q.storage_bitwidth not in STABLEHLO_INT_WIDTHS:
        raise PassDiagnostic(
            op, f"lower-quant-ops: {q.storage_bitwidth}-bit storage has no StableHLO integer "
            "type (2, 4, 8, 16, 32 or 64 bits)")


def tensor_shape(op: Operation, t: Attribute, q: UniformQuantizedType) -> tuple[int, ...]:
    assert isinstance(t, TensorType)
    storage_width(op, q)
    shape = tuple(t.get_shape())
    if q.is_blockwise and any(d < 0 for d in shape):
        raise PassDiagnostic(
            op, "lower-quant-ops: sub-channel quantization needs a static shape")
    return shape


def quantize_tensor(b: Builder, x: SSAValue, q: UniformQuantizedType,
                    shape: Shape | None = None) -> SSAValue:
    """Storage integers of `quantize(x)`: clamp, round half to even, convert. Float
    storage: clamp, then `convert` to the float type rounds to nearest even
    (`qcomp.quant.float_storage.quantize_float`)."""
    shape = shape_of(x) if shape is None else shape
    e = q.expressed_type
    v = with_params(b, sh.DivideOp, x, q, q.scales, e, shape)
    if np.any(q.zero_points != 0):
        v = with_params(b, sh.AddOp, v, q, q.zero_points.astype(np.float64), e, shape)
    lo, hi = (b.constant(np.array(float(bound)), e) for bound in (q.storage_min, q.storage_max))
    v = b.op(sh.ClampOp, [lo, v, hi], e, shape)
    if q.is_float_storage:
        return b.op(sh.ConvertOp, [v], q.storage, shape)
    v = b.op(sh.RoundNearestEvenOp, [v], e, shape)
    s = b.op(sh.ConvertOp, [v], q.storage, shape)
    if not zero_in_range(q):
        # NaN converts to 0: keep it inside a storage range that excludes 0
        lo_i, hi_i = (b.constant(np.array(bound), q.storage)
                      for bound in (q.storage_min, q.storage_max))
        s = b.op(sh.ClampOp, [lo_i, s, hi_i], q.storage, shape)
    return s


def dequantize_tensor(b: Builder, s: SSAValue, q: UniformQuantizedType,
                      shape: Shape | None = None) -> SSAValue:
    """`convert(q - zero_point) * scale` from the storage integers `s` (float storage:
    `(convert(q) - zero_point) * scale`, the subtraction in the expressed type)."""
    shape = shape_of(s) if shape is None else shape
    e = q.expressed_type
    if q.is_float_storage:
        f = b.op(sh.ConvertOp, [s], e, shape)
        if np.any(q.zero_points != 0):
            f = with_params(b, sh.SubtractOp, f, q, q.zero_points.astype(np.float64), e, shape)
        return with_params(b, sh.MultiplyOp, f, q, q.scales, e, shape)
    if np.any(q.zero_points != 0):
        w = wide_int(q)
        s = b.op(sh.ConvertOp, [s], w, shape)
        s = with_params(b, sh.SubtractOp, s, q, q.zero_points, w, shape)
    f = b.op(sh.ConvertOp, [s], e, shape)
    return with_params(b, sh.MultiplyOp, f, q, q.scales, e, shape)
