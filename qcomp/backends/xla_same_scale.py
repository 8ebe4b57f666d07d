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
(`drop_unit_rescales`).

A divide by a constant normal power of two `2^k` whose reciprocal `2^-k` is normal too
becomes a multiply by `2^-k` (`halve_by_multiplying`): `x / 2^k` and `x * 2^-k` are the
same real number, each rounded once, so the same bits for every `x` (-0.0, NaN, infinities
and XLA's flushing of subnormals included); the divide is what the `-0.0` guard of
`xla_exact` keeps, a multiply is cheaper (the quantize by the MLP's scale 0.5).

An integer round trip through a float, `convert(round(clamp(lo, convert(x) : F, hi))) : J`
(`round` to nearest even or away from zero; the clamp optional), is `x` (converted to
`J` when its type differs) when every value of `x`'s integer type `I` (two bits or more)
is exact in `F` (`|v| <= 2^(mantissa bits + 1)`), `I`'s range lies inside `J`'s, and
the clamp's bounds are constants with `lo <= min(I)` and `hi >= max(I)`: the inner
convert is exact, the clamp and the round change no integer, and the outer convert
gives back `x` (`drop_integer_round_trips`; the `{rescale=float}` lowering leaves one
on each i32 accumulator whose rescale was dropped).
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, IntegerType
from xdsl.ir import Operation, SSAValue

from qcomp.backends.xla_bounds import type_range
from qcomp.dialects import stablehlo as sh
from qcomp.interpreter.values import dense_to_array, element_type, is_float, numpy_dtype
from qcomp.quant.accumulator import unit_rescale_is_exact


def drop_unit_rescales(entry: func.FuncOp) -> int:
    """Rewrite each `(f64(x) * s) / s` of `entry` the module docstring allows; the number
    rewritten."""
    n = 0
    for op in list(entry.walk()):
        if isinstance(op, sh.DivideOp) and (x := _unit_rescale(op)) is not None:
            dead = [op, op.operands[0].owner, op.operands[1].owner, op.operands[1].owner.operands[0].owner
                    if op.operands[1].owner.operands else None]
            op.results[0].replace_all_uses_with(x)
            for d in dead:  # the divide, then the multiply and the scale if nothing else uses them
                if d is not None and d.parent is not None and not any(r.uses for r in d.results):
                    d.detach()
                    d.erase()
            n += 1
    return n


def halve_by_multiplying(entry: func.FuncOp) -> int:
    """Rewrite each float `x / c` of `entry`, `c` a constant (or a broadcast / reshape of
    one) of powers of two with normal reciprocals, as `x * (1 / c)`; the number rewritten."""
    n = 0
    for op in list(entry.walk()):
        if not isinstance(op, sh.DivideOp) or not is_float(element_type(op.results[0].type)):
            continue
        c = op.operands[1].owner
        wide = None
        if isinstance(c, sh.BroadcastInDimOp | sh.ReshapeOp):
            wide, c = c, c.operands[0].owner
        if not isinstance(c, sh.ConstantOp):
            continue
        dt = numpy_dtype(element_type(c.results[0].type))
        if dt.kind != "f" or dt.itemsize < 4:
            continue
        v = dense_to_array(c.value, c.results[0].type)
        mant, _ = np.frexp(v)
        with np.errstate(all="ignore"):
            inv = (np.ones((), dt) / v).astype(dt)
        tiny = np.finfo(dt).tiny  # a subnormal divisor is 0 to XLA (DAZ)
        if not np.all(np.isfinite(v) & (np.abs(mant) == 0.5) & (np.abs(v) >= tiny)
                      & (np.abs(inv) >= tiny) & np.isfinite(inv)):
            continue
        recip = sh.ConstantOp(DenseIntOrFPElementsAttr.from_list(c.results[0].type, inv.ravel().tolist()))
        op.parent_block().insert_op_before(recip, op)
        rhs = recip.results[0]
        if wide is not None:
            w = type(wide).create(operands=[rhs], result_types=[wide.results[0].type],
                                  properties=dict(wide.properties), attributes=dict(wide.attributes))
            op.parent_block().insert_op_before(w, op)
            rhs = w.results[0]
        mul = sh.MultiplyOp(op.operands[0], rhs, op.results[0].type)
        op.parent_block().insert_op_before(mul, op)
        op.results[0].replace_all_uses_with(mul.results[0])
        for d in (op, wide, c):  # the divide, then its divisor if nothing else uses it
            if d is not None and not any(r.uses for r in d.results):
                d.detach()
                d.erase()
        n += 1
    return n


def drop_integer_round_trips(entry: func.FuncOp) -> int:
    """Replace each integer round trip through a float of `entry` (module docstring) by
    its integer; the number replaced."""
    n = 0
    bounds: list[Operation] = []
    for op in list(entry.walk()):
        if op.parent is None or not isinstance(op, sh.ConvertOp):
            continue
        chain = _round_trip(op)
        if chain is None:
            continue
        bounds += [v.owner for c in chain if isinstance(c, sh.ClampOp) for v in (c.operands[0], c.operands[2])
                   if isinstance(v.owner, Operation)]
        x = chain[-1].operands[0]
        block = op.parent_block()
        if x.type == op.results[0].type:
            op.results[0].replace_all_uses_with(x)
        else:
            wide = sh.ConvertOp(x, op.results[0].type)
            block.insert_op_before(wide, op)
            op.results[0].replace_all_uses_with(wide.results[0])
        for d in (op, *chain):  # the chain, outermost first, where nothing else uses it
            if not any(r.uses for r in d.results):
                d.detach()
                d.erase()
        n += 1
    for d in bounds:  # the clamp's bounds, once no clamp uses them
        if d.parent is not None and not any(r.uses for r in d.results):
            d.detach()
            d.erase()
    return n


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
