"""TFLite's fixed-point rescale in float64 where a static bound proves it exact.

`stablehlo-legalize-quant-to-math{rescale=fixed-point}` writes TFLite's
MultiplyByQuantizedMultiplier (`qcomp.passes.quant_to_math.emit.mbqm_ir`) in i64:

    x = v << s;  p = x * M;  h = (p + (p >= 0 ? 2^30 : 1 - 2^30)) / 2^31   (toward zero)
                                = (p + 2^30) >> 31
    r = (h >> e) + ((h & (2^e - 1)) > ((2^e - 1) >> 1) + (h < 0))
      = (h + 2^(e-1) + (h >> 63)) >> e                                    (e >= 1)

about 20 i64 ops per element, which XLA's CPU backend runs four lanes wide; in an int8
MobileNetV2 these chains take most of XLA's time. The same numbers, in float64:

    h = floor(v * (M * 2^(s - 31)) + 1/2)        (the first step rounds half up)
    r = round_nearest_afz(h * 2^-e)              (the second rounds half away from 0)

Both are exact, so equal to the integer steps, when `|v| * M <= 2^52` for every element
(then `v * M * 2^(s-31)` is a float64 of at most 52 significant bits, adding 1/2 is
exact since `s <= 30`, and `h * 2^-e` only moves the exponent) and when the i64 form
does not wrap (`|v| * 2^s * M < 2^62`). `|v|` comes from `qcomp.backends.xla_bounds`
(per channel: the bound of a convolution's output is per output feature), `M`, `s`,
`e` from the chain's constants. The steps around the chain go to float64 with it where
they are exact there too: before it, the integer converts, constant adds (bias, zero
point corrections; adjacent ones summed) and clamps that produce `v` from a float
convolution's exact integer sum (`xla_contractions.float_contractions`) or an integer
value, none wrapping (a clamp its operand's bound never reaches is dropped); after it,
`clamp(r + zp, lo, hi)` and the converts to the storage type, when they hold `[lo, hi]`.

Where the chain ends in that clamp and every channel has `e = 0` or a clamp floor at or
above the zero point (`lo - zp >= 0`: ReLU's, or an int8 output of zero point -128), the
two roundings are one (`t = v * A * 2^-e`, `A = M * 2^(s - 31)`, `d = 2^-(e+1)`, 0 when
`e = 0`):

    clamp(round_afz(floor(v * A + 1/2) * 2^-e) + zp, lo, hi)
        = clamp(floor(t + 1/2 + d + zp), lo, hi)

since for every `k >= 1`, `round_afz(h * 2^-e) >= k` iff `h >= k 2^e - 2^(e-1)` (an
integer for `e >= 1`) iff `v * A + 1/2 >= k 2^e - 2^(e-1)` iff `t + 1/2 + d >= k`; both
sides reach each `k >= 1` at the same `v`, and below that both are at most 0, which the
clamp takes to `lo` (`e = 0`: one rounding already, any `lo`). It is
emitted as `floor(x * A' + K)` (`A' = A * 2^-e`, `K = b * A' + 1/2 + d + zp` with `b` the
chain's constant adds), exact when `max|x| * M + |K| / u <= 2^52` in units `u = 2^(s-31-e)`
of which every term is an integer multiple: 4 float64 ops instead of 8, no
`round_nearest_afz` (MobileNetV2's expansions and depthwise convolutions).
`fixed_point_as_float(module)` rewrites every chain
of `@main`'s body it can prove so; the interpreter is not changed (this is part of
preparing a program for XLA, `qcomp.backends.xla_prepare.for_entry`).
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, TensorType, f64, i64
from xdsl.ir import Operation, SSAValue

from qcomp.backends.xla_bounds import Bounds, magnitude, type_range
from qcomp.dialects import stablehlo as sh
from qcomp.interpreter.values import element_type, shape_of
from qcomp.ir.splat import dense_attr

EXACT_PRODUCT = 2.0 ** 53 - 2.0 ** 30
"""`|v| * M` up to this: the product, an integer below 2^53, and the sum `v * M + 2^(30-s)`
(the half, in units of the product's last place) are exact in float64."""

NO_WRAP = 2.0 ** 62
"""`|v| * 2^s * M` below this: the i64 form does not wrap either."""

_PURE = (sh.ClampOp, sh.AddOp, sh.SubtractOp, sh.MultiplyOp, sh.DivideOp, sh.AndOp, sh.ShiftLeftOp,
         sh.ShiftRightArithmeticOp, sh.CompareOp, sh.SelectOp, sh.ConvertOp, sh.ConstantOp,
         sh.BroadcastInDimOp)


def fixed_point_as_float(module: ModuleOp) -> int:
    """Rewrite the fixed-point rescale chains of the public function's body (module
    docstring); returns how many."""
    n = 0
    for f in module.ops:
        if isinstance(f, func.FuncOp) and f.sym_visibility is None and f.body.blocks.first:
            highs = [op for op in f.body.blocks.first.ops
                     if isinstance(op, sh.DivideOp | sh.ShiftRightArithmeticOp)
                     and element_type(op.results[0].type) == i64]
            if not highs:
                continue  # no chain: spare the bounds' walk
            bounds = Bounds(f.body.blocks.first)
            for op in highs:
                if op.parent is not None:
                    n += _rewrite(op, bounds)
    return n


def _value(bounds: Bounds, v: SSAValue) -> np.ndarray | None:
    """The value of a constant-valued `v` (broadcast constants: equal bounds), in v's
    rank (size-1 dimensions where it is uniform), or None."""
    iv = bounds[v]
    if iv is None or not np.array_equal(iv[0], iv[1]):
        return None
    return iv[0]


def _is(bounds: Bounds, v: SSAValue, c: int) -> bool:
    a = _value(bounds, v)
    return a is not None and bool(np.all(a == c))


def _other(op: Operation, v: SSAValue) -> SSAValue | None:
    a, b = op.operands
    return b if a is v else a if b is v else None


def _match_high_mul(d: Operation, bounds: Bounds):
    """(v, M, s) of `h = (p + nudge(p)) / 2^31` or `h = (p + 2^30) >> 31`,
    `p = (v << s) * M`, or None."""
    if element_type(d.results[0].type) != i64:
        return None
    if isinstance(d, sh.DivideOp) and _is(bounds, d.operands[1], 1 << 31):
        nudged = True
    elif isinstance(d, sh.ShiftRightArithmeticOp) and _is(bounds, d.operands[1], 31):
        nudged = False
    else:
        return None
    add = d.operands[0].owner
    if not isinstance(add, sh.AddOp):
        return None
    for p, sel in (add.operands, reversed(add.operands)):
        if not nudged:
            if not _is(bounds, sel, 1 << 30):
                continue
        elif not _is_nudge(sel, p, bounds):
            continue
        mul = p.owner
        if not isinstance(mul, sh.MultiplyOp):
            continue
        for x, m in (mul.operands, reversed(mul.operands)):
            mv = _value(bounds, m)
            if mv is None or np.any(mv < 0):
                continue
            shift = np.zeros_like(mv)
            if isinstance(x.owner, sh.ShiftLeftOp):
                sv = _value(bounds, x.owner.operands[1])
                if sv is None or np.any(sv < 0) or np.any(sv > 30):
                    continue
                x, shift = x.owner.operands[0], sv
            return x, mv, shift
    return None


def _is_nudge(sel: SSAValue, p: SSAValue, bounds: Bounds) -> bool:
    """`sel` is `p >= 0 ? 2^30 : 1 - 2^30`."""
    s = sel.owner
    if not (isinstance(s, sh.SelectOp) and _is(bounds, s.operands[1], 1 << 30)
            and _is(bounds, s.operands[2], 1 - (1 << 30))):
        return False
    cmp = s.operands[0].owner
    return (isinstance(cmp, sh.CompareOp) and cmp.comparison_direction == "GE"
            and cmp.operands[0] is p and _is(bounds, cmp.operands[1], 0))


def _match_rounding_shift(h: SSAValue, bounds: Bounds):
    """(r, e) of `r = (h >> e) + ((h & mask) > (mask >> 1) + (h < 0))` or of
    `r = (h + 2^(e-1) + (h >> 63)) >> e` (e >= 1), or None."""
    return _match_one_shift(h, bounds) or _match_remainder(h, bounds)


def _match_one_shift(h: SSAValue, bounds: Bounds):
    """(r, e) of `r = ((h + 2^(e-1)) + (h >> 63)) >> e`, or None."""
    for use in h.uses:
        half = use.operation
        if not isinstance(half, sh.AddOp):
            continue
        add = half.results[0].get_user_of_unique_use()
        if not isinstance(add, sh.AddOp):
            continue
        sign = _other(add, half.results[0])
        sra = add.results[0].get_user_of_unique_use()
        if not (sign is not None and isinstance(sign.owner, sh.ShiftRightArithmeticOp)
                and sign.owner.operands[0] is h and _is(bounds, sign.owner.operands[1], 63)
                and isinstance(sra, sh.ShiftRightArithmeticOp)
                and sra.operands[0] is add.results[0]):
            continue
        e = _value(bounds, sra.operands[1])
        if e is None or np.any(e < 1) or np.any(e > 62) \
                or not _is_array(bounds, _other(half, h), 2.0 ** (e - 1)):
            continue
        return sra.results[0], e
    return None


def _match_remainder(h: SSAValue, bounds: Bounds):
    """(r, e) of `r = (h >> e) + ((h & mask) > (mask >> 1) + (h < 0))`, or None."""
    for use in h.uses:
        sra = use.operation
        if not (isinstance(sra, sh.ShiftRightArithmeticOp) and sra.operands[0] is h
                and sra.results[0].has_one_use()):
            continue
        e = _value(bounds, sra.operands[1])
        r = sra.results[0].get_user_of_unique_use()
        if e is None or np.any(e < 0) or np.any(e > 62) or not isinstance(r, sh.AddOp):
            continue
        up = _other(r, sra.results[0])
        gt = up.owner.operands[0].owner if isinstance(up.owner, sh.ConvertOp) else None
        if not (isinstance(gt, sh.CompareOp) and gt.comparison_direction == "GT"):
            continue
        rem, thr = gt.operands[0].owner, gt.operands[1].owner
        mask = 2.0 ** e - 1
        if not (isinstance(rem, sh.AndOp) and h in rem.operands
                and _is_array(bounds, _other(rem, h), mask) and isinstance(thr, sh.AddOp)):
            continue
        for half, neg in (thr.operands, reversed(thr.operands)):
            lt = neg.owner.operands[0].owner if isinstance(neg.owner, sh.ConvertOp) else None
            if (_is_array(bounds, half, np.floor(mask / 2)) and isinstance(lt, sh.CompareOp)
                    and lt.comparison_direction == "LT" and lt.operands[0] is h
                    and _is(bounds, lt.operands[1], 0)):
                return r.results[0], e
    return None


def _is_array(bounds: Bounds, v: SSAValue | None, want: np.ndarray) -> bool:
    a = None if v is None else _value(bounds, v)
    return a is not None and a.shape == np.broadcast_shapes(a.shape, want.shape) \
        and bool(np.all(a == want))


def _rewrite(d: Operation, bounds: Bounds) -> int:
    hm = _match_high_mul(d, bounds)
    if hm is None:
        return 0
    v, mult, shift = hm
    iv = bounds[v]
    if iv is None:
        return 0
    size = magnitude(iv) * mult
    if np.any(size > EXACT_PRODUCT) or np.any(size * 2.0 ** shift >= NO_WRAP):
        return 0
    h = d.results[0]
    rs = _match_rounding_shift(h, bounds)
    block = d.parent_block()
    assert block is not None
    shape = shape_of(h.type)
    t = TensorType(f64, shape)
    anchor = rs[0].owner if rs else d

    def add(op: Operation) -> SSAValue:
        block.insert_op_after(op, anchor if add.last is None else add.last)
        add.last = op
        return op.results[0]
    add.last = None

    def full(values: np.ndarray) -> SSAValue:
        """`values` (v's rank, size-1 dims where uniform) broadcast to `shape`."""
        a = np.asarray(values, np.float64)
        dims = [i for i, n in enumerate(a.shape) if n != 1]
        flat = a.reshape([a.shape[i] for i in dims]) if dims else a.reshape(())
        c = add(sh.ConstantOp(dense_attr(TensorType(f64, list(flat.shape)),
                                         flat.astype("<f8").tobytes())))
        return add(sh.BroadcastInDimOp(c, dims, t))

    src, steps = _source(v, bounds)
    x = add(sh.ConvertOp(src, t))
    tail = _output_steps(rs[0] if rs else h, bounds)
    one = _one_rounding(bounds, src, steps, mult, shift, rs[1] if rs else None, tail)
    if one is not None:  # floor(x * A' + K), clamped: one rounding (module docstring)
        scale, offset, (zp, lo, hi, converts) = one
        y = add(sh.FloorOp(add(sh.AddOp(add(sh.MultiplyOp(x, full(scale), t)), full(offset), t))))
        return _converted(add(sh.ClampOp(full(lo), y, full(hi), t)), converts, bounds, add)
    for kind, *c in steps:
        if kind == "add":
            x = add(sh.AddOp(x, full(c[0]), t))
        else:
            x = add(sh.ClampOp(full(c[0]), x, full(c[1]), t))
    y = add(sh.MultiplyOp(x, full(mult * 2.0 ** (shift - 31)), t))
    y = add(sh.FloorOp(add(sh.AddOp(y, full(np.full((1,) * len(shape), 0.5)), t))))
    if rs is not None:
        r, e = rs
        y = add(sh.RoundNearestAfzOp(add(sh.MultiplyOp(y, full(2.0 ** -e), t))))
    else:
        r = h
    if tail is not None:  # + zero point, clamp, convert to the storage type: in float64 too
        zp, lo, hi, converts = tail
        y = add(sh.ClampOp(full(lo), add(sh.AddOp(y, full(zp), t)), full(hi), t))
        return _converted(y, converts, bounds, add)
    out = add(sh.ConvertOp(y, r.type))
    old = r.owner
    bounds.alias(out, r)
    r.replace_all_uses_with(out)
    _erase_dead([old])
    return 1


def _converted(y: SSAValue, converts: list[Operation], bounds: Bounds, add) -> int:
    """Replace each of `converts` (to the storage types) by a convert of `y`; 1."""
    for cv in converts:
        new = add(sh.ConvertOp(y, cv.results[0].type))
        bounds.alias(new, cv.results[0])
        cv.results[0].replace_all_uses_with(new)
    _erase_dead(converts)
    return 1


def _one_rounding(bounds: Bounds, src: SSAValue, steps: list[tuple], mult: np.ndarray,
                  shift: np.ndarray, e: np.ndarray | None, tail):
    """(A', K, tail) of the one-rounding form `clamp(lo, floor(x * A' + K), hi)` of the
    chain from `src` (module docstring), or None where it does not hold or is not exact."""
    if tail is None or bounds[src] is None or any(kind != "add" for kind, *_ in steps):
        return None
    zp, lo = tail[0], tail[1]
    e = np.zeros_like(mult) if e is None else e
    if not np.all((e == 0) | (lo - zp >= 0)):
        return None
    bias = sum((c for _, c in steps), np.zeros_like(mult))
    # each term an integer multiple of u = 2^(s - 31 - e); all of them below 2^53 u together
    half, up = 2.0 ** (30 + e - shift), np.where(e > 0, 2.0 ** (30 - shift), 0.0)
    units = (magnitude(bounds[src]) + np.abs(bias)) * mult + half + up \
        + np.abs(zp) * 2.0 ** (31 + e - shift)
    if np.any(units > 2.0 ** 52):
        return None
    u = 2.0 ** (shift - 31 - e)
    offset = (bias.astype(np.int64) * mult.astype(np.int64)) * u + (half + up) * u + zp
    return mult * u, offset, tail


def _source(v: SSAValue, bounds: Bounds) -> tuple[SSAValue, list[tuple]]:
    """The value `v` is computed from, and the steps (`("add", c)`, `("clamp", lo, hi)`,
    constants) that compute it: back through integer converts, adds of constants and
    clamps to constants that do not wrap, to an integer value or to the float result
    of a convolution / dot_general of converted integers that `bounds` proves exact
    (`xla_contractions.float_contractions`' form). Each step is exact in float64: every
    value on the way is an integer of magnitude below 2^53."""
    steps: list[tuple] = []
    while v not in bounds.wrapped and float(magnitude(bounds[v]).max()) < 2.0 ** 53:
        op = v.owner
        if isinstance(op, sh.ConvertOp):
            x = op.operands[0]
            if type_range(x.type) is not None:
                v = x
                continue
            if _exact_float_contraction(x, bounds):
                return x, _fold_adds(steps[::-1])
            break
        if isinstance(op, sh.AddOp):
            for x, c in (op.operands, reversed(op.operands)):
                cv = _value(bounds, c)
                if cv is not None and type_range(x.type) is not None:
                    steps.append(("add", cv))
                    v = x
                    break
            else:
                break
            continue
        if isinstance(op, sh.ClampOp):
            lo, hi = _value(bounds, op.operands[0]), _value(bounds, op.operands[2])
            if lo is None or hi is None:
                break
            xlo, xhi = bounds[op.operands[1]]
            if np.any(xlo < lo) or np.any(xhi > hi):  # else the clamp changes nothing
                steps.append(("clamp", lo, hi))
            v = op.operands[1]
            continue
        break
    return v, _fold_adds(steps[::-1])


def _fold_adds(steps: list[tuple]) -> list[tuple]:
    """Adjacent constant adds as one (integers below 2^53: their sum is exact)."""
    out: list[tuple] = []
    for step in steps:
        if out and step[0] == out[-1][0] == "add":
            out[-1] = ("add", out[-1][1] + step[1])
        else:
            out.append(step)
    return out


def _exact_float_contraction(x: SSAValue, bounds: Bounds) -> bool:
    """`x` is a float convolution / dot_general of integers converted to float whose
    bound proves every sum exact (so it holds an integer)."""
    op = x.owner
    return (isinstance(op, (sh.ConvolutionOp, sh.DotGeneralOp)) and bounds[x] is not None
            and all(isinstance(o.owner, sh.ConvertOp) and type_range(o.owner.operands[0].type)
                    is not None for o in op.operands))


def _output_steps(r: SSAValue, bounds: Bounds):
    """(zp, lo, hi, converts) when `r`'s one use is `clamp(lo, r + zp, hi)` (constants)
    whose uses are all converts to integer types that hold `[lo, hi]`, else None."""
    uses = list(r.uses)
    if len(uses) != 1 or not isinstance(uses[0].operation, sh.AddOp):
        return None
    a = uses[0].operation
    zp = _value(bounds, _other(a, r))
    uses = list(a.results[0].uses)
    if zp is None or len(uses) != 1 or not isinstance(uses[0].operation, sh.ClampOp):
        return None
    c = uses[0].operation
    lo, hi = _value(bounds, c.operands[0]), _value(bounds, c.operands[2])
    if lo is None or hi is None or c.operands[1] is not a.results[0]:
        return None
    converts = [u.operation for u in c.results[0].uses]
    for cv in converts:
        tr = type_range(cv.results[0].type) if isinstance(cv, sh.ConvertOp) else None
        if tr is None or np.any(lo < tr[0]) or np.any(hi > tr[1]):
            return None
    if not converts:
        return None
    return zp, lo, hi, converts


def _erase_dead(ops: list[Operation]) -> None:
    """Erase `ops` and then each operand's producer left without uses (the old chain)."""
    todo = list(ops)
    while todo:
        op = todo.pop()
        if op.parent is None or any(r.uses for r in op.results) or op.regions:
            continue
        producers = [v.owner for v in op.operands if isinstance(v.owner, Operation)]
        op.detach()
        op.erase()
        todo.extend(p for p in producers if isinstance(p, _PURE))
