"""The XLA preparation's rewrites as xDSL patterns: `rewrite_once` applies a set of
`RewritePattern`s in one forward walk of a function or module (xDSL's
`PatternRewriteWalker`, no re-application to a fixed point: each rewrite is proved for
the ops it matches, not iterated) and counts the ops rewritten, and `erase_unused` drops
the ops a rewrite left without users."""

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


class _Counted(RewritePattern):
    """`pattern`, counting the ops it rewrote (those it acted on)."""

    def __init__(self, pattern: RewritePattern) -> None:
        self.pattern = pattern
        self.rewritten = 0

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        self.pattern.match_and_rewrite(op, rewriter)
        self.rewritten += rewriter.has_done_action  # reset by the walker before each op


def rewrite_once(root: func.FuncOp | ModuleOp, *patterns: RewritePattern) -> int:
    """Apply `patterns` (the first that matches an op) to each op of `root` (a function
    or a module) in one forward walk; how many ops were rewritten. The applier's dead
    code elimination is off: only the patterns' own rewrites (and the ops they leave
    unused, `erase_unused`) change the program, as the loops they replace did."""
    counted = _Counted(GreedyRewritePatternApplier(list(patterns), dce_enabled=False))
    PatternRewriteWalker(counted, apply_recursively=False).rewrite_region(root.body)
    return counted.rewritten


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
