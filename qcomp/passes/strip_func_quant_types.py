"""The `strip-func-quant-types` pass."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import FunctionType, ModuleOp, TensorType
from xdsl.ir import Attribute, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import InsertPoint

from qcomp.dialects.quant import AnyQuantizedType, StorageCastOp, UniformQuantizedType


def stripped_type(t: Attribute) -> Attribute:
    """`t` with a quantized element type replaced by its storage type."""
    if isinstance(t, UniformQuantizedType | AnyQuantizedType):
        return t.storage
    if isinstance(t, TensorType):
        e = t.element_type
        if isinstance(e, UniformQuantizedType | AnyQuantizedType):
            return TensorType(e.storage, t.shape, t.encoding)
    return t


def _to_storage(value: SSAValue, rewriter: PatternRewriter, point: InsertPoint) -> SSAValue:
    """`value` itself if it is not quantized, else a `quant.scast` of it to storage."""
    new_type = stripped_type(value.type)
    if new_type == value.type:
        return value
    cast = StorageCastOp(value, new_type)
    rewriter.insert(cast, point)
    return cast.res


class StripFuncSignature(RewritePattern):
    """Storage types in the signature; entry arguments cast back to quantized."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: func.FuncOp, rewriter: PatternRewriter) -> None:
        ftype = op.function_type
        inputs = [stripped_type(t) for t in ftype.inputs.data]
        outputs = [stripped_type(t) for t in ftype.outputs.data]
        if inputs == list(ftype.inputs.data) and outputs == list(ftype.outputs.data):
            return
        op.function_type = FunctionType.from_lists(inputs, outputs)
        rewriter.notify_op_modified(op)
        if not op.body.blocks:
            return
        entry = op.body.blocks[0]
        point = InsertPoint.at_start(entry)
        for index, old in enumerate(list(entry.args)):
            new_type = stripped_type(old.type)
            if new_type == old.type:
                continue
            new = rewriter.insert_block_argument(entry, index, new_type)
            new.name_hint = old.name_hint
            cast = StorageCastOp(new, old.type)
            rewriter.insert(cast, point)
            point = InsertPoint.after(cast)
            rewriter.replace_all_uses_with(old, cast.res)
            rewriter.erase_block_argument(old)


class StripReturn(RewritePattern):
    """Quantized operands of `func.return` cast to storage."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: func.ReturnOp, rewriter: PatternRewriter) -> None:
        if all(stripped_type(v.type) == v.type for v in op.arguments):
            return
        point = InsertPoint.before(op)
        values = [_to_storage(v, rewriter, point) for v in op.arguments]
        rewriter.replace(op, func.ReturnOp(*values))


class StripCall(RewritePattern):
    """`func.call` on storage values, quantized results recovered with `quant.scast`."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: func.CallOp, rewriter: PatternRewriter) -> None:
        result_types = [stripped_type(r.type) for r in op.results]
        if result_types == [r.type for r in op.results] and all(
            stripped_type(v.type) == v.type for v in op.arguments
        ):
            return
        point = InsertPoint.before(op)
        args = [_to_storage(v, rewriter, point) for v in op.arguments]
        call = func.CallOp(op.callee, args, result_types)
        rewriter.insert(call, point)
        results: list[SSAValue] = []
        for old, new in zip(op.results, call.results):
            if old.type == new.type:
                results.append(new)
                continue
            cast = StorageCastOp(new, old.type)
            rewriter.insert(cast, point)
            results.append(cast.res)
        rewriter.replace(op, [], results)


@dataclass(frozen=True)
class StripFuncQuantTypesPass(ModulePass):
    """Replace quantized types in function signatures by their storage types.

    MLIR's `strip-func-quant-types`. Every `func.func` argument or result whose type is
    a quantized scalar or a ranked tensor of one (`!quant.uniform`, `!quant.any`) takes the
    storage type instead (`tensor<4x!quant.uniform<i8:f32, 2.0:10>>` → `tensor<4xi8>`), and
    `quant.scast` ops move values across the new boundaries:

    - in a function body, each such argument is cast back to its quantized type at the
      top of the entry block, so the body keeps seeing quantized values;
    - each quantized operand of `func.return` is cast to its storage type;
    - each `func.call` passes storage values (`quant.scast` before the call) and casts
      storage results back to their quantized types after it.

    Declarations without a body only change their signature. The stored integers are
    unchanged (`quant.scast` is a reinterpretation), so the program computes the same
    values; only the types at function boundaries change. Calibrated types have no storage
    type and are left alone.
    """

    name = "strip-func-quant-types"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(
            GreedyRewritePatternApplier([StripFuncSignature(), StripReturn(), StripCall()]),
            apply_recursively=False,
        ).rewrite_module(op)
