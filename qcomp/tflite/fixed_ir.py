"""gemmlowp's int32 fixed-point steps as StableHLO integer ops on i64 tensors of one
shape: the IR backend of `qcomp.quant.gemmlowp` (whose functions take it as `f`), and
MultiplyByQuantizedMultiplier with per-element multipliers (`mbqm`)."""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import i32, i64
from xdsl.ir import SSAValue

from qcomp.dialects import stablehlo as sh
from qcomp.passes.utils.builder import Builder

_INT32_MIN, _INT32_MAX = -(1 << 31), (1 << 31) - 1


class FixedIR:
    """gemmlowp's int32 steps on i64 tensors of `shape` (int32 values); every method
    takes tensors or Python ints (made constants)."""

    def __init__(self, b: Builder, shape) -> None:
        self.b, self.shape = b, tuple(shape)

    def c(self, v) -> SSAValue:
        return v if isinstance(v, SSAValue) else self.b.full(np.int64(v), i64, self.shape)

    def op(self, cls, x, y) -> SSAValue:
        return self.b.binary(cls, self.c(x), self.c(y))

    def add(self, x, y) -> SSAValue:
        return self.op(sh.AddOp, x, y)

    def sub(self, x, y) -> SSAValue:
        return self.op(sh.SubtractOp, x, y)

    def and_(self, x, y) -> SSAValue:
        return self.op(sh.AndOp, x, y)

    def minimum(self, x, y) -> SSAValue:
        return self.op(sh.MinimumOp, x, y)

    def maximum(self, x, y) -> SSAValue:
        return self.op(sh.MaximumOp, x, y)

    def select(self, cond: SSAValue, x, y) -> SSAValue:
        return self.b.emit(sh.SelectOp(cond, self.c(x), self.c(y)))

    def cmp(self, x, y, direction: str) -> SSAValue:
        return self.b.emit(sh.CompareOp(self.c(x), self.c(y), direction, "SIGNED"))

    def srdhm(self, x, y) -> SSAValue:
        """SaturatingRoundingDoublingHighMul: (x y + (x y >= 0 ? 2^30 : 1 - 2^30)) / 2^31
        toward zero (its saturation, x = y = INT32_MIN, does not occur in the kernels
        that use it: one factor is positive)."""
        p = self.op(sh.MultiplyOp, x, y)
        nudge = self.select(self.cmp(p, 0, "GE"), 1 << 30, 1 - (1 << 30))
        return self.op(sh.DivideOp, self.add(p, nudge), 1 << 31)

    def rdbpot(self, x, e) -> SSAValue:
        """RoundingDivideByPOT by `e` (>= 0): x >> e, plus 1 where the remainder exceeds
        (2^e - 1) >> 1, plus one more for negative x."""
        x, e = self.c(x), self.c(e)
        mask = self.sub(self.op(sh.ShiftLeftOp, 1, e), 1)
        rem = self.and_(x, mask)
        neg = self.b.convert(self.cmp(x, 0, "LT"), i64)
        threshold = self.add(self.op(sh.ShiftRightArithmeticOp, mask, 1), neg)
        up = self.b.convert(self.cmp(rem, threshold, "GT"), i64)
        return self.add(self.op(sh.ShiftRightArithmeticOp, x, e), up)

    def shl_sat(self, x, e) -> SSAValue:
        """SaturatingRoundingMultiplyByPOT(Param) for `e` >= 0: x 2^e, INT32_MAX above
        2^(31 - e) - 1, INT32_MIN below its negation."""
        x, e = self.c(x), self.c(e)
        t = self.sub(self.op(sh.ShiftLeftOp, 1, self.sub(31, e)), 1)
        shifted = self.op(sh.ShiftLeftOp, x, e)
        low = self.select(self.cmp(x, self.sub(0, t), "LT"), _INT32_MIN, shifted)
        return self.select(self.cmp(x, t, "GT"), _INT32_MAX, low)

    def sat_shift_left(self, x, e: int) -> SSAValue:
        """x 2^e saturated to int32 (e > 0, a constant): `shl_sat` as one clamp."""
        return self.b.clamp(self.op(sh.ShiftLeftOp, x, e), _INT32_MIN, _INT32_MAX)

    def half_sum(self, x, y) -> SSAValue:
        """RoundingHalfSum: (x + y + sign(x + y)) / 2 toward zero."""
        s = self.add(x, y)
        return self.op(sh.DivideOp, self.add(s, self.select(self.cmp(s, 0, "GE"), 1, -1)), 2)

    def clz(self, x) -> SSAValue:
        """CountLeadingZeros(uint32(x))."""
        b = self.b
        return b.convert(b.op(sh.CountLeadingZerosOp, [b.convert(self.c(x), i32)], i32), i64)

    def sat(self, x) -> SSAValue:
        return self.b.clamp(self.c(x), _INT32_MIN, _INT32_MAX)

    def wrap(self, x) -> SSAValue:
        """Two's-complement wrap to int32."""
        return self.add(self.and_(self.sub(x, _INT32_MIN), 0xFFFFFFFF), _INT32_MIN)

    def mbqm(self, x, m, shift) -> SSAValue:
        """MultiplyByQuantizedMultiplier with a multiplier and shift per element."""
        left = self.maximum(shift, 0)
        right = self.maximum(self.sub(0, shift), 0)
        return self.rdbpot(self.srdhm(self.op(sh.ShiftLeftOp, x, left), m), right)


__all__ = ["FixedIR"]
