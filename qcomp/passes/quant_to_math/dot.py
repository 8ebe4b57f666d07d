"""Quantized `dot`, `dot_general` and `convolution` for `stablehlo-legalize-quant-to-math`.

Fully quantized (lhs per-tensor, rhs per-tensor or per-axis): an integer kernel on the
stored integers, then the zero-point correction of the LiteRT spec

    acc = Σ q_l q_r - z_r Σ q_l - z_l Σ q_r + K z_l z_r

where the sums run over the contracting dimensions (a convolution's window: kernel
spatial and input-feature dimensions, with the lhs padded explicitly with z_l so every
window position holds a real value). Terms whose operand is a constant are folded
into one constant; only Σ q_l (when z_r != 0) and Σ q_r of a non-constant rhs are
computed at run time, as `stablehlo.reduce`. Then, by `rescale`:

- `float`: `clamp(round_nearest_even(f64(acc) * (s_l s_r) / s_res + z_res), min, max)`
  in float64 (`qcomp.quant.accumulator.rescale_accumulator`, what `--semantics spec`
  computes); acc in i32 when it provably fits, else i64.
- `fixed-point`: `clamp(MBQM(acc, M, shift) + z_res, min, max)`, TFLite's
  MultiplyByQuantizedMultiplier with (M, shift) = QuantizeMultiplier(s_l s_r / s_res)
  per channel (`qcomp.quant.tflite.mbqm`, emitted by `emit.fixed_point_rescale`).
- `stablehlo`: upstream's i32 formula (`qcomp.quant.stablehlo.dot_zero_point_offset`,
  `dot_rescale`): `off = z_r Σq_l + z_l Σq_r - z_l z_r K`; if |cs - 1| > 0.001 (cs =
  s_l s_r / s_res, channel 0 for per-axis) acc and off become `i32(f32(v) * f32(cs))`
  (truncation); `convert(acc + (z_res - off))` to storage without clamping (wraps).

Hybrid (float lhs, quantized rhs, float result): the rhs is dequantized and the op runs
in float (`hybrid_dequantize_then_op`); `stablehlo` puts an `optimization_barrier` on
the rhs and dequantizes in f32 as upstream.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from xdsl.dialects.builtin import IntegerType, Signedness, TensorType, f32, f64, i32, i64
from xdsl.ir import Block, Operation, Region, SSAValue

from qcomp.dialects import chlo
from qcomp.dialects import stablehlo as sh
from qcomp.dialects.quant import (
    StorageCastOp,
    UniformQuantizedType,
    quantized_element,
)
from qcomp.dialects.stablehlo.attrs import DotDimensionNumbersAttr
from qcomp.dialects.stablehlo.format import i64_array, padding_attr
from qcomp.ir.splat import is_splat_array
from qcomp.passes.quant_to_math.emit import fixed_point_rescale, spec_dequantize, upstream_storage
from qcomp.passes.quant_to_math.mode import RescaleMode
from qcomp.passes.utils.builder import Builder, element_of, is_dynamic, shape_of
from qcomp.passes.utils.diagnostics import PassDiagnostic, short_name
from qcomp.passes.utils.uniform_tensor import broadcast_params
from qcomp.quant.accumulator import accumulator_multiplier
from qcomp.quant.ranges import signed_view, storage_range


@dataclass
class Contraction:
    """A dot-like op seen as: reduce `*_reduce` dims, the rest land in the result at `*_map`."""

    op: Operation
    lhs_q: UniformQuantizedType
    rhs_q: UniformQuantizedType
    res_q: UniformQuantizedType
    result_shape: tuple[int, ...]
    lhs_reduce: list[int]
    rhs_reduce: list[int]
    lhs_map: dict[int, int]
    rhs_map: dict[int, int]
    k: int
    rhs_channel_dim: int | None = None  # result dim where a per-axis rhs axis lands
    is_conv: bool = False
    extra: dict = field(default_factory=dict)


def _fail(op: Operation, msg: str) -> PassDiagnostic:
    return PassDiagnostic(op, msg)


def illegal(op: Operation) -> PassDiagnostic:
    return _fail(op, f"failed to legalize operation '{op.name}' that was explicitly marked illegal")


def _dot_dims(op: Operation) -> tuple[list[int], list[int], list[int], list[int]]:
    if isinstance(op, sh.DotOp):
        rank_l = len(shape_of(op.lhs))
        return [], [], [rank_l - 1], [0]
    dn = op.dot_dimension_numbers
    return (list(dn.lhs_batching_dimensions), list(dn.rhs_batching_dimensions),
            list(dn.lhs_contracting_dimensions), list(dn.rhs_contracting_dimensions))


def dot_contraction(op: Operation, lq, rq, oq, mode: RescaleMode) -> Contraction:
    """Upstream (`mode.upstream`) places the batching dims of the operand sums in
    increasing operand-dimension order rather than in batching-dims order (it differs,
    or fails to verify, when the batching dims are listed out of order), and leaves a
    per-axis rhs along a contracting dimension to its own checks."""
    lb, rb, lc, rc = _dot_dims(op)
    ls, rs = shape_of(op.lhs), shape_of(op.rhs)
    nb = len(lb)
    lfree = [d for d in range(len(ls)) if d not in lb and d not in lc]
    rfree = [d for d in range(len(rs)) if d not in rb and d not in rc]
    lbo, rbo = (sorted(lb), sorted(rb)) if mode.upstream else (lb, rb)
    lmap = {d: i for i, d in enumerate(lbo)} | {d: nb + j for j, d in enumerate(lfree)}
    rmap = {d: i for i, d in enumerate(rbo)} | {d: nb + len(lfree) + j for j, d in enumerate(rfree)}
    k = int(np.prod([ls[d] for d in lc], dtype=np.int64)) if lc else 1
    if any(ls[d] < 0 for d in lc):
        k = -1  # dynamic: unknown until run time
    ch = rmap.get(rq.quantized_dimension) if rq.is_per_axis else None
    if not mode.upstream and rq.is_per_axis and ch is None:
        raise _fail(op, f"{short_name(op)}: per-axis rhs must not quantize a contracting "
                    "dimension")
    return Contraction(op, lq, rq, oq, shape_of(op.result), lc, rc, lmap, rmap, k, ch)


def conv_contraction(op: sh.ConvolutionOp, lq, rq, oq) -> Contraction:
    dn = op.dimension_numbers
    rs = shape_of(op.rhs)
    rreduce = list(dn.kernel_spatial_dimensions) + [dn.kernel_input_feature_dimension]
    kof, of = dn.kernel_output_feature_dimension, dn.output_feature_dimension
    k = int(np.prod([rs[d] for d in rreduce], dtype=np.int64))
    if any(rs[d] < 0 for d in rreduce):
        k = -1  # dynamic: unknown until run time
    ch = None
    if rq.is_per_axis:
        if rq.quantized_dimension != kof:
            raise _fail(op, "convolution: per-axis rhs must quantize the kernel output "
                        "feature dimension")
        ch = of
    return Contraction(op, lq, rq, oq, shape_of(op.result), [], rreduce, {}, {kof: of}, k, ch,
                       is_conv=True)


# ---------------------------------------------------------------------------
# Constants and sums
# ---------------------------------------------------------------------------
def constant_values(v: SSAValue) -> np.ndarray | None:
    """The stored integers of `v` when it is (a storage cast of) a `stablehlo.constant`."""
    while isinstance(v.owner, StorageCastOp):
        v = v.owner.arg
    owner = v.owner
    if not isinstance(owner, sh.ConstantOp):
        return None
    shape = shape_of(v)
    attr = owner.value
    element = getattr(getattr(attr, "type", None), "element_type", None)
    raw = getattr(getattr(attr, "data", None), "data", None)
    if isinstance(element, IntegerType) and isinstance(raw, bytes | bytearray):
        width = next(b for b in (8, 16, 32, 64) if element.width.data <= b)
        unsigned = element.signedness.data == Signedness.UNSIGNED
        a = np.frombuffer(raw, dtype=f"<{'u' if unsigned else 'i'}{width // 8}").astype(np.int64)
    else:
        a = np.array(attr.get_values(), dtype=np.int64)  # type: ignore[attr-defined]
    return a.reshape(shape) if a.size == int(np.prod(shape)) else np.broadcast_to(a, shape)


def is_broadcast(a: np.ndarray) -> bool:
    """Whether `a` is one stored value broadcast (`constant_values` of a held splat)."""
    return a.size > 1 and all(stride == 0 for stride in a.strides)


def _reduce_sum(b: Builder, x: SSAValue, dims: list[int], acc: IntegerType) -> SSAValue:
    shape = shape_of(x)
    out_shape = tuple(n for d, n in enumerate(shape) if d not in dims)
    x = b.convert(x, acc) if element_of(x) != acc else x
    init = b.constant(np.array(0), acc)
    scalar = TensorType(acc, ())
    block = Block(arg_types=[scalar, scalar])
    add = sh.AddOp(block.args[0], block.args[1])
    block.add_ops([add, sh.ReturnOp(add.results[0])])
    red = sh.ReduceOp.create(operands=[x, init], result_types=[TensorType(acc, out_shape)],
                             properties={"dimensions": i64_array(sorted(dims))},
                             regions=[Region(block)])
    return b.insert(red).results[0]


def _sum_term(b: Builder, c: Contraction, value: SSAValue, reduce: list[int],
              mapping: dict[int, int], acc: IntegerType):
    """Σ over `reduce` of `value`: a NumPy array (constant operand) shaped for the result
    by broadcasting, or an SSA value already broadcast to the result shape."""
    shape = shape_of(value)
    kept = [d for d in range(len(shape)) if d not in reduce]
    dims = [mapping[d] for d in kept]
    for i, (d, r) in enumerate(zip(kept, dims)):
        if shape[d] != 1 and shape[d] != c.result_shape[r]:
            # upstream's broadcast_in_dim of the sum fails to verify (rescale=stablehlo)
            raise _fail(c.op, f"size of operand dimension {i} ({shape[d]}) is not equal to 1 "
                        f"or size of result dimension {r} ({c.result_shape[r]})")
    const = constant_values(value)
    if const is not None:
        if reduce and is_splat_array(const):  # a held splat: v * count, nothing summed
            count = math.prod(shape[d] for d in reduce)
            s = np.broadcast_to(np.int64(int(const.flat[0]) * count),
                                [shape[d] for d in kept])
        else:
            s = const.sum(axis=tuple(reduce), dtype=np.int64) if reduce else \
                const.astype(np.int64)
        # place kept dims at their result positions (size 1 elsewhere)
        order = np.argsort(dims)
        s = np.transpose(s, order) if s.ndim else s
        full = [1] * len(c.result_shape)
        for d, r in zip(kept, dims):
            full[r] = shape[d]
        return s.reshape(full)
    return b.broadcast(_reduce_sum(b, value, reduce, acc), c.result_shape, dims)


def _materialize(b: Builder, c: Contraction, a, acc: IntegerType) -> SSAValue:
    if isinstance(a, SSAValue):
        return a
    a = np.asarray(a, np.int64)
    if acc == i32:
        a = signed_view(a, 32)
    if a.size == 1:
        return b.full(a.reshape(()), acc, c.result_shape)
    dims = [d for d, n in enumerate(a.shape) if n != 1]
    squeezed = a.reshape([a.shape[d] for d in dims])
    return b.broadcast(b.constant(squeezed, acc), c.result_shape, dims)


def _combine(b: Builder, c: Contraction, terms: list, acc: IntegerType):
    """Sum of terms (NumPy arrays folded together; SSA values added at run time)."""
    folded = None
    values: list[SSAValue] = []
    for t in terms:
        if isinstance(t, SSAValue):
            values.append(t)
        else:
            folded = t if folded is None else folded + t
    out = None
    for v in values:
        out = v if out is None else b.binary(sh.AddOp, out, v)
    if folded is not None and np.any(np.asarray(folded) != 0):
        f = _materialize(b, c, folded, acc)
        out = f if out is None else b.binary(sh.AddOp, out, f)
    return out


def _scaled(b: Builder, c: Contraction, v: SSAValue | np.ndarray, factor: int, acc):
    if isinstance(v, SSAValue):
        return b.binary(sh.MultiplyOp, v, b.full(np.array(factor), acc, c.result_shape))
    return np.asarray(v, np.int64) * factor


def accumulator_type(c: Contraction) -> IntegerType:
    """i32 when |acc| and every partial sum provably stay below 2^31, else i64."""
    def mag(q: UniformQuantizedType) -> int:
        return max(abs(q.storage_min), abs(q.storage_max))
    ml, mr = mag(c.lhs_q), mag(c.rhs_q)
    zl = abs(c.lhs_q.zero_point)
    zr = int(np.max(np.abs(c.rhs_q.zero_points)))
    if c.k < 0:
        return i64
    bound = c.k * (ml * mr + zr * ml + zl * mr + zl * zr)
    return i32 if bound <= storage_range(32, True)[1] else i64


# ---------------------------------------------------------------------------
# Kernels
# ---------------------------------------------------------------------------
def _kernel(b: Builder, c: Contraction, lhs: SSAValue, rhs: SSAValue, acc: IntegerType,
            pad_with_zero_point: bool) -> SSAValue:
    op = c.op
    rt = TensorType(acc, c.result_shape)
    if not c.is_conv:
        props = {"dot_dimension_numbers": DotDimensionNumbersAttr.get(*_dot_dims(op))}
        if op.precision_config is not None:
            props["precision_config"] = op.precision_config
        if isinstance(op, sh.DotGeneralOp) and op.algorithm is not None:
            props["algorithm"] = op.algorithm
        return b.insert(sh.DotGeneralOp.create(operands=[lhs, rhs], result_types=[rt],
                                               properties=props)).results[0]
    props = dict(op.properties)
    zl = c.lhs_q.zero_point
    pads = op.padding
    dil = op.lhs_dilation
    if pad_with_zero_point and zl != 0 and (any(p != (0, 0) for p in pads)
                                            or any(d != 1 for d in dil)):
        dn = op.dimension_numbers
        rank = len(shape_of(lhs))
        low, high, interior = [0] * rank, [0] * rank, [0] * rank
        for i, d in enumerate(dn.input_spatial_dimensions):
            low[d], high[d] = pads[i]
            interior[d] = dil[i] - 1
        zp = b.constant(np.array(zl), element_of(lhs))
        shape = [(n - 1) * (interior[d] + 1) + 1 + low[d] + high[d] if n > 0 else n
                 for d, n in enumerate(shape_of(lhs))]
        lhs = b.op(sh.PadOp, [lhs, zp], element_of(lhs), tuple(shape),
                   edge_padding_low=i64_array(low), edge_padding_high=i64_array(high),
                   interior_padding=i64_array(interior))
        n = len(pads)
        props["padding"] = padding_attr([(0, 0)] * n)
        if "lhs_dilation" in props:
            props["lhs_dilation"] = i64_array([1] * n)
    return b.insert(sh.ConvolutionOp.create(operands=[lhs, rhs], result_types=[rt],
                                            properties=props)).results[0]


def centered(b: Builder, v: SSAValue, q: UniformQuantizedType, acc: IntegerType) -> SSAValue:
    """q - z in the accumulator type (a constant when `v` is one)."""
    shape = shape_of(v)
    const = constant_values(v)
    if const is not None and is_splat_array(const) and not q.is_per_axis:
        # a held splat stays one value: (v - z) broadcast, never materialised
        return b.constant(np.broadcast_to(np.int64(int(const.flat[0]) - q.zero_point), shape),
                          acc)
    if const is not None and not is_broadcast(const):  # per-axis z on a held splat: ops
        return b.constant(const - np.asarray(q.broadcast_zero_points(shape), np.int64), acc)
    x = b.convert(v, acc)
    if np.any(np.asarray(q.zero_points) != 0):
        axis = q.quantized_dimension if q.is_per_axis else None
        flat = np.asarray(q.zero_points).reshape(-1) if axis is not None else \
            np.asarray(q.zero_point)
        x = b.binary(sh.SubtractOp, x, b.full(flat, acc, shape, axis))
    return x


def zero_point_terms(b: Builder, c: Contraction, lhs: SSAValue, rhs: SSAValue,
                     acc: IntegerType) -> list:
    """[-z_r Σ q_l, -z_l Σ q_r, K z_l z_r] (each present only when non-zero)."""
    zl = c.lhs_q.zero_point
    zr = int(c.rhs_q.zero_point) if c.rhs_q.is_per_tensor else 0
    terms: list = []
    if zr != 0:
        terms.append(_scaled(b, c, _sum_term(b, c, lhs, c.lhs_reduce, c.lhs_map, acc), -zr, acc))
    if zl != 0:
        terms.append(_scaled(b, c, _sum_term(b, c, rhs, c.rhs_reduce, c.rhs_map, acc), -zl, acc))
    if zl != 0 and zr != 0:
        terms.append(np.array(c.k * zl * zr, np.int64))
    return terms


def _along(values, axis: int | None) -> tuple[np.ndarray, int | None]:
    v = np.asarray(values).reshape(-1)
    if v.size == 1:
        return v.reshape(()), None
    return v, axis


def _fixed_point_params(c: Contraction) -> tuple[np.ndarray, np.ndarray, int | None]:
    """(M = s_l * s_r / s_res, z_res, result dim of the channels), one channel axis."""
    rq, oq = c.rhs_q, c.res_q
    res_axis = oq.quantized_dimension if oq.is_per_axis else None
    if rq.is_per_axis and oq.is_per_axis and res_axis != c.rhs_channel_dim:
        raise _fail(c.op, f"{short_name(c.op)}: rescale=fixed-point needs "
                    "the per-axis rhs and result channels on one result dimension")
    axis = c.rhs_channel_dim if rq.is_per_axis else res_axis
    n = max(np.asarray(rq.scales).size, np.asarray(oq.scales).size)
    sr = np.broadcast_to(np.asarray(rq.scales, np.float64).reshape(-1), n)
    so = np.broadcast_to(np.asarray(oq.scales, np.float64).reshape(-1), n)
    zo = np.broadcast_to(np.asarray(oq.zero_points).reshape(-1), n).astype(np.int64)
    m = accumulator_multiplier(c.lhs_q.scale, sr, so)
    if n == 1:
        return m.reshape(()), zo.reshape(()), None
    return m, zo, axis


def lower_exact(b: Builder, c: Contraction, lhs: SSAValue, rhs: SSAValue,
                mode: RescaleMode) -> SSAValue:
    """`rescale=float` / `fixed-point`: exact integer acc, one rescale, clamp.

    When the rhs zero points are not 0 and the LiteRT terms would need a windowed sum
    of the lhs (convolution) or a per-channel one (per-axis rhs), the operands are
    centred instead: the kernel runs on (q_l - z_l) and (q_r - z_r) (folded for a
    constant rhs), with zero padding, which is the same exact sum. Dynamic shapes are
    always centred (the zero points applied with chlo.broadcast_*), in i64 when a
    contracting dimension is dynamic (K unknown)."""
    acc_t = accumulator_type(c)
    fixed = _fixed_point_params(c) if mode.integer_only else None
    dynamic = any(d < 0 for d in c.result_shape) or c.k < 0
    if dynamic or (np.any(c.rhs_q.zero_points != 0) and (c.is_conv or c.rhs_q.is_per_axis)):
        acc = _kernel(b, c, centered(b, lhs, c.lhs_q, acc_t),
                      centered(b, rhs, c.rhs_q, acc_t), acc_t, pad_with_zero_point=False)
    else:
        acc = _kernel(b, c, lhs, rhs, acc_t, pad_with_zero_point=True)
        corr = _combine(b, c, zero_point_terms(b, c, lhs, rhs, acc_t), acc_t)
        if corr is not None:
            acc = b.binary(sh.AddOp, acc, corr)
    oq = c.res_q
    shape = c.result_shape
    if fixed is not None:
        m, zo, axis = fixed
        return fixed_point_rescale(b, acc, m, axis, zo, oq.storage_min, oq.storage_max,
                                   oq.storage, c.op)
    # qcomp.quant.accumulator.rescale_accumulator
    lhs_rhs = np.float64(c.lhs_q.scale) * np.asarray(c.rhs_q.scales, np.float64)
    c1, c1_axis = _along(lhs_rhs, c.rhs_channel_dim)
    f = b.convert(acc, f64)
    if np.any(c1 != 1.0):  # x * 1.0 and x / 1.0 are exact: skipped
        f = b.binary(sh.MultiplyOp, f, b.full(c1, f64, shape, c1_axis))
    return quantize_real(b, f, oq)


def quantize_real(b: Builder, f: SSAValue, oq: UniformQuantizedType) -> SSAValue:
    """The f64 real result to storage: clamp(round_nearest_even(f / s_res + z_res), min,
    max), as `qcomp.quant.accumulator.rescale_blocks` ends."""
    shape = shape_of(f)
    res_axis = oq.quantized_dimension if oq.is_per_axis else None
    so, so_axis = _along(np.asarray(oq.scales, np.float64), res_axis)
    zo, zo_axis = _along(np.asarray(oq.zero_points, np.int64), res_axis)
    if np.any(so != 1.0):
        f = b.binary(sh.DivideOp, f, b.full(so, f64, shape, so_axis))
    if np.any(zo != 0):
        f = b.binary(sh.AddOp, f, b.full(zo.astype(np.float64), f64, shape, zo_axis))
    f = b.clamp(f, float(oq.storage_min), float(oq.storage_max))
    f = b.op(sh.RoundNearestEvenOp, [f], f64)
    return b.convert(f, oq.storage)


# ---------------------------------------------------------------------------
# rescale=stablehlo: upstream's checks and numerics
# ---------------------------------------------------------------------------
_UPSTREAM_CONV_LAYOUTS = {
    # (input b, f, spatial), (kernel i, o, spatial), (output b, f, spatial):
    #   (rhs dims upstream reduces, result dim of the rest)
    ((0, 3, (1, 2)), (2, 3, (0, 1)), (0, 3, (1, 2))): ([0, 1, 2], 3),            # NHWC
    ((0, 1, (2, 3)), (1, 0, (2, 3)), (0, 1, (2, 3))): ([2, 3, 1], 1),            # NCHW
    ((0, 4, (1, 2, 3)), (3, 4, (0, 1, 2)), (0, 4, (1, 2, 3))): ([0, 1, 2, 3], 4),  # NDHWC
    ((0, 1, (2, 3, 4)), (0, 1, (2, 3, 4)), (0, 1, (2, 3, 4))): ([2, 3, 4, 1], 1),  # NCDHW
}


def upstream_conv_contraction(op: sh.ConvolutionOp, lq, rq, oq) -> Contraction:
    """Upstream's preconditions (its match failures become 'failed to legalize')."""
    if rq.is_per_tensor:
        if rq.zero_point != 0:
            raise illegal(op)
    elif np.any(rq.zero_points != 0) or (oq.is_per_axis and np.any(oq.zero_points != 0)):
        raise illegal(op)
    if rq.is_per_axis:
        if rq.quantized_dimension != len(shape_of(op.rhs)) - 1:
            raise illegal(op)
        ratios = np.asarray(oq.scales, np.float64).reshape(-1) / np.asarray(
            rq.scales, np.float64).reshape(-1)
        if np.any(np.abs((ratios - ratios[0]) / ratios[0]) > 0.001):
            raise illegal(op)
    if any(d != 1 for d in op.lhs_dilation):
        raise illegal(op)
    dn = op.dimension_numbers
    key = ((dn.input_batch_dimension, dn.input_feature_dimension,
            tuple(dn.input_spatial_dimensions)),
           (dn.kernel_input_feature_dimension, dn.kernel_output_feature_dimension,
            tuple(dn.kernel_spatial_dimensions)),
           (dn.output_batch_dimension, dn.output_feature_dimension,
            tuple(dn.output_spatial_dimensions)))
    if key not in _UPSTREAM_CONV_LAYOUTS:
        raise illegal(op)
    rreduce, res_dim = _UPSTREAM_CONV_LAYOUTS[key]
    rank = len(shape_of(op.rhs))
    rest = [d for d in range(rank) if d not in rreduce]
    return Contraction(op, lq, rq, oq, shape_of(op.result), [], rreduce,
                       {}, {d: res_dim + i for i, d in enumerate(rest)}, 0, None, is_conv=True)


def upstream_types_ok(lq, rq, oq) -> bool | None:
    """True: fully quantized; False: hybrid; None: upstream rejects the combination."""
    if lq is not None and lq.is_per_tensor and rq is not None and oq is not None and (
            (rq.is_per_tensor and oq.is_per_tensor) or (rq.is_per_axis and oq.is_per_axis)):
        return True
    if lq is None and rq is not None and oq is None:
        return False
    return None


def _constant_as_result(b: Builder, term: np.ndarray, like: SSAValue) -> SSAValue:
    """A folded zero-point term (a NumPy array shaped for the result, size 1 where it
    broadcasts) as an i32 tensor of the kernel result's run-time shape."""
    a = signed_view(np.asarray(term, np.int64), 32)
    dims = [d for d, n in enumerate(a.shape) if n != 1]
    squeezed = b.constant(a.reshape([a.shape[d] for d in dims]), i32)
    return b.dynamic_broadcast(squeezed, like, dims)


def _upstream_dynamic_offset(b: Builder, c: Contraction, lhs: SSAValue, rhs: SSAValue,
                             acc: SSAValue, zl: int, zr: int) -> SSAValue | None:
    """Upstream's `calculateZeroPointOffset` for dynamic shapes: each operand sum
    `dynamic_broadcast_in_dim` to the kernel result's run-time shape, and
    `z_l z_r K` with K the product of the rhs contracting sizes (`get_dimension_size`
    for the dynamic ones), all in i32."""
    off = None
    for z, value, reduce, mapping in ((zr, lhs, c.lhs_reduce, c.lhs_map),
                                      (zl, rhs, c.rhs_reduce, c.rhs_map)):
        if z == 0:
            continue
        term = _sum_term(b, c, value, reduce, mapping, i32)
        if isinstance(term, SSAValue):  # upstream: the sum times z, then broadcast
            dims = b.pending.pop(term, None)
            term = b.emit(chlo.BroadcastMultiplyOp.create(
                operands=[term, b.constant(np.array(z), i32)], result_types=[term.type]))
            if dims is not None:
                term = b.dynamic_broadcast(term, acc, dims)
        else:
            term = _constant_as_result(b, np.asarray(term, np.int64) * z, acc)
        off = term if off is None else b.binary(sh.AddOp, off, term)
    if zl != 0 and zr != 0:
        rs = shape_of(rhs)
        static_k = int(np.prod([rs[d] for d in c.rhs_reduce if rs[d] >= 0], dtype=np.int64))
        k = b.constant(signed_view(np.array(zl * zr * static_k, np.int64), 32), i32)
        for d in c.rhs_reduce:
            if rs[d] < 0:
                k = b.binary(sh.MultiplyOp, k, b.dimension_size(rhs, d))
        off = b.binary(sh.SubtractOp, off, b.broadcast(k, shape_of(acc), []))
    return off


def lower_upstream(b: Builder, c: Contraction, lhs: SSAValue, rhs: SSAValue) -> SSAValue:
    """`qcomp.quant.stablehlo.dot_zero_point_offset` + `dot_rescale` as ops, in i32."""
    lq, rq, oq = c.lhs_q, c.rhs_q, c.res_q
    shape = c.result_shape
    acc = _kernel(b, c, lhs, rhs, i32, pad_with_zero_point=True)
    zl = lq.zero_point
    zr = rq.zero_point if rq.is_per_tensor else 0
    if is_dynamic(shape) or c.k < 0:
        off = _upstream_dynamic_offset(b, c, lhs, rhs, acc, zl, zr)
    else:
        terms: list = []
        if zr != 0:
            terms.append(_scaled(b, c, _sum_term(b, c, lhs, c.lhs_reduce, c.lhs_map, i32),
                                 zr, i32))
        if zl != 0:
            terms.append(_scaled(b, c, _sum_term(b, c, rhs, c.rhs_reduce, c.rhs_map, i32),
                                 zl, i32))
        if zl != 0 and zr != 0:
            terms.append(np.array(-zl * zr * c.k, np.int64))
        off = _combine(b, c, terms, i32) if terms else None
    if rq.is_per_tensor:
        cs = lq.scale * rq.scale / oq.scale
    else:
        cs = lq.scale * float(np.asarray(rq.scales).reshape(-1)[0]) / float(
            np.asarray(oq.scales).reshape(-1)[0])
    if abs(cs - 1.0) > 0.001:
        csv = np.float32(cs)
        f = b.binary(sh.MultiplyOp, b.convert(acc, f32), b.full(csv, f32, shape))
        acc = b.convert(f, i32)
        if off is not None:
            f = b.binary(sh.MultiplyOp, b.convert(off, f32), b.full(csv, f32, shape))
            off = b.convert(f, i32)
    czp = b.full(np.array(oq.zero_point if oq.is_per_tensor else 0), i32, shape)
    if off is not None:
        czp = b.binary(sh.SubtractOp, czp, off)
    out = b.binary(sh.AddOp, acc, czp)
    return b.convert(out, upstream_storage(oq))


# ---------------------------------------------------------------------------
# Hybrid
# ---------------------------------------------------------------------------
def lower_hybrid(b: Builder, op: Operation, lhs: SSAValue, rhs: SSAValue,
                 rq: UniformQuantizedType, mode: RescaleMode) -> SSAValue:
    """op(lhs, dequantize(rhs)) in float, the op's attributes kept."""
    if mode.upstream:
        barrier = b.insert(sh.OptimizationBarrierOp.create(operands=[rhs],
                                                           result_types=[rhs.type]))
        r = barrier.results[0]
        shape = shape_of(r)
        axis = rq.quantized_dimension if rq.is_per_axis else None
        flat = (lambda a: np.asarray(a).reshape(-1)) if axis is not None else (
            lambda a: np.asarray(a).reshape(()))

        def params(values: np.ndarray) -> SSAValue:
            if rq.is_blockwise:  # qcomp's extension: the block parameters expanded
                return broadcast_params(b, rq, values.astype(np.float32), f32, shape)
            return b.full(flat(values).astype(np.float32), f32, shape, axis)

        f = b.convert(r, f32)
        if np.any(rq.zero_points != 0):
            f = b.binary(sh.SubtractOp, f, params(rq.zero_points))
        rhs_f = b.binary(sh.MultiplyOp, f, params(rq.scales))
    else:
        rhs_f = spec_dequantize(b, rhs, rq)
    new = type(op).create(operands=[lhs, rhs_f], result_types=[op.results[0].type],
                          properties=dict(op.properties), attributes=dict(op.attributes))
    return b.insert(new).results[0]


def quantized_types(op: Operation):
    return (quantized_element(op.lhs.type), quantized_element(op.rhs.type),
            quantized_element(op.result.type))
