"""The `strip-func-quant-types` pass."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

from qcomp.passes.utils.storage_boundaries import lower_call, lower_func_signature, lower_return


class StripFuncSignature(RewritePattern):
    """Storage types in the signature; entry arguments cast back to quantized."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: func.FuncOp, rewriter: PatternRewriter) -> None:
        lower_func_signature(op, rewriter)


class StripReturn(RewritePattern):
    """Quantized operands of `func.return` cast to storage."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: func.ReturnOp, rewriter: PatternRewriter) -> None:
        lower_return(op, rewriter)


class StripCall(RewritePattern):
    """`func.call` on storage values, quantized results recovered with `quant.scast`."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: func.CallOp, rewriter: PatternRewriter) -> None:
        lower_call(op, rewriter)


@dataclass(frozen=True)
class StripFuncQuantTypesPass(ModulePass):
    """Replace quantized types in function signatures by their storage types.

    MLIR's `strip-func-quant-types`. Every `func.func` argument or result whose type is
    a quantized scalar or a tensor of one, ranked or not (`!quant.uniform`, `!quant.any`), takes the
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
