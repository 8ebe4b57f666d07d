"""The `onnx-legalize-qdq-to-quant` pass: ONNX QuantizeLinear / DequantizeLinear with
constant scale and zero point as StableHLO's quantize / dequantize on `!quant.uniform`:

    y = onnx.QuantizeLinear(x, s, zp)   ->  q = stablehlo.uniform_quantize x : !quant.uniform<S:F, s:zp>
                                            y = quant.scast q             (the storage tensor)
    y = onnx.DequantizeLinear(x, s, zp) ->  q = quant.scast x
                                            y = stablehlo.uniform_dequantize q

A `quant.scast` pair that goes back to the same quantized type is folded, so
Q -> DQ becomes uniform_quantize -> uniform_dequantize. The granularity is the
scale's shape: a scalar (or one element) is per-tensor, a 1-D scale with `axis` is
per-axis (`!quant.uniform<i8:f32:1, {...}>`), a blocked scale (`block_size`) is MLIR's
sub-channel type with block B along `axis` and 1 along the other dimensions
(`!quant.uniform<i4:f32:{0:32, 1:1}, {...}>`). Storage: ONNX uint8 / int8 / uint16 /
int16 / uint4 / int4 / uint2 / int2 / int32 are `u8` / `i8` / ... ; float8e4m3fn,
float8e5m2 and float4e2m1 are the float storage types qcomp's quant dialect allows
(`f8E4M3FN`, `f8E5M2`, `f4E2M1FN`: quantize rounds to nearest even and saturates, as
ONNX's saturate = 1); StableHLO's ops take integer storage only, so float storage uses
`quant.qcast` / `quant.dcast` (lowered by `lower-quant-ops`).

Rounding: ONNX computes `round_half_even(x / s) + zp`; StableHLO's quantize computes
`round_half_even(x / s + zp)` with the sum rounded to float32 first. Both are the exact
value's nearest integer except when `x / s` lies within float32 rounding of a half
(0.49999997 + 3 rounds to 3.5, which rounds to 4; ONNX gives 3): then they are one
storage step apart. The pass's numerics contract says so (`--verify-numerics` allows
one step); `tests/lit/passes/onnx-legalize-qdq-to-quant/numerics.mlir` hits such ties.

Negative scales (ONNX allows them; onnxruntime's symmetric blockwise quantizer gives
about half its blocks one) on a DequantizeLinear of a constant are reflected, exactly:
`(x - zp) * s = (x' - zp') * -s` with `x' = lo + hi - x`, `zp' = lo + hi - zp` in the
storage range [lo, hi] (`qcomp.quant.onnx_quant.positive_scales`).

com.microsoft MatMulNBits, `Y = A @ W^T (+ bias)` with `W[n, k] = (q[n, k] - zp[n, b]) *
s[n, b]`, `b = k / block_size`, becomes its QDQ form: B's packed `bits`-wide values
unpacked and transposed to MatMul's [K, N] as an `onnx.Constant` of u4 / u8 with the
sub-channel type (block_size along K, 1 along N; params [K / block_size, N]; zero points
unpacked, default 2^(bits-1)), `uniform_dequantize`, `onnx.MatMul` and `onnx.Add` of the
bias. It is here, not in onnx-legalize-to-stablehlo, because MatMulNBits is that QDQ
pair fused (onnxruntime's optimizer fuses DequantizeLinear -> MatMul into it) and this
pass is where ONNX's quantization parameters become `!quant.uniform` types: after it a
MatMulNBits model and a blocked-QDQ model are the same IR, and onnx-legalize-to-stablehlo
makes one hybrid `dot_general` of both. `accuracy_level` (a licence to lower A's precision)
is not taken up: the QDQ form computes in A's type.

What `!quant.uniform` cannot express stays as it is, with a remark saying why: a scale
or zero point that is not a constant, a zero, non-finite or (on a non-constant input)
negative scale, float8 e4m3fnuz / e5m2fnuz storage (no MLIR quant storage type),
saturate = 0 (inf and NaN kept), a float8 zero point that is not an integer, a
`precision` other than the input's type, int32 input, an input type other than the
scale's, a zero point outside the storage range, a blocked dimension that the block
size does not divide; MatMulNBits with a g_idx other than k / block_size (act-order
reorders K across blocks), zero points in the scales' float type, `bits` other than 4
and 8, K not a multiple of block_size (its last block is padded), a non-constant B.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    Float4E2M1FNType,
    Float8E4M3FNType,
    Float8E5M2Type,
    IntegerType,
    ModuleOp,
    Signedness,
    TensorType,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, PatternRewriteWalker, RewritePattern
from xdsl.utils.exceptions import VerifyException

from qcomp.dialects import stablehlo as sh
from qcomp.dialects.onnx import core
from qcomp.dialects.onnx import float_ops as fo
from qcomp.dialects.onnx import quantize as oq
from qcomp.dialects.onnx.types import NAME_OF_DTYPE, onnx_name
from qcomp.dialects.quant import (
    DequantizeCastOp,
    QuantizeCastOp,
    StorageCastOp,
    UniformQuantizedType,
)
from qcomp.passes.utils.builder import dense_ints, dense_values
from qcomp.passes.utils.diagnostics import remark
from qcomp.quant.onnx_qlinear import nbits_weight
from qcomp.quant.onnx_quant import INT_RANGES, LayoutError, positive_scales

PASS = "onnx-legalize-qdq-to-quant"

FLOAT_STORAGE = {"float8e4m3fn": Float8E4M3FNType, "float8e5m2": Float8E5M2Type,
                 "float4e2m1": Float4E2M1FNType}
INT_STORAGE = {"uint8": (8, False), "int8": (8, True), "uint16": (16, False),
               "int16": (16, True), "uint4": (4, False), "int4": (4, True),
               "uint2": (2, False), "int2": (2, True), "int32": (32, True)}


class Refused(Exception):
    """Why the op stays (the remark)."""


def constant_values(v: SSAValue) -> np.ndarray | None:
    """The values of a constant operand (`onnx.Constant`, `stablehlo.constant`)."""
    owner = v.owner if isinstance(v.owner, Operation) else None
    if owner is None:
        return None
    a = owner.properties.get("value") or owner.attributes.get("value")
    if not isinstance(a, DenseIntOrFPElementsAttr):
        return None
    return dense_values(a)


def parameters(scale: SSAValue, zp: SSAValue) -> tuple[np.ndarray, np.ndarray]:
    """The constant scale and zero point (0 when absent), or Refused."""
    s = constant_values(scale)
    if s is None:
        raise Refused("the scale is not a constant")
    z = np.zeros(s.shape) if core.is_none(zp) else constant_values(zp)
    if z is None:
        raise Refused("the zero point is not a constant")
    return s, z


def quant_type(op: Operation, x_shape: tuple[int, ...], expressed: Attribute,
               storage_name: str, scale: SSAValue, zp: SSAValue) -> UniformQuantizedType:
    """The `!quant.uniform` of a QuantizeLinear / DequantizeLinear, or Refused."""
    return quant_type_of(op, x_shape, expressed, storage_name, *parameters(scale, zp))


def _reflected_constant(op: Operation, x: SSAValue, storage_name: str, s: np.ndarray,
                        z: np.ndarray):
    """A DequantizeLinear of a constant with negative scales: (the constant with those
    blocks reflected, |s|, the reflected zero points) (`onnx_quant.positive_scales`),
    or None when there is nothing to reflect."""
    if storage_name not in INT_RANGES or not np.all(np.isfinite(s)) or np.all(s > 0) \
            or np.any(s == 0):
        return None
    xv = constant_values(x)
    if xv is None:
        raise Refused("!quant.uniform needs positive finite scales (negative ones are "
                      "reflected on a constant input only)")
    lo, hi = INT_RANGES[storage_name]
    try:
        q, s, z = positive_scales(xv.astype(np.int64), s, z, lo, hi,
                                  axis=core.attr(op, "axis"),
                                  block_size=core.attr(op, "block_size") or 0)
    except LayoutError as e:
        raise Refused(str(e)) from e
    c = core.ConstantOp(dense_ints(x.type, q))  # type: ignore[arg-type]
    return c, s, z


def quant_type_of(op: Operation, x_shape: tuple[int, ...], expressed: Attribute,
                  storage_name: str, s: np.ndarray, z: np.ndarray) -> UniformQuantizedType:
    """The `!quant.uniform` of scale `s` and zero point `z` arrays, or Refused."""
    if not np.all(np.isfinite(s)) or not np.all(s > 0):
        raise Refused("!quant.uniform needs positive finite scales")
    if storage_name in FLOAT_STORAGE:
        if core.attr(op, "saturate") == 0:
            raise Refused("saturate = 0 keeps inf and NaN; !quant.uniform's float storage "
                          "saturates")
        if not np.all(z == np.round(z)):
            raise Refused(f"a {storage_name} zero point that is not an integer")
        storage: Attribute = FLOAT_STORAGE[storage_name]()
    elif storage_name in INT_STORAGE:
        width, signed = INT_STORAGE[storage_name]
        storage = IntegerType(width, Signedness.SIGNLESS if signed else Signedness.UNSIGNED)
        lo, hi = (-(2 ** (width - 1)), 2 ** (width - 1) - 1) if signed else (0, 2**width - 1)
        if np.any(z < lo) or np.any(z > hi):
            raise Refused(f"a zero point outside the {storage_name} range [{lo}, {hi}]")
    else:
        raise Refused(f"{storage_name} storage has no !quant.uniform storage type")
    zi = [int(v) for v in z.reshape(-1)]
    si = [float(v) for v in s.reshape(-1)]
    block = core.attr(op, "block_size") or 0
    try:
        kind, axis = oq.scale_layout(x_shape, tuple(s.shape), core.attr(op, "axis"), block)
    except oq.LayoutError as e:
        raise Refused(str(e)) from e
    if kind == "tensor":
        t = UniformQuantizedType.per_tensor(storage, expressed, si[0], zi[0])
    elif kind == "axis":
        t = UniformQuantizedType.per_axis(storage, expressed, axis, si, zi)
    else:
        blocks = [block if d == axis else 1 for d in range(len(x_shape))]
        t = UniformQuantizedType.build(storage, expressed, si, zi,
                                       quantized_dimensions=list(range(len(x_shape))),
                                       block_sizes=blocks, params_shape=list(s.shape))
    try:
        t.verify_for_shape(x_shape)
    except VerifyException as e:
        raise Refused(str(e)) from e
    return t


def _shape(v: SSAValue) -> tuple[int, ...]:
    t = v.type
    if not isinstance(t, TensorType):
        raise Refused("the input is not a ranked tensor")
    return tuple(t.get_shape())


NBITS_STORAGE = {4: "uint4", 8: "uint8"}
"""MatMulNBits' `bits` that a `!quant.uniform` storage type holds (its values are
unsigned: the symmetric form is zero point 2^(bits-1))."""


def is_matmul_nbits(op: Operation) -> bool:
    return (isinstance(op, core.CustomOp) and op.function_name is not None
            and op.function_name.data == "MatMulNBits"
            and core.attr(op, "domain_name") == "com.microsoft")


def matmul_nbits_parts(op: Operation) -> list[Operation]:
    """com.microsoft MatMulNBits (Y = A @ W^T (+ bias), W[n, k] = (q[n, k] - zp[n, k/B]) *
    s[n, k/B]) as its QDQ form: the unpacked weight, transposed to MatMul's [K, N], a
    constant with the sub-channel type `!quant.uniform<uN:f:{0:B, 1:1}, ...>` (params
    [K/B, N]), dequantized, then onnx.MatMul (and onnx.Add of the bias); or Refused."""
    ins = list(op.inputs) + [None] * (6 - len(op.inputs))
    a, packed, scale, zp, g_idx, bias = (None if v is None or core.is_none(v) else v
                                         for v in ins)
    k, n = core.attr(op, "K"), core.attr(op, "N")
    bits, block = core.attr(op, "bits") or 4, core.attr(op, "block_size")
    if not isinstance(k, int) or not isinstance(n, int) or not isinstance(block, int):
        raise Refused("K, N and block_size must be integer attributes")
    if bits not in NBITS_STORAGE:
        raise Refused(f"bits = {bits}: qcomp takes 4- and 8-bit weights (u4 / u8 storage)")
    if k % block:
        raise Refused(f"K = {k} is not a multiple of block_size = {block}: a sub-channel "
                      "!quant.uniform's blocks tile the dimension")
    assert a is not None and packed is not None and scale is not None
    a_shape = _shape(a)
    if not a_shape or a_shape[-1] != k:
        raise Refused(f"A's last dimension is not K = {k}")
    if _shape(op.results[0]) != (*a_shape[:-1], n):
        raise Refused(f"the result's shape is not A's with N = {n} last")
    expressed = a.type.element_type  # type: ignore[attr-defined]
    if scale.type.element_type != expressed:  # type: ignore[attr-defined]
        raise Refused("A and the scales have different types")
    b, s = constant_values(packed), constant_values(scale)
    if b is None or s is None:
        raise Refused("B or the scales are not constants")
    nb = k // block
    if b.size != n * nb * block * bits // 8 or s.size != n * nb:
        raise Refused(f"B has {b.size} bytes and the scales {s.size} values; K = {k}, "
                      f"N = {n}, bits = {bits}, block_size = {block} need "
                      f"{n * nb * block * bits // 8} and {n * nb}")
    z = None
    if zp is not None:
        if onnx_name(zp.type) != "uint8":
            raise Refused("zero points in the scales' type (float) are not integers; "
                          "!quant.uniform's are")
        z = constant_values(zp)
        if z is None:
            raise Refused("the zero points are not a constant")
        if z.size != n * -(-nb * bits // 8):
            raise Refused(f"{z.size} packed zero points; N = {n} rows of {nb} blocks need "
                          f"{n * -(-nb * bits // 8)}")
        z = z.astype(np.uint8)
    if g_idx is not None:
        g = constant_values(g_idx)
        if g is None:
            raise Refused("g_idx is not a constant")
        if g.shape != (k,) or np.any(g != np.arange(k) // block):
            raise Refused("g_idx reorders K across blocks (act-order); a sub-channel "
                          "!quant.uniform's blocks are contiguous runs of block_size")
    q, sc, zz = nbits_weight(b.astype(np.uint8), s, z, K=k, N=n, bits=bits, block_size=block)
    if not np.all(np.isfinite(sc)) or np.any(sc == 0):
        raise Refused("!quant.uniform needs nonzero finite scales")
    q, sc, zz = positive_scales(q, sc, zz, 0, (1 << bits) - 1, axis=1, block_size=block)
    storage = IntegerType(bits, Signedness.UNSIGNED)
    t = UniformQuantizedType.build(storage, expressed, [float(v) for v in sc.T.reshape(-1)],
                                   [int(v) for v in zz.T.reshape(-1)],
                                   quantized_dimensions=[0, 1], block_sizes=[block, 1],
                                   params_shape=[nb, n])
    const = core.ConstantOp(dense_ints(TensorType(storage, [k, n]), q.T))
    cast = StorageCastOp(const.results[0], TensorType(t, [k, n]))
    dq = sh.UniformDequantizeOp.create(operands=[cast.results[0]],
                                       result_types=[TensorType(expressed, [k, n])])
    y = op.results[0]
    mm = fo.MatMulOp.create(operands=[a, dq.results[0]], result_types=[y.type])
    parts = [const, cast, dq, mm]
    if bias is not None:
        parts.append(fo.AddOp.create(operands=[mm.results[0], bias], result_types=[y.type]))
    return parts


class LegalizeQDQ(RewritePattern):
    def __init__(self) -> None:
        self.replaced_inputs: list[Operation] = []  # constants now folded into types

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if is_matmul_nbits(op):
            try:
                parts = matmul_nbits_parts(op)
            except Refused as e:
                remark(op, f"{PASS}: 'onnx.Custom' (MatMulNBits) stays: {e}")
                return
            self.replaced_inputs += [v.owner for v in op.operands[1:]
                                     if isinstance(v.owner, core.ConstantOp)]
            rewriter.replace(op, parts)
            return
        if not isinstance(op, oq.QuantizeLinearOp | oq.DequantizeLinearOp):
            return
        params = [v.owner for v in op.operands[1:] if isinstance(v.owner, core.ConstantOp)]
        try:
            self._rewrite(op, rewriter)
        except Refused as e:
            remark(op, f"{PASS}: '{op.name}' stays: {e}")
            return
        self.replaced_inputs += params

    def _rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if isinstance(op, oq.QuantizeLinearOp):
            x, scale, zp, y = op.x, op.y_scale, op.y_zero_point, op.y
            expressed = x.type.element_type  # type: ignore[attr-defined]
            xname = onnx_name(x.type)
            if xname not in ("float", "float16", "bfloat16"):
                raise Refused(f"a {xname} input has no !quant.uniform expressed type")
            if scale.type.element_type != expressed:  # type: ignore[attr-defined]
                raise Refused("the input and the scale have different types")
            precision = core.attr(op, "precision") or 0
            if precision and NAME_OF_DTYPE.get(precision) != xname:
                raise Refused(f"precision = {precision} divides in another type than "
                              "the input's")
            storage_name = onnx_name(y.type)
            t = quant_type(op, _shape(x), expressed, storage_name, scale, zp)
            qt = TensorType(t, _shape(x))
            float_storage = storage_name in FLOAT_STORAGE
            q = (QuantizeCastOp(x, qt) if float_storage
                 else sh.UniformQuantizeOp.create(operands=[x], result_types=[qt]))
            cast = StorageCastOp(q.results[0], y.type)
            rewriter.replace(op, [q, cast])
            return
        x, scale, zp, y = op.x, op.x_scale, op.x_zero_point, op.y
        expressed = y.type.element_type  # type: ignore[attr-defined]
        if scale.type.element_type != expressed:  # type: ignore[attr-defined]
            raise Refused("the result and the scale have different types")
        storage_name = onnx_name(x.type)
        s, z = parameters(scale, zp)
        new: list[Operation] = []
        reflected = _reflected_constant(op, x, storage_name, s, z)
        if reflected is not None:
            c, s, z = reflected
            if isinstance(x.owner, core.ConstantOp):
                self.replaced_inputs.append(x.owner)
            x, new = c.results[0], [c]
        t = quant_type_of(op, _shape(x), expressed, storage_name, s, z)
        qt = TensorType(t, _shape(x))
        src = x.owner
        if isinstance(src, StorageCastOp) and src.arg.type == qt:
            qv = src.arg  # quantize -> dequantize: the scast pair folds
        else:
            cast = StorageCastOp(x, qt)
            qv = cast.results[0]
            new.append(cast)
        dq = (DequantizeCastOp(qv, y.type) if storage_name in FLOAT_STORAGE
              else sh.UniformDequantizeOp.create(operands=[qv], result_types=[y.type]))
        rewriter.replace(op, [*new, dq])


class EraseDeadCasts(RewritePattern):
    """A storage cast (and a constant) left without users by the folding."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if isinstance(op, StorageCastOp) and not op.res.uses:
            rewriter.erase(op)


@dataclass(frozen=True)
class OnnxLegalizeQDQToQuantPass(ModulePass):
    """ONNX QuantizeLinear / DequantizeLinear with constant parameters as
    `stablehlo.uniform_quantize` / `uniform_dequantize` on `!quant.uniform` (per-tensor,
    per-axis, blocked as sub-channel; float8 / float4 storage through quant.qcast /
    quant.dcast), com.microsoft MatMulNBits as its QDQ form (a sub-channel 4- / 8-bit
    weight, dequantized, MatMul); what the quant types cannot express stays, with a
    remark."""

    name = "onnx-legalize-qdq-to-quant"

    def numerics_contract(self) -> tuple[str, int]:
        """Spec semantics; results may move one storage step (see the module docstring)."""
        return ("spec", 1)

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        legalize = LegalizeQDQ()
        PatternRewriteWalker(legalize, apply_recursively=False).rewrite_module(op)
        for c in dict.fromkeys(legalize.replaced_inputs):
            if c.parent is not None and not c.results[0].uses:
                c.detach()
                c.erase()
        PatternRewriteWalker(EraseDeadCasts(), apply_recursively=False,
                             walk_reverse=True).rewrite_module(op)


__all__ = ["OnnxLegalizeQDQToQuantPass", "constant_values", "quant_type", "quant_type_of"]
