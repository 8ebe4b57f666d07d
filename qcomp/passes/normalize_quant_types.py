"""The `normalize-quant-types` pass."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, FunctionType, ModuleOp, TensorType
from xdsl.ir import Attribute
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriteWalker, TypeConversionPattern

from qcomp.dialects.quant import UniformQuantizedType


def normalized_element(q: UniformQuantizedType) -> UniformQuantizedType | None:
    """The per-tensor or per-axis type equal to the sub-channel type `q`, if any."""
    if not q.is_blockwise:
        return None
    shape = q.params_shape
    bounds = {"storage_min": q.storage_min, "storage_max": q.storage_max,
              "signed": q.is_signed}  # with q.storage_type: the storage as written
    if len(q.scales_attr.data) == 1:
        return UniformQuantizedType.per_tensor(
            q.storage_type, q.expressed_type, float(q.scales.flat[0]), int(q.zero_points.flat[0]),
            **bounds)
    varying = [d for d, n in enumerate(shape) if n != 1]
    if len(varying) != 1:
        return None
    axis = varying[0]
    blocks = dict(zip(q.quantized_dimensions, q.block_sizes))
    if blocks.get(axis) != 1:
        return None
    return UniformQuantizedType.per_axis(
        q.storage_type, q.expressed_type, axis,
        [float(s) for s in q.scales.flat], [int(z) for z in q.zero_points.flat], **bounds)


def normalized_type(typ: Attribute) -> Attribute:
    """`typ` with every normalizable tensor type in it rewritten (tensor types, also
    inside function types and array/dictionary attributes)."""
    if isinstance(typ, TensorType):
        q = typ.element_type
        if isinstance(q, UniformQuantizedType):
            simpler = normalized_element(q)
            if simpler is not None:
                return TensorType(simpler, typ.shape, typ.encoding)
        return typ
    if isinstance(typ, FunctionType):
        return FunctionType.from_lists(
            [normalized_type(t) for t in typ.inputs.data],
            [normalized_type(t) for t in typ.outputs.data])
    if isinstance(typ, ArrayAttr):
        return ArrayAttr([normalized_type(t) for t in typ.data])
    if isinstance(typ, DictionaryAttr):
        return DictionaryAttr({k: normalized_type(v) for k, v in typ.data.items()})
    return typ


class NormalizeTensorTypes(TypeConversionPattern):
    """Rewrite every tensor type (results, block arguments, attributes such as a
    function's type) whose sub-channel element type has a simpler equal form."""

    def convert_type(self, typ: Attribute, /) -> Attribute | None:
        new = normalized_type(typ)
        return None if new is typ else new


@dataclass(frozen=True)
class NormalizeQuantTypesPass(ModulePass):
    """Rewrite sub-channel quantized types that are really per-tensor or per-axis.

    MLIR's `normalize-quant-types`, on every tensor type in the module (operation
    results, block arguments, function signatures, typed attributes):

    - a sub-channel type with a single scale/zero-point pair becomes per-tensor:
      `tensor<?x?x!quant.uniform<i8:f32:{0:1, 1:4}, {{2.0:127}}>>` →
      `tensor<?x?x!quant.uniform<i8:f32, 2.0:127>>`;
    - a sub-channel type whose parameter tensor has exactly one dimension `d` of size
      other than 1 becomes per-axis on `d`, the parameters in order:
      `!quant.uniform<i8:f32:{0:1, 1:4}, {{2.0:127}, {3.0:127}}>` →
      `!quant.uniform<i8:f32:0, {2.0:127, 3.0:127}>`.

    Storage type, storage range and expressed type are kept. Unlike upstream, the
    per-axis rewrite also requires block size 1 along `d`: with a larger block
    (`{1:2}` and two scales on a dimension of size 4) each scale covers several
    elements, which no per-axis type can say, so the type stays sub-channel (upstream
    would produce a per-axis type with fewer scales than the dimension has elements).
    Scalar (non-tensor) values and all other types are left as they are. The values
    every element denotes are unchanged.
    """

    name = "normalize-quant-types"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(NormalizeTensorTypes(), apply_recursively=False).rewrite_module(op)
