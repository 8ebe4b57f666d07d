"""The XLA preparation's rewrites as xDSL patterns: `rewrite_once` applies a set of
`RewritePattern`s in one forward walk of a function (xDSL's `PatternRewriteWalker`, no
re-application to a fixed point: each rewrite is proved for the ops it matches, not
iterated), and `erase_unused` drops the ops a rewrite left without users."""

from __future__ import annotations

from collections.abc import Callable

from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, Operation, SSAValue
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
)


def rewrite_once(root: func.FuncOp | ModuleOp, *patterns: RewritePattern) -> bool:
    """Apply `patterns` (the first that matches an op) to each op of `root` (a function
    or a module) in one forward walk; whether anything changed."""
    walker = PatternRewriteWalker(GreedyRewritePatternApplier(list(patterns)),
                                  apply_recursively=False)
    return walker.rewrite_region(root.body)


def inserter(rewriter: PatternRewriter) -> Callable[[Operation], SSAValue]:
    """`add(op)`: insert `op` before the op being rewritten, return its (first) result:
    how the preparation's builders (`xla_dots.unsigned_dot`, ...) emit ops."""
    def add(new: Operation) -> SSAValue:
        rewriter.insert(new)
        return new.results[0]
    return add


def erase_unused(rewriter: PatternRewriter, *ops: Operation | Block | None) -> None:
    """Erase each op of `ops`, in order, that is still in the IR and has no users (so a
    later one may lose its last user to an earlier one's erasure); a block (the owner
    of a block argument) or None is passed over."""
    for op in ops:
        if isinstance(op, Operation) and op.parent is not None and not any(r.uses for r in op.results):
            rewriter.erase(op)
