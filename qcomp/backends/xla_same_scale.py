"""A float rescale by a ratio of one, dropped before XLA sees it (same rounded values).

The `{rescale=float}` lowering rescales an integer `x` (a dot_general's accumulator,
say) from the product's scale `s` to the result type's scale; when the two are the same
constant it writes `round(clamp(lo, (f64(x) * s) / s, hi))`. For an integer `x` of at most
32 bits (|x| <= 2^32), integer-valued constant `lo` and `hi`, and a constant `s` that
`qcomp.quant.accumulator.unit_rescale_is_exact` accepts for that bound (finite, normal,
no product overflowing: then `fl(fl(x * s) / s)` is within |x| 2^-52 < 1/2 of `x`, the
clamp keeps it that close to `clamp(x)`, and `round_nearest_even` gives `clamp(x)`),
`(f64(x) * s) / s` becomes `f64(x)` when its only user is such a clamp whose only user
is a `round_nearest_even`: an f64 multiply and divide less per element
(`DropUnitRescale`).

A divide by a constant normal power of two `2^k` whose reciprocal `2^-k` is normal too
becomes a multiply by `2^-k` (`HalveByMultiplying`): `x / 2^k` and `x * 2^-k` are the
same real number, each rounded once, so the same bits for every `x` (-0.0, NaN, infinities
and XLA's flushing of subnormals included); the divide is what the `-0.0` guard of
`xla_exact` keeps, a multiply is cheaper (the quantize by the MLP's scale 0.5).

An integer round trip through a float, `convert(round(clamp(lo, convert(x) : F, hi))) : J`
(`round` to nearest even or away from zero; the clamp optional), is `x` (converted to
`J` when its type differs) when every value of `x`'s integer type `I` (two bits or more)
is exact in `F` (`|v| <= 2^(mantissa bits + 1)`), `I`'s range lies inside `J`'s, and
the clamp's bounds are constants with `lo <= min(I)` and `hi >= max(I)`: the inner
convert is exact, the clamp and the round change no integer, and the outer convert
gives back `x` (`DropIntegerRoundTrip`; the `{rescale=float}` lowering leaves one
on each i32 accumulator whose rescale was dropped).

The three are xDSL `RewritePattern`s applied in one forward walk of the entry function
(`same_scale`, through `qcomp.backends.xla_rewrite.rewrite_once`).
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, IntegerType
from xdsl.ir import Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from qcomp.backends.xla_bounds import type_range
from qcomp.backends.xla_rewrite import erase_unused, rewrite_once
from qcomp.dialects import stablehlo as sh
from qcomp.interpreter.values import dense_to_array, element_type, is_float, numpy_dtype
from qcomp.quant.accumulator import unit_rescale_is_exact


class DropUnitRescale(RewritePattern):
    """`(f64(x) * s) / s` -> `f64(x)` where the module docstring allows it; the multiply
    and the scale erased when nothing else uses them."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: sh.DivideOp, rewriter: PatternRewriter) -> None:
        x = _unit_rescale(op)
        if x is None:
            return
        mul, scale = op.operands[0].owner, op.operands[1].owner
        source = scale.operands[0].owner if isinstance(scale, Operation) and scale.operands else None
        rewriter.replace(op, [], [x])
        erase_unused(rewriter, mul, scale, source)


class HalveByMultiplying(RewritePattern):
    """Float `x / c` -> `x * (1 / c)`, `c` a constant (or a broadcast / reshape of one) of
    powers of two with normal reciprocals; the divisor erased when nothing else uses it."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: sh.DivideOp, rewriter: PatternRewriter) -> None:
        if not is_float(element_type(op.results[0].type)):
            return
        c = op.operands[1].owner
        wide = None
        if isinstance(c, sh.BroadcastInDimOp | sh.ReshapeOp):
            wide, c = c, c.operands[0].owner
        if not isinstance(c, sh.ConstantOp):
            return
        dt = numpy_dtype(element_type(c.results[0].type))
        if dt.kind != "f" or dt.itemsize < 4:
            return
        v = dense_to_array(c.value, c.results[0].type)
        mant, _ = np.frexp(v)
        with np.errstate(all="ignore"):
            inv = (np.ones((), dt) / v).astype(dt)
        tiny = np.finfo(dt).tiny  # a subnormal divisor is 0 to XLA (DAZ)
        if not np.all(np.isfinite(v) & (np.abs(mant) == 0.5) & (np.abs(v) >= tiny)
                      & (np.abs(inv) >= tiny) & np.isfinite(inv)):
            return
        new_ops: list[Operation] = [sh.ConstantOp(DenseIntOrFPElementsAttr.from_list(
            c.results[0].type, inv.ravel().tolist()))]
        if wide is not None:
            new_ops.append(type(wide).create(
                operands=[new_ops[-1].results[0]], result_types=[wide.results[0].type],
                properties=dict(wide.properties), attributes=dict(wide.attributes)))
        new_ops.append(sh.MultiplyOp(op.operands[0], new_ops[-1].results[0], op.results[0].type))
        rewriter.replace(op, new_ops)
        erase_unused(rewriter, wide, c)


class DropIntegerRoundTrip(RewritePattern):
    """An integer round trip through a float (module docstring) -> its integer
    (converted where the types differ); the chain and the clamp's bounds erased where
    nothing else uses them."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: sh.ConvertOp, rewriter: PatternRewriter) -> None:
        chain = _round_trip(op)
        if chain is None:
            return
        bounds = [v.owner for c in chain if isinstance(c, sh.ClampOp) for v in (c.operands[0], c.operands[2])
                  if isinstance(v.owner, Operation)]
        x = chain[-1].operands[0]
        if x.type == op.results[0].type:
            rewriter.replace(op, [], [x])
        else:
            rewriter.replace(op, sh.ConvertOp(x, op.results[0].type))
        erase_unused(rewriter, *chain, *bounds)


def same_scale(entry: func.FuncOp) -> int:
    """The three rewrites over `entry` in one forward walk (a divide tried as a unit
    rescale before a halving; an op is visited after every op before it was rewritten,
    so a round trip's outer convert sees its dropped rescale); how many ops were
    rewritten."""
    return rewrite_once(entry, DropUnitRescale(), HalveByMultiplying(), DropIntegerRoundTrip())


def _round_trip(out: sh.ConvertOp) -> list[Operation] | None:
    """The round, clamp (when there is one) and inner convert of an integer round trip
    ending in `out` (module docstring), or None."""
    out_range = type_range(out.results[0].type)
    rnd = out.operands[0].owner
    if out_range is None or not isinstance(rnd, sh.RoundNearestEvenOp | sh.RoundNearestAfzOp):
        return None
    chain: list[Operation] = [rnd]
    inner = rnd.operands[0].owner
    if isinstance(inner, sh.ClampOp):
        chain.append(inner)
        bounds = [_constant(inner.operands[0]), _constant(inner.operands[2])]
        inner = inner.operands[1].owner
    else:
        bounds = None
    if not isinstance(inner, sh.ConvertOp):
        return None
    chain.append(inner)
    x_range = type_range(inner.operands[0].type)
    dt = numpy_dtype(element_type(inner.results[0].type))
    if x_range is None or dt.kind != "f" or element_type(inner.operands[0].type).width.data < 2:
        return None
    exact = 2.0 ** (np.finfo(dt).nmant + 1)
    lo, hi = x_range
    if max(-lo, hi) > exact or lo < out_range[0] or hi > out_range[1]:
        return None
    if bounds is not None and (bounds[0] is None or bounds[1] is None
                               or not (np.all(bounds[0] <= lo) and np.all(bounds[1] >= hi))):
        return None  # (a NaN bound compares false: kept)
    return chain


def _unit_rescale(div: sh.DivideOp) -> SSAValue | None:
    """The `f64(x)` that `div` (`(f64(x) * s) / s`) may be replaced by, or None."""
    num, s = div.operands
    mul = num.owner
    if not isinstance(mul, sh.MultiplyOp) or s not in mul.operands or not is_float(element_type(div.results[0].type)):
        return None
    if element_type(div.results[0].type).bitwidth != 64:
        return None
    conv = (mul.operands[1] if mul.operands[0] is s else mul.operands[0]).owner
    if not isinstance(conv, sh.ConvertOp):
        return None
    xe = element_type(conv.operands[0].type)
    if not isinstance(xe, IntegerType) or xe.width.data > 32:
        return None
    scales = _constant(s)
    if scales is None or not unit_rescale_is_exact(scales, 1 << xe.width.data):
        return None
    users = [u.operation for u in div.results[0].uses]
    if len(users) != 1 or not isinstance(users[0], sh.ClampOp) or users[0].operands[1] is not div.results[0]:
        return None
    clamp = users[0]
    for bound in (clamp.operands[0], clamp.operands[2]):
        b = _constant(bound)
        if b is None or not np.all(np.isfinite(b)) or not np.all(b == np.round(b)):
            return None
    after = [u.operation for u in clamp.results[0].uses]
    if len(after) != 1 or not isinstance(after[0], sh.RoundNearestEvenOp):
        return None
    return conv.results[0]


def _constant(v: SSAValue) -> np.ndarray | None:
    """The values of a constant, or of a broadcast / reshape of one."""
    op = v.owner
    if isinstance(op, sh.BroadcastInDimOp | sh.ReshapeOp):
        op = op.operands[0].owner
    if not isinstance(op, sh.ConstantOp):
        return None
    return dense_to_array(op.value, op.results[0].type).astype(np.float64)
