"""The `rowwise-legalize-to-stablehlo` pass: the `rowwise` dialect as StableHLO integer
and float math (helpers in `qcomp/passes/rowwise/`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, PatternRewriteWalker, RewritePattern

from qcomp.dialects import rowwise as rw
from qcomp.passes.rowwise import bags, formats
from qcomp.passes.rowwise.emit import RowwiseBuilder as Builder
from qcomp.passes.rowwise.emit import element, i64, shape
from qcomp.passes.utils.diagnostics import PassDiagnostic
from qcomp.passes.utils.float_storage import refuse_float_storage

PASS = "rowwise-legalize-to-stablehlo"

_QUANTIZE = {
    rw.FloatToFused8BitRowwiseQuantizedOp: lambda b, x: formats.float_to_fused_8bit(b, x),
    rw.FloatToFused4BitRowwiseQuantizedOp: lambda b, x: formats.float_to_fused_nbit(b, x, 4),
    rw.FloatToFused2BitRowwiseQuantizedOp: lambda b, x: formats.float_to_fused_nbit(b, x, 2),
    rw.FloatToFused4BitFakeRowwiseQuantizedOp:
        lambda b, x: formats.float_to_fused_nbit_fake(b, x, 4),
    rw.FloatToFused2BitFakeRowwiseQuantizedOp:
        lambda b, x: formats.float_to_fused_nbit_fake(b, x, 2),
}
_DEQUANTIZE_BITS = {
    rw.Fused8BitRowwiseQuantizedToFloatOp: 8,
    rw.Fused4BitRowwiseQuantizedToFloatOp: 4,
    rw.Fused2BitRowwiseQuantizedToFloatOp: 2,
}


class LegalizeRowwise(RewritePattern):
    """Every `rowwise` op, replaced by the StableHLO sequence of its formula."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if op.dialect_name() != "rowwise":
            return
        b = Builder(rewriter, op)
        result = self._lower(op, b, self.guard == "check")
        rewriter.replace(op, [], [result])

    def __init__(self, guard: str):
        super().__init__()
        self.guard = guard

    @staticmethod
    def _lower(op: Operation, b: Builder, check: bool):
        kind = type(op)
        if kind in _QUANTIZE:
            return _QUANTIZE[kind](b, op.operands[0])
        out = op.results[0]
        if kind in _DEQUANTIZE_BITS:
            return formats.fused_to_float(b, op.operands[0], _DEQUANTIZE_BITS[kind],
                                          shape(out)[-1], element(out))
        if isinstance(op, rw.FloatToFusedRandRowwiseQuantizedOp):
            return formats.float_to_fused_rand(b, op.input, op.bitwidth, op.random, op.seed)
        if isinstance(op, rw.FusedRandRowwiseQuantizedToFloatOp):
            return formats.fused_rand_to_float(b, op.input, op.bitwidth, shape(out)[-1],
                                               element(out))
        cols = shape(out)[1]
        if isinstance(op, rw.SparseLengthsSumOp | rw.SparseLengthsMeanOp
                      | rw.SparseLengthsWeightedSumOp):
            lengths = b.convert(op.lengths, i64)
            starts = bags.starts_from_lengths(b, lengths)
            total, mean = True, op.MEAN
        elif isinstance(op, rw.EmbeddingBagRowwiseOffsetsOp):
            starts, lengths = bags.bags_from_offsets(b, b.convert(op.offsets, i64),
                                                     shape(op.indices)[0], op.include_last_offset)
            total, mean = False, False
        else:
            raise PassDiagnostic(op, f"{PASS}: no lowering for '{op.name}'")
        rows = shape(op.data)[0]
        ok = bags.bags_valid(b, op.indices, rows, starts, lengths, total)
        acc = bags.bag_reduce(b, op.data, op.indices, starts, lengths, op.bits, cols,
                              op.weights, mean)
        return bags.guard(b, ok, acc, check)


@dataclass(frozen=True)
class RowwiseLegalizeToStablehloPass(ModulePass):
    """Caffe2's fused rowwise ops (`rowwise` dialect) as StableHLO integer and float math,
    bit for bit with the interpreter (`qcomp.quant.rowwise*`, PyTorch's kernels).

    - quantize: row extremes with `reduce` (minimum / maximum) and fbgemm's choice of a
      signed zero (an i32 key per zero element, reduced with `maximum`), the scale and
      bias arithmetic in f32 (f16 rounding through `convert`, the random format's
      `1.0 / (gap + 1e-8)` in f64), `round_nearest_even` (or `floor` of `t + u` with
      SplitMix64's `u` from `iota`, multiplies, shifts and xors in ui64), `clamp`,
      `convert` to ui8; packing with `shift_left` and a `reduce` with `or` over the
      slots (consecutive for 4/2-bit, segment-interleaved for the random format); the
      scale and bias bytes with `bitcast_convert` (f32 or f16 to 4 or 2 x ui8) and
      `concatenate`.
    - dequantize: `slice`, `bitcast_convert` of the parameter bytes, `shift_right_logical`
      and `and` to unpack, and the fused multiply-add as f64 `multiply` and `add`
      (exact product), TwoSum's error and a one-ulp round-to-odd correction on the
      f64 bits, then `convert` to f32.
    - bags: `gather` of the indexed rows, decode as above, segment starts from the
      lengths by an iota-masked `reduce` (or PyTorch's offsets by `slice`), then one
      `while` over the steps k < max(lengths): `gather` of entry k of every segment,
      `fma(scale, q, acc + bias)`, `select` on `k < length` (a fixed number of ops
      whatever the number of indices); the mean multiplies by `1 / length`.
    - NaN: the first NaN operand of each add, multiply and fma (torch's), made
      explicit with `select`.

    Bad bag input (an index outside the table, a negative length, lengths not adding
    up to the number of indices, offsets out of order or past them): the result is
    all NaN and, with `guard=check` (the default), a `check.expect_eq_const` of the
    validity flag against true fails at run time; `guard=nan` leaves the check out
    (for programs whose consumer has no `check` dialect, or bags in called
    functions, where the xla backend refuses checks). Not checked after lowering: a
    random-format header that disagrees with `bitwidth`.
    """

    name = "rowwise-legalize-to-stablehlo"
    OPTION_CHOICES: ClassVar[dict[str, tuple[str, ...]]] = {"guard": ("check", "nan")}
    """The values each option allows (checked when the pass is built by name)."""

    guard: str = "check"
    """`check` or `nan`: what a lowered bag does with bad indices or lengths."""

    def numerics_contract(self) -> tuple[str, int, bool]:
        """For `qcomp-opt --verify-numerics`: bit for bit, NaN payloads included (the
        formats follow torch's kernels to the NaN)."""
        return ("spec", 0, True)

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.guard not in ("check", "nan"):
            raise PassDiagnostic(op, f"{self.name}: guard must be check or nan, got "
                                     f"'{self.guard}'")
        refuse_float_storage(op, self.name)
        PatternRewriteWalker(LegalizeRowwise(self.guard),
                             apply_recursively=False).rewrite_module(op)
