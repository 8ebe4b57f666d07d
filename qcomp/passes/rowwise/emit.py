"""StableHLO building blocks of `rowwise-legalize-to-stablehlo`, each the IR form of a
piece of `qcomp.quant`'s rowwise formats:

| method            | computes (bit for bit)                                  |
|-------------------|---------------------------------------------------------|
| `fma`             | `qcomp.quant.rowwise.fma_f32` (float64, round to odd)   |
| `fbgemm_min_max`  | `qcomp.quant.rowwise.fbgemm_min_max`                    |
| `first_min_max`   | `qcomp.quant.rowwise.first_min_max`                     |
| `pack`            | the packing of `rowwise` (consecutive) and `rowwise_rand` (segments) |
| `unpack`          | its inverse                                             |

Every value is a statically shaped tensor; scalars are rank-0 constants broadcast with
`stablehlo.broadcast_in_dim`.
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import (
    IntegerType,
    Signedness,
    f16,
    f32,
    f64,
    i1,
    i32,
    i64,
)
from xdsl.ir import Attribute, Block, Region, SSAValue

from qcomp.dialects import stablehlo as sh
from qcomp.dialects.stablehlo.attrs import (
    ComparisonDirection,
    ComparisonDirectionAttr,
    ComparisonType,
    ComparisonTypeAttr,
    GatherDimensionNumbersAttr,
)
from qcomp.dialects.stablehlo.format import i64_array
from qcomp.passes.utils.builder import Builder, element_of, shape_of, tensor_type
from qcomp.quant.rowwise import FLT_MAX

ui8 = IntegerType(8, Signedness.UNSIGNED)
ui64 = IntegerType(64, Signedness.UNSIGNED)
FLOAT_TYPES = (f16, f32, f64)


tensor = tensor_type
shape = shape_of
element = element_of


_COMPARE_TYPE = {"f": ComparisonType.FLOAT, "i": ComparisonType.SIGNED, "u": ComparisonType.UNSIGNED}


class RowwiseBuilder(Builder):
    """The passes' `Builder` (inserting before `anchor`) with the rowwise formulas."""

    def op(self, cls: type, operands: list[SSAValue], elem: Attribute | None = None,
           shp: tuple[int, ...] | None = None, **props: Attribute) -> SSAValue:
        """`Builder.op`, the element type defaulting to the first operand's."""
        return super().op(cls, operands, element(operands[0]) if elem is None else elem,
                          shp, **props)

    def scalar(self, value, elem: Attribute) -> SSAValue:
        """A rank-0 constant."""
        return self.constant(np.array(value), elem)

    def splat(self, value, elem: Attribute, shp: tuple[int, ...]) -> SSAValue:
        return self.broadcast(self.scalar(value, elem), tuple(shp), [])

    def bcast(self, x: SSAValue, shp: tuple[int, ...], dims: list[int]) -> SSAValue:
        return self.broadcast(x, tuple(shp), list(dims))

    def rows(self, x: SSAValue, shp: tuple[int, ...]) -> SSAValue:
        """A per-row value [R] broadcast along the columns of `shp` = [R, C]."""
        return self.bcast(x, shp, [0])

    # -- element-wise --------------------------------------------------------------------
    def add(self, a, b): return self.op(sh.AddOp, [a, b])
    def sub(self, a, b): return self.op(sh.SubtractOp, [a, b])
    def mul(self, a, b): return self.op(sh.MultiplyOp, [a, b])
    def div(self, a, b): return self.op(sh.DivideOp, [a, b])
    def min(self, a, b): return self.op(sh.MinimumOp, [a, b])
    def max(self, a, b): return self.op(sh.MaximumOp, [a, b])
    def and_(self, a, b): return self.op(sh.AndOp, [a, b])
    def or_(self, a, b): return self.op(sh.OrOp, [a, b])
    def xor(self, a, b): return self.op(sh.XorOp, [a, b])
    def shl(self, a, b): return self.op(sh.ShiftLeftOp, [a, b])
    def shr(self, a, b): return self.op(sh.ShiftRightLogicalOp, [a, b])
    def abs(self, a): return self.op(sh.AbsOp, [a])
    def floor(self, a): return self.op(sh.FloorOp, [a])
    def rint(self, a): return self.op(sh.RoundNearestEvenOp, [a])

    def select(self, pred, a, b) -> SSAValue:
        return self.op(sh.SelectOp, [pred, a, b], element(a), shape(a))

    def clamp(self, lo, x, hi) -> SSAValue:
        return self.op(sh.ClampOp, [lo, x, hi], element(x), shape(x))

    def cmp(self, direction: str, a: SSAValue, b: SSAValue) -> SSAValue:
        e = element(a)
        # booleans compare as UNSIGNED (XLA's HLO verifier rejects SIGNED on pred)
        kind = "f" if e in FLOAT_TYPES else (
            "u" if isinstance(e, IntegerType) and (e.signedness.data == Signedness.UNSIGNED
                                                   or e.width.data == 1) else "i")
        return self.op(sh.CompareOp, [a, b], i1, shape(a),
                       comparison_direction=ComparisonDirectionAttr(ComparisonDirection(direction)),
                       compare_type=ComparisonTypeAttr(_COMPARE_TYPE[kind]))

    def cmp_const(self, direction: str, a: SSAValue, value) -> SSAValue:
        return self.cmp(direction, a, self.splat(value, element(a), shape(a)))

    def convert(self, x: SSAValue, elem: Attribute) -> SSAValue:
        return x if element(x) == elem else self.op(sh.ConvertOp, [x], elem)

    def bitcast(self, x: SSAValue, elem: Attribute, shp: tuple[int, ...]) -> SSAValue:
        return self.op(sh.BitcastConvertOp, [x], elem, shp)

    def is_nan(self, x: SSAValue) -> SSAValue:
        return self.cmp("NE", x, x)

    def is_finite(self, x: SSAValue) -> SSAValue:
        return self.cmp_const("LT", self.abs(x), float("inf"))

    # -- structure -----------------------------------------------------------------------
    def reshape(self, x: SSAValue, shp: tuple[int, ...]) -> SSAValue:
        return x if shape(x) == tuple(shp) else self.op(sh.ReshapeOp, [x], element(x), tuple(shp))

    def slice_cols(self, x: SSAValue, start: int, limit: int) -> SSAValue:
        """x[..., start:limit] of a rank-2 or rank-1 tensor (last dimension)."""
        s = shape(x)
        begin = [0] * (len(s) - 1) + [start]
        end = list(s[:-1]) + [limit]
        return self.emit(sh.SliceOp(x, begin, end))

    def concat(self, xs: list[SSAValue], dim: int) -> SSAValue:
        xs = [x for x in xs if shape(x)[dim] != 0] or xs[:1]
        return xs[0] if len(xs) == 1 else self.emit(sh.ConcatenateOp(xs, dim))

    def iota(self, dim: int, elem: Attribute, shp: tuple[int, ...]) -> SSAValue:
        return self.emit(sh.IotaOp(dim, tensor(elem, tuple(shp))))

    def reduce(self, x: SSAValue, dim: int, kind: type, init) -> SSAValue:
        e = element(x)
        out = tuple(n for d, n in enumerate(shape(x)) if d != dim)
        scalar = tensor(e, ())
        block = Block(arg_types=[scalar, scalar])
        body = kind.create(operands=[block.args[0], block.args[1]], result_types=[scalar])
        block.add_ops([body, sh.ReturnOp(body.results[0])])
        red = sh.ReduceOp.create(operands=[x, self.scalar(init, e)], result_types=[tensor(e, out)],
                                 properties={"dimensions": i64_array([dim])},
                                 regions=[Region(block)])
        return self.emit(red)

    def gather_rows(self, table: SSAValue, idx: SSAValue) -> SSAValue:
        """table[idx] for a rank-2 table [R, W] and i64 indices [N] -> [N, W]; a rank-1
        table gives [N]."""
        n = shape(idx)[0]
        ts = shape(table)
        idx2 = self.reshape(idx, (n, 1))
        dn = GatherDimensionNumbersAttr.get(offset_dims=[1] if len(ts) == 2 else [],
                                            collapsed_slice_dims=[0], start_index_map=[0],
                                            index_vector_dim=1)
        out = (n, ts[1]) if len(ts) == 2 else (n,)
        sizes = [1, ts[1]] if len(ts) == 2 else [1]
        return self.op(sh.GatherOp, [table, idx2], element(table), out,
                       dimension_numbers=dn, slice_sizes=i64_array(sizes))

    # -- numerics ------------------------------------------------------------------------
    def quiet(self, x: SSAValue) -> SSAValue:
        """f32 x with the quiet bit set (what an arithmetic op makes of a NaN operand)."""
        shp = shape(x)
        bits = self.or_(self.bitcast(x, i32, shp), self.splat(0x00400000, i32, shp))
        return self.bitcast(bits, f32, shp)

    def nan_first(self, result: SSAValue, operands: list[SSAValue]) -> SSAValue:
        """`result`, but the first NaN operand (quieted) where one is NaN: the x86 and
        `qcomp.quant.rowwise.fma_f32` choice, made explicit so that no compiler's
        operand swap changes which NaN comes out."""
        for x in reversed(operands):
            result = self.select(self.is_nan(x), self.quiet(x), result)
        return result

    def add_nan_first(self, a: SSAValue, b: SSAValue) -> SSAValue:
        """f32 `a + b`, a NaN a before a NaN b."""
        return self.nan_first(self.add(a, b), [a, b])

    def mul_nan_first(self, a: SSAValue, b: SSAValue) -> SSAValue:
        """f32 `a * b`, a NaN a before a NaN b."""
        return self.nan_first(self.mul(a, b), [a, b])

    def fma(self, a: SSAValue, b: SSAValue, c: SSAValue) -> SSAValue:
        """float32 `a * b + c` rounded once: float64 product (exact) and sum, then the
        sum moved one float64 ulp toward the exact value when it was inexact and its last
        bit is even (round to odd; TwoSum gives the error), then rounded to float32.
        NaN: the first NaN of a, b, c (`nan_first`), else the default NaN of 0 * inf."""
        return self.nan_first(self._fma(a, b, c), [a, b, c])

    def _fma(self, a: SSAValue, b: SSAValue, c: SSAValue) -> SSAValue:
        a, b, c = (self.convert(v, f64) for v in (a, b, c))
        p = self.mul(a, b)
        s = self.add(p, c)
        bb = self.sub(s, p)
        err = self.add(self.sub(p, self.sub(s, bb)), self.sub(c, bb))
        shp = shape(s)
        bits = self.bitcast(s, i64, shp)
        even = self.cmp_const("EQ", self.and_(bits, self.splat(1, i64, shp)), 0)
        inexact = self.cmp_const("NE", err, 0.0)
        fix = self.and_(self.and_(even, inexact), self.is_finite(s))
        up = self.cmp("EQ", self.cmp_const("GT", err, 0.0), self.cmp_const("GT", s, 0.0))
        step = self.select(up, self.splat(1, i64, shp), self.splat(-1, i64, shp))
        bits = self.select(fix, self.add(bits, step), bits)
        return self.convert(self.bitcast(bits, f64, shp), f32)

    def _zero_keys(self, x: SSAValue) -> tuple[SSAValue, SSAValue]:
        """(is zero, sign bit as i32 0/1) of x [R, C] f32."""
        shp = shape(x)
        zero = self.cmp_const("EQ", x, 0.0)
        negative = self.cmp_const("LT", self.bitcast(x, i32, shp), 0)
        neg = self.select(negative, self.splat(1, i32, shp), self.splat(0, i32, shp))
        return zero, neg

    def _first_key(self, zero: SSAValue, neg: SSAValue) -> SSAValue:
        """max over columns of `zero ? (C - c) * 2 + sign : -1`: the first zero's sign in
        bit 0 (-1 when none)."""
        r, c = shape(zero)
        pos = self.sub(self.splat(c, i32, (r, c)), self.iota(1, i32, (r, c)))
        key = self.add(self.add(pos, pos), neg)
        key = self.select(zero, key, self.splat(-1, i32, (r, c)))
        return self.reduce(key, 1, sh.MaximumOp, -1)

    def _signed_zero(self, sign_key: SSAValue, value: SSAValue) -> SSAValue:
        """`value` with a zero replaced by -0.0 where bit 0 of `sign_key` is set."""
        r = shape(value)
        neg = self.cmp_const("EQ", self.and_(sign_key, self.splat(1, i32, r)), 1)
        z = self.select(neg, self.splat(-0.0, f32, r), self.splat(0.0, f32, r))
        return self.select(self.cmp_const("EQ", value, 0.0), z, value)

    def first_min_max(self, x: SSAValue) -> tuple[SSAValue, SSAValue]:
        zero, neg = self._zero_keys(x)
        key = self._first_key(zero, neg)
        mn = self.reduce(x, 1, sh.MinimumOp, float("inf"))
        mx = self.reduce(x, 1, sh.MaximumOp, float("-inf"))
        return self._signed_zero(key, mn), self._signed_zero(key, mx)

    def _fbgemm_active(self, x: SSAValue) -> SSAValue:
        """[R, C] i1: the values fbgemm's extremes see. A NaN in lane l (columns l,
        l + 8, ... of the first C - C % 8) replaces the lane's running value, which the
        next value replaces again: only the values after the lane's last NaN count;
        the later columns count unless NaN."""
        r, c = shape(x)
        v = c // 8 * 8
        nan = self.is_nan(x)
        parts = []
        if v:
            n3 = self.reshape(self.slice_cols(nan, 0, v), (r, v // 8, 8))
            j = self.iota(1, i32, (r, v // 8, 8))
            last = self.reduce(self.select(n3, j, self.splat(-1, i32, (r, v // 8, 8))), 1,
                               sh.MaximumOp, -1)                                     # [R, 8]
            after = self.cmp("GT", j, self.bcast(last, (r, v // 8, 8), [0, 2]))
            parts.append(self.reshape(after, (r, v)))
        if c > v:
            parts.append(self.op(sh.NotOp, [self.slice_cols(nan, v, c)]))
        return self.concat(parts, 1)

    def fbgemm_min_max(self, x: SSAValue) -> tuple[SSAValue, SSAValue]:
        r, c = shape(x)
        active = self._fbgemm_active(x)
        zero, neg = self._zero_keys(x)
        zero = self.and_(zero, active)
        v = c // 8 * 8
        key = None
        if v:
            # lanes: [R, V/8, 8]; the last zero of each lane, then the first lane with one
            z3 = self.reshape(self.slice_cols(zero, 0, v), (r, v // 8, 8))
            n3 = self.reshape(self.slice_cols(neg, 0, v), (r, v // 8, 8))
            j = self.iota(1, i32, (r, v // 8, 8))
            lane_key = self.select(z3, self.add(self.add(j, j), n3),
                                   self.splat(-1, i32, (r, v // 8, 8)))
            lane_key = self.reduce(lane_key, 1, sh.MaximumOp, -1)                   # [R, 8]
            has = self.cmp_const("GE", lane_key, 0)
            lane = self.sub(self.splat(8, i32, (r, 8)), self.iota(1, i32, (r, 8)))
            first = self.add(self.add(lane, lane), self.and_(lane_key, self.splat(1, i32, (r, 8))))
            key = self.reduce(self.select(has, first, self.splat(-1, i32, (r, 8))), 1,
                              sh.MaximumOp, -1)                                      # [R]
        if c > v:
            tail = self._first_key(self.slice_cols(zero, v, c), self.slice_cols(neg, v, c))
            key = tail if key is None else self.select(self.cmp_const("GE", key, 0), key, tail)
        inf = self.splat(float("inf"), f32, (r, c))
        seen_lo = self.select(active, x, inf)
        seen_hi = self.select(active, x, self.splat(float("-inf"), f32, (r, c)))
        mn = self.min(self.reduce(seen_lo, 1, sh.MinimumOp, float("inf")),
                      self.splat(FLT_MAX, f32, (r,)))
        mx = self.max(self.reduce(seen_hi, 1, sh.MaximumOp, float("-inf")),
                      self.splat(-FLT_MAX, f32, (r,)))
        if key is None:
            return mn, mx
        return self._signed_zero(key, mn), self._signed_zero(key, mx)

    def pack(self, q: SSAValue, bits: int, segments: bool) -> SSAValue:
        """[R, C] ui8 values -> [R, ceil(C / k)] bytes: consecutive (value c in byte c // k
        at slot c % k) or segment-interleaved (value b*S + i in byte i at slot b)."""
        r, c = shape(q)
        k = 8 // bits
        nb = -(-c // k)
        if nb * k > c:
            q = self.concat([q, self.splat(0, ui8, (r, nb * k - c))], 1)
        slot_dim = 1 if segments else 2
        q = self.reshape(q, (r, k, nb) if segments else (r, nb, k))
        shifts = self.bcast(self.constant([j * bits for j in range(k)], ui8), shape(q), [slot_dim])
        return self.reduce(self.shl(q, shifts), slot_dim, sh.OrOp, 0)

    def unpack(self, data: SSAValue, bits: int, cols: int, segments: bool) -> SSAValue:
        """Inverse of `pack`: [R, nb] bytes -> [R, cols] ui8 values."""
        r, nb = shape(data)
        k = 8 // bits
        shp = (r, k, nb) if segments else (r, nb, k)
        slot_dim = 1 if segments else 2
        wide = self.bcast(data, shp, [0, 2] if segments else [0, 1])
        shifts = self.bcast(self.constant([j * bits for j in range(k)], ui8), shp, [slot_dim])
        vals = self.and_(self.shr(wide, shifts), self.splat((1 << bits) - 1, ui8, shp))
        return self.slice_cols(self.reshape(vals, (r, nb * k)), 0, cols)

    def float_bytes(self, x: SSAValue) -> SSAValue:
        """[R] f32/f16 -> [R, 4 or 2] ui8 (little endian)."""
        r = shape(x)[0]
        return self.bitcast(x, ui8, (r, 4 if element(x) == f32 else 2))

    def bytes_float(self, data: SSAValue, start: int, elem: Attribute) -> SSAValue:
        """Bytes data[:, start:start + 4 or 2] read as one f32 / f16 per row -> [R]."""
        n = 4 if elem == f32 else 2
        return self.bitcast(self.slice_cols(data, start, start + n), elem, (shape(data)[0],))


__all__ = [
    "Builder",
    "element",
    "f16",
    "f32",
    "f64",
    "i1",
    "i32",
    "i64",
    "shape",
    "tensor",
    "ui8",
    "ui64",
]
