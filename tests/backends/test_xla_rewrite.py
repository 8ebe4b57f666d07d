"""`qcomp.backends.xla_rewrite.rewrite_once`: only the patterns change the program (an
unused op stays: xDSL's applier would erase it by default), and the count is the number
of ops a pattern acted on."""

from __future__ import annotations

from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from qcomp.backends.xla_rewrite import rewrite_once
from qcomp.dialects import stablehlo as sh
from qcomp.registry import parse_module

SOURCE = """
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %unused = stablehlo.constant dense<2.000000e+00> : tensor<4xf32>
  %a = stablehlo.negate %x : tensor<4xf32>
  %b = stablehlo.negate %a : tensor<4xf32>
  func.return %b : tensor<4xf32>
}"""


class NegateToAbs(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: sh.NegateOp, rewriter: PatternRewriter) -> None:
        rewriter.replace(op, sh.AbsOp(op.operands[0]))


class Nothing(RewritePattern):
    def match_and_rewrite(self, op, rewriter: PatternRewriter) -> None:
        pass


def _names(module) -> list[str]:
    return [op.name for op in module.walk()]


def test_no_rewrite_changes_nothing_and_counts_zero():
    module = parse_module(SOURCE)
    before = _names(module)
    assert rewrite_once(module, Nothing()) == 0
    assert _names(module) == before and "stablehlo.constant" in before


def test_each_rewritten_op_is_counted_once_and_dead_ops_stay():
    module = parse_module(SOURCE)
    assert rewrite_once(module, NegateToAbs()) == 2
    names = _names(module)
    assert names.count("stablehlo.abs") == 2 and "stablehlo.negate" not in names
    assert "stablehlo.constant" in names
